/*
 * The parallel-for thread pool behind TVMBackendParallelLaunch, the entry point compiled
 * kernels use for `parallel` loops.
 *
 * Workers are persistent and wait on a generation counter (a short spin, then a condition
 * variable), so a launch costs a wake-up rather than a thread creation. The launching thread
 * runs task 0 itself. Size: $TVM_NUM_THREADS, else the number of online CPUs; changeable at
 * run time with `runtime.SetNumThreads`.
 *
 * A worker that finds itself on the launching thread's CPU moves off it. Linux left a new
 * worker beside its creator for many milliseconds while the other CPU idled (2 vCPUs: 3 of
 * 8 new pools), the two taking turns through sched_yield (a 25 us MLP call took 46-63 us at
 * two threads, slower than at one); sleeping until woken did not help, the wake-up kept it
 * there. So the worker narrows its own CPU mask to exclude that CPU, which migrates it at
 * once, and widens it back (it stays where it went; the user's mask is kept). Where it
 * cannot move (one allowed CPU) it sleeps between launches instead of spinning.
 */
#include <tvm/runtime/c_backend_api.h>
#include <tvm/ffi/error.h>

#if defined(__linux__)
#include <sched.h>
#endif

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "../support/registry.h"

namespace tvm {
namespace runtime {
namespace {

/*! \brief A reusable barrier for the tasks of one launch (sense reversal). */
struct GroupBarrier {
  std::atomic<int> waiting{0};
  std::atomic<int> sense{0};
  int size = 0;
  void Wait() {
    int my_sense = sense.load(std::memory_order_relaxed);
    if (waiting.fetch_add(1, std::memory_order_acq_rel) + 1 == size) {
      waiting.store(0, std::memory_order_relaxed);
      sense.store(my_sense ^ 1, std::memory_order_release);
      return;
    }
    while (sense.load(std::memory_order_acquire) == my_sense) std::this_thread::yield();
  }
};

thread_local bool t_inside_task = false;

/*! \brief The CPU this thread runs on now, or -1 where that cannot be asked. */
int CurrentCpu() {
#if defined(__linux__)
  return sched_getcpu();
#else
  return -1;
#endif
}

/*! \brief Moves the calling thread off `cpu` (see the file's comment); false where it stays. */
bool MoveOffCpu(int cpu) {
#if defined(__linux__)
  cpu_set_t allowed;
  if (cpu < 0 || cpu >= CPU_SETSIZE || sched_getaffinity(0, sizeof(allowed), &allowed) != 0) return false;
  if (!CPU_ISSET(cpu, &allowed) || CPU_COUNT(&allowed) < 2) return false;
  cpu_set_t others = allowed;
  CPU_CLR(cpu, &others);
  if (sched_setaffinity(0, sizeof(others), &others) != 0) return false;
  sched_setaffinity(0, sizeof(allowed), &allowed);
  return CurrentCpu() != cpu;
#else
  (void)cpu;
  return false;
#endif
}

class ThreadPool {
 public:
  explicit ThreadPool(int num_threads) : num_threads_(num_threads < 1 ? 1 : num_threads) {
    for (int i = 1; i < num_threads_; ++i) workers_.emplace_back([this, i] { WorkerLoop(i); });
  }
  ~ThreadPool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
      generation_.fetch_add(1);
    }
    cv_.notify_all();
    for (auto& t : workers_) t.join();
  }
  int num_threads() const { return num_threads_; }

  int Launch(FTVMParallelLambda f, void* cdata, int num_task) {
    if (num_task <= 0) num_task = num_threads_;
    GroupBarrier barrier;
    barrier.size = num_task;
    TVMParallelGroupEnv env{&barrier, num_task};
    std::lock_guard<std::mutex> launch_lock(launch_mutex_);  // one launch at a time
    job_ = Job{f, cdata, num_task, &env};
    first_error_ = nullptr;
    failed_.store(false);
    pending_.store(num_threads_ - 1);
    launcher_cpu_.store(CurrentCpu(), std::memory_order_relaxed);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      generation_.fetch_add(1, std::memory_order_release);
    }
    cv_.notify_all();
    RunTasks(0);
    while (pending_.load(std::memory_order_acquire) != 0) std::this_thread::yield();
    if (failed_.load()) {
      TVMFFIErrorSetRaised(first_error_);
      TVMFFIObjectDecRef(first_error_);
      return -1;
    }
    return 0;
  }

 private:
  struct Job {
    FTVMParallelLambda f = nullptr;
    void* cdata = nullptr;
    int num_task = 0;
    TVMParallelGroupEnv* env = nullptr;
  };

