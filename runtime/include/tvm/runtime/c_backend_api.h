/*
 * C entry points that compiled kernels call into libtvm_runtime: temporary workspace memory
 * and the parallel-for thread pool. Same conventions as the tvm-ffi C ABI: functions returning
 * int return 0 on success and -1 with an error raised in the thread's slot.
 */
#ifndef TVM_RUNTIME_C_BACKEND_API_H_
#define TVM_RUNTIME_C_BACKEND_API_H_

#include <tvm/ffi/c_api.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_MSC_VER)
#define TVM_RUNTIME_DLL __declspec(dllexport)
#else
#define TVM_RUNTIME_DLL __attribute__((visibility("default")))
#endif

/*!
 * \brief Allocates temporary memory for a kernel, released with TVMBackendFreeWorkspace in
 * LIFO order on the same thread. Comes from a per-thread, per-device pool, so repeated runs
 * of a kernel reuse the same blocks.
 * \param device_type DLDeviceType of the memory.
 * \param device_id Device ordinal.
 * \param nbytes Bytes wanted (0 gives a valid, unique pointer).
 * \param dtype_code_hint, dtype_bits_hint Element type of the use, for alignment hints only.
 * \return The memory (64-byte aligned), or NULL with an error raised (unknown device, out of
 *         memory).
 */
TVM_RUNTIME_DLL void* TVMBackendAllocWorkspace(int device_type, int device_id, uint64_t nbytes,
                                               int dtype_code_hint, int dtype_bits_hint);

/*!
 * \brief Returns memory from TVMBackendAllocWorkspace to its pool. Passing a pointer this
 * thread's pool did not hand out is an error (-1, ValueError), never a crash.
 */
TVM_RUNTIME_DLL int TVMBackendFreeWorkspace(int device_type, int device_id, void* ptr);

/*! \brief What a parallel task knows about its group. */
typedef struct {
  /*! \brief Opaque synchronisation state used by TVMBackendParallelBarrier. */
  void* sync_handle;
  /*! \brief Number of tasks in the group. */
  int32_t num_task;
} TVMParallelGroupEnv;

/*!
 * \brief Body of one parallel task.
 * \param task_id 0 .. num_task-1.
 * \param penv The group.
 * \param cdata The closure passed to TVMBackendParallelLaunch.
 * \return 0 on success, non-zero (with an error raised) on failure.
 */
typedef int (*FTVMParallelLambda)(int task_id, TVMParallelGroupEnv* penv, void* cdata);

/*!
 * \brief Runs `flambda` on `num_task` tasks of the runtime thread pool and waits for all of
 * them. num_task <= 0 means "one task per pool thread". The calling thread runs task 0.
 * Nested launches from inside a task run serially on the calling thread.
 * \return 0 if every task returned 0; otherwise -1 with the first task's error raised.
 */
TVM_RUNTIME_DLL int TVMBackendParallelLaunch(FTVMParallelLambda flambda, void* cdata,
                                             int num_task);

/*! \brief Waits until every task of the group reached the barrier. Returns 0. */
TVM_RUNTIME_DLL int TVMBackendParallelBarrier(int task_id, TVMParallelGroupEnv* penv);

#ifdef __cplusplus
}  // extern "C"
#endif
#endif  // TVM_RUNTIME_C_BACKEND_API_H_
