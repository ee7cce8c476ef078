/*
 * Call helpers for the ctypes Python package (python/tvm_ffi). Internal: none of these symbols
 * is exported (the library's exported set stays the C ABI); Python learns their addresses from
 * the global function `ffi.PythonCallHelpers`, which returns an OpaquePtr to a
 * PythonCallHelperTable.
 *
 * Why they exist: a ctypes call costs tens of nanoseconds for every argument it converts, so a
 * ctypes binding spends most of a call on the four arguments of TVMFFIFunctionCall, and most of
 * a C -> Python callback on the four arguments of the safe_call signature. These helpers take
 * that work into C:
 *
 *  - Call frames. A CallFrame holds {result, scratch, args[16], func, num_args, owned}. The
 *    kNumCallFrames static frames each have their own zero-argument entry point (a template
 *    instance bound to the frame), so a Python call is "fill frame i, call slot i()", a ctypes
 *    call that converts nothing. Frames that Python allocates itself (when the static ones are
 *    all in use: nested calls, many threads) go through CallFrameAt(frame), one pointer.
 *    Every call restores the frame's idle state: num_args 0 and every argument's type word
 *    Int, so a call writes neither for zero arguments nor the type of an Int argument (each
 *    memoryview store costs Python tens of nanoseconds). Each static frame also has entry
 *    points for one, two and three arguments, and for one short string or one object
 *    argument (global `ffi.PythonCallSlots`), so the commonest calls write neither num_args
 *    nor a type word.
 *  - Owned temporaries. Bit i of `owned` means args[i] holds a reference that the frame owns (a
 *    tensor imported from DLPack, a String made for a long str); the call drops it afterwards,
 *    which saves Python a wrapper object and a DecRef call per temporary.
 *  - Callbacks. Python callables become Functions whose safe_call is PyCallbackSafeCall, with
 *    `self` = the Python side's key (the address of a Python object holding the callable). It
 *    calls Python with a callback frame index, the key and, in the common cases (no arguments,
 *    or one to three Ints), the arguments by value; otherwise with copies of the argument
 *    views in the callback frame. The result comes back in the frame. Callback frames come
 *    from a lock-free pool; when it is empty, or a call has more arguments than a frame holds,
 *    the original four-argument Python callback runs instead.
 *  - DLPack. ImportCapsule reads a PyCapsule (whose layout the Python side verified), imports
 *    its managed tensor and renames the capsule "used_...", in one call instead of four.
 *
 * The static frames and the callback hooks are process-wide state, so only the first caller of
 * ffi.PythonCallHelpers gets them; a second copy of the Python package in the same process gets
 * a table without them and runs on the stateless helpers (and its own fallbacks).
 */
#include <tvm/ffi/c_api.h>
#include <tvm/ffi/extra/c_env_api.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>

#include "../support/internal.h"

