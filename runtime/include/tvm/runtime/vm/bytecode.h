/*
 * The VM's instruction set: four opcodes and tagged 64-bit operands. Header-only, so a
 * compiler, an assembler in another language or a test can produce code without linking the
 * runtime; the serialized format (docs/vm.md) stores exactly these words.
 *
 * Instruction words (a flat int64 stream):
 *   Call  [1, dst, func_index, num_args, arg_0 ... arg_{n-1}]   args are tagged (Arg)
 *   Ret   [2, result_register]
 *   Goto  [3, pc_offset]                                         pc += pc_offset
 *   If    [4, cond_register, false_offset]   cond != 0: pc += 1, else pc += false_offset
 * dst/result/cond are plain register numbers (not tagged); dst and result may be
 * kVoidRegister (discard / return None).
 */
#ifndef TVM_RUNTIME_VM_BYTECODE_H_
#define TVM_RUNTIME_VM_BYTECODE_H_

#include <tvm/ffi/error.h>

#include <cstdint>

namespace tvm {
namespace runtime {
namespace vm {

using ExecWord = int64_t;
using RegName = int64_t;
using Index = int64_t;

enum class Opcode : ExecWord { kCall = 1, kRet = 2, kGoto = 3, kIf = 4 };

/*! \brief Words an instruction occupies (Call: plus its arguments). */
constexpr Index kCallHeaderWords = 4;
constexpr Index kRetWords = 2;
constexpr Index kGotoWords = 2;
constexpr Index kIfWords = 3;

/*! \brief What an operand's payload means; stored in the top 8 bits of the word. */
enum class ArgKind : int64_t {
  kRegister = 0,   // a register of the current frame (or a special register)
  kImmediate = 1,  // an int64 in [kArgValueMin, kArgValueMax]
  kConstIdx = 2,   // an index into the executable's constant pool
  kFuncIdx = 3,    // an index into the function table (passes the function as a value)
};
constexpr int kArgKindShift = 56;
constexpr int64_t kArgValueMin = -(int64_t{1} << 55);
constexpr int64_t kArgValueMax = (int64_t{1} << 55) - 1;

/*!
 * \brief Registers at or above this number are special; they never index the register file.
 * Reading kVoidRegister gives None and writing it discards the value; reading kVMRegister
 * gives the running VirtualMachine module (builtins that allocate take it first).
 */
constexpr RegName kBeginSpecialReg = int64_t{1} << 54;
constexpr RegName kVoidRegister = kBeginSpecialReg;
constexpr RegName kVMRegister = kBeginSpecialReg + 1;

/*! \brief Kind of a function-table entry. */
enum class FuncKind : int64_t {
  kPacked = 0,    // resolved by name at VM init: the executable's imports, then the registry
  kBytecode = 1,  // a range of instructions in this executable
};

/*! \brief One tagged operand word. */
class Arg {
 public:
  constexpr explicit Arg(ExecWord word) : word_(word) {}
  static Arg Register(RegName reg) { return Make(ArgKind::kRegister, reg); }
  static Arg Immediate(int64_t value) { return Make(ArgKind::kImmediate, value); }
  static Arg ConstIdx(Index index) { return Make(ArgKind::kConstIdx, index); }
  static Arg FuncIdx(Index index) { return Make(ArgKind::kFuncIdx, index); }
  static Arg Void() { return Register(kVoidRegister); }
  static Arg VMContext() { return Register(kVMRegister); }

  /*! \brief The tag; values above 3 are possible in a corrupt word (and rejected on load). */
  constexpr int64_t raw_kind() const {
    return static_cast<int64_t>(static_cast<uint64_t>(word_) >> kArgKindShift);
  }
  constexpr ArgKind kind() const { return static_cast<ArgKind>(raw_kind()); }
  /*! \brief The payload, sign-extended from 56 bits. */
  constexpr int64_t value() const {
    return static_cast<int64_t>(static_cast<uint64_t>(word_) << (64 - kArgKindShift)) >>
           (64 - kArgKindShift);
  }
  constexpr ExecWord word() const { return word_; }

  /*! \brief Encodes (kind, value); ValueError when the value does not fit in 56 bits. */
  static Arg Make(ArgKind kind, int64_t value) {
    TVM_FFI_CHECK(value >= kArgValueMin && value <= kArgValueMax, ValueError)
        << "VM operand payload " << value << " does not fit in 56 bits";
    uint64_t payload = static_cast<uint64_t>(value) & ((uint64_t{1} << kArgKindShift) - 1);
    return Arg(static_cast<ExecWord>((static_cast<uint64_t>(kind) << kArgKindShift) | payload));
  }

 private:
  ExecWord word_;
};

/*! \brief Module kinds (ffi::ModuleObj::kind()) of the executable and of a running VM. */
constexpr const char* kExecutableKind = "relax.VMExecutable";
constexpr const char* kVirtualMachineKind = "relax.VirtualMachine";

/*! \brief Serialized format identification ("TVMVMEXE" as little-endian bytes). */
constexpr uint64_t kExecutableMagic = 0x4558454D564D5654ULL;
constexpr uint32_t kExecutableVersion = 1;

/*! \brief Limits every executable must respect (checked when built and when loaded). */
constexpr Index kMaxRegisterFileSize = Index{1} << 16;
constexpr Index kMaxCallArgs = Index{1} << 12;
constexpr int kMaxConstantNesting = 32;
constexpr int kMaxTensorConstantNDim = 64;

/*! \brief Allocator kinds a VM can use per device (same numbers as the runtime's allocators). */
enum class AllocatorKind : int { kNaive = 1, kPooled = 2 };

}  // namespace vm
}  // namespace runtime
}  // namespace tvm
#endif  // TVM_RUNTIME_VM_BYTECODE_H_
