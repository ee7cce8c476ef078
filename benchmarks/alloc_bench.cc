/*
 * Pooled vs naive device allocation on a mixed-size workload (the pattern of a model run:
 * tensors of many sizes allocated and freed in waves), timed in one process.
 *
 *   bazel run -c opt //benchmarks:alloc_bench
 */
#include <tvm/ffi/function.h>

#include <chrono>
#include <cstdio>
#include <random>
#include <vector>

namespace {
using tvm::ffi::Function;

struct Op {
  bool alloc;
  int64_t size;
  int slot;
};

/*! A fixed random trace: 64 live slots, sizes 64 B .. 4 MiB (log-uniform). */
std::vector<Op> MakeTrace(int n) {
  std::mt19937 rng(42);
  std::vector<Op> ops;
  std::vector<int64_t> live(64, 0);
  for (int i = 0; i < n; ++i) {
    int slot = static_cast<int>(rng() % live.size());
    if (live[slot] != 0) {
      ops.push_back({false, live[slot], slot});
      live[slot] = 0;
    } else {
      int64_t size = int64_t{64} << (rng() % 17);
      size += static_cast<int64_t>(rng() % size);
      ops.push_back({true, size, slot});
      live[slot] = size;
    }
  }
  for (int slot = 0; slot < static_cast<int>(live.size()); ++slot) {
    if (live[slot] != 0) ops.push_back({false, live[slot], slot});
  }
  return ops;
}

double RunNsPerOp(int64_t kind, const std::vector<Op>& ops, int reps) {
  Function alloc = Function::GetGlobalRequired("runtime.memory.Alloc");
  Function free_fn = Function::GetGlobalRequired("runtime.memory.Free");
  DLDevice cpu{kDLCPU, 0};
  std::vector<void*> ptrs(64, nullptr);
  auto start = std::chrono::steady_clock::now();
  for (int r = 0; r < reps; ++r) {
    for (const Op& op : ops) {
      if (op.alloc) {
        ptrs[op.slot] = alloc(cpu, kind, op.size, int64_t{64}).cast<void*>();
        static_cast<char*>(ptrs[op.slot])[0] = 1;  // touch, as a kernel would
      } else {
        free_fn(cpu, kind, ptrs[op.slot], op.size);
      }
    }
  }
  double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
  return ns / (static_cast<double>(ops.size()) * reps);
}

}  // namespace

int main() {
  std::vector<Op> ops = MakeTrace(20000);
  const int reps = 5;
  RunNsPerOp(2, ops, 1);  // warm the pool and the code
  RunNsPerOp(1, ops, 1);
  double pooled = 1e300, naive = 1e300;
  for (int round = 0; round < 3; ++round) {  // interleaved rounds; keep the best of each
    pooled = std::min(pooled, RunNsPerOp(2, ops, reps));
    naive = std::min(naive, RunNsPerOp(1, ops, reps));
  }
  Function stats = Function::GetGlobalRequired("runtime.memory.Stats");
  std::printf("allocation benchmark: %zu alloc/free ops, sizes 64 B .. 8 MiB, 64 live slots\n",
              ops.size());
  std::printf("%-28s %10s\n", "allocator", "ns per op");
  std::printf("%-28s %10.1f\n", "naive (posix_memalign/free)", naive);
  std::printf("%-28s %10.1f\n", "pooled (size classes)", pooled);
  std::printf("naive/pooled ratio: %.2fx\n", naive / pooled);
  return 0;
}
