/*
 * Test-only introspection of the fake CUDA driver (fake_cuda.c). The fake stands in for
 * libcuda.so.1 to test the runtime's HOST-SIDE logic only (driver probing, error mapping,
 * argument packing, copies, streams) over host memory; it runs no real GPU code.
 */
#ifndef TVM_RUNTIME_CUDA_TESTS_FAKE_CUDA_H_
#define TVM_RUNTIME_CUDA_TESTS_FAKE_CUDA_H_

#include <stddef.h>

#define FAKE_CUDA_MAX_PARAMS 64
#define FAKE_CUDA_PARAM_BYTES 2048

/* What the last cuLaunchKernelEx received. */
typedef struct {
  char name[128];                        /* kernel (PTX .entry) name */
  unsigned grid[3];
  unsigned block[3];
  unsigned shared_mem_bytes;
  void* stream;
  void* context;                         /* current context at launch */
  int num_params;                        /* from the PTX .entry signature */
  size_t param_size[FAKE_CUDA_MAX_PARAMS];
  unsigned char params[FAKE_CUDA_PARAM_BYTES]; /* the parameters' bytes, concatenated */
  int max_dynamic_shared_attr;           /* CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES set
                                            on the function, or -1 */
} FakeCudaLaunch;

/* Counters since load (or fake_cuda_reset). */
typedef struct {
  int launches;
  int module_loads;
  int module_unloads;
  int live_allocations;
  int live_streams;
  int ctx_set_current;
  int primary_ctx_retains;
  size_t last_image_size;     /* strlen for PTX (the runtime must NUL-terminate), else 0 */
  unsigned char last_image_head[16];
} FakeCudaStats;

int fake_cuda_last_launch(FakeCudaLaunch* out); /* 0 when there was one */
void fake_cuda_stats(FakeCudaStats* out);
void fake_cuda_reset(void);

#endif
