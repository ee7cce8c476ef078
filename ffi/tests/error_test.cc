// Errors: the raised slot's ownership rules, kinds, messages, backtraces, chaining.
#include <tvm/ffi/function.h>

#include <thread>

#include "test_util.h"

namespace {
using namespace tvm::ffi;
using tvm_ffi_test::Bytes;
using tvm_ffi_test::TakeErrorKind;

TVM_FFI_NO_INLINE void ThrowDeep(int depth) {
  if (depth <= 0) {
    TVM_FFI_THROW(IndexError) << "deep error " << 42;
  } else {
    ThrowDeep(depth - 1);
    asm volatile("");  // keeps the recursive frames on the stack (no tail call)
  }
}

TEST(Error, ThrowCarriesKindMessageAndBacktrace) {
  try {
    ThrowDeep(3);
    FAIL() << "no throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), "IndexError");
    EXPECT_EQ(e.message(), "deep error 42");
    std::string bt = e.backtrace();
    // The first frame is the throw site; named frames follow, most recent first.
    EXPECT_EQ(bt.find("  File \""), 0u) << bt;
    EXPECT_NE(bt.find("error_test.cc"), std::string::npos) << bt;
    EXPECT_NE(bt.find("ThrowDeep"), std::string::npos) << bt;
    std::string full = e.FullMessage();
    EXPECT_EQ(full.find("Traceback (most recent call last):\n"), 0u);
    EXPECT_NE(full.find("IndexError: deep error 42\n"), std::string::npos);
  }
}

TEST(Error, SetRaisedTakesItsOwnReference) {
  Error err("ValueError", "boom", "");
  int32_t before = err.use_count();
  TVMFFIErrorSetRaised(details::ObjectUnsafe::ToHandle(err.get()));
  EXPECT_EQ(err.use_count(), before + 1);
  TVMFFIObjectHandle moved = nullptr;
  TVMFFIErrorMoveFromRaised(&moved);
  EXPECT_EQ(moved, details::ObjectUnsafe::ToHandle(err.get()));
  EXPECT_EQ(err.use_count(), before + 1);  // ownership moved to us, slot now empty
  TVMFFIObjectDecRef(moved);
  EXPECT_EQ(err.use_count(), before);
  TVMFFIErrorMoveFromRaised(&moved);
  EXPECT_EQ(moved, nullptr);
}

TEST(Error, ReplacingARaisedErrorReleasesTheOldOne) {
  Error first("ValueError", "first", "");
  TVMFFIErrorSetRaised(details::ObjectUnsafe::ToHandle(first.get()));
  TVMFFIErrorSetRaisedFromCStr("TypeError", "second");
  EXPECT_EQ(first.use_count(), 1);
  std::string msg;
  EXPECT_EQ(TakeErrorKind(&msg), "TypeError");
  EXPECT_EQ(msg, "second");
}

TEST(Error, FromCStrParts) {
  const char* parts[] = {"a", nullptr, "b", "c"};
  TVMFFIErrorSetRaisedFromCStrParts("KeyError", parts, 4);
  std::string msg;
  EXPECT_EQ(TakeErrorKind(&msg), "KeyError");
  EXPECT_EQ(msg, "abc");
}

TEST(Error, SlotIsPerThread) {
  TVMFFIErrorSetRaisedFromCStr("ValueError", "main thread");
  std::string other;
  std::thread t([&other] { other = TakeErrorKind(); });
  t.join();
  EXPECT_EQ(other, "");
  EXPECT_EQ(TakeErrorKind(), "ValueError");
}

TEST(Error, CreateWithCauseAndUpdateBacktrace) {
  Error cause("RuntimeError", "root cause", "");
  TVMFFIByteArray kind = Bytes("ValueError"), msg = Bytes("outer"), bt = Bytes("  File \"x\", line 1, in f\n");
  TVMFFIObjectHandle h = nullptr;
  ASSERT_EQ(TVMFFIErrorCreateWithCauseAndExtraContext(&kind, &msg, &bt,
                                                      details::ObjectUnsafe::ToHandle(cause.get()),
                                                      nullptr, &h), 0);
  EXPECT_EQ(cause.use_count(), 2);
  TVMFFIErrorCell* cell = TVMFFIErrorGetCellPtr(h);
  EXPECT_EQ(cell->cause_chain, details::ObjectUnsafe::ToHandle(cause.get()));
  EXPECT_EQ(cell->message.data[cell->message.size], '\0');
  TVMFFIByteArray extra = Bytes("  File \"y\", line 2, in g\n");
  cell->update_backtrace(h, &extra, kTVMFFIBacktraceUpdateModeAppend);
  EXPECT_EQ(std::string(cell->backtrace.data, cell->backtrace.size),
            "  File \"x\", line 1, in f\n  File \"y\", line 2, in g\n");
  cell->update_backtrace(h, &extra, kTVMFFIBacktraceUpdateModeReplace);
  EXPECT_EQ(std::string(cell->backtrace.data, cell->backtrace.size), "  File \"y\", line 2, in g\n");
  TVMFFIObjectDecRef(h);
  EXPECT_EQ(cause.use_count(), 1);
}

TEST(Error, PropagatesThroughFunctionsWithKind) {
  Function inner = Function::FromTyped([](int x) -> int {
    TVM_FFI_CHECK(x > 0, ValueError) << "x must be positive";
    return x;
  }, "inner");
  Function outer = Function::FromTyped([inner](int x) { return inner(x).cast<int>() + 1; }, "outer");
  EXPECT_EQ(outer(1).cast<int>(), 2);
  try {
    outer(-1);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), "ValueError");
    EXPECT_NE(e.message().find("x must be positive"), std::string::npos);
  }
  // A std::exception crossing the boundary becomes InternalError.
  Function std_throw = Function::FromTyped([]() { throw std::out_of_range("oops"); });
  EXPECT_THROW_KIND(std_throw(), "InternalError");
}

TEST(Error, BacktraceOfEmptyRequestIsValid) {
  const TVMFFIByteArray* bt = TVMFFIBacktrace(nullptr, 0, nullptr, 0);
  ASSERT_NE(bt, nullptr);
  EXPECT_EQ(bt->data[bt->size], '\0');
  const TVMFFIByteArray* with_site = TVMFFIBacktrace("file.cc", 7, "func", 1);
  EXPECT_EQ(std::string(with_site->data, with_site->size).find("  File \"file.cc\", line 7, in func\n"), 0u);
}

}  // namespace
