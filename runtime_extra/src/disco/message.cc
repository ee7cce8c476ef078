#include "message.h"

#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/shape.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/string.h>

#include "runtime/src/rpc/protocol.h"

namespace tvm {
namespace runtime {
namespace disco {

namespace {

using rpc::Reader;
using rpc::Tag;
using rpc::Writer;

// "TVMD" little-endian: a frame from something else fails loudly instead of misparsing.
constexpr uint32_t kMagic = 0x444D5654;
// Disco's own tags, above the RPC codec's.
constexpr uint8_t kTagReg = 32;
constexpr uint8_t kTagTensor = 33;
constexpr int kMaxDepth = 16;
constexpr uint32_t kMaxArgs = 1u << 16;

void WriteValue(Writer* w, const ffi::Any& v, int64_t (*reg_of)(const ffi::Any&),
                bool allow_tensors, int depth, size_t index);

void WriteTensor(Writer* w, const ffi::Tensor& t) {
  // The debug path only: copy to host bytes through the runtime (by name: any device).
  int64_t nbytes = t.numel() * ((t.dtype().bits * t.dtype().lanes + 7) / 8);
  std::string bytes(static_cast<size_t>(nbytes), '\0');
  static const ffi::Function to_bytes = ffi::Function::GetGlobalRequired("runtime.TensorCopyToBytes");
  if (nbytes > 0) to_bytes(t, static_cast<void*>(bytes.data()), nbytes);
  w->U8(kTagTensor);
  w->U8(t.dtype().code);
  w->U8(t.dtype().bits);
  w->U16(t.dtype().lanes);
  w->U32(static_cast<uint32_t>(t.ndim()));
  for (int i = 0; i < t.ndim(); ++i) w->I64(t.shape()[i]);
  w->Blob(bytes.data(), bytes.size());
}

void WriteValue(Writer* w, const ffi::Any& v, int64_t (*reg_of)(const ffi::Any&),
                bool allow_tensors, int depth, size_t index) {
  DISCO_CHECK(depth < kMaxDepth, ValueError) << "Disco argument " << index << " nests too deeply";
  switch (v.type_index()) {
    case kTVMFFINone:
      w->U8(static_cast<uint8_t>(Tag::kNone));
      return;
    case kTVMFFIInt:
      w->U8(static_cast<uint8_t>(Tag::kInt));
      w->I64(v.cast<int64_t>());
      return;
    case kTVMFFIBool:
      w->U8(static_cast<uint8_t>(Tag::kBool));
      w->U8(v.cast<bool>() ? 1 : 0);
      return;
    case kTVMFFIFloat:
      w->U8(static_cast<uint8_t>(Tag::kFloat));
      w->F64(v.cast<double>());
      return;
    case kTVMFFISmallStr:
    case kTVMFFIStr: {
      std::string s = v.cast<ffi::String>();
      w->U8(static_cast<uint8_t>(Tag::kStr));
      w->Blob(s.data(), s.size());
      return;
    }
    case kTVMFFISmallBytes:
    case kTVMFFIBytes: {
      ffi::Bytes b = v.cast<ffi::Bytes>();
      w->U8(static_cast<uint8_t>(Tag::kBytes));
      w->Blob(b.data(), b.size());
      return;
    }
    case kTVMFFIDevice: {
      DLDevice d = v.cast<DLDevice>();
      w->U8(static_cast<uint8_t>(Tag::kDevice));
      w->U32(static_cast<uint32_t>(d.device_type));
      w->U32(static_cast<uint32_t>(d.device_id));
      return;
    }
    case kTVMFFIDataType: {
      DLDataType t = v.cast<DLDataType>();
      w->U8(static_cast<uint8_t>(Tag::kDataType));
      w->U8(t.code);
      w->U8(t.bits);
      w->U16(t.lanes);
      return;
    }
    case kTVMFFIShape: {
      ffi::Shape s = v.cast<ffi::Shape>();
      w->U8(static_cast<uint8_t>(Tag::kShape));
      w->U32(static_cast<uint32_t>(s.size()));
      for (int64_t d : s) w->I64(d);
      return;
    }
    case kTVMFFIArray: {
      ffi::Array<ffi::Any> a = v.cast<ffi::Array<ffi::Any>>();
      w->U8(static_cast<uint8_t>(Tag::kArray));
      w->U32(static_cast<uint32_t>(a.size()));
      for (const ffi::Any& item : a) WriteValue(w, item, reg_of, allow_tensors, depth + 1, index);
      return;
    }
    case kTVMFFITensor:
      if (allow_tensors) {
        WriteTensor(w, v.cast<ffi::Tensor>());
        return;
      }
      TVM_FFI_THROW(TypeError) << "Disco argument " << index
                               << " is a Tensor: tensors stay on the workers; pass a DRef "
                                  "(session.empty / copy_to_worker_0) instead";
    default:
      break;
  }
  int64_t reg = reg_of != nullptr ? reg_of(v) : -1;
  if (reg > 0) {
    w->U8(kTagReg);
    w->I64(reg);
    return;
  }
  TVM_FFI_THROW(TypeError) << "Disco argument " << index << " has type " << v.GetTypeKey()
                           << ", which cannot reach a worker; allowed: None, bool, int, float, "
                              "str, bytes, DataType, Device, Shape, arrays of these, DRef";
}

ffi::Any ReadValue(Reader* r, int depth, Message* msg, size_t index) {
  DISCO_CHECK(depth < kMaxDepth, ValueError) << "malformed Disco frame: nesting too deep";
  uint8_t tag = r->U8();
  switch (tag) {
    case static_cast<uint8_t>(Tag::kNone):
      return ffi::Any();
    case static_cast<uint8_t>(Tag::kInt):
      return r->I64();
    case static_cast<uint8_t>(Tag::kBool):
      return r->U8() != 0;
    case static_cast<uint8_t>(Tag::kFloat):
      return r->F64();
    case static_cast<uint8_t>(Tag::kStr):
      return ffi::String(r->Blob());
    case static_cast<uint8_t>(Tag::kBytes): {
      std::string b = r->Blob();
      return ffi::Bytes(b.data(), b.size());
    }
    case static_cast<uint8_t>(Tag::kDevice): {
      int32_t type = static_cast<int32_t>(r->U32());
      int32_t id = static_cast<int32_t>(r->U32());
      return DLDevice{static_cast<DLDeviceType>(type), id};
    }
    case static_cast<uint8_t>(Tag::kDataType): {
      DLDataType t;
      t.code = r->U8();
      t.bits = r->U8();
      t.lanes = r->U16();
      return t;
    }
    case static_cast<uint8_t>(Tag::kShape): {
      uint32_t n = r->U32();
      DISCO_CHECK(n <= r->remaining() / 8, ValueError) << "malformed Disco frame: shape length";
      std::vector<int64_t> dims(n);
      for (auto& d : dims) d = r->I64();
      return ffi::Shape(dims);
    }
    case static_cast<uint8_t>(Tag::kArray): {
      uint32_t n = r->U32();
      DISCO_CHECK(n <= r->remaining(), ValueError) << "malformed Disco frame: array length";
      std::vector<ffi::Any> items;
      items.reserve(n);
      // Register references inside arrays are not resolved: refuse them on decode.
      for (uint32_t i = 0; i < n; ++i) items.push_back(ReadValue(r, depth + 1, nullptr, index));
      return ffi::Array<ffi::Any>(items.begin(), items.end());
    }
    case kTagReg: {
      int64_t reg = r->I64();
      DISCO_CHECK(msg != nullptr, ValueError)
          << "a DRef may only be a direct argument, not inside an array";
      DISCO_CHECK(reg > 0, ValueError) << "malformed Disco frame: register " << reg;
      msg->reg_args.emplace_back(index, reg);
      return ffi::Any();
    }
    case kTagTensor: {
      DLDataType t;
      t.code = r->U8();
      t.bits = r->U8();
      t.lanes = r->U16();
      uint32_t ndim = r->U32();
      DISCO_CHECK(ndim <= r->remaining() / 8, ValueError) << "malformed Disco frame: ndim";
      std::vector<int64_t> shape(ndim);
      for (auto& d : shape) d = r->I64();
      std::string bytes = r->Blob();
      static const ffi::Function empty = ffi::Function::GetGlobalRequired("runtime.TensorEmpty");
      static const ffi::Function from_bytes = ffi::Function::GetGlobalRequired("runtime.TensorCopyFromBytes");
      ffi::Tensor out = empty(ffi::Shape(shape), t, DLDevice{kDLCPU, 0}).cast<ffi::Tensor>();
      int64_t nbytes = out.numel() * ((t.bits * t.lanes + 7) / 8);
      DISCO_CHECK(nbytes == static_cast<int64_t>(bytes.size()), ValueError)
          << "malformed Disco frame: tensor of " << nbytes << " bytes carries " << bytes.size();
      if (nbytes > 0) from_bytes(out, static_cast<void*>(bytes.data()), nbytes);
      return out;
    }
    default:
      TVM_FFI_THROW(ValueError) << "malformed Disco frame: unknown value tag " << int(tag);
  }
}

}  // namespace

const char* ActionName(Action a) {
  switch (a) {
    case Action::kShutDown: return "shutdown";
    case Action::kKillReg: return "kill_reg";
    case Action::kGetGlobalFunc: return "get_global_func";
    case Action::kCallPacked: return "call_packed";
    case Action::kSyncWorker: return "sync_worker";
    case Action::kCopyFromWorker0: return "copy_from_worker_0";
    case Action::kCopyToWorker0: return "copy_to_worker_0";
    case Action::kDebugGetFromRemote: return "debug_get_from_remote";
    case Action::kDebugSetRegister: return "debug_set_register";
    case Action::kError: return "error";
  }
  return "unknown";
}

std::string EncodeMessage(Action action, int64_t reg, const ffi::AnyView* args, size_t num_args,
                          int64_t (*reg_of)(const ffi::Any&), bool allow_tensors) {
  DISCO_CHECK(num_args < kMaxArgs, ValueError) << "too many Disco arguments: " << num_args;
  Writer w;
  w.U32(kMagic);
  w.U8(static_cast<uint8_t>(action));
  w.I64(reg);
  w.U32(static_cast<uint32_t>(num_args));
  for (size_t i = 0; i < num_args; ++i) {
    WriteValue(&w, ffi::Any(args[i]), reg_of, allow_tensors, 0, i);
  }
  std::vector<uint8_t>& buf = w.buffer();
  return std::string(reinterpret_cast<const char*>(buf.data()), buf.size());
}

Message DecodeMessage(const std::string& frame) {
  Reader r(reinterpret_cast<const uint8_t*>(frame.data()), frame.size());
  DISCO_CHECK(r.U32() == kMagic, ValueError) << "malformed Disco frame: bad magic";
  Message msg;
  uint8_t action = r.U8();
  DISCO_CHECK(action <= 8 || action == static_cast<uint8_t>(Action::kError), ValueError)
      << "malformed Disco frame: unknown action " << int(action);
  msg.action = static_cast<Action>(action);
  msg.reg = r.I64();
  uint32_t n = r.U32();
  DISCO_CHECK(n <= r.remaining(), ValueError) << "malformed Disco frame: " << n << " arguments";
  msg.args.reserve(n);
  for (uint32_t i = 0; i < n; ++i) msg.args.push_back(ReadValue(&r, 0, &msg, i));
  DISCO_CHECK(r.AtEnd(), ValueError) << "malformed Disco frame: trailing bytes";
  return msg;
}

}  // namespace disco
}  // namespace runtime
}  // namespace tvm
