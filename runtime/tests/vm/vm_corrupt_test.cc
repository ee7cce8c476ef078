// Acceptance: corrupt executables yield ValueError, never a crash, a hang or an unbounded
// allocation. Hand-made malformations of every field, then thousands of random mutations
// (bit flips, overwrites, truncations, insertions, garbage, huge counts) of valid executables;
// mutants that still load must re-save to the same bytes and, when they cannot loop, run.
#include <cstring>
#include <functional>
#include <random>

#include "mlp_program.h"
#include "vm_test_util.h"

namespace {
using namespace tvm_vm_test;
using rvm::Arg;

// ---- an independent writer of the documented format (docs/vm.md) ----
struct Bytes {
  std::string s;
  Bytes& U8(uint8_t v) { s.push_back(static_cast<char>(v)); return *this; }
  Bytes& U32(uint32_t v) { for (int i = 0; i < 4; ++i) U8((v >> (8 * i)) & 0xFF); return *this; }
  Bytes& U64(uint64_t v) { for (int i = 0; i < 8; ++i) U8((v >> (8 * i)) & 0xFF); return *this; }
  Bytes& Str(const std::string& v) { U64(v.size()); s += v; return *this; }
  Bytes& Header(uint64_t nf, uint64_t nc, uint64_t nw, uint32_t version = 1, uint32_t flags = 0) {
    return U64(rvm::kExecutableMagic).U32(version).U32(flags).U64(nf).U64(nc).U64(nw);
  }
  Bytes& Func(const std::string& name, int64_t kind, int64_t nargs, int64_t regs, int64_t start,
              int64_t end, std::vector<std::string> params = {}) {
    Str(name).U64(kind).U64(nargs).U64(regs).U64(start).U64(end).U64(params.size());
    for (const auto& p : params) Str(p);
    return *this;
  }
  Bytes& Words(std::vector<int64_t> words) {
    for (int64_t w : words) U64(static_cast<uint64_t>(w));
    return *this;
  }
};

ffi::Module Load(const std::string& bytes) {
  return rvm::LoadExecutable(ffi::Bytes(bytes.data(), bytes.size()));
}
std::string Save(const ffi::Module& exec) {
  ffi::Bytes b = rvm::SaveExecutable(exec);
  return std::string(b.data(), b.size());
}

constexpr int64_t kCall = 1, kRet = 2, kGoto = 3, kIf = 4;
int64_t R(int64_t r) { return Arg::Register(r).word(); }

// main(x) = ret x, with a packed "f" at index 1: the smallest useful valid executable.
Bytes Minimal(std::vector<int64_t> code = {kRet, 0}, int64_t regs = 1, int64_t end = 1) {
  Bytes b;
  b.Header(2, 0, code.size()).Func("main", 1, 1, regs, 0, end).Func("f", 0, -1, 0, 0, 0);
  return b.Words(code);
}

TEST(VMCorrupt, MinimalIsValid) {
  ffi::Module exec = Load(Minimal().s);
  EXPECT_EQ(Save(exec), Minimal().s);
}

TEST(VMCorrupt, HeaderErrors) {
  std::string good = Minimal().s;
  EXPECT_VM_ERROR(Load(""), "ValueError", "bad magic");
  EXPECT_VM_ERROR(Load("TVMVMEX"), "ValueError", "bad magic");
  EXPECT_VM_ERROR(Load(std::string("XVMVMEXE") + good.substr(8)), "ValueError", "bad magic");
  EXPECT_VM_ERROR(Load(good.substr(0, 12)), "ValueError", "truncated");
  Bytes v2;
  v2.Header(0, 0, 0, /*version=*/2);
  EXPECT_VM_ERROR(Load(v2.s), "ValueError", "version 2");
  Bytes flags;
  flags.Header(0, 0, 0, 1, /*flags=*/1);
  EXPECT_VM_ERROR(Load(flags.s), "ValueError", "flags");
  EXPECT_VM_ERROR(Load(good + "x"), "ValueError", "trailing");
  EXPECT_VM_ERROR(Load(good.substr(0, good.size() - 1)), "ValueError", "truncated");
  // Counts that cannot fit in the bytes left are refused before anything is allocated.
  for (uint64_t huge : {uint64_t{1} << 62, ~uint64_t{0}, uint64_t{1} << 32, uint64_t{1000}}) {
    Bytes a, b, c;
    a.Header(huge, 0, 0);
    b.Header(0, huge, 0);
    c.Header(0, 0, huge);
    EXPECT_VM_ERROR(Load(a.s), "ValueError", "exceed");
    EXPECT_VM_ERROR(Load(b.s), "ValueError", "exceed");
    EXPECT_VM_ERROR(Load(c.s), "ValueError", "exceed");
  }
  EXPECT_NO_THROW(Load(Bytes().Header(0, 0, 0).s));  // empty executables are fine
}

TEST(VMCorrupt, FunctionTableErrors) {
  auto one = [](const std::string& name, int64_t kind, int64_t nargs, int64_t regs, int64_t start,
                int64_t end, std::vector<std::string> params = {}) {
    Bytes b;
    b.Header(1, 0, 2).Func(name, kind, nargs, regs, start, end, params).Words({kRet, 0});
    return b.s;
  };
  EXPECT_NO_THROW(Load(one("main", 1, 1, 1, 0, 1, {"x"})));
  EXPECT_VM_ERROR(Load(one("", 1, 1, 1, 0, 1)), "ValueError", "empty function name");
  EXPECT_VM_ERROR(Load(one("main", 7, 1, 1, 0, 1)), "ValueError", "unknown kind");
  EXPECT_VM_ERROR(Load(one("main", 1, -1, 1, 0, 1)), "ValueError", "arity");
  EXPECT_VM_ERROR(Load(one("main", 1, 2, 1, 0, 1)), "ValueError", "register file size");
  EXPECT_VM_ERROR(Load(one("main", 1, 1, int64_t{1} << 40, 0, 1)), "ValueError",
                  "register file size");
  EXPECT_VM_ERROR(Load(one("main", 1, 1, 1, 0, 2)), "ValueError", "instruction range");
  EXPECT_VM_ERROR(Load(one("main", 1, 1, 1, 1, 1)), "ValueError", "instruction range");
  EXPECT_VM_ERROR(Load(one("main", 1, 1, 1, -1, 1)), "ValueError", "instruction range");
  EXPECT_VM_ERROR(Load(one("main", 1, 1, 1, 0, 1, {"a", "b"})), "ValueError", "parameter names");
  EXPECT_VM_ERROR(Load(one("f", 0, 1, 3, 0, 0)), "ValueError", "packed function");
  Bytes dup;
  dup.Header(2, 0, 2).Func("main", 1, 1, 1, 0, 1).Func("main", 0, -1, 0, 0, 0).Words({kRet, 0});
  EXPECT_VM_ERROR(Load(dup.s), "ValueError", "duplicate");
  Bytes long_name;
  long_name.Header(1, 0, 0).U64(uint64_t{1} << 40).s += std::string(64, '\0');
  EXPECT_VM_ERROR(Load(long_name.s), "ValueError", "truncated");
  Bytes many_params;
  many_params.Header(1, 0, 0).Str("f").U64(0).U64(0).U64(0).U64(0).U64(0).U64(uint64_t{1} << 61);
  EXPECT_VM_ERROR(Load(many_params.s), "ValueError", "exceeds");
}

TEST(VMCorrupt, CodeErrors) {
  auto code = [](std::vector<int64_t> words, int64_t regs = 2) {
    int64_t n = 0;  // instructions (only used for end_instr)
    for (size_t i = 0; i < words.size(); ++n) {
      int64_t op = words[i];
      i += op == kCall ? (i + 3 < words.size() ? 4 + std::max<int64_t>(0, words[i + 3]) : 4)
                       : (op == kIf ? 3 : 2);
    }
    return Minimal(words, regs, std::max<int64_t>(n, 1)).s;
  };
  EXPECT_NO_THROW(Load(code({kCall, 1, 1, 1, R(0), kRet, 1})));
  EXPECT_VM_ERROR(Load(code({9, 0})), "ValueError", "unknown opcode");
  EXPECT_VM_ERROR(Load(code({0, 0})), "ValueError", "unknown opcode");
  EXPECT_VM_ERROR(Load(code({kCall, 1, 1})), "ValueError", "truncated");
  EXPECT_VM_ERROR(Load(code({kCall, 1, 1, 5, R(0), kRet, 1})), "ValueError", "argument count");
  EXPECT_VM_ERROR(Load(code({kCall, 1, 1, -1, kRet, 1})), "ValueError", "argument count");
  EXPECT_VM_ERROR(Load(code({kIf, 0})), "ValueError", "truncated");
  EXPECT_VM_ERROR(Load(code({kRet, 2})), "ValueError", "returned register");
  EXPECT_VM_ERROR(Load(code({kRet, -1})), "ValueError", "returned register");
  EXPECT_VM_ERROR(Load(code({kRet, rvm::kVMRegister})), "ValueError", "returned register");
  EXPECT_VM_ERROR(Load(code({kCall, 5, 1, 0, kRet, 0})), "ValueError", "destination register");
  EXPECT_VM_ERROR(Load(code({kCall, rvm::kVMRegister, 1, 0, kRet, 0})), "ValueError",
                  "destination register");
  EXPECT_VM_ERROR(Load(code({kCall, 1, 2, 0, kRet, 0})), "ValueError", "function index");
  EXPECT_VM_ERROR(Load(code({kCall, 1, -1, 0, kRet, 0})), "ValueError", "function index");
  EXPECT_VM_ERROR(Load(code({kCall, 1, 0, 0, kRet, 0})), "ValueError", "takes 1");  // arity
  EXPECT_VM_ERROR(Load(code({kCall, 1, 1, 0})), "ValueError", "falls off");
  EXPECT_VM_ERROR(Load(code({kCall, 1, 1, 1, R(7), kRet, 1})), "ValueError", "argument 0");
  EXPECT_VM_ERROR(Load(code({kCall, 1, 1, 1, Arg::ConstIdx(0).word(), kRet, 1})), "ValueError",
                  "argument 0");
  EXPECT_VM_ERROR(Load(code({kCall, 1, 1, 1, Arg::FuncIdx(2).word(), kRet, 1})), "ValueError",
                  "argument 0");
  EXPECT_VM_ERROR(Load(code({kCall, 1, 1, 1, int64_t{4} << 56, kRet, 1})), "ValueError",
                  "kind 4");
  EXPECT_VM_ERROR(Load(code({kCall, 1, 1, 1, int64_t{-1}, kRet, 1})), "ValueError", "kind 255");
  EXPECT_VM_ERROR(Load(code({kGoto, 1})), "ValueError", "leaves the function");
  EXPECT_VM_ERROR(Load(code({kGoto, -1})), "ValueError", "leaves the function");
  EXPECT_VM_ERROR(Load(code({kGoto, INT64_MIN})), "ValueError", "leaves the function");
  EXPECT_VM_ERROR(Load(code({kGoto, INT64_MAX})), "ValueError", "leaves the function");
  EXPECT_VM_ERROR(Load(code({kIf, 0, 1})), "ValueError", "leaves the function");
  EXPECT_VM_ERROR(Load(code({kIf, 0, 2, kRet, 0})), "ValueError", "leaves the function");
  EXPECT_VM_ERROR(Load(code({kIf, 3, 1, kRet, 0})), "ValueError", "condition register");
  EXPECT_VM_ERROR(Load(code({kIf, rvm::kVoidRegister, 1, kRet, 0})), "ValueError",
                  "condition register");
  // Code outside every function is still parsed, so it must be well formed too.
  Bytes stray;
  stray.Header(1, 0, 4).Func("main", 1, 1, 1, 0, 1).Words({kRet, 0, 77, 0});
  EXPECT_VM_ERROR(Load(stray.s), "ValueError", "unknown opcode");
}

TEST(VMCorrupt, ConstantErrors) {
  auto with_const = [](const std::function<void(Bytes*)>& c) {
    Bytes b;
    b.Header(1, 1, 2).Func("main", 1, 1, 1, 0, 1);
    c(&b);
    b.Words({kRet, 0});
    return b.s;
  };
  EXPECT_NO_THROW(Load(with_const([](Bytes* b) { b->U32(1).U64(42); })));
  EXPECT_VM_ERROR(Load(with_const([](Bytes* b) { b->U32(99); })), "ValueError", "constant tag");
  EXPECT_VM_ERROR(Load(with_const([](Bytes* b) { b->U32(2).U8(2); })), "ValueError", "bool");
  EXPECT_VM_ERROR(Load(with_const([](Bytes* b) { b->U32(4).U64(1000); })), "ValueError",
                  "truncated");
  EXPECT_VM_ERROR(Load(with_const([](Bytes* b) { b->U32(7).U64(uint64_t{1} << 60); })),
                  "ValueError", "exceeds");
  EXPECT_VM_ERROR(Load(with_const([](Bytes* b) { b->U32(9).U64(~uint64_t{0}); })), "ValueError",
                  "exceeds");
  // Tensors: dtype, rank, extents and byte size must agree with each other and the input.
  auto tensor = [](uint8_t bits, uint16_t lanes, std::vector<int64_t> shape, uint64_t nbytes,
                   size_t data) {
    return [=](Bytes* b) {
      b->U32(8).U8(kDLFloat).U8(bits).U8(lanes & 0xFF).U8(lanes >> 8).U32(shape.size());
      for (int64_t d : shape) b->U64(static_cast<uint64_t>(d));
      b->U64(nbytes);
      b->s += std::string(data, '\0');
    };
  };
  EXPECT_NO_THROW(Load(with_const(tensor(32, 1, {2, 3}, 24, 24))));
  EXPECT_NO_THROW(Load(with_const(tensor(32, 1, {0, int64_t{1} << 62}, 0, 0))));
  EXPECT_VM_ERROR(Load(with_const(tensor(32, 1, {2, 3}, 20, 20))), "ValueError", "byte size");
  EXPECT_VM_ERROR(Load(with_const(tensor(32, 1, {2, 3}, 24, 10))), "ValueError", "truncated");
  EXPECT_VM_ERROR(Load(with_const(tensor(0, 1, {2}, 0, 0))), "ValueError", "zero-width");
  EXPECT_VM_ERROR(Load(with_const(tensor(32, 0, {2}, 0, 0))), "ValueError", "zero-width");
  EXPECT_VM_ERROR(Load(with_const(tensor(32, 1, {-2}, 0, 0))), "ValueError", "negative");
  EXPECT_VM_ERROR(Load(with_const(tensor(32, 1, std::vector<int64_t>(65, 1), 4, 4))),
                  "ValueError", "dimensions");
  // Extents whose product overflows 64 bits cannot pass for a small byte size.
  int64_t big = int64_t{1} << 62;
  EXPECT_VM_ERROR(Load(with_const(tensor(255, 65535, {big, big, big, 4}, 0, 0))), "ValueError",
                  "byte size");
  EXPECT_VM_ERROR(Load(with_const(tensor(32, 1, {big, 4}, 0, 0))), "ValueError", "byte size");
  // Deep nesting is refused instead of recursing without bound.
  EXPECT_VM_ERROR(Load(with_const([](Bytes* b) {
                    for (int i = 0; i < 100000; ++i) b->U32(9).U64(1);
                    b->U32(0);
                  })),
                  "ValueError", "nested");
}

// ---- random mutation of valid executables ----

/*! A program using only harmless functions (no allocation), with forward jumps, a call to a
 *  second bytecode function, every operand kind and every constant kind. */
ffi::Module SandboxProgram() {
  rvm::ExecBuilder b;
  ffi::Tensor t = F32({2, 2}, {1, 2, 3, 4});
  Arg c_int = b.ConvertConstant(int64_t{7});
  Arg c_str = b.ConvertConstant(ffi::String("ctx"));
  Arg c_f = b.ConvertConstant(2.5);
  Arg c_shape = b.ConvertConstant(ffi::Shape({2, 2}));
  Arg c_t = b.ConvertConstant(t);
  ffi::Array<ffi::Any> inner{true, DLDataType{kDLInt, 8, 1}};
  Arg c_arr = b.ConvertConstant(
      ffi::Array<ffi::Any>{int64_t{1}, ffi::String("s"), ffi::Shape({3}), inner});
  Arg c_dev = b.ConvertConstant(DLDevice{kDLCPU, 0});
  Arg c_none = b.ConvertConstant(ffi::Any());
  b.EmitFunction("helper", 2, {"a", "b"});
  b.EmitCall("vm.builtin.make_tuple", {Arg::Register(0), Arg::Register(1), c_int}, 2);
  b.EmitRet(2);
  b.EndFunction("helper");
  b.EmitFunction("main", 2, {"x", "y"});
  b.EmitCall("vm.builtin.make_tuple", {Arg::Register(0), c_str, c_f, c_shape, c_t, c_arr, c_dev,
                                       c_none, Arg::VMContext(), Arg::Void(), Arg::Immediate(-5)},
             2);
  b.EmitCall("helper", {Arg::Register(2), Arg::Register(1)}, 3);
  b.EmitCall("vm.builtin.read_if_cond", {Arg::Register(1)}, 4);
  rvm::Index at_if = b.EmitIf(4, 0);
  b.EmitCall("vm.builtin.tuple_getitem", {Arg::Register(3), Arg::Immediate(0)}, 5);
  rvm::Index at_goto = b.EmitGoto(0);
  b.PatchJump(at_if, b.NumInstructions() - at_if);
  b.EmitCall("vm.builtin.invoke_closure", {b.Func("helper"), Arg::Register(0), c_t}, 5);
  b.PatchJump(at_goto, b.NumInstructions() - at_goto);
  b.EmitCall("vm.builtin.check_shape_info", {c_shape, Arg::Immediate(2), c_str});
  b.EmitCall("vm.builtin.identity", {Arg::Register(5)}, 6);
  b.EmitRet(6);
  b.EndFunction("main");
  return b.Get();
}

/*! Whether every jump of the (valid) serialized executable goes forward, so it terminates. */
bool OnlyForwardJumps(const std::string& bytes) {
  uint64_t nwords = 0;
  for (int i = 7; i >= 0; --i) nwords = (nwords << 8) | static_cast<unsigned char>(bytes[32 + i]);
  std::vector<int64_t> w(nwords);
  // The code section ends the file; a little-endian host reads the words as they are.
  std::memcpy(w.data(), bytes.data() + bytes.size() - 8 * nwords, 8 * nwords);
  for (size_t i = 0; i < w.size();) {
    if (w[i] == kGoto && w[i + 1] <= 0) return false;
    if (w[i] == kIf && w[i + 2] <= 0) return false;
    i += w[i] == kCall ? 4 + w[i + 3] : (w[i] == kIf ? 3 : 2);
  }
  return true;
}

std::string Mutate(const std::string& in, std::mt19937_64* rng) {
  std::string s = in;
  auto pick = [rng](size_t n) { return n == 0 ? 0 : static_cast<size_t>((*rng)() % n); };
  const uint64_t kHuge[] = {~uint64_t{0},          uint64_t{1} << 63, uint64_t{1} << 62,
                            uint64_t{1} << 32,     uint64_t{1} << 54, (uint64_t{1} << 54) + 1,
                            uint64_t{0xFFFFFFFF},  0,                 1,
                            uint64_t{1} << 16,     uint64_t{3} << 56};
  switch ((*rng)() % 8) {
    case 0:  // bit flips
      for (int k = 1 + pick(8); k > 0 && !s.empty(); --k) s[pick(s.size())] ^= 1 << pick(8);
      break;
    case 1:  // random bytes overwritten
      for (int k = 1 + pick(4); k > 0 && !s.empty(); --k) s[pick(s.size())] = (*rng)() & 0xFF;
      break;
    case 2:  // truncation
      s.resize(pick(s.size()));
      break;
    case 3: {  // insertion or deletion of a range
      size_t at = pick(s.size() + 1), n = 1 + pick(16);
      if ((*rng)() % 2) {
        std::string extra;
        for (size_t i = 0; i < n; ++i) extra.push_back((*rng)() & 0xFF);
        s.insert(at, extra);
      } else {
        s.erase(at, n);
      }
      break;
    }
    case 4:  // an aligned word (a count, an index, an opcode, an operand) set to an extreme
    case 5: {
      if (s.size() < 8) break;
      size_t at = pick(s.size() / 8) * 8;
      uint64_t v = kHuge[pick(sizeof(kHuge) / sizeof(kHuge[0]))];
      if ((*rng)() % 3 == 0) v = (*rng)();
      for (int i = 0; i < 8; ++i) s[at + i] = static_cast<char>((v >> (8 * i)) & 0xFF);
      break;
    }
    case 6: {  // one header count changed by a small amount
      if (s.size() < 40) break;
      size_t at = 16 + 8 * pick(3);
      s[at] = static_cast<char>(s[at] + static_cast<char>(1 + pick(3)) * ((*rng)() % 2 ? 1 : -1));
      break;
    }
    case 7: {  // garbage, sometimes behind a valid magic and version
      std::string g = (*rng)() % 2 ? in.substr(0, 16) : std::string();
      for (size_t i = 0, n = pick(256); i < n; ++i) g.push_back((*rng)() & 0xFF);
      s = g;
      break;
    }
  }
  return s;
}

struct FuzzStats {
  int rejected = 0, loaded = 0, ran = 0;
};

void Fuzz(const ffi::Module& seed_exec, int cases, uint64_t seed, bool run, FuzzStats* stats) {
  std::string seed_bytes = Save(seed_exec);
  std::mt19937_64 rng(seed);
  ffi::Tensor x = F32({2, 2}, {1, 0, 0, 1});
  for (int i = 0; i < cases; ++i) {
    std::string bytes = Mutate(seed_bytes, &rng);
    if ((rng() % 4) == 0) bytes = Mutate(bytes, &rng);  // sometimes two mutations
    ffi::Module exec;
    try {
      exec = Load(bytes);
    } catch (const ffi::Error& e) {
      ASSERT_EQ(e.kind(), "ValueError") << "case " << i << ": " << e.message();
      ++stats->rejected;
      continue;
    }
    ++stats->loaded;
    // The format is canonical: whatever loads re-saves to exactly the same bytes.
    ASSERT_EQ(Save(exec), bytes) << "case " << i;
    exec->GetFunction("as_text").value()();
    if (!run || !OnlyForwardJumps(bytes)) continue;
    try {
      rvm::VirtualMachine vm = rvm::VirtualMachine::Create(exec, kCPU);
      ffi::Array<ffi::String> names =
          exec->GetFunction("function_names").value()().cast<ffi::Array<ffi::String>>();
      for (const ffi::String& name : names) {
        int64_t arity =
            vm.module()->GetFunction("get_function_arity").value()(name).cast<int64_t>();
        std::vector<ffi::AnyView> args;
        ffi::Any pool[] = {x, int64_t{1}, int64_t{0}, ffi::String("a")};
        for (int64_t k = 0; k < arity; ++k) args.push_back(pool[(k + i) % 4]);
        ffi::Any rv;
        try {
          vm[name].CallPacked(args.data(), static_cast<int32_t>(args.size()), &rv);
        } catch (const ffi::Error&) {
          // Any error is fine (a mutated program may call anything with anything).
        }
      }
      ++stats->ran;
    } catch (const ffi::Error&) {
      // e.g. a mutated name that resolves to no function: RuntimeError at VM creation.
    }
  }
}

TEST(VMCorrupt, RandomMutationsOfTheSandboxProgram) {
  FuzzStats stats;
  Fuzz(SandboxProgram(), 20000, 42, /*run=*/true, &stats);
  // The mutations must exercise both outcomes.
  EXPECT_GT(stats.rejected, 3000);
  EXPECT_GT(stats.loaded, 100);
  EXPECT_GT(stats.ran, 20);
  std::printf("sandbox: %d rejected, %d loaded, %d ran\n", stats.rejected, stats.loaded,
              stats.ran);
}

TEST(VMCorrupt, RandomMutationsOfTheMlp) {
  FuzzStats stats;
  Fuzz(BuildMlpExecutable(), 10000, 7, /*run=*/false, &stats);
  EXPECT_GT(stats.rejected, 3000);
  EXPECT_GT(stats.loaded, 50);
  std::printf("mlp: %d rejected, %d loaded\n", stats.rejected, stats.loaded);
}

TEST(VMCorrupt, PureGarbage) {
  std::mt19937_64 rng(1);
  for (int i = 0; i < 2000; ++i) {
    std::string g;
    for (size_t k = 0, n = rng() % 512; k < n; ++k) g.push_back(rng() & 0xFF);
    if (i % 2) g = Bytes().Header(rng() % 4, rng() % 4, rng() % 16).s + g;
    try {
      Load(g);
    } catch (const ffi::Error& e) {
      EXPECT_EQ(e.kind(), "ValueError");
    }
  }
}

}  // namespace
