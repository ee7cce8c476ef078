// Acceptance: the VM runs the hand-assembled two-layer MLP whose kernels live in a test .so,
// matching a plain C++ reference on random data; the executable round-trips through bytes;
// and the same executable embedded in a .so is found by load_module.
#include <cmath>
#include <random>

#include "mlp_program.h"
#include "vm_test_util.h"

namespace {
using namespace tvm_vm_test;

struct MlpCase {
  int64_t batch, in, hidden, out;
  ffi::Tensor x, w1, b1, w2, b2;
  std::vector<float> expected;
};

std::vector<float> Random(std::mt19937* rng, size_t n) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& f : v) f = dist(*rng);
  return v;
}

/*! \brief y = relu(x W1 + b1) W2 + b2, computed directly (double accumulation). */
std::vector<float> Reference(const std::vector<float>& x, const std::vector<float>& w1,
                             const std::vector<float>& b1, const std::vector<float>& w2,
                             const std::vector<float>& b2, int64_t batch, int64_t in,
                             int64_t hidden, int64_t out) {
  std::vector<float> h(batch * hidden), y(batch * out);
  for (int64_t i = 0; i < batch; ++i) {
    for (int64_t j = 0; j < hidden; ++j) {
      double acc = b1[j];
      for (int64_t k = 0; k < in; ++k) acc += double{x[i * in + k]} * w1[k * hidden + j];
      h[i * hidden + j] = acc > 0 ? static_cast<float>(acc) : 0.0f;
    }
    for (int64_t j = 0; j < out; ++j) {
      double acc = b2[j];
      for (int64_t k = 0; k < hidden; ++k) acc += double{h[i * hidden + k]} * w2[k * out + j];
      y[i * out + j] = static_cast<float>(acc);
    }
  }
  return y;
}

MlpCase MakeCase(uint32_t seed, int64_t batch, int64_t in, int64_t hidden, int64_t out) {
  std::mt19937 rng(seed);
  MlpCase c{batch, in, hidden, out, {}, {}, {}, {}, {}, {}};
  std::vector<float> x = Random(&rng, batch * in), w1 = Random(&rng, in * hidden),
                     b1 = Random(&rng, hidden), w2 = Random(&rng, hidden * out),
                     b2 = Random(&rng, out);
  c.x = F32({batch, in}, x);
  c.w1 = F32({in, hidden}, w1);
  c.b1 = F32({hidden}, b1);
  c.w2 = F32({hidden, out}, w2);
  c.b2 = F32({out}, b2);
  c.expected = Reference(x, w1, b1, w2, b2, batch, in, hidden, out);
  return c;
}

std::vector<float> RunMlp(const rvm::VirtualMachine& vm, const MlpCase& c) {
  ffi::Tensor y = vm["main"](c.x, c.w1, c.b1, c.w2, c.b2).cast<ffi::Tensor>();
  EXPECT_EQ(ShapeOf(y), (std::vector<int64_t>{c.batch, c.out}));
  return Values(y);
}

void ExpectClose(const std::vector<float>& got, const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_NEAR(got[i], want[i], 1e-4 * (1 + std::abs(want[i]))) << "element " << i;
  }
}

const std::vector<std::vector<int64_t>> kSizes = {
    {1, 1, 1, 1}, {4, 8, 16, 3}, {7, 13, 5, 11}, {32, 64, 48, 10}, {3, 100, 1, 2}};

ffi::Module LoadKernels() {
  return ffi::Module::LoadFromFile(Runfile("runtime/tests/vm/mlp_kernels.so"));
}

TEST(VMMlp, MatchesReferenceAcrossSizesSeedsAndAllocators) {
  ffi::Module exec = WithImport(BuildMlpExecutable(), LoadKernels());
  for (rvm::AllocatorKind kind : {rvm::AllocatorKind::kNaive, rvm::AllocatorKind::kPooled}) {
    rvm::VirtualMachine vm = rvm::VirtualMachine::Create(exec, kCPU, kind);
    uint32_t seed = 1;
    for (const auto& s : kSizes) {
      for (int rep = 0; rep < 2; ++rep) {
        MlpCase c = MakeCase(seed++, s[0], s[1], s[2], s[3]);
        ExpectClose(RunMlp(vm, c), c.expected);
      }
    }
  }
}

