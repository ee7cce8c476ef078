#include "session.h"

#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/shape.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/extra/module.h>
#include <tvm/runtime/tensor.h>

#include <fstream>

namespace tvm {
namespace runtime {
namespace rpc {

namespace {
constexpr int kMaxDepth = 16;
constexpr uint32_t kMaxElements = 1u << 20;

/*! \brief Upload names are plain file names inside the session folder. */
void CheckFileName(const std::string& name) {
  TVM_FFI_CHECK(!name.empty() && name.size() <= 255 && name.find('/') == std::string::npos &&
                    name != "." && name != ".." && name.find('\0') == std::string::npos,
                ValueError)
      << "invalid upload file name";
}
}  // namespace

ffi::Any& Session::Lookup(uint64_t id) {
  auto it = handles_.find(id);
  TVM_FFI_CHECK(it != handles_.end(), ValueError) << "unknown remote handle " << id;
  return it->second;
}

uint64_t Session::Keep(ffi::Any v) {
  uint64_t id = next_id_++;
  handles_.emplace(id, std::move(v));
  return id;
}

ffi::Any Session::ReadValue(Reader* r, int depth) {
  TVM_FFI_CHECK(depth < kMaxDepth, ValueError) << "malformed RPC frame: values nest too deep";
  Tag tag = static_cast<Tag>(r->U8());
  switch (tag) {
    case Tag::kNone:
      return ffi::Any();
    case Tag::kInt:
      return r->I64();
    case Tag::kBool:
      return r->U8() != 0;
    case Tag::kFloat:
      return r->F64();
    case Tag::kStr:
      return ffi::String(r->Str());
    case Tag::kBytes:
      return ffi::Bytes(r->Blob());
    case Tag::kDevice: {
      int32_t type = static_cast<int32_t>(r->U32());
      int32_t id = static_cast<int32_t>(r->U32());
      return DLDevice{static_cast<DLDeviceType>(type), id};
    }
    case Tag::kDataType: {
      DLDataType t;
      t.code = r->U8();
      t.bits = r->U8();
      t.lanes = r->U16();
      return t;
    }
    case Tag::kShape: {
      uint32_t n = r->U32();
      TVM_FFI_CHECK(n <= r->remaining() / 8, ValueError) << "malformed RPC frame: shape length";
      std::vector<int64_t> dims(n);
      for (auto& d : dims) d = r->I64();
      return ffi::Shape(dims.begin(), dims.end());
    }
    case Tag::kHandle:
      return Lookup(r->U64());
    case Tag::kArray: {
      uint32_t n = r->U32();
      TVM_FFI_CHECK(n <= kMaxElements && n <= r->remaining(), ValueError)
          << "malformed RPC frame: array length " << n;
      std::vector<ffi::Any> items;
      items.reserve(n);
      for (uint32_t i = 0; i < n; ++i) items.push_back(ReadValue(r, depth + 1));
      return ffi::Array<ffi::Any>(items.begin(), items.end());
    }
  }
  TVM_FFI_THROW(ValueError) << "malformed RPC frame: unknown value tag " << static_cast<int>(tag);
}

void Session::WriteValue(Writer* w, const ffi::Any& v) {
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
    case kTVMFFIStr:
      w->U8(static_cast<uint8_t>(Tag::kStr));
      w->Str(v.cast<std::string>());
      return;
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
      for (const ffi::Any& item : a) WriteValue(w, item);
      return;
    }
    default:
      break;
  }
  TVM_FFI_CHECK(v.type_index() >= kTVMFFIStaticObjectBegin, TypeError)
      << "value of type `" << v.GetTypeKey() << "` cannot be sent over RPC";
  // Any other object (tensor, function, module, ...) stays on the server; the client gets a handle.
  w->U8(static_cast<uint8_t>(Tag::kHandle));
  w->U64(Keep(v));
  w->U32(static_cast<uint32_t>(v.type_index()));
}

bool Session::Handle(const uint8_t* data, size_t size, Writer* response) {
  Reader r(data, size);
  Op op = static_cast<Op>(r.U8());
  if (!greeted_) {
    // The first request must be a Hello carrying the server's token (empty when none is set).
    if (op != Op::kHello) return false;
    uint32_t version = r.U32();
    std::string token = r.Str();
    // Compared in constant time: how long a refusal takes says nothing about the token.
    unsigned diff = token.size() != token_.size();
    for (size_t i = 0; i < token.size() && i < token_.size(); ++i) {
      diff |= static_cast<unsigned char>(token[i]) ^ static_cast<unsigned char>(token_[i]);
    }
    if (version != kProtocolVersion || diff != 0) return false;
    greeted_ = true;
    response->U8(static_cast<uint8_t>(Status::kOk));
    WriteValue(response, ffi::String("tvm_rpc 1"));
    return true;
  }
  Writer body;
  try {
    Dispatch(op, &r, &body);
    TVM_FFI_CHECK(r.AtEnd(), ValueError) << "malformed RPC frame: trailing bytes";
  } catch (const ffi::Error& e) {
    if (e.message().rfind("malformed RPC frame", 0) == 0) throw;  // protocol error: close
    response->U8(static_cast<uint8_t>(Status::kError));
    response->Str(e.kind());
    response->Str(e.message());
    return true;
  }
  response->U8(static_cast<uint8_t>(Status::kOk));
  response->Raw(body.buffer().data(), body.buffer().size());
  return true;
}

void Session::Dispatch(Op op, Reader* r, Writer* w) {
  switch (op) {
    case Op::kHello:
      TVM_FFI_THROW(ValueError) << "malformed RPC frame: repeated hello";
    case Op::kGetGlobal: {
      std::optional<ffi::Function> f = ffi::Function::GetGlobal(r->Str());
      WriteValue(w, f.has_value() ? ffi::Any(*f) : ffi::Any());
      return;
    }
    case Op::kCall: {
      ffi::Any f = Lookup(r->U64());
      uint32_t n = r->U32();
      TVM_FFI_CHECK(n <= 4096, ValueError) << "malformed RPC frame: " << n << " arguments";
      std::vector<ffi::Any> args;
      for (uint32_t i = 0; i < n; ++i) args.push_back(ReadValue(r, 0));
      TVM_FFI_CHECK(f.type_index() == kTVMFFIFunction, TypeError) << "remote handle is not a function";
      std::vector<ffi::AnyView> views(args.begin(), args.end());
      ffi::Any rv;
      f.cast<ffi::Function>().CallPacked(views.data(), static_cast<int32_t>(views.size()), &rv);
      WriteValue(w, rv);
      return;
    }
    case Op::kUpload: {
      std::string name = r->Str();
      std::string data = r->Blob();
      CheckFileName(name);
      std::string path = workdir_ + "/" + name;
      std::ofstream out(path, std::ios::binary | std::ios::trunc);
      out.write(data.data(), static_cast<std::streamsize>(data.size()));
      TVM_FFI_CHECK(out.good(), RuntimeError) << "cannot write upload " << name;
      WriteValue(w, ffi::String(path));
      return;
    }
    case Op::kLoadModule: {
      std::string name = r->Str();
      CheckFileName(name);  // only files uploaded in this session's folder
      WriteValue(w, ffi::Module::LoadFromFile(workdir_ + "/" + name));
      return;
    }
    case Op::kModuleGetFunction: {
      ffi::Module mod = Lookup(r->U64()).cast<ffi::Module>();
      std::optional<ffi::Function> f = mod.GetFunction(r->Str(), true);
      WriteValue(w, f.has_value() ? ffi::Any(*f) : ffi::Any());
      return;
    }
    case Op::kTensorEmpty: {
      ffi::Shape shape = ReadValue(r, 0).cast<ffi::Shape>();
      DLDataType dtype = ReadValue(r, 0).cast<DLDataType>();
      DLDevice device = ReadValue(r, 0).cast<DLDevice>();
      WriteValue(w, runtime::Empty(std::vector<int64_t>(shape.begin(), shape.end()), dtype, device));
      return;
    }
    case Op::kTensorWrite: {
      // Straight from the frame into the tensor: no intermediate copy of large payloads.
      ffi::Tensor t = Lookup(r->U64()).cast<ffi::Tensor>();
      uint64_t n = r->U64();
      TVM_FFI_CHECK(n <= r->remaining(), ValueError) << "malformed RPC frame: blob of " << n << " bytes";
      const uint8_t* data = r->Take(static_cast<size_t>(n));
      runtime::CopyFromBytes(t, data, static_cast<size_t>(n));
      WriteValue(w, ffi::Any());
      return;
    }
    case Op::kTensorRead: {
      // Straight from the tensor into the response buffer (a bytes value: tag + u64 size).
      ffi::Tensor t = Lookup(r->U64()).cast<ffi::Tensor>();
      size_t n = runtime::DataBytes(*t.GetDLTensorPtr());
      w->U8(static_cast<uint8_t>(Tag::kBytes));
      w->U64(n);
      std::vector<uint8_t>& buf = w->buffer();
      size_t at = buf.size();
      buf.resize(at + n);
      runtime::CopyToBytes(t, buf.data() + at, n);
      return;
    }
    case Op::kTensorInfo: {
      ffi::Tensor t = Lookup(r->U64()).cast<ffi::Tensor>();
      ffi::Array<ffi::Any> info{ffi::Shape(t.shape(), t.shape() + t.ndim()), t.dtype(), t.device()};
      WriteValue(w, info);
      return;
    }
    case Op::kFree: {
      uint64_t id = r->U64();
      TVM_FFI_CHECK(handles_.erase(id) == 1, ValueError) << "unknown remote handle " << id;
      WriteValue(w, ffi::Any());
      return;
    }
  }
  TVM_FFI_THROW(ValueError) << "malformed RPC frame: unknown operation " << static_cast<int>(op);
}

}  // namespace rpc
}  // namespace runtime
}  // namespace tvm
