/*
 * A fake libcuda.so.1 for tests: the driver entry points libtvm_runtime_cuda uses, over host
 * memory. It stands in for the driver to test host-side logic only: probing, error mapping,
 * contexts, copies (memcpy), streams (plain handles), module loading (records the image; PTX
 * .entry signatures, and a real cubin's EIATTR_KPARAM_INFO, give kernels and parameter sizes)
 * and launches (records grid, block, dynamic shared memory, stream and the parameter bytes).
 * cuGetExportTable and cuTensorMapEncodeTiled exist for libraries that need them to load or
 * initialise (NVRTC 13, apache-tvm's runtime) and return CUDA_ERROR_NOT_SUPPORTED. Two kernels
 * are emulated on the host so a VM program can run end to end: `fake_vadd_f32(float* a,
 * float* b, float* c, int n)` (c = a + b) and `fake_fill_i32(int* p, int value, int n)`.
 *
 * Configuration (read at each call):
 *   FAKE_CUDA_INIT_RESULT    cuInit's result (e.g. 100, 34, 803, 804); default 0
 *   FAKE_CUDA_DRIVER_VERSION cuDriverGetVersion's value; default 13000
 *   FAKE_CUDA_DEVICE_COUNT   default 1
 *   FAKE_CUDA_FAIL           name of an entry point (base name, e.g. cuLaunchKernelEx) that
 *                            fails with FAKE_CUDA_FAIL_RESULT (default 1, INVALID_VALUE)
 */
#define _POSIX_C_SOURCE 200809L  /* strdup, posix_memalign */

#include <cuda.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_cuda.h"

#define EXPORT __attribute__((visibility("default")))

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int initialized = 0;
static FakeCudaStats stats;
static FakeCudaLaunch last_launch;
static int has_launch = 0;

static int env_int(const char* name, int dflt) {
  const char* v = getenv(name);
  return (v && *v) ? atoi(v) : dflt;
}

/* Forced failure of entry point `name`. */
static CUresult forced(const char* name) {
  const char* v = getenv("FAKE_CUDA_FAIL");
  if (v && strcmp(v, name) == 0) return (CUresult)env_int("FAKE_CUDA_FAIL_RESULT", 1);
  return CUDA_SUCCESS;
}

#define ENTER(name)                                        \
  do {                                                     \
    CUresult forced_ = forced(name);                       \
    if (forced_ != CUDA_SUCCESS) return forced_;           \
    if (!initialized) return CUDA_ERROR_NOT_INITIALIZED;   \
  } while (0)

static int device_count(void) { return env_int("FAKE_CUDA_DEVICE_COUNT", 1); }

/* ---- allocations (tracked so bad device pointers are caught) ---- */
typedef struct Alloc {
  char* ptr;
  size_t size;
  struct Alloc* next;
} Alloc;
static Alloc* allocs = NULL;

/* The allocation containing [p, p + n), or NULL. Caller holds mu. */
static Alloc* find_alloc(const void* p, size_t n) {
  for (Alloc* a = allocs; a; a = a->next) {
    const char* c = (const char*)p;
    if (c >= a->ptr && c + n <= a->ptr + a->size) return a;
  }
  return NULL;
}

/* ---- contexts ---- */
typedef struct {
  int device;
} FakeCtx;
static FakeCtx contexts[16];
static __thread CUcontext current_ctx = NULL;

/* ---- streams ---- */
typedef struct {
  uint32_t magic;
} FakeStream;
#define STREAM_MAGIC 0x57EA4u

static int valid_stream(CUstream s) {
  return s == NULL || s == CU_STREAM_LEGACY || s == CU_STREAM_PER_THREAD ||
         ((FakeStream*)s)->magic == STREAM_MAGIC;
}

/* ---- modules and functions ---- */
typedef struct FakeFunc {
  char name[128];
  int num_params;
  size_t param_size[FAKE_CUDA_MAX_PARAMS];
  int max_dyn_smem;
} FakeFunc;

typedef struct {
  uint32_t magic;
  char* ptx; /* NULL for binary images */
  unsigned char* elf; /* a copy of a real cubin (see elf_image_size), else NULL */
  size_t elf_size;
  FakeFunc funcs[32];
  int num_funcs;
} FakeModule;
#define MODULE_MAGIC 0x30D0u

