// A loadable test module (tvm_module_library) that links the core dynamically.
#include "tests/infra_smoke/smoke_core.h"

extern "C" __attribute__((visibility("default"))) int smoke_module_entry(long value) {
  smoke_core_register("module.value", value);
  return smoke_core_count();
}