  /*! \brief Worker `slot` runs tasks slot, slot + P, slot + 2P, ... */
  void RunTasks(int slot) {
    t_inside_task = true;
    for (int task = slot; task < job_.num_task; task += num_threads_) {
      if (job_.f(task, job_.env, job_.cdata) != 0) {
        TVMFFIObjectHandle err = nullptr;
        TVMFFIErrorMoveFromRaised(&err);
        if (err == nullptr) {
          TVMFFIErrorSetRaisedFromCStr("RuntimeError", "a parallel task failed without an error");
          TVMFFIErrorMoveFromRaised(&err);
        }
        bool expected = false;
        if (failed_.compare_exchange_strong(expected, true)) {
          first_error_ = err;
        } else {
          TVMFFIObjectDecRef(err);
        }
      }
    }
    t_inside_task = false;
  }

  void WorkerLoop(int slot) {
    uint64_t seen = 0;
    bool beside_launcher = false;
    while (true) {
      // Spin briefly: back-to-back launches (a kernel's loop nest) then skip the sleep. The
      // loop touches generation_ alone; the CPU check is made once a launch, below.
      uint64_t gen = generation_.load(std::memory_order_acquire);
      for (int spin = 0; gen == seen && spin < 4000 && !beside_launcher; ++spin) {
        std::this_thread::yield();
        gen = generation_.load(std::memory_order_acquire);
      }
      if (gen == seen) {
        std::unique_lock<std::mutex> lock(mutex_);
        cv_.wait(lock, [&] { return generation_.load() != seen; });
        gen = generation_.load();
      }
      seen = gen;
      if (stop_) return;
      // Beside the launcher (see the file's comment): move off its CPU, else sleep next time.
      int launcher = launcher_cpu_.load(std::memory_order_relaxed);
      beside_launcher = launcher >= 0 && launcher == CurrentCpu() && !MoveOffCpu(launcher);
      RunTasks(slot);
      pending_.fetch_sub(1, std::memory_order_acq_rel);
    }
  }

  int num_threads_;
  std::atomic<int> launcher_cpu_{-1};  // CurrentCpu() of the last Launch's caller
  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::atomic<uint64_t> generation_{0};
  std::atomic<int> pending_{0};
  std::atomic<bool> failed_{false};
  TVMFFIObjectHandle first_error_ = nullptr;
  bool stop_ = false;
  std::mutex launch_mutex_;
  Job job_;
};

int DefaultNumThreads() {
  if (const char* env = std::getenv("TVM_NUM_THREADS")) {
    int n = std::atoi(env);
    if (n > 0) return n;
  }
  unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : static_cast<int>(hw);
}

std::mutex g_pool_mutex;
std::shared_ptr<ThreadPool>& PoolSlot() {
  static auto* pool = new std::shared_ptr<ThreadPool>();  // leaked: workers outlive statics
  return *pool;
}

std::shared_ptr<ThreadPool> GetPool() {
  std::lock_guard<std::mutex> lock(g_pool_mutex);
  auto& slot = PoolSlot();
  if (slot == nullptr) slot = std::make_shared<ThreadPool>(DefaultNumThreads());
  return slot;
}

void SetNumThreads(int n) {
  TVM_FFI_CHECK(n >= 1 && n <= 1024, ValueError) << "thread count must be in [1, 1024], got " << n;
  std::lock_guard<std::mutex> lock(g_pool_mutex);
  PoolSlot() = std::make_shared<ThreadPool>(n);
}

}  // namespace

TVM_FFI_STATIC_INIT_BLOCK() {
  RegisterRuntimeGlobal("runtime.SetNumThreads", [](int64_t n) { SetNumThreads(static_cast<int>(n)); });
  RegisterRuntimeGlobal("runtime.GetNumThreads", []() { return static_cast<int64_t>(GetPool()->num_threads()); });
}

}  // namespace runtime
}  // namespace tvm

extern "C" {

int TVMBackendParallelLaunch(FTVMParallelLambda flambda, void* cdata, int num_task) {
  if (flambda == nullptr) {
    TVMFFIErrorSetRaisedFromCStr("ValueError", "TVMBackendParallelLaunch: null task function");
    return -1;
  }
  if (tvm::runtime::t_inside_task) {
    // Nested parallelism runs serially on this thread; barriers of the inner group are no-ops.
    int n = num_task <= 0 ? 1 : num_task;
    TVMParallelGroupEnv env{nullptr, n};
    for (int i = 0; i < n; ++i) {
      if (flambda(i, &env, cdata) != 0) return -1;
    }
    return 0;
  }
  return tvm::runtime::GetPool()->Launch(flambda, cdata, num_task);
}

int TVMBackendParallelBarrier(int, TVMParallelGroupEnv* penv) {
  if (penv == nullptr || penv->sync_handle == nullptr) return 0;
  static_cast<tvm::runtime::GroupBarrier*>(penv->sync_handle)->Wait();
  return 0;
}

}  // extern "C"
