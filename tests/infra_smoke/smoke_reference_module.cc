// A module compiled against the apache-tvm-ffi wheel's headers but linked against our
// libinfra_smoke_core.so (tvm_reference_module_library), the interop build pattern.
#include <tvm/ffi/c_api.h>

// Our library's symbol, declared by hand: this module gets no headers of ours.
extern "C" int smoke_core_count(void);

static_assert(sizeof(TVMFFIAny) == 16, "TVMFFIAny is 16 bytes in the tvm-ffi ABI");

extern "C" __attribute__((visibility("default"))) int smoke_reference_any_size(void) {
  return static_cast<int>(sizeof(TVMFFIAny));
}

extern "C" __attribute__((visibility("default"))) int smoke_reference_core_count(void) {
  return smoke_core_count();
}
