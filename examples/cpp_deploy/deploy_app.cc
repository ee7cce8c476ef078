/*
 * A C++ application that deploys with libtvm_ffi + libtvm_runtime only (no compiler): it
 * loads a kernel library, assembles a small VM program main(x, y) = relu(x + y) that calls
 * those kernels by name, runs it, and checks the result.
 *
 *   deploy_app path/to/deploy_kernels.so
 *
 * Outside Bazel (see README): c++ -std=c++17 deploy_app.cc -I<ffi/include> -I<runtime/include>
 *   -L<libdir> -Wl,--no-as-needed -ltvm_runtime -ltvm_ffi -Wl,-rpath,<libdir>
 * (--no-as-needed: the app reaches the runtime only through the registry.)
 */
#include <tvm/ffi/extra/module.h>
#include <tvm/runtime/tensor.h>
#include <tvm/runtime/vm/builder.h>
#include <tvm/runtime/vm/vm.h>

#include <cmath>
#include <cstdio>
#include <vector>

namespace ffi = tvm::ffi;
namespace vm = tvm::runtime::vm;

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s KERNELS.so\n", argv[0]);
    return 2;
  }
  try {
    ffi::Module kernels = ffi::Module::LoadFromFile(argv[1]);
    // A library exported with imported modules (its import tree) loads with them.
    std::printf("deploy_app: %s imports %zu module(s)", argv[1], kernels->imports().size());
    for (const ffi::Any& m : kernels->imports()) std::printf(" [%s]", m.cast<ffi::Module>()->kind());
    std::printf("\n");

    // main(x, y): t = empty(shape_of(x)); add(x, y, t); out = empty(...); relu(t, out)
    vm::ExecBuilder b;
    const vm::Arg f32 = b.ConvertConstant(DLDataType{kDLFloat, 32, 1});
    auto R = [](int64_t r) { return vm::Arg::Register(r); };
    b.EmitFunction("main", 2, {"x", "y"});
    b.EmitCall("vm.builtin.shape_of", {R(0)}, 2);
    b.EmitCall("vm.builtin.empty", {vm::Arg::VMContext(), R(2), f32, vm::Arg::Immediate(0)}, 3);
    b.EmitCall("add", {R(0), R(1), R(3)});
    b.EmitCall("vm.builtin.empty", {vm::Arg::VMContext(), R(2), f32, vm::Arg::Immediate(0)}, 4);
    b.EmitCall("relu", {R(3), R(4)});
    b.EmitRet(4);
    b.EndFunction("main");
    ffi::Module exec = b.Get();
    exec->ImportModule(kernels);  // the VM resolves "add"/"relu" in the executable's imports

    vm::VirtualMachine machine = vm::VirtualMachine::Create(exec, DLDevice{kDLCPU, 0});
    const int64_t n = 8;
    std::vector<float> xs(n), ys(n), out(n);
    for (int64_t i = 0; i < n; ++i) {
      xs[i] = static_cast<float>(i) - 4.0f;
      ys[i] = 0.5f;
    }
    DLDevice cpu{kDLCPU, 0};
    DLDataType f32_type{kDLFloat, 32, 1};
    tvm::runtime::Tensor x = tvm::runtime::Empty({n}, f32_type, cpu);
    tvm::runtime::Tensor y = tvm::runtime::Empty({n}, f32_type, cpu);
    tvm::runtime::CopyFromBytes(x, xs.data(), n * sizeof(float));
    tvm::runtime::CopyFromBytes(y, ys.data(), n * sizeof(float));
    ffi::Tensor result = machine["main"](x, y).cast<ffi::Tensor>();
    tvm::runtime::CopyToBytes(result, out.data(), n * sizeof(float));

    int mismatches = 0;
    std::printf("relu(x + y) =");
    for (int64_t i = 0; i < n; ++i) {
      float expect = std::max(0.0f, xs[i] + ys[i]);
      mismatches += std::fabs(out[i] - expect) > 1e-6f;
      std::printf(" %g", out[i]);
    }
    std::printf("\n%s\n", mismatches == 0 ? "deploy_app: OK" : "deploy_app: MISMATCH");
    return mismatches == 0 ? 0 : 1;
  } catch (const ffi::Error& e) {
    std::fprintf(stderr, "deploy_app: %s", e.FullMessage().c_str());
    return 1;
  }
}
