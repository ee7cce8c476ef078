/*
 * Export marker of the extra C++ API (the out-of-line C++ functions libtvm_ffi exports under
 * apache-tvm-ffi's Itanium names; the list is ffi/tvm_ffi.lds, docs/ffi_cxx_api.md).
 */
#ifndef TVM_FFI_EXTRA_BASE_H_
#define TVM_FFI_EXTRA_BASE_H_

#include <tvm/ffi/c_api.h>

#ifndef TVM_FFI_EXTRA_CXX_API
#define TVM_FFI_EXTRA_CXX_API TVM_FFI_DLL
#endif

#endif  // TVM_FFI_EXTRA_BASE_H_