/* Size of a PTX parameter declaration such as ".param .u64 .ptr .global .align 1 p" or
 * ".param .align 2 .b8 p[2]". */
static size_t param_size(const char* decl, const char* end) {
  const char* lb = memchr(decl, '[', end - decl);
  if (lb) return (size_t)atoi(lb + 1);
  const char* types[] = {".u64", ".s64", ".b64", ".f64", ".u32", ".s32", ".b32", ".f32",
                         ".u16", ".s16", ".b16", ".f16", ".u8", ".s8", ".b8"};
  size_t sizes[] = {8, 8, 8, 8, 4, 4, 4, 4, 2, 2, 2, 2, 1, 1, 1};
  for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); ++i) {
    const char* t = strstr(decl, types[i]);
    if (t && t < end) return sizes[i];
  }
  return 0;
}

/* Finds `.entry name(` in the PTX and records its parameters. */
static int parse_entry(const char* ptx, const char* name, FakeFunc* f) {
  const char* p = ptx;
  size_t n = strlen(name);
  while ((p = strstr(p, ".entry ")) != NULL) {
    p += 7;
    while (*p == ' ') ++p;
    if (strncmp(p, name, n) == 0 && (p[n] == '(' || p[n] == ' ' || p[n] == '\n')) {
      const char* open = strchr(p, '(');
      const char* close = open ? strchr(open, ')') : NULL;
      if (!close) return 0;
      snprintf(f->name, sizeof(f->name), "%s", name);
      f->num_params = 0;
      f->max_dyn_smem = -1;
      const char* q = open + 1;
      while ((q = strstr(q, ".param")) != NULL && q < close) {
        const char* e = strchr(q, ',');
        if (!e || e > close) e = close;
        if (f->num_params < FAKE_CUDA_MAX_PARAMS) f->param_size[f->num_params++] = param_size(q, e);
        q = e;
      }
      return 1;
    }
  }
  return 0;
}

