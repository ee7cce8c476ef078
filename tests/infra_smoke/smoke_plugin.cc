#include "tests/infra_smoke/smoke_plugin.h"

#include <string>

#include "tests/infra_smoke/smoke_core.h"

extern "C" {

int smoke_plugin_init(void) {
  const std::string name = std::string("plugin.") + "answer";
  smoke_core_register(name.c_str(), 42);
  return smoke_core_count();
}

const void* smoke_plugin_registry_address(void) { return smoke_core_registry_address(); }

}  // extern "C"