namespace tvm {
namespace ffi {
namespace {

/*! \brief Layout version of PythonCallHelperTable and the frames; the Python side checks it. */
constexpr int64_t kTableVersion = 3;  // 2: void callbacks, W_STR, ffi.PythonCallSlots;
                                      // 3: the framework environment words (40-44)
constexpr int kMaxArgs = 16;
constexpr int kNumCallFrames = 64;
constexpr int kNumCallbackFrames = 64;  // one bit each in g_free_callback_frames

/*! \brief Arguments, result and call target of one Python -> C call (int64 word offsets in
 *  comments, as the Python side indexes them). */
struct CallFrame {
  TVMFFIAny result;          // 0-1: set to None by the call, then an owned value on success
  int64_t scratch[2];        // 2-3: parameters and results of the helpers that take a frame
  TVMFFIAny args[kMaxArgs];  // 4-35: argument views; idle type word: Int (see ResetArgs)
  TVMFFIObjectHandle func;   // 36
  int64_t num_args;          // 37: idle value 0, restored by every call
  uint64_t owned;            // 38: bit i: args[i] holds a reference the call drops
  int64_t str_payload;       // 39: a SmallStr payload for the SmallStrArg entry points
  // The framework environment of this call (a torch tensor among the arguments): Python
  // installs the framework's DLPack allocator (and, for a device tensor, its current stream)
  // while packing the arguments and records here what to restore; every call (and a reset
  // after a failed packing) restores it, so Python pays nothing when no framework is involved.
  int64_t env_api;           // 40: the DLPackExchangeAPI* in force for this call, or 0
  int64_t env_prev_alloc;    // 41: the thread's allocator before the call (restored)
  int64_t env_stream_dev;    // 42: 0, or (device_type << 32 | device_id) + 1 of an installed stream
  int64_t env_prev_stream;   // 43: that device's stream before the call (restored)
  int64_t result_api;        // 44: out: env_api of the last call (the result may be converted back)
};
static_assert(sizeof(CallFrame) == 45 * 8, "the Python side hard-codes the word offsets");

/*! \brief One C -> Python callback in flight. */
struct CallbackFrame {
  TVMFFIAny result;          // 0-1: None, or the owned result Python wrote
  int64_t key;               // 2: the Function's `self` (Python's key of the callable)
  int64_t num_args;          // 3: in: the number of arguments; out: -1 when Python failed
  TVMFFIAny args[kMaxArgs];  // 4-35: copies of the argument views (frame-path calls only)
};
static_assert(sizeof(CallbackFrame) == 36 * 8, "the Python side hard-codes the word offsets");

/*!
 * \brief The Python side's ctypes callbacks. `generic` returns 0, or -1 with the error raised;
 * the others return nothing (a ctypes callback converting its return value costs a tenth of
 * the whole callback) and report a failure by setting the callback frame's num_args to -1,
 * with the error raised.
 */
struct PythonCallbacks {
  // The original safe_call: (key, args, num_args, result); used when no frame is free.
  TVMFFISafeCallType generic;
  // (frame index): key, num_args and args in the callback frame.
  void (*frame)(int32_t slot);
  // No arguments: (frame index, key). The key is the address of a Python object that the
  // Python side keeps alive as long as the Function (ctypes hands it over as the object).
  void (*args0)(int32_t slot, void* key);
  // One to three Int arguments, by value.
  void (*ints1)(int32_t slot, void* key, int64_t a);
  void (*ints2)(int32_t slot, void* key, int64_t a, int64_t b);
  void (*ints3)(int32_t slot, void* key, int64_t a, int64_t b, int64_t c);
};

/*! \brief A zero-argument entry point bound to one static call frame. */
using SlotFn = int (*)();

/*! \brief What ffi.PythonCallHelpers hands out (mirrored by python/tvm_ffi/_cabi.py). */
struct PythonCallHelperTable {
  int64_t version;
  int64_t max_args;
  int64_t num_call_frames;  // 0 for every caller but the first
  CallFrame* call_frames;
  const SlotFn* call_slots;  // call_slots[i]() calls call_frames[i]
  int (*call_frame_at)(CallFrame* frame);
  int (*reset_frame)(CallFrame* frame);
  int (*import_capsule)(CallFrame* frame);
  int64_t num_callback_frames;  // 0 for every caller but the first
  CallbackFrame* callback_frames;
  TVMFFISafeCallType callback_safe_call;  // NULL for every caller but the first
  void (*set_python_callbacks)(const PythonCallbacks* callbacks);
};

CallFrame g_call_frames[kNumCallFrames];
CallbackFrame g_callback_frames[kNumCallbackFrames];
PythonCallbacks g_python;  // set once by set_python_callbacks, before any callback exists
std::atomic<uint64_t> g_free_callback_frames{~uint64_t{0}};
std::atomic<bool> g_claimed{false};

void ClearAny(TVMFFIAny* v) {
  v->type_index = kTVMFFINone;
  v->zero_padding = 0;
  v->v_int64 = 0;
}

/*!
 * \brief Restores the first `n` arguments to the idle state: owned references dropped, type
 * words back to Int (the Python side writes only the payload of an Int argument).
 */
void ResetArgs(CallFrame* frame, int32_t n) {
  uint64_t owned = frame->owned;
  frame->owned = 0;
  while (owned != 0) {
    int i = __builtin_ctzll(owned);
    owned &= owned - 1;
    TVMFFIObjectDecRef(frame->args[i].v_obj);
  }
  for (int32_t i = 0; i < n; ++i) {
    // The whole first word: small strings keep their length in zero_padding.
    frame->args[i].type_index = kTVMFFIInt;
    frame->args[i].zero_padding = 0;
  }
}

/*! \brief Puts back the allocator and stream that Python replaced for this call. */
__attribute__((noinline)) void RestoreEnv(CallFrame* frame) {
  TVMFFIEnvSetDLPackManagedTensorAllocator(
      reinterpret_cast<DLPackManagedTensorAllocator>(frame->env_prev_alloc), 0, nullptr);
  if (frame->env_stream_dev != 0) {
    uint64_t dev = static_cast<uint64_t>(frame->env_stream_dev - 1);
    TVMFFIEnvSetStream(static_cast<int32_t>(dev >> 32), static_cast<int32_t>(dev & 0xFFFFFFFFu),
                       reinterpret_cast<TVMFFIStreamHandle>(frame->env_prev_stream), nullptr);
  }
  frame->env_api = 0;
  frame->env_prev_alloc = 0;
  frame->env_stream_dev = 0;
  frame->env_prev_stream = 0;
}

/*! \brief Restores a frame after a failure before its call: every argument reset. Returns 0. */
int ResetFrame(CallFrame* frame) {
  ResetArgs(frame, kMaxArgs);
  frame->num_args = 0;
  if (frame->env_api != 0) RestoreEnv(frame);
  frame->result_api = 0;
  return 0;
}

/*!
 * \brief Calls frame->func with the first `num_args` arguments of the frame and restores the
 * arguments' idle state. Goes through TVMFFIFunctionCall (not straight to safe_call) to keep
 * its checks and its frame, where backtraces stop.
 * \return -1 on failure (error raised), else the result's type index (>= 0), which saves the
 *   Python side reading it for the common kinds.
 */
inline int CallFrameWith(CallFrame* frame, int32_t num_args) {
  ClearAny(&frame->result);  // the callee's contract: result pre-initialised to None
  int ret = TVMFFIFunctionCall(frame->func, frame->args, num_args, &frame->result);
  ResetArgs(frame, num_args);
  frame->result_api = frame->env_api;
  if (frame->env_api != 0) RestoreEnv(frame);
  return ret != 0 ? -1 : frame->result.type_index;
}

/*! \brief CallFrameWith(frame, frame->num_args), restoring num_args to 0 (its idle value).
 *  Not inlined: the 64 zero-argument entry points are one tail call each. */
__attribute__((noinline)) int CallFrameAt(CallFrame* frame) {
  int32_t num_args = static_cast<int32_t>(frame->num_args);
  frame->num_args = 0;
  if (num_args < 0 || num_args > kMaxArgs) {
    ResetFrame(frame);
    TVMFFIErrorSetRaisedFromCStr("ValueError", "call frame: bad number of arguments");
    return -1;
  }
  return CallFrameWith(frame, num_args);
}

template <size_t I>
int CallSlot() {
  return CallFrameAt(&g_call_frames[I]);
}

template <size_t... I>
struct CallSlotTable {
  static constexpr SlotFn kSlots[] = {&CallSlot<I>...};
};

template <size_t... I>
constexpr const SlotFn* CallSlots(std::index_sequence<I...>) {
  return CallSlotTable<I...>::kSlots;
}

/*
 * Entry points that also fix the number of arguments (1 to kMaxFixedArity): a Python call
 * with that many arguments then writes neither num_args nor, for Ints, any type word. Each
 * memoryview store costs Python tens of nanoseconds, a fifth of a raw ctypes call, and so
 * does each bytecode the Python side runs to decide what to store.
 * num_args stays at its idle value 0 on this path.
 *
 * Two more take one argument whose type word Python did not write either, because the entry
 * point implies it (the two commonest non-Int single arguments):
 *  - SmallStrArg: args[0] is the SmallStr whose payload (at most 7 bytes, none of them NUL,
 *    zero-padded) is in str_payload, a word nothing else writes: Python skips the store when
 *    the word already holds the payload of the very string it passes (a literal in a loop).
 *    The length is where the payload's high zero bytes start;
 *  - ObjectArg: args[0] holds an object handle (non-NULL, checked by Python): the type index
 *    is the object's own (its header).
 * ResetArgs puts the type word back to Int after the call, as for any argument.
 */
constexpr int kMaxFixedArity = 3;

enum class ArgKind { kPrepared, kSmallStr, kObject };

// Shared by the entry points below, which stay one tail call each (there are hundreds).
__attribute__((noinline)) int CallFrameOfKind(CallFrame* frame, int32_t num_args, ArgKind kind) {
  if (kind == ArgKind::kSmallStr) {
    uint64_t payload = static_cast<uint64_t>(frame->str_payload);
    frame->args[0].v_int64 = frame->str_payload;
    frame->args[0].type_index = kTVMFFISmallStr;
    frame->args[0].zero_padding =
        payload == 0 ? 0 : static_cast<uint32_t>((71 - __builtin_clzll(payload)) / 8);
  } else if (kind == ArgKind::kObject) {
    const TVMFFIObject* obj = static_cast<const TVMFFIObject*>(frame->args[0].v_obj);
    if (obj == nullptr) {  // Python checks first; a NULL here must still not be read
      ResetArgs(frame, num_args);
      TVMFFIErrorSetRaisedFromCStr("ValueError", "call frame: NULL object argument");
      return -1;
    }
    frame->args[0].type_index = obj->type_index;
    frame->args[0].zero_padding = 0;
  }
  return CallFrameWith(frame, num_args);
}

template <size_t I, int N, ArgKind K>
int CallSlotWith() {
  return CallFrameOfKind(&g_call_frames[I], N, K);
}

template <int N, ArgKind K, size_t... I>
struct CallSlotWithTable {
  static constexpr SlotFn kSlots[] = {&CallSlotWith<I, N, K>...};
};

template <int N, ArgKind K = ArgKind::kPrepared, size_t... I>
constexpr const SlotFn* CallSlotsWith(std::index_sequence<I...>) {
  return CallSlotWithTable<N, K, I...>::kSlots;
}

/*!
 * \brief What ffi.PythonCallSlots hands out (mirrored by python/tvm_ffi/_frame.py): more
 * entry points of the static call frames. Stateless (the frames belong to whoever claimed the
 * full PythonCallHelperTable; only that caller has a use for these).
 */
struct PythonCallSlotTable {
  int64_t version;          // kSlotTableVersion
  int64_t num_call_frames;  // kNumCallFrames
  int64_t num_kinds;        // entries of `slots`
  // slots[k][i]() calls call_frames[i]: k = 0, 1, 2: with k + 1 prepared arguments; k = 3:
  // with one SmallStr argument (payload in str_payload); k = 4: with one object argument
  // (handle only).
  const SlotFn* slots[5];
};

constexpr int64_t kSlotTableVersion = 1;

const PythonCallSlotTable* CallSlotTableWithArity() {
  using Frames = std::make_index_sequence<kNumCallFrames>;
  static const PythonCallSlotTable kTable = {
      kSlotTableVersion,
      kNumCallFrames,
      5,
      {CallSlotsWith<1>(Frames()), CallSlotsWith<2>(Frames()), CallSlotsWith<3>(Frames()),
       CallSlotsWith<1, ArgKind::kSmallStr>(Frames()),
       CallSlotsWith<1, ArgKind::kObject>(Frames())},
  };
  static_assert(kMaxFixedArity == 3, "the table lists arities 1 to 3");
  return &kTable;
}

/*!
 * \brief Imports the DLPack capsule described by frame->scratch:
 *   scratch word 0: address of the capsule's {pointer, name} fields (PyCapsule layout, checked
 *                   by the Python side on a probe capsule);
 *   scratch word 1: i >= 0: store the Tensor as args[i], owned by the frame;
 *                   -1: store the Tensor handle (a new reference) in scratch word 0.
 * On success the capsule is renamed "used_dltensor[_versioned]" (what PyCapsule_SetName does:
 * the name is a static string), so its producer's destructor leaves the tensor alone. On
 * failure the capsule is untouched and still owns its tensor.
 * Called with the GIL held (the capsule is a Python object).
 */
int ImportCapsule(CallFrame* frame) {
  static const char kUsedLegacy[] = "used_dltensor";
  static const char kUsedVersioned[] = "used_dltensor_versioned";
  void** fields = reinterpret_cast<void**>(frame->scratch[0]);
  int64_t target = frame->scratch[1];
  if (fields == nullptr || target < -1 || target >= kMaxArgs) {
    TVMFFIErrorSetRaisedFromCStr("ValueError", "ImportCapsule: bad request");
    return -1;
  }
  const char* name = static_cast<const char*>(fields[1]);
  TVMFFIObjectHandle handle = nullptr;
  const char* used;
  int ret;
  if (name != nullptr && std::strcmp(name, "dltensor") == 0) {
    ret = TVMFFITensorFromDLPack(static_cast<DLManagedTensor*>(fields[0]), 0, 0, &handle);
    used = kUsedLegacy;
  } else if (name != nullptr && std::strcmp(name, "dltensor_versioned") == 0) {
    ret = TVMFFITensorFromDLPackVersioned(static_cast<DLManagedTensorVersioned*>(fields[0]), 0, 0,
                                          &handle);
    used = kUsedVersioned;
  } else if (name != nullptr &&
             (std::strcmp(name, kUsedLegacy) == 0 || std::strcmp(name, kUsedVersioned) == 0)) {
    TVMFFIErrorSetRaisedFromCStr("ValueError", "DLPack capsule was already consumed");
    return -1;
  } else {
    const char* parts[] = {"not a DLPack capsule (name '", name != nullptr ? name : "NULL", "')",
                           nullptr};
    TVMFFIErrorSetRaisedFromCStrParts("TypeError", parts, 3);
    return -1;
  }
  if (ret != 0) return ret;
  fields[1] = const_cast<char*>(used);
  if (target < 0) {
    frame->scratch[0] = reinterpret_cast<int64_t>(handle);
  } else {
    TVMFFIAny* arg = &frame->args[target];
    arg->type_index = kTVMFFITensor;
    arg->zero_padding = 0;
    arg->v_ptr = handle;
    frame->owned |= uint64_t{1} << target;
  }
  return 0;
}

int AcquireCallbackFrame() {
  uint64_t free = g_free_callback_frames.load(std::memory_order_relaxed);
  while (free != 0) {
    int i = __builtin_ctzll(free);
    if (g_free_callback_frames.compare_exchange_weak(free, free & ~(uint64_t{1} << i),
                                                     std::memory_order_acquire,
                                                     std::memory_order_relaxed)) {
      return i;
    }
  }
  return -1;
}

void ReleaseCallbackFrame(int i) {
  g_free_callback_frames.fetch_or(uint64_t{1} << i, std::memory_order_release);
}

/*! \brief The safe_call of Python-backed Functions (`self` is the Python side's key). */
int PyCallbackSafeCall(void* self, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  int slot = num_args <= kMaxArgs ? AcquireCallbackFrame() : -1;
  if (slot < 0) return g_python.generic(self, args, num_args, result);
  CallbackFrame* frame = &g_callback_frames[slot];
  void* key = self;
  bool all_ints = true;
  for (int32_t i = 0; i < num_args && all_ints; ++i) {
    all_ints = args[i].type_index == kTVMFFIInt;
  }
  frame->num_args = num_args;  // the failure flag, whichever callback runs
  if (num_args == 0) {
    g_python.args0(slot, key);
  } else if (all_ints && num_args == 1) {
    g_python.ints1(slot, key, args[0].v_int64);
  } else if (all_ints && num_args == 2) {
    g_python.ints2(slot, key, args[0].v_int64, args[1].v_int64);
  } else if (all_ints && num_args == 3) {
    g_python.ints3(slot, key, args[0].v_int64, args[1].v_int64, args[2].v_int64);
  } else {
    frame->key = reinterpret_cast<int64_t>(key);
    std::memcpy(frame->args, args, sizeof(TVMFFIAny) * num_args);
    g_python.frame(slot);
  }
  int ret = frame->num_args < 0 ? -1 : 0;
  if (ret == 0) {
    *result = frame->result;
  } else if (frame->result.type_index >= kTVMFFIStaticObjectBegin) {
    // Python writes the payload before the type index, so a tagged result is a whole one.
    TVMFFIObjectDecRef(frame->result.v_obj);
  }
  ClearAny(&frame->result);
  ReleaseCallbackFrame(slot);
  return ret;
}

void SetPythonCallbacks(const PythonCallbacks* callbacks) { g_python = *callbacks; }

void* ClaimHelpers() {
  static const PythonCallHelperTable kFull = {
      kTableVersion,
      kMaxArgs,
      kNumCallFrames,
      g_call_frames,
      CallSlots(std::make_index_sequence<kNumCallFrames>()),
      &CallFrameAt,
      &ResetFrame,
      &ImportCapsule,
      kNumCallbackFrames,
      g_callback_frames,
      &PyCallbackSafeCall,
      &SetPythonCallbacks,
  };
  static const PythonCallHelperTable kStateless = {
      kTableVersion, kMaxArgs,       0,       nullptr, nullptr, &CallFrameAt, &ResetFrame,
      &ImportCapsule, 0,             nullptr, nullptr, nullptr,
  };
  bool first = !g_claimed.exchange(true);
  return const_cast<PythonCallHelperTable*>(first ? &kFull : &kStateless);
}

}  // namespace

TVM_FFI_STATIC_INIT_BLOCK() {
  // Internal to python/tvm_ffi: see the top of this file. Returns an OpaquePtr.
  internal::RegisterBuiltin("ffi.PythonCallHelpers", []() { return ClaimHelpers(); });
  // Internal to python/tvm_ffi: the fixed-arity entry points (PythonCallSlotTable).
  internal::RegisterBuiltin("ffi.PythonCallSlots", []() {
    return const_cast<void*>(static_cast<const void*>(CallSlotTableWithArity()));
  });
}

}  // namespace ffi
}  // namespace tvm