/* ---- cubins: parameter sizes from the kernel's EIATTR_KPARAM_INFO attributes ---- */
static uint16_t rd16(const unsigned char* p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t rd32(const unsigned char* p) { return (uint32_t)rd16(p) | (uint32_t)rd16(p + 2) << 16; }
static uint64_t rd64(const unsigned char* p) { return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32; }

/* The size of a real cubin (64-bit little-endian ELF, ET_EXEC, EM_CUDA, standard header
 * sizes), computed from its headers (cuModuleLoadData gets no size); 0 for anything else, such
 * as the tests' fake "cubins" (then functions are looked up by any name, parameters unknown). */
static size_t elf_image_size(const unsigned char* b) {
  if (!(b[0] == 0x7f && b[1] == 'E' && b[2] == 'L' && b[3] == 'F') || b[4] != 2 || b[5] != 1 ||
      rd16(b + 0x10) != 2 || rd16(b + 0x12) != 190 || rd16(b + 0x34) != 64 ||
      rd16(b + 0x3a) != 64 || rd16(b + 0x3c) > 4096) {
    return 0;
  }
  uint64_t shoff = rd64(b + 0x28), phoff = rd64(b + 0x20);
  unsigned shnum = rd16(b + 0x3c), phnum = rd16(b + 0x38), phentsize = rd16(b + 0x36);
  uint64_t size = shoff + (uint64_t)shnum * 64;
  if (phoff + (uint64_t)phnum * phentsize > size) size = phoff + (uint64_t)phnum * phentsize;
  for (unsigned i = 0; i < shnum; ++i) {
    const unsigned char* sh = b + shoff + (uint64_t)i * 64;
    if (rd32(sh + 4) == 8) continue; /* SHT_NOBITS */
    uint64_t end = rd64(sh + 0x18) + rd64(sh + 0x20);
    if (end > size) size = end;
  }
  return (size_t)size;
}

/* Fills f's parameters from section ".nv.info.<name>" (attributes: u8 format, u8 attribute;
 * format 4 (EIFMT_SVAL) has a u16 size and that many bytes, others 2 bytes; EIATTR_KPARAM_INFO
 * (0x17) is {u32 index, u16 ordinal, u16 offset, u32 flags with the size in bits 18..31}).
 * 0 when the cubin has no such section (no kernel of that name). */
static int parse_cubin_params(const unsigned char* b, size_t n, const char* name, FakeFunc* f) {
  uint64_t shoff = rd64(b + 0x28);
  unsigned shnum = rd16(b + 0x3c), shstrndx = rd16(b + 0x3e);
  if (shstrndx >= shnum) return 0;
  uint64_t strtab = rd64(b + shoff + (uint64_t)shstrndx * 64 + 0x18);
  char want[160];
  snprintf(want, sizeof(want), ".nv.info.%s", name);
  for (unsigned i = 0; i < shnum; ++i) {
    const unsigned char* sh = b + shoff + (uint64_t)i * 64;
    uint64_t name_off = strtab + rd32(sh);
    if (name_off >= n || strncmp((const char*)b + name_off, want, n - name_off) != 0) continue;
    uint64_t p = rd64(sh + 0x18), end = p + rd64(sh + 0x20);
    if (end > n) return 0;
    snprintf(f->name, sizeof(f->name), "%s", name);
    f->num_params = 0;
    f->max_dyn_smem = -1;
    while (p + 4 <= end) {
      unsigned fmt = b[p], attr = b[p + 1];
      if (fmt != 4) {
        p += 4;
        continue;
      }
      unsigned size = rd16(b + p + 2);
      if (attr == 0x17 && size >= 12 && p + 4 + size <= end) {
        unsigned ordinal = rd16(b + p + 8);
        if (ordinal < FAKE_CUDA_MAX_PARAMS) {
          f->param_size[ordinal] = rd32(b + p + 12) >> 18;
          if ((int)ordinal + 1 > f->num_params) f->num_params = (int)ordinal + 1;
        }
      }
      p += 4 + size;
    }
    return 1;
  }
  return 0;
}

/* ---- entry points ---- */

EXPORT CUresult CUDAAPI cuInit(unsigned int flags) {
  (void)flags;
  CUresult r = (CUresult)env_int("FAKE_CUDA_INIT_RESULT", 0);
  if (r == CUDA_SUCCESS) initialized = 1;
  return r;
}

EXPORT CUresult CUDAAPI cuDriverGetVersion(int* v) {
  CUresult f = forced("cuDriverGetVersion");
  if (f) return f;
  *v = env_int("FAKE_CUDA_DRIVER_VERSION", 13000);
  return CUDA_SUCCESS;
}

static const struct {
  CUresult code;
  const char* name;
  const char* text;
} errors[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {CUDA_ERROR_DEINITIALIZED, "CUDA_ERROR_DEINITIALIZED", "driver shutting down"},
    {CUDA_ERROR_STUB_LIBRARY, "CUDA_ERROR_STUB_LIBRARY", "CUDA driver is a stub library"},
    {CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
    {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {CUDA_ERROR_INVALID_PTX, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
    {CUDA_ERROR_UNSUPPORTED_PTX_VERSION, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
     "the provided PTX was compiled with an unsupported toolchain."},
    {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
     "too many resources requested for launch"},
    {CUDA_ERROR_LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"},
    {CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH",
     "system has unsupported display driver / cuda driver combination"},
    {CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE",
     "forward compatibility was attempted on non supported HW"},
    {CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported"},
    {CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN", "unknown error"},
};

EXPORT CUresult CUDAAPI cuGetErrorName(CUresult e, const char** out) {
  for (size_t i = 0; i < sizeof(errors) / sizeof(errors[0]); ++i) {
    if (errors[i].code == e) {
      *out = errors[i].name;
      return CUDA_SUCCESS;
    }
  }
  *out = NULL;
  return CUDA_ERROR_INVALID_VALUE;
}

EXPORT CUresult CUDAAPI cuGetErrorString(CUresult e, const char** out) {
  for (size_t i = 0; i < sizeof(errors) / sizeof(errors[0]); ++i) {
    if (errors[i].code == e) {
      *out = errors[i].text;
      return CUDA_SUCCESS;
    }
  }
  *out = NULL;
  return CUDA_ERROR_INVALID_VALUE;
}

EXPORT CUresult CUDAAPI cuDeviceGetCount(int* count) {
  ENTER("cuDeviceGetCount");
  *count = device_count();
  return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuDeviceGet(CUdevice* dev, int ordinal) {
  ENTER("cuDeviceGet");
  if (ordinal < 0 || ordinal >= device_count() || ordinal >= 16) return CUDA_ERROR_INVALID_DEVICE;
  *dev = ordinal;
  return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuDeviceGetAttribute(int* v, CUdevice_attribute attr, CUdevice dev) {
  ENTER("cuDeviceGetAttribute");
  if (dev < 0 || dev >= device_count()) return CUDA_ERROR_INVALID_DEVICE;
  switch (attr) {  /* an H200-like device */
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *v = 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X: *v = 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: *v = 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: *v = 64; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: *v = 49152; break;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE: *v = 32; break;
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK: *v = 65536; break;
    case CU_DEVICE_ATTRIBUTE_CLOCK_RATE: *v = 1980000; break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *v = 132; break;
    case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: *v = 62914560; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *v = 9; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *v = 0; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: *v = 232448; break;
    default: return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuDeviceGetName(char* name, int len, CUdevice dev) {
  ENTER("cuDeviceGetName");
  if (dev < 0 || dev >= device_count()) return CUDA_ERROR_INVALID_DEVICE;
  snprintf(name, (size_t)len, "Fake CUDA Device %d (host memory)", dev);
  return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuDeviceTotalMem(size_t* bytes, CUdevice dev) {
  ENTER("cuDeviceTotalMem");
  if (dev < 0 || dev >= device_count()) return CUDA_ERROR_INVALID_DEVICE;
  *bytes = (size_t)8 << 30;
  return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext* ctx, CUdevice dev) {
  ENTER("cuDevicePrimaryCtxRetain");
  if (dev < 0 || dev >= device_count() || dev >= 16) return CUDA_ERROR_INVALID_DEVICE;
  contexts[dev].device = dev;
  *ctx = (CUcontext)&contexts[dev];
  pthread_mutex_lock(&mu);
  stats.primary_ctx_retains++;
  pthread_mutex_unlock(&mu);
  return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuCtxGetCurrent(CUcontext* ctx) {
  ENTER("cuCtxGetCurrent");
  *ctx = current_ctx;
  return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuCtxSetCurrent(CUcontext ctx) {
  ENTER("cuCtxSetCurrent");
  current_ctx = ctx;
  pthread_mutex_lock(&mu);
  stats.ctx_set_current++;
  pthread_mutex_unlock(&mu);
  return CUDA_SUCCESS;
}

#define NEED_CTX() \
  do {             \
    if (current_ctx == NULL) return CUDA_ERROR_INVALID_CONTEXT; \
  } while (0)

EXPORT CUresult CUDAAPI cuMemAlloc(CUdeviceptr* out, size_t n) {
  ENTER("cuMemAlloc");
  NEED_CTX();
  if (n == 0) return CUDA_ERROR_INVALID_VALUE;
  if (n > ((size_t)8 << 30)) return CUDA_ERROR_OUT_OF_MEMORY;
  Alloc* a = (Alloc*)malloc(sizeof(Alloc));
  void* p = NULL;
  if (!a || posix_memalign(&p, 256, n) != 0) {
    free(a);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  memset(p, 0xCD, n);  /* like fresh device memory: garbage, not zeros */
  a->ptr = (char*)p;
  a->size = n;
  pthread_mutex_lock(&mu);
  a->next = allocs;
  allocs = a;
  stats.live_allocations++;
  pthread_mutex_unlock(&mu);
  *out = (CUdeviceptr)(uintptr_t)p;
  return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuMemFree(CUdeviceptr ptr) {
  ENTER("cuMemFree");
  NEED_CTX();
  pthread_mutex_lock(&mu);
  for (Alloc** pa = &allocs; *pa; pa = &(*pa)->next) {
    if ((*pa)->ptr == (char*)(uintptr_t)ptr) {
      Alloc* a = *pa;
      *pa = a->next;
      stats.live_allocations--;
      pthread_mutex_unlock(&mu);
      free(a->ptr);
      free(a);
      return CUDA_SUCCESS;
    }
  }
  pthread_mutex_unlock(&mu);
  return CUDA_ERROR_INVALID_VALUE;
}

EXPORT CUresult CUDAAPI cuMemGetInfo(size_t* free_bytes, size_t* total) {
  ENTER("cuMemGetInfo");
  NEED_CTX();
  *total = (size_t)8 << 30;
  *free_bytes = (size_t)6 << 30;
  return CUDA_SUCCESS;
}

/* Checks that [p, p+n) lies in one fake device allocation. */
static CUresult check_dev(CUdeviceptr p, size_t n) {
  pthread_mutex_lock(&mu);
  Alloc* a = find_alloc((const void*)(uintptr_t)p, n);
  pthread_mutex_unlock(&mu);
  return a ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

EXPORT CUresult CUDAAPI cuMemcpyHtoDAsync(CUdeviceptr dst, const void* src, size_t n, CUstream s) {
  ENTER("cuMemcpyHtoDAsync");
  NEED_CTX();
  if (!valid_stream(s) || check_dev(dst, n)) return CUDA_ERROR_INVALID_VALUE;
  memcpy((void*)(uintptr_t)dst, src, n);
  return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuMemcpyDtoHAsync(void* dst, CUdeviceptr src, size_t n, CUstream s) {
  ENTER("cuMemcpyDtoHAsync");
  NEED_CTX();
  if (!valid_stream(s) || check_dev(src, n)) return CUDA_ERROR_INVALID_VALUE;
  memcpy(dst, (const void*)(uintptr_t)src, n);
  return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuMemcpyDtoDAsync(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s) {
  ENTER("cuMemcpyDtoDAsync");
  NEED_CTX();
  if (!valid_stream(s) || check_dev(src, n) || check_dev(dst, n)) return CUDA_ERROR_INVALID_VALUE;
  memmove((void*)(uintptr_t)dst, (const void*)(uintptr_t)src, n);
  return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuMemcpyPeerAsync(CUdeviceptr dst, CUcontext dctx, CUdeviceptr src,
                                          CUcontext sctx, size_t n, CUstream s) {
  ENTER("cuMemcpyPeerAsync");
  if (!dctx || !sctx) return CUDA_ERROR_INVALID_CONTEXT;
  if (!valid_stream(s) || check_dev(src, n) || check_dev(dst, n)) return CUDA_ERROR_INVALID_VALUE;
  memmove((void*)(uintptr_t)dst, (const void*)(uintptr_t)src, n);
  return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuStreamCreate(CUstream* out, unsigned int flags) {
  (void)flags;
  ENTER("cuStreamCreate");
  NEED_CTX();
  FakeStream* s = (FakeStream*)malloc(sizeof(FakeStream));
  if (!s) return CUDA_ERROR_OUT_OF_MEMORY;
  s->magic = STREAM_MAGIC;
  pthread_mutex_lock(&mu);
  stats.live_streams++;
  pthread_mutex_unlock(&mu);
  *out = (CUstream)s;
  return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuStreamDestroy(CUstream s) {
  ENTER("cuStreamDestroy");
  if (s == NULL || !valid_stream(s)) return CUDA_ERROR_INVALID_HANDLE;
  ((FakeStream*)s)->magic = 0;
  free(s);
  pthread_mutex_lock(&mu);
  stats.live_streams--;
  pthread_mutex_unlock(&mu);
  return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuStreamSynchronize(CUstream s) {
  ENTER("cuStreamSynchronize");
  if (!valid_stream(s)) return CUDA_ERROR_INVALID_HANDLE;
  return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuModuleLoadData(CUmodule* out, const void* image) {
  ENTER("cuModuleLoadData");
  NEED_CTX();
  const unsigned char* b = (const unsigned char*)image;
  FakeModule* m = (FakeModule*)calloc(1, sizeof(FakeModule));
  if (!m) return CUDA_ERROR_OUT_OF_MEMORY;
  m->magic = MODULE_MAGIC;
  pthread_mutex_lock(&mu);
  stats.module_loads++;
  memset(stats.last_image_head, 0, sizeof(stats.last_image_head));
  memcpy(stats.last_image_head, b, 4);  /* the magic */
  if (b[0] == '/' || b[0] == '.' || b[0] == '\n' || b[0] == ' ') {
    size_t n = strlen((const char*)b);  /* a PTX image must be NUL-terminated */
    stats.last_image_size = n;
    memcpy(stats.last_image_head, b, n < 16 ? n : 16);
    m->ptx = strdup((const char*)b);
  } else {
    stats.last_image_size = 0;
    size_t elf_size = elf_image_size(b);
    if (elf_size && (m->elf = (unsigned char*)malloc(elf_size)) != NULL) {
      memcpy(m->elf, b, elf_size);
      m->elf_size = elf_size;
    }
  }
  pthread_mutex_unlock(&mu);
  if (m->ptx == NULL && !(b[0] == 0x7f && b[1] == 'E' && b[2] == 'L' && b[3] == 'F') &&
      !(b[0] == 0x50 && b[1] == 0xED && b[2] == 0x55 && b[3] == 0xBA)) {
    free(m);
    return CUDA_ERROR_INVALID_IMAGE;
  }
  *out = (CUmodule)m;
  return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuModuleUnload(CUmodule mod) {
  ENTER("cuModuleUnload");
  FakeModule* m = (FakeModule*)mod;
  if (!m || m->magic != MODULE_MAGIC) return CUDA_ERROR_INVALID_HANDLE;
  m->magic = 0;
  free(m->ptx);
  free(m->elf);
  free(m);
  pthread_mutex_lock(&mu);
  stats.module_unloads++;
  pthread_mutex_unlock(&mu);
  return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuModuleGetFunction(CUfunction* out, CUmodule mod, const char* name) {
  ENTER("cuModuleGetFunction");
  FakeModule* m = (FakeModule*)mod;
  if (!m || m->magic != MODULE_MAGIC) return CUDA_ERROR_INVALID_HANDLE;
  if (m->num_funcs >= 32) return CUDA_ERROR_OUT_OF_MEMORY;
  FakeFunc* f = &m->funcs[m->num_funcs];
  if (m->ptx) {
    if (!parse_entry(m->ptx, name, f)) return CUDA_ERROR_NOT_FOUND;
  } else if (m->elf) {  /* a real cubin: its kernels and their parameter sizes */
    if (!parse_cubin_params(m->elf, m->elf_size, name, f)) return CUDA_ERROR_NOT_FOUND;
  } else {  /* other binary images: any name, parameters unknown */
    snprintf(f->name, sizeof(f->name), "%s", name);
    f->num_params = 0;
    f->max_dyn_smem = -1;
  }
  m->num_funcs++;
  *out = (CUfunction)f;
  return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuFuncSetAttribute(CUfunction func, CUfunction_attribute attr, int value) {
  ENTER("cuFuncSetAttribute");
  FakeFunc* f = (FakeFunc*)func;
  if (!f) return CUDA_ERROR_INVALID_HANDLE;
  if (attr == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) {
    if (value < 0 || value > 232448) return CUDA_ERROR_INVALID_VALUE;
    f->max_dyn_smem = value;
  }
  return CUDA_SUCCESS;
}

/* Host emulation of the two test kernels over every (block, thread) of the launch; only when
 * every pointer covers the touched range of a fake allocation (else the launch is only
 * recorded: tests pass NULL or dummy pointers to check packing). */
static void emulate(const FakeFunc* f, const CUlaunchConfig* c, void** params) {
  size_t threads = (size_t)c->gridDimX * c->gridDimY * c->gridDimZ * c->blockDimX *
                   c->blockDimY * c->blockDimZ;
  if (strcmp(f->name, "fake_vadd_f32") == 0 && f->num_params == 4) {
    float* a = *(float**)params[0];
    float* b = *(float**)params[1];
    float* out = *(float**)params[2];
    int n = *(int*)params[3];
    size_t count = n < 0 ? 0 : ((size_t)n < threads ? (size_t)n : threads);
    if (count == 0) return;
    CUdeviceptr pa = (CUdeviceptr)(uintptr_t)a, pb = (CUdeviceptr)(uintptr_t)b;
    CUdeviceptr po = (CUdeviceptr)(uintptr_t)out;
    if (check_dev(pa, count * 4) || check_dev(pb, count * 4) || check_dev(po, count * 4)) return;
    for (size_t i = 0; i < count; ++i) out[i] = a[i] + b[i];
  } else if (strcmp(f->name, "fake_fill_i32") == 0 && f->num_params == 3) {
    int* p = *(int**)params[0];
    int value = *(int*)params[1];
    int n = *(int*)params[2];
    size_t count = n < 0 ? 0 : ((size_t)n < threads ? (size_t)n : threads);
    if (count == 0 || check_dev((CUdeviceptr)(uintptr_t)p, count * 4)) return;
    for (size_t i = 0; i < count; ++i) p[i] = value;
  }
}

EXPORT CUresult CUDAAPI cuLaunchKernelEx(const CUlaunchConfig* c, CUfunction func, void** params,
                                         void** extra) {
  ENTER("cuLaunchKernelEx");
  NEED_CTX();
  FakeFunc* f = (FakeFunc*)func;
  if (!f || !c || extra != NULL) return CUDA_ERROR_INVALID_VALUE;
  if (!valid_stream(c->hStream)) return CUDA_ERROR_INVALID_HANDLE;
  unsigned threads = c->blockDimX * c->blockDimY * c->blockDimZ;
  if (c->gridDimX == 0 || c->gridDimY == 0 || c->gridDimZ == 0 || threads == 0 || threads > 1024 ||
      c->blockDimZ > 64) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  int smem_limit = f->max_dyn_smem >= 0 ? f->max_dyn_smem : 49152;
  if ((int)c->sharedMemBytes > smem_limit) return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock(&mu);
  FakeCudaLaunch* l = &last_launch;
  memset(l, 0, sizeof(*l));
  snprintf(l->name, sizeof(l->name), "%s", f->name);
  l->grid[0] = c->gridDimX; l->grid[1] = c->gridDimY; l->grid[2] = c->gridDimZ;
  l->block[0] = c->blockDimX; l->block[1] = c->blockDimY; l->block[2] = c->blockDimZ;
  l->shared_mem_bytes = c->sharedMemBytes;
  l->stream = c->hStream;
  l->context = current_ctx;
  l->num_params = f->num_params;
  l->max_dynamic_shared_attr = f->max_dyn_smem;
  size_t off = 0;
  for (int i = 0; i < f->num_params; ++i) {
    l->param_size[i] = f->param_size[i];
    if (params == NULL || params[i] == NULL || off + f->param_size[i] > FAKE_CUDA_PARAM_BYTES) {
      pthread_mutex_unlock(&mu);
      return CUDA_ERROR_INVALID_VALUE;
    }
    memcpy(l->params + off, params[i], f->param_size[i]);
    off += f->param_size[i];
  }
  has_launch = 1;
  stats.launches++;
  pthread_mutex_unlock(&mu);
  emulate(f, c, params);
  return CUDA_SUCCESS;
}

/* Imported (not called) by apache-tvm 0.27's libtvm_runtime_cuda.so, which must load against
 * this fake for the blob interop test (tests/interop/test_cuda_blob_apache_tvm.py). There are
 * no TMA tensor maps on the host: always "not supported". */
EXPORT CUresult CUDAAPI cuTensorMapEncodeTiled(
    CUtensorMap* map, CUtensorMapDataType type, cuuint32_t rank, void* addr, const cuuint64_t* dims,
    const cuuint64_t* strides, const cuuint32_t* box, const cuuint32_t* elem_strides,
    CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2,
    CUtensorMapFloatOOBfill oob) {
  (void)map; (void)type; (void)rank; (void)addr; (void)dims; (void)strides; (void)box;
  (void)elem_strides; (void)interleave; (void)swizzle; (void)l2; (void)oob;
  ENTER("cuTensorMapEncodeTiled");
  return CUDA_ERROR_NOT_SUPPORTED;
}

/* The driver's private tables, looked up (after cuInit) by libraries that dlopen libcuda.so.1
 * themselves: NVRTC 13 (libnvrtc calls cuInit then cuGetExportTable, and crashes when the
 * symbol is missing) and libcudart (apache-tvm's libtvm_runtime_cuda). The fake has none:
 * "not supported", and callers fall back or report a clean error. */
EXPORT CUresult CUDAAPI cuGetExportTable(const void** table, const CUuuid* id) {
  (void)id;
  if (table) *table = NULL;
  return CUDA_ERROR_NOT_SUPPORTED;
}

/* ---- introspection for tests ---- */

EXPORT int fake_cuda_last_launch(FakeCudaLaunch* out) {
  pthread_mutex_lock(&mu);
  int ok = has_launch;
  if (ok) *out = last_launch;
  pthread_mutex_unlock(&mu);
  return ok ? 0 : -1;
}

EXPORT void fake_cuda_stats(FakeCudaStats* out) {
  pthread_mutex_lock(&mu);
  *out = stats;
  pthread_mutex_unlock(&mu);
}

EXPORT void fake_cuda_reset(void) {
  pthread_mutex_lock(&mu);
  int live = stats.live_allocations, streams = stats.live_streams;
  memset(&stats, 0, sizeof(stats));
  stats.live_allocations = live;
  stats.live_streams = streams;
  has_launch = 0;
  pthread_mutex_unlock(&mu);
}
