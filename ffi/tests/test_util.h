/*
 * Helpers shared by the libtvm_ffi C++ tests.
 */
#ifndef TVM_FFI_TESTS_TEST_UTIL_H_
#define TVM_FFI_TESTS_TEST_UTIL_H_

#include <gtest/gtest.h>
#include <tvm/ffi/function.h>

#include <cstdlib>
#include <cstring>
#include <string>

namespace tvm_ffi_test {

/*! \brief Absolute path of a runfile given its workspace-relative path. */
inline std::string Runfile(const std::string& rel) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* ws = std::getenv("TEST_WORKSPACE");
  if (srcdir == nullptr || ws == nullptr) return rel;
  return std::string(srcdir) + "/" + ws + "/" + rel;
}

/*! \brief Takes the raised error out of the slot; returns its kind ("" if none). */
inline std::string TakeErrorKind(std::string* message = nullptr) {
  TVMFFIObjectHandle err = nullptr;
  TVMFFIErrorMoveFromRaised(&err);
  if (err == nullptr) return "";
  const TVMFFIErrorCell* cell = TVMFFIErrorGetCellPtr(err);
  std::string kind(cell->kind.data, cell->kind.size);
  if (message != nullptr) *message = std::string(cell->message.data, cell->message.size);
  TVMFFIObjectDecRef(err);
  return kind;
}

/*! \brief Strong reference count of an object. */
inline int32_t UseCount(const tvm::ffi::Object* obj) { return obj->use_count(); }

/*! \brief A borrowed byte array over a literal or a living std::string (never a temporary). */
inline TVMFFIByteArray Bytes(const char* s) { return TVMFFIByteArray{s, std::strlen(s)}; }
inline TVMFFIByteArray Bytes(const std::string& s) { return TVMFFIByteArray{s.data(), s.size()}; }
TVMFFIByteArray Bytes(std::string&&) = delete;

}  // namespace tvm_ffi_test

#define EXPECT_THROW_KIND(stmt, kind_str)                                   \
  do {                                                                      \
    bool thrown = false;                                                    \
    try {                                                                   \
      stmt;                                                                 \
    } catch (const ::tvm::ffi::Error& e) {                                  \
      thrown = true;                                                        \
      EXPECT_EQ(e.kind(), kind_str) << e.message();                         \
    }                                                                       \
    EXPECT_TRUE(thrown) << "expected " << kind_str << " from " #stmt;       \
  } while (0)

#endif  // TVM_FFI_TESTS_TEST_UTIL_H_
