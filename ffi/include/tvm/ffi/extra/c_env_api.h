/*
 * The environment part of the tvm-ffi C ABI: per-thread current streams, the tensor allocator a
 * host framework lends to kernels, signal checks, and the symbols loaded libraries see.
 * Same conventions as c_api.h (0 / -1 plus the thread's raised error).
 */
#ifndef TVM_FFI_EXTRA_C_ENV_API_H_
#define TVM_FFI_EXTRA_C_ENV_API_H_

#include <tvm/ffi/c_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/*! \brief A device stream (cudaStream_t and the like); never owned by this library. */
typedef void* TVMFFIStreamHandle;

/*!
 * \brief Sets the calling thread's current stream for (device_type, device_id).
 * \param opt_out_original_stream If not NULL, receives the previous stream.
 */
TVM_FFI_DLL int TVMFFIEnvSetStream(int32_t device_type, int32_t device_id,
                                   TVMFFIStreamHandle stream,
                                   TVMFFIStreamHandle* opt_out_original_stream);

/*! \brief The calling thread's current stream for a device, or NULL when none was set. */
TVM_FFI_DLL TVMFFIStreamHandle TVMFFIEnvGetStream(int32_t device_type, int32_t device_id);

/*!
 * \brief Sets the calling thread's tensor allocator (and the process-wide fallback when
 * `write_to_global_context` is non-zero). NULL clears it.
 * \param opt_out_original_allocator If not NULL, receives the thread's previous allocator.
 */
TVM_FFI_DLL int TVMFFIEnvSetDLPackManagedTensorAllocator(
    DLPackManagedTensorAllocator allocator, int write_to_global_context,
    DLPackManagedTensorAllocator* opt_out_original_allocator);

/*! \brief The thread's allocator if set, else the process-wide one, else NULL. */
TVM_FFI_DLL DLPackManagedTensorAllocator TVMFFIEnvGetDLPackManagedTensorAllocator(void);

/*!
 * \brief Allocates a Tensor through the current allocator. Only dtype, ndim, shape and device of
 * `prototype` are read. `*out` is a new reference. Fails with RuntimeError when no allocator is
 * set or it returns no tensor; the allocator's own error is passed through.
 */
TVM_FFI_DLL int TVMFFIEnvTensorAlloc(DLTensor* prototype, TVMFFIObjectHandle* out);

/*!
 * \brief Lets long-running native code notice an interrupt in the host language: returns -1
 * (with kind EnvErrorAlreadySet raised) when the host reports a pending error, else 0.
 */
TVM_FFI_DLL int TVMFFIEnvCheckSignals(void);

/*!
 * \brief Registers a host-language hook by name: "PyErr_CheckSignals", "PyGILState_Ensure" or
 * "PyGILState_Release". Other names fail with ValueError.
 */
TVM_FFI_DLL int TVMFFIEnvRegisterCAPI(const char* name, void* symbol);

/*!
 * \brief Resolves `func_name` for code inside a loaded library: the library's imported modules
 * first, then the global registry. `library_ctx` is the value the loader stored in the library's
 * `__tvm_ffi__library_ctx`. `*out` is borrowed (cached by the module, valid while it lives).
 * Not found: RuntimeError.
 */
TVM_FFI_DLL int TVMFFIEnvModLookupFromImports(TVMFFIObjectHandle library_ctx,
                                              const char* func_name, TVMFFIObjectHandle* out);

/*!
 * \brief Registers a value that the loader writes into data symbol `name` of every library
 * loaded afterwards that defines it.
 */
TVM_FFI_DLL int TVMFFIEnvModRegisterContextSymbol(const char* name, void* symbol);

/*!
 * \brief Registers a symbol of a statically linked ("system") library, usually from a static
 * constructor. Re-registering a name with a different pointer keeps the last one and warns.
 * Always returns 0.
 */
TVM_FFI_DLL int TVMFFIEnvModRegisterSystemLibSymbol(const char* name, void* symbol);

#ifdef __cplusplus
}  // extern "C"
#endif
#endif  // TVM_FFI_EXTRA_C_ENV_API_H_
