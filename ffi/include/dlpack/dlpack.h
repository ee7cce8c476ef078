/*
 * DLPack 1.x data structures, written for this project from the public DLPack specification.
 *
 * DLPack is the cross-framework in-memory tensor exchange convention. Only the standard layouts
 * are defined here; every struct size and field offset is fixed by the specification and checked
 * by tests/abi (ffi/tests/abi_manifest_test.cc).
 *
 * Ownership, in one paragraph: a producer hands out a DLManagedTensor(Versioned); the consumer
 * owns it from then on and must call its `deleter` exactly once when done (the deleter may be
 * NULL, meaning nothing needs to be released). A bare DLTensor is always borrowed.
 */
#ifndef DLPACK_DLPACK_H_
#define DLPACK_DLPACK_H_

#include <stddef.h>
#include <stdint.h>

#define DLPACK_MAJOR_VERSION 1
#define DLPACK_MINOR_VERSION 3

#if defined(_WIN32)
#define DLPACK_DLL __declspec(dllexport)
#else
#define DLPACK_DLL __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/*! \brief The DLPack version a managed tensor was produced with (8 bytes). */
typedef struct {
  uint32_t major;
  uint32_t minor;
} DLPackVersion;

/*! \brief Kinds of device memory. Values are fixed by the specification. */
#ifdef __cplusplus
typedef enum : int32_t {
#else
typedef enum {
#endif
  kDLCPU = 1,
  kDLCUDA = 2,
  kDLCUDAHost = 3,
  kDLOpenCL = 4,
  kDLVulkan = 7,
  kDLMetal = 8,
  kDLVPI = 9,
  kDLROCM = 10,
  kDLROCMHost = 11,
  kDLExtDev = 12,
  kDLCUDAManaged = 13,
  kDLOneAPI = 14,
  kDLWebGPU = 15,
  kDLHexagon = 16,
  kDLMAIA = 17,
  kDLTrn = 18,
} DLDeviceType;

/*! \brief A device: its kind and ordinal (8 bytes). */
typedef struct {
  DLDeviceType device_type;
  int32_t device_id;
} DLDevice;

/*! \brief Element type codes of DLDataType.code. */
typedef enum {
  kDLInt = 0U,
  kDLUInt = 1U,
  kDLFloat = 2U,
  kDLOpaqueHandle = 3U,
  kDLBfloat = 4U,
  kDLComplex = 5U,
  kDLBool = 6U,
  kDLFloat8_e3m4 = 7U,
  kDLFloat8_e4m3 = 8U,
  kDLFloat8_e4m3b11fnuz = 9U,
  kDLFloat8_e4m3fn = 10U,
  kDLFloat8_e4m3fnuz = 11U,
  kDLFloat8_e5m2 = 12U,
  kDLFloat8_e5m2fnuz = 13U,
  kDLFloat8_e8m0fnu = 14U,
  kDLFloat6_e2m3fn = 15U,
  kDLFloat6_e3m2fn = 16U,
  kDLFloat4_e2m1fn = 17U,
} DLDataTypeCode;

/*!
 * \brief Element type: code, bits per lane and lane count (4 bytes).
 * Negative lanes denote scalable vectors (lanes = -vscale_factor).
 */
typedef struct {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
} DLDataType;

/*!
 * \brief A borrowed view of an n-dimensional array (48 bytes).
 * `shape` and `strides` have `ndim` entries; strides count elements, not bytes, and NULL strides
 * mean compact row-major. The first element lives at `(char*)data + byte_offset`.
 */
typedef struct {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides;
  uint64_t byte_offset;
} DLTensor;

/*!
 * \brief Legacy (pre-1.0) managed tensor (64 bytes). The consumer calls `deleter(self)` once.
 */
typedef struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(struct DLManagedTensor* self);
} DLManagedTensor;

/*! \brief The data must not be written through this tensor. */
#define DLPACK_FLAG_BITMASK_READ_ONLY (1UL << 0UL)
/*! \brief The producer copied the data to export it. */
#define DLPACK_FLAG_BITMASK_IS_COPIED (1UL << 1UL)
/*! \brief Sub-byte elements are padded to whole bytes. */
#define DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED (1UL << 2UL)

/*!
 * \brief Versioned managed tensor (DLPack >= 1.0, 80 bytes). The consumer calls `deleter(self)`
 * exactly once when done with it.
 */
typedef struct DLManagedTensorVersioned {
  DLPackVersion version;
  void* manager_ctx;
  void (*deleter)(struct DLManagedTensorVersioned* self);
  uint64_t flags;
  DLTensor dl_tensor;
} DLManagedTensorVersioned;

/*!
 * \brief A tensor allocator a framework can lend to kernels (DLPack 1.3).
 * \param prototype Only dtype, ndim, shape and device are meaningful.
 * \param out On success, a new managed tensor owned by the caller.
 * \param error_ctx Passed back to SetError unchanged.
 * \param SetError Called with an error kind and message before returning non-zero.
 * \return 0 on success, non-zero on failure.
 */
typedef int (*DLPackManagedTensorAllocator)(DLTensor* prototype, DLManagedTensorVersioned** out,
                                            void* error_ctx,
                                            void (*SetError)(void* error_ctx, const char* kind,
                                                             const char* message));

/*! \brief Producer -> consumer conversion, no stream sync. Returns 0 or -1. */
typedef int (*DLPackManagedTensorFromPyObjectNoSync)(void* py_object,
                                                     DLManagedTensorVersioned** out);
/*! \brief Consumer-side wrap of a managed tensor into a framework object; steals `tensor`. */
typedef int (*DLPackManagedTensorToPyObjectNoSync)(DLManagedTensorVersioned* tensor,
                                                   void** out_py_object);
/*! \brief Fill a borrowed DLTensor view of a framework object. */
typedef int (*DLPackDLTensorFromPyObjectNoSync)(void* py_object, DLTensor* out);
/*! \brief Query the framework's current work stream for a device. */
typedef int (*DLPackCurrentWorkStream)(DLDeviceType device_type, int32_t device_id,
                                       void** out_current_stream);

/*! \brief Header of the C exchange API table (16 bytes); `prev_api` chains older versions. */
typedef struct DLPackExchangeAPIHeader {
  DLPackVersion version;
  struct DLPackExchangeAPIHeader* prev_api;
} DLPackExchangeAPIHeader;

/*! \brief Function table a framework publishes for fast, GIL-free exchange (56 bytes). */
typedef struct DLPackExchangeAPI {
  DLPackExchangeAPIHeader header;
  DLPackManagedTensorAllocator managed_tensor_allocator;
  DLPackManagedTensorFromPyObjectNoSync managed_tensor_from_py_object_no_sync;
  DLPackManagedTensorToPyObjectNoSync managed_tensor_to_py_object_no_sync;
  DLPackDLTensorFromPyObjectNoSync dltensor_from_py_object_no_sync;
  DLPackCurrentWorkStream current_work_stream;
} DLPackExchangeAPI;

#ifdef __cplusplus
}  // extern "C"
#endif
#endif  // DLPACK_DLPACK_H_
