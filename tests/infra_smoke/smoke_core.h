// Infrastructure smoke test: a tiny "core" library that owns a process-wide registry.
// It only exercises //bazel:tvm_library.bzl; it is not part of the product.
#ifndef TVM_STACK_TESTS_INFRA_SMOKE_SMOKE_CORE_H_
#define TVM_STACK_TESTS_INFRA_SMOKE_SMOKE_CORE_H_

#define SMOKE_CORE_API __attribute__((visibility("default")))

#ifdef __cplusplus
extern "C" {
#endif

// Sets name -> value. Returns 0 on insert, 1 if an existing entry was overwritten.
SMOKE_CORE_API int smoke_core_register(const char* name, long value);
// Writes the value of `name` into *out. Returns 0 if found, -1 otherwise.
SMOKE_CORE_API int smoke_core_lookup(const char* name, long* out);
// Number of entries.
SMOKE_CORE_API int smoke_core_count(void);
// Address of the registry object: equal in every caller iff there is one instance.
SMOKE_CORE_API const void* smoke_core_registry_address(void);

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // TVM_STACK_TESTS_INFRA_SMOKE_SMOKE_CORE_H_
