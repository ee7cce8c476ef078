// Infrastructure smoke test: a plugin library that uses the core's registry through
// DT_NEEDED libinfra_smoke_core.so (never a static copy).
#ifndef TVM_STACK_TESTS_INFRA_SMOKE_SMOKE_PLUGIN_H_
#define TVM_STACK_TESTS_INFRA_SMOKE_SMOKE_PLUGIN_H_

#define SMOKE_PLUGIN_API __attribute__((visibility("default")))

#ifdef __cplusplus
extern "C" {
#endif

// Registers "plugin.answer" = 42 in the core registry. Returns the entry count.
SMOKE_PLUGIN_API int smoke_plugin_init(void);
// The core registry address as seen from the plugin.
SMOKE_PLUGIN_API const void* smoke_plugin_registry_address(void);

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // TVM_STACK_TESTS_INFRA_SMOKE_SMOKE_PLUGIN_H_
