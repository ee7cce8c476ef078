// VM dispatch cost: nanoseconds per Call instruction of a no-op packed function, against a
// direct Function call of the same function with the same arguments in the same process.
//
//   bazel run //runtime/tests/vm:vm_dispatch_bench [-- CALLS]   (built with -O2)
//
// The bytecode function is straight-line (kCallsPerRun Calls, then Ret), so the per-Call
// figure excludes frame setup; a separate line measures a bytecode-to-bytecode call + return.
#include <tvm/runtime/vm/builder.h>
#include <tvm/runtime/vm/vm.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {
namespace ffi = tvm::ffi;
namespace rvm = tvm::runtime::vm;
using rvm::Arg;
using Clock = std::chrono::steady_clock;

constexpr int kCallsPerRun = 1000;

double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

/*! main(x): kCallsPerRun x bench.noop(args...), then ret; `nargs` operands per Call. */
ffi::Module StraightLine(int nargs, bool write_result) {
  rvm::ExecBuilder b;
  b.EmitFunction("main", 1);
  std::vector<Arg> args;
  for (int i = 0; i < nargs; ++i) args.push_back(i % 2 ? Arg::Immediate(i) : Arg::Register(0));
  for (int i = 0; i < kCallsPerRun; ++i) {
    b.EmitCall("bench.noop", args, write_result ? 1 : rvm::kVoidRegister);
  }
  b.EmitRet(0);
  b.EndFunction("main");
  return b.Get();
}

/*! main(x): kCallsPerRun calls of the bytecode function leaf(x) = x. */
ffi::Module BytecodeCalls() {
  rvm::ExecBuilder b;
  b.EmitFunction("leaf", 1);
  b.EmitRet(0);
  b.EndFunction("leaf");
  b.EmitFunction("main", 1);
  for (int i = 0; i < kCallsPerRun; ++i) b.EmitCall("leaf", {Arg::Register(0)}, 1);
  b.EmitRet(0);
  b.EndFunction("main");
  return b.Get();
}

double TimeVM(const ffi::Module& exec, int64_t calls) {
  rvm::VirtualMachine vm = rvm::VirtualMachine::Create(exec, DLDevice{kDLCPU, 0});
  ffi::Function main = vm["main"];
  int64_t runs = calls / kCallsPerRun;
  ffi::AnyView x(int64_t{7});
  ffi::Any rv;
  for (int64_t i = 0; i < runs / 10 + 1; ++i) main.CallPacked(&x, 1, &rv);  // warm up
  auto t0 = Clock::now();
  for (int64_t i = 0; i < runs; ++i) main.CallPacked(&x, 1, &rv);
  return Seconds(t0, Clock::now()) * 1e9 / static_cast<double>(runs * kCallsPerRun);
}

double TimeDirect(const ffi::Function& f, int nargs, int64_t calls) {
  std::vector<ffi::AnyView> args;
  for (int i = 0; i < nargs; ++i) args.emplace_back(int64_t{i});
  ffi::Any rv;
  for (int64_t i = 0; i < calls / 10; ++i) f.CallPacked(args.data(), nargs, &rv);
  auto t0 = Clock::now();
  for (int64_t i = 0; i < calls; ++i) f.CallPacked(args.data(), nargs, &rv);
  return Seconds(t0, Clock::now()) * 1e9 / static_cast<double>(calls);
}

}  // namespace

int main(int argc, char** argv) {
  int64_t calls = argc > 1 ? std::atoll(argv[1]) : 10000000;
  ffi::Function noop = ffi::Function::FromPacked([](ffi::PackedArgs, ffi::Any*) {});
  ffi::Function::SetGlobal("bench.noop", noop);
  std::printf("VM dispatch benchmark: %lld calls of a no-op packed function per row\n",
              static_cast<long long>(calls));
  std::printf("%-44s %10s %10s %10s\n", "", "direct ns", "VM ns", "overhead");
  for (int nargs : {0, 2, 4}) {
    double direct = TimeDirect(noop, nargs, calls);
    double vm = TimeVM(StraightLine(nargs, /*write_result=*/false), calls);
    double vm_dst = TimeVM(StraightLine(nargs, /*write_result=*/true), calls);
    char label[64];
    std::snprintf(label, sizeof(label), "Call, %d args, result discarded", nargs);
    std::printf("%-44s %10.2f %10.2f %10.2f\n", label, direct, vm, vm - direct);
    std::snprintf(label, sizeof(label), "Call, %d args, result to a register", nargs);
    std::printf("%-44s %10.2f %10.2f %10.2f\n", label, direct, vm_dst, vm_dst - direct);
  }
  std::printf("%-44s %10s %10.2f\n", "bytecode call + return (frame push/pop)", "-",
              TimeVM(BytecodeCalls(), calls));
  return 0;
}
