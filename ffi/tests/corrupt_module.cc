// A module whose __tvm_ffi__library_bin claims more data than it has: loading must fail
// with an error, never read out of bounds of what the header promises.
#include <tvm/ffi/c_api.h>

extern "C" {
#define U64(x) (char)((x)&0xFF), 0, 0, 0, 0, 0, 0, 0
// `extern` gives the const array external linkage so the loader can find it.
TVM_FFI_DLL_EXPORT extern const char __tvm_ffi__library_bin[] = {
    U64(24),
    U64(200), U64(0), U64(1)};  // indptr says 200 entries; only 2 follow
}
