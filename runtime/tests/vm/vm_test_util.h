// Helpers shared by the VM tests: runfiles, globals, host tensors, error-kind assertions.
#ifndef TVM_RUNTIME_TESTS_VM_VM_TEST_UTIL_H_
#define TVM_RUNTIME_TESTS_VM_VM_TEST_UTIL_H_

#include <gtest/gtest.h>
#include <tvm/ffi/container/shape.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/extra/module.h>
#include <tvm/runtime/tensor.h>
#include <tvm/runtime/vm/builder.h>
#include <tvm/runtime/vm/vm.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace tvm_vm_test {

namespace ffi = tvm::ffi;
namespace rvm = tvm::runtime::vm;

constexpr DLDevice kCPU{kDLCPU, 0};
constexpr DLDataType kF32{kDLFloat, 32, 1};

inline std::string Runfile(const std::string& rel) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* ws = std::getenv("TEST_WORKSPACE");
  if (srcdir == nullptr || ws == nullptr) return rel;
  return std::string(srcdir) + "/" + ws + "/" + rel;
}

inline ffi::Function G(const char* name) { return ffi::Function::GetGlobalRequired(name); }

/*! \brief A float32 CPU tensor holding `values`. */
inline ffi::Tensor F32(const std::vector<int64_t>& shape, const std::vector<float>& values) {
  ffi::Tensor t = tvm::runtime::Empty(shape, kF32, kCPU);
  EXPECT_EQ(static_cast<size_t>(t.numel()), values.size());
  tvm::runtime::CopyFromBytes(t, values.data(), values.size() * sizeof(float));
  return t;
}

inline std::vector<float> Values(const ffi::Tensor& t) {
  std::vector<float> out(static_cast<size_t>(t.numel()));
  tvm::runtime::CopyToBytes(t, out.data(), out.size() * sizeof(float));
  return out;
}

inline std::vector<int64_t> ShapeOf(const ffi::Tensor& t) {
  return std::vector<int64_t>(t.shape(), t.shape() + t.ndim());
}

/*! \brief The executable with `lib` imported (how the VM finds the kernels). */
inline ffi::Module WithImport(ffi::Module exec, const ffi::Module& lib) {
  G("ffi.ModuleImportModule")(exec, lib);
  return exec;
}

}  // namespace tvm_vm_test

/*! \brief Runs `stmt`, expecting an ffi::Error of `kind` whose message contains `text`. */
#define EXPECT_VM_ERROR(stmt, kind_str, text)                                          \
  do {                                                                             \
    bool thrown_ = false;                                                          \
    try {                                                                          \
      stmt;                                                                        \
    } catch (const ::tvm::ffi::Error& e_) {                                        \
      thrown_ = true;                                                              \
      EXPECT_EQ(e_.kind(), kind_str) << e_.FullMessage();                              \
      EXPECT_NE(e_.message().find(text), std::string::npos) << e_.FullMessage();  \
    }                                                                              \
    EXPECT_TRUE(thrown_) << "expected " << kind_str << " from " #stmt;                 \
  } while (0)

#endif  // TVM_RUNTIME_TESTS_VM_VM_TEST_UTIL_H_
