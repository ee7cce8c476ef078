// The parallel-for pool: coverage of every task, barriers, errors, nesting, resizing, and a
// worker leaving the launching thread's CPU.
#include <gtest/gtest.h>
#include <tvm/ffi/function.h>
#include <tvm/runtime/c_backend_api.h>

#if defined(__linux__)
#include <sched.h>
#endif

#include <atomic>
#include <vector>

namespace {
using namespace tvm;

ffi::Function G(const char* name) { return ffi::Function::GetGlobalRequired(name); }

struct SumClosure {
  std::vector<int64_t>* data;
  std::atomic<int64_t>* total;
};

int SumTask(int task_id, TVMParallelGroupEnv* env, void* cdata) {
  auto* c = static_cast<SumClosure*>(cdata);
  int64_t n = static_cast<int64_t>(c->data->size());
  int64_t chunk = (n + env->num_task - 1) / env->num_task;
  int64_t local = 0;
  for (int64_t i = task_id * chunk; i < std::min(n, (task_id + 1) * chunk); ++i) local += (*c->data)[i];
  *c->total += local;
  return 0;
}

TEST(ThreadPool, EveryTaskRunsOnce) {
  for (int threads : {1, 2, 4}) {
    G("runtime.SetNumThreads")(int64_t{threads});
    EXPECT_EQ(G("runtime.GetNumThreads")().cast<int64_t>(), threads);
    for (int num_task : {0, 1, 3, 7, 16}) {
      std::vector<int64_t> data(10007);
      for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<int64_t>(i);
      std::atomic<int64_t> total{0};
      SumClosure c{&data, &total};
      for (int rep = 0; rep < 20; ++rep) {
        total = 0;
        ASSERT_EQ(TVMBackendParallelLaunch(SumTask, &c, num_task), 0);
        EXPECT_EQ(total.load(), 10006LL * 10007 / 2) << threads << " " << num_task;
      }
    }
  }
}

struct BarrierClosure {
  std::vector<std::atomic<int>>* phase_one;
  std::atomic<int>* violations;
};

int BarrierTask(int task_id, TVMParallelGroupEnv* env, void* cdata) {
  auto* c = static_cast<BarrierClosure*>(cdata);
  (*c->phase_one)[task_id] = 1;
  TVMBackendParallelBarrier(task_id, env);
  for (int i = 0; i < env->num_task; ++i) {
    if ((*c->phase_one)[i] != 1) ++*c->violations;  // someone passed the barrier early
  }
  return 0;
}

TEST(ThreadPool, BarrierSeparatesPhases) {
  G("runtime.SetNumThreads")(int64_t{4});
  for (int rep = 0; rep < 50; ++rep) {
    std::vector<std::atomic<int>> phase(4);
    std::atomic<int> violations{0};
    BarrierClosure c{&phase, &violations};
    ASSERT_EQ(TVMBackendParallelLaunch(BarrierTask, &c, 4), 0);
    EXPECT_EQ(violations.load(), 0);
  }
}

int FailingTask(int task_id, TVMParallelGroupEnv*, void*) {
  if (task_id == 2) {
    TVMFFIErrorSetRaisedFromCStr("IndexError", "task 2 failed");
    return -1;
  }
  return 0;
}

TEST(ThreadPool, TaskErrorReachesTheCaller) {
  G("runtime.SetNumThreads")(int64_t{2});
  EXPECT_EQ(TVMBackendParallelLaunch(FailingTask, nullptr, 4), -1);
  TVMFFIObjectHandle err = nullptr;
  TVMFFIErrorMoveFromRaised(&err);
  ASSERT_NE(err, nullptr);
  EXPECT_EQ(std::string(TVMFFIErrorGetCellPtr(err)->kind.data), "IndexError");
  TVMFFIObjectDecRef(err);
  // The pool is still usable afterwards.
  std::vector<int64_t> data{1, 2, 3};
  std::atomic<int64_t> total{0};
  SumClosure c{&data, &total};
  EXPECT_EQ(TVMBackendParallelLaunch(SumTask, &c, 2), 0);
  EXPECT_EQ(total.load(), 6);
  EXPECT_EQ(TVMBackendParallelLaunch(nullptr, nullptr, 1), -1);
  TVMFFIErrorMoveFromRaised(&err);
  TVMFFIObjectDecRef(err);
}

int NestedTask(int, TVMParallelGroupEnv*, void* cdata) {
  auto* counter = static_cast<std::atomic<int>*>(cdata);
  return TVMBackendParallelLaunch([](int, TVMParallelGroupEnv*, void* c) {
    ++*static_cast<std::atomic<int>*>(c);
    return 0;
  }, counter, 3);
}

TEST(ThreadPool, NestedLaunchRunsSerially) {
  G("runtime.SetNumThreads")(int64_t{2});
  std::atomic<int> counter{0};
  ASSERT_EQ(TVMBackendParallelLaunch(NestedTask, &counter, 2), 0);
  EXPECT_EQ(counter.load(), 6);
  EXPECT_THROW(G("runtime.SetNumThreads")(int64_t{0}), ffi::Error);
}

#if defined(__linux__)
struct CpuClosure {
  std::atomic<int> cpu{-1};
};

int RecordWorkerCpu(int task_id, TVMParallelGroupEnv*, void* cdata) {
  if (task_id == 1) static_cast<CpuClosure*>(cdata)->cpu = sched_getcpu();  // slot 1: the worker
  return 0;
}

TEST(ThreadPool, WorkerMovesOffTheLaunchersCpu) {
  cpu_set_t original;
  ASSERT_EQ(sched_getaffinity(0, sizeof(original), &original), 0);
  G("runtime.SetNumThreads")(int64_t{2});
  int moved = 0, rounds = 20;
  for (int rep = 0; rep < rounds; ++rep) {
    CpuClosure first;
    ASSERT_EQ(TVMBackendParallelLaunch(RecordWorkerCpu, &first, 2), 0);
    int worker_cpu = first.cpu.load();
    ASSERT_GE(worker_cpu, 0);
    // The launching thread sits down on the worker's CPU: the next launch finds it beside.
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(worker_cpu, &one);
    ASSERT_EQ(sched_setaffinity(0, sizeof(one), &one), 0);
    CpuClosure next;
    int rc = TVMBackendParallelLaunch(RecordWorkerCpu, &next, 2);
    ASSERT_EQ(sched_setaffinity(0, sizeof(original), &original), 0);
    ASSERT_EQ(rc, 0);
    if (next.cpu.load() != worker_cpu) ++moved;
  }
  if (CPU_COUNT(&original) >= 2) {
    EXPECT_GE(moved, rounds - 1);  // only a migration between its check and its task escapes
  } else {
    EXPECT_EQ(moved, 0);  // one CPU: nowhere to go (it sleeps between launches instead)
  }
}
#endif

}  // namespace