TEST(VMMlp, SavedAndLoadedExecutableGivesIdenticalResults) {
  ffi::Module lib = LoadKernels();
  ffi::Module exec = WithImport(BuildMlpExecutable(), lib);
  ffi::Bytes bytes = rvm::SaveExecutable(exec);
  ffi::Module loaded = WithImport(rvm::LoadExecutable(bytes), lib);
  // Serialization is deterministic: saving the loaded executable gives the same bytes.
  ffi::Bytes again = rvm::SaveExecutable(loaded);
  EXPECT_EQ(std::string(bytes.data(), bytes.size()), std::string(again.data(), again.size()));
  EXPECT_EQ(loaded->GetFunction("as_text").value()().cast<std::string>(),
            exec->GetFunction("as_text").value()().cast<std::string>());

  rvm::VirtualMachine vm1 = rvm::VirtualMachine::Create(exec, kCPU);
  rvm::VirtualMachine vm2 = rvm::VirtualMachine::Create(loaded, kCPU);
  for (uint32_t seed = 100; seed < 105; ++seed) {
    MlpCase c = MakeCase(seed, 5, 9, 6, 4);
    std::vector<float> a = RunMlp(vm1, c), b = RunMlp(vm2, c);
    EXPECT_EQ(a, b);  // bit-identical: same code, same kernels
    ExpectClose(b, c.expected);
  }
}

TEST(VMMlp, ExecutableEmbeddedInTheLibraryIsLoadedWithIt) {
  ffi::Module root = ffi::Module::LoadFromFile(Runfile("runtime/tests/vm/mlp_bundle.so"));
  // The import tree makes the executable the root and the library its import.
  ASSERT_STREQ(root->kind(), rvm::kExecutableKind);
  ASSERT_EQ(root->imports().size(), 1u);
  EXPECT_STREQ(root->imports()[0].cast<ffi::Module>()->kind(), "library");
  EXPECT_TRUE(root->GetFunction("has_function").value()("main").cast<bool>());
  EXPECT_TRUE(root->GetFunction("has_function").value()("dense_bias").cast<bool>());
  EXPECT_FALSE(root->GetFunction("has_function").value()("dense").cast<bool>());

  rvm::VirtualMachine vm = rvm::VirtualMachine::Create(root, kCPU);
  for (uint32_t seed = 7; seed < 10; ++seed) {
    MlpCase c = MakeCase(seed, 6, 10, 12, 3);
    ExpectClose(RunMlp(vm, c), c.expected);
  }
  // Also through the VM module functions a binding uses.
  ffi::Module vm_mod = root->GetFunction("vm_load_executable").value()().cast<ffi::Module>();
  vm_mod->GetFunction("vm_initialization").value()(int64_t{kDLCPU}, int64_t{0}, "naive");
  EXPECT_EQ(vm_mod->GetFunction("get_function_arity").value()("main").cast<int64_t>(), 5);
  EXPECT_EQ(vm_mod->GetFunction("get_function_param_name").value()("main", 3).cast<std::string>(),
            "w2");
  MlpCase c = MakeCase(11, 2, 3, 4, 5);
  ExpectClose(RunMlp(rvm::VirtualMachine(vm_mod), c), c.expected);
}

TEST(VMMlp, PooledAllocatorReusesMemoryAcrossRuns) {
  ffi::Module exec = WithImport(BuildMlpExecutable(), LoadKernels());
  rvm::VirtualMachine vm = rvm::VirtualMachine::Create(exec, kCPU, rvm::AllocatorKind::kPooled);
  MlpCase c = MakeCase(3, 8, 16, 32, 4);
  auto device_allocs = [] {
    return G("runtime.memory.Stats")(kCPU, int64_t{2}).cast<ffi::Array<int64_t>>()[4];
  };
  ExpectClose(RunMlp(vm, c), c.expected);  // warms the pool
  int64_t before = device_allocs();
  for (int i = 0; i < 5; ++i) ExpectClose(RunMlp(vm, c), c.expected);
  // Intermediates die with their registers and go back to the pool, so later runs are
  // served from it without reaching the device allocator.
  EXPECT_EQ(device_allocs(), before);
}

}  // namespace
