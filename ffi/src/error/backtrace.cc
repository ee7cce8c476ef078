/*
 * TVMFFIBacktrace: the calling thread's stack as text, one frame per line, most recent first,
 * in the `  File "<file>", line <n>, in <func>` form the Python side parses.
 *
 * Frames are found with the unwinder of libgcc (no extra dependency) and named with dladdr and
 * the C++ demangler. Without debug information there are no line numbers, so the file is the
 * shared object and the line is 0; the function names are what matter for reading a trace.
 */
#include <cxxabi.h>
#include <dlfcn.h>
#include <tvm/ffi/c_api.h>
#include <unwind.h>

#include <cstdlib>
#include <cstring>
#include <string>

namespace tvm {
namespace ffi {
namespace {

constexpr int kDefaultLimit = 512;

int FrameLimit() {
  static const int limit = [] {
    const char* env = std::getenv("TVM_TRACEBACK_LIMIT");
    int value = env != nullptr ? std::atoi(env) : kDefaultLimit;
    return value > 0 ? value : kDefaultLimit;
  }();
  return limit;
}

/*! \brief Symbols at which a trace stops: the call came in through the FFI from a host. */
bool IsBoundary(const char* symbol) {
  static const char* kPrefixes[] = {"TVMFFIFunctionCall", "slot_tp_call", "_Py", "PyObject_",
                                    "ffi_call", "_PyEval"};
  for (const char* p : kPrefixes) {
    if (std::strncmp(symbol, p, std::strlen(p)) == 0) return true;
  }
  return false;
}

/*! \brief Frames that only describe how the error was built, not where it happened. */
bool IsErrorPlumbing(const std::string& name) {
  static const char* kMarkers[] = {"TVMFFIBacktrace", "TVMFFIErrorSetRaised",
                                   "tvm::ffi::details::ErrorBuilder", "tvm::ffi::(anonymous namespace)::SetRaisedNew"};
  for (const char* m : kMarkers) {
    if (name.find(m) != std::string::npos) return true;
  }
  return false;
}

struct WalkState {
  std::string* out;
  int cross_boundary;
  int frames;
  int limit;
};

_Unwind_Reason_Code VisitFrame(struct _Unwind_Context* ctx, void* arg) {
  WalkState* state = static_cast<WalkState*>(arg);
  uintptr_t pc = _Unwind_GetIP(ctx);
  if (pc == 0) return _URC_END_OF_STACK;
  Dl_info info;
  std::memset(&info, 0, sizeof(info));
  // pc - 1 points into the call instruction, which keeps the frame inside the right function.
  if (dladdr(reinterpret_cast<void*>(pc - 1), &info) == 0 || info.dli_sname == nullptr) {
    return _URC_NO_REASON;  // unnamed frame (stripped or static): skip it
  }
  if (!state->cross_boundary && IsBoundary(info.dli_sname)) return _URC_END_OF_STACK;
  int status = 0;
  char* demangled = abi::__cxa_demangle(info.dli_sname, nullptr, nullptr, &status);
  std::string name = (status == 0 && demangled != nullptr) ? demangled : info.dli_sname;
  std::free(demangled);
  if (IsErrorPlumbing(name)) return _URC_NO_REASON;
  *state->out += "  File \"";
  *state->out += info.dli_fname != nullptr ? info.dli_fname : "<unknown>";
  *state->out += "\", line 0, in ";
  *state->out += name;
  *state->out += "\n";
  if (++state->frames >= state->limit) return _URC_END_OF_STACK;
  return _URC_NO_REASON;
}

}  // namespace
}  // namespace ffi
}  // namespace tvm

extern "C" const TVMFFIByteArray* TVMFFIBacktrace(const char* filename, int lineno,
                                                   const char* func, int cross_ffi_boundary) {
  thread_local std::string text;
  thread_local TVMFFIByteArray result;
  text.clear();
  try {
    if (filename != nullptr && func != nullptr) {
      text += "  File \"";
      text += filename;
      text += "\", line " + std::to_string(lineno) + ", in ";
      text += func;
      text += "\n";
    }
    tvm::ffi::WalkState state{&text, cross_ffi_boundary, 0, tvm::ffi::FrameLimit()};
    _Unwind_Backtrace(tvm::ffi::VisitFrame, &state);
  } catch (...) {
    // Out of memory while describing an error: return what we have.
  }
  result.data = text.c_str();
  result.size = text.size();
  return &result;
}
