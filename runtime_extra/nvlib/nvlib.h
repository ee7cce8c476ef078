/*
 * Opening an NVIDIA library (libnccl.so.2, libcublas.so.13) by dlopen, in this order:
 *   1. the path in an environment variable (TVM_NCCL_LIBRARY, TVM_CUBLAS_LIBRARY): an explicit
 *      choice, so a failure there is reported and nothing else is tried;
 *   2. the file of the pip wheel, found by Python (`runtime.find_nvidia_library(name)`, which
 *      `import tvm` registers: it walks sys.path for nvidia/nccl/lib, nvidia/cu13/lib); the
 *      wheels ship no unversioned names and are not on the loader's path;
 *   3. the soname, through the system's search (ld.so.cache, LD_LIBRARY_PATH).
 * RTLD_LOCAL: the library's symbols stay private; handles are never closed (the libraries
 * keep threads and CUDA state that cannot be torn down safely).
 */
#ifndef TVM_RUNTIME_EXTRA_NVLIB_NVLIB_H_
#define TVM_RUNTIME_EXTRA_NVLIB_NVLIB_H_

#include <dlfcn.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/string.h>

#include <cstdlib>
#include <optional>
#include <string>

namespace tvm {
namespace runtime {
namespace nvlib {

struct OpenedLibrary {
  void* handle = nullptr;  // null when not found
  std::string path;        // what was opened
  std::string error;       // when not found: every place tried, and why each failed
};

inline OpenedLibrary OpenNvidiaLibrary(const char* env_var, const char* wheel_name,
                                       const char* soname) {
  OpenedLibrary out;
  auto attempt = [&out](const std::string& path) {
    void* h = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (h != nullptr) {
      out.handle = h;
      out.path = path;
      return true;
    }
    const char* err = ::dlerror();
    if (!out.error.empty()) out.error += "; ";
    out.error += err ? err : path + ": dlopen failed";
    return false;
  };
  const char* env = std::getenv(env_var);
  if (env != nullptr && env[0] != '\0') {
    attempt(env);
    if (out.handle == nullptr) out.error = std::string(env_var) + "=" + env + ": " + out.error;
    return out;
  }
  std::optional<ffi::Function> finder = ffi::Function::GetGlobal("runtime.find_nvidia_library");
  if (finder.has_value()) {
    std::string wheel_file = (*finder)(wheel_name).cast<ffi::String>();
    if (!wheel_file.empty() && attempt(wheel_file)) return out;
  }
  attempt(soname);
  return out;
}

/*! \brief Resolves `name` in `handle` (nullptr when absent). */
template <typename F>
inline F Symbol(void* handle, const char* name) {
  return reinterpret_cast<F>(::dlsym(handle, name));
}

}  // namespace nvlib
}  // namespace runtime
}  // namespace tvm
#endif  // TVM_RUNTIME_EXTRA_NVLIB_NVLIB_H_
