/*
 * The executable's byte format (little-endian; docs/vm.md has the table):
 *
 *   header    u64 magic "TVMVMEXE", u32 version, u32 flags (0),
 *             u64 num_functions, u64 num_constants, u64 num_code_words
 *   functions per entry: str name, i64 kind, i64 num_args, i64 register_file_size,
 *             i64 start_instr, i64 end_instr, u64 num_params, str param...
 *   constants per entry: u32 tag + payload (see ConstTag)
 *   code      i64 word[num_code_words]
 *   (nothing may follow)
 *
 * Loading treats the bytes as hostile: every read is bounds-checked, every count is compared
 * with the bytes left before anything is reserved (so no allocation exceeds the input size by
 * more than a constant factor), nesting is capped, and the result goes through the same
 * Validate() as builder output. Every failure is a ValueError.
 */
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/shape.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/runtime/tensor.h>

#include <cstring>
#include <string>

#include "../support/registry.h"
#include "executable.h"

namespace tvm {
namespace runtime {
namespace vm {
namespace {

enum class ConstTag : uint32_t {
  kNone = 0,      // (nothing)
  kInt = 1,       // i64
  kBool = 2,      // u8 0/1
  kFloat = 3,     // f64 as its IEEE bits (u64)
  kString = 4,    // u64 length + bytes
  kDataType = 5,  // u8 code, u8 bits, u16 lanes
  kDevice = 6,    // i32 device_type, i32 device_id
  kShape = 7,     // u64 ndim + i64 dims
  kTensor = 8,    // u8 code, u8 bits, u16 lanes, u32 ndim, i64 dims, u64 nbytes, bytes (host)
  kArray = 9,     // u64 count + constants
};

// Smallest encodings, for Reader::Count: a function entry (empty name, no params) and a
// constant (a None tag).
constexpr uint64_t kMinFunctionBytes = 8 + 5 * 8 + 8;
constexpr uint64_t kMinConstantBytes = 4;

class Writer {
 public:
  void U8(uint8_t v) { out_.push_back(static_cast<char>(v)); }
  void U16(uint16_t v) { Le(v, 2); }
  void U32(uint32_t v) { Le(v, 4); }
  void U64(uint64_t v) { Le(v, 8); }
  void I32(int32_t v) { U32(static_cast<uint32_t>(v)); }
  void I64(int64_t v) { U64(static_cast<uint64_t>(v)); }
  void Raw(const void* data, size_t n) { out_.append(static_cast<const char*>(data), n); }
  void Str(const std::string& s) {
    U64(s.size());
    Raw(s.data(), s.size());
  }
  std::string& out() { return out_; }

 private:
  void Le(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) out_.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
  }
  std::string out_;
};

class Reader {
 public:
  Reader(const char* data, size_t size) : data_(data), size_(size) {}
  uint8_t U8() { return static_cast<uint8_t>(Le(1)); }
  uint16_t U16() { return static_cast<uint16_t>(Le(2)); }
  uint32_t U32() { return static_cast<uint32_t>(Le(4)); }
  uint64_t U64() { return Le(8); }
  int32_t I32() { return static_cast<int32_t>(U32()); }
  int64_t I64() { return static_cast<int64_t>(U64()); }
  const char* Take(uint64_t n, const char* what) {
    Need(n, what);
    const char* p = data_ + pos_;
    pos_ += n;
    return p;
  }
  std::string Str(const char* what) {
    uint64_t n = U64();
    return std::string(Take(n, what), n);
  }
  /*!
   * \brief A count of items each taking at least `min_bytes`: rejected when the rest of the
   * input could not hold them, which bounds every reservation by the input size.
   */
  uint64_t Count(uint64_t min_bytes, const char* what) {
    uint64_t n = U64();
    TVM_FFI_CHECK(n <= left() / min_bytes, ValueError)
        << "corrupt VM executable: " << what << " count " << n << " exceeds the remaining "
        << left() << " bytes";
    return n;
  }
  uint64_t left() const { return size_ - pos_; }
  size_t pos() const { return pos_; }

 private:
  void Need(uint64_t n, const char* what) {
    TVM_FFI_CHECK(n <= left(), ValueError)
        << "corrupt VM executable: truncated " << what << " at byte " << pos_ << " (need " << n
        << ", have " << left() << ")";
  }
  uint64_t Le(int n) {
    Need(n, "value");
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(data_[pos_ + i]);
    pos_ += n;
    return v;
  }
  const char* data_;
  size_t size_;
  size_t pos_ = 0;
};

void WriteDType(Writer* w, DLDataType t) {
  w->U8(t.code);
  w->U8(t.bits);
  w->U16(t.lanes);
}

DLDataType ReadDType(Reader* r) {
  DLDataType t;
  t.code = r->U8();
  t.bits = r->U8();
  t.lanes = r->U16();
  return t;
}

void WriteConstant(Writer* w, const ffi::Any& v, int depth) {
  TVM_FFI_CHECK(depth < kMaxConstantNesting, ValueError) << "constant nested too deeply";
  const TVMFFIAny* raw = v.raw();
  switch (v.type_index()) {
    case kTVMFFINone:
      w->U32(static_cast<uint32_t>(ConstTag::kNone));
      return;
    case kTVMFFIInt:
      w->U32(static_cast<uint32_t>(ConstTag::kInt));
      w->I64(raw->v_int64);
      return;
    case kTVMFFIBool:
      w->U32(static_cast<uint32_t>(ConstTag::kBool));
      w->U8(raw->v_int64 != 0);
      return;
    case kTVMFFIFloat: {
      w->U32(static_cast<uint32_t>(ConstTag::kFloat));
      uint64_t bits;
      std::memcpy(&bits, &raw->v_float64, 8);
      w->U64(bits);
      return;
    }
    case kTVMFFISmallStr:
    case kTVMFFIStr:
      w->U32(static_cast<uint32_t>(ConstTag::kString));
      w->Str(v.cast<std::string>());
      return;
    case kTVMFFIDataType:
      w->U32(static_cast<uint32_t>(ConstTag::kDataType));
      WriteDType(w, raw->v_dtype);
      return;
    case kTVMFFIDevice:
      w->U32(static_cast<uint32_t>(ConstTag::kDevice));
      w->I32(raw->v_device.device_type);
      w->I32(raw->v_device.device_id);
      return;
    case kTVMFFIShape: {
      ffi::Shape s = v.cast<ffi::Shape>();
      w->U32(static_cast<uint32_t>(ConstTag::kShape));
      w->U64(s.size());
      for (int64_t d : s) w->I64(d);
      return;
    }
    case kTVMFFITensor: {
      // The builder keeps tensor constants as compact host tensors (ConvertConstant).
      ffi::Tensor t = v.cast<ffi::Tensor>();
      TVM_FFI_ICHECK(t.device().device_type == kDLCPU && t.IsContiguous());
      w->U32(static_cast<uint32_t>(ConstTag::kTensor));
      WriteDType(w, t.dtype());
      w->U32(static_cast<uint32_t>(t.ndim()));
      for (int32_t i = 0; i < t.ndim(); ++i) w->I64(t.shape()[i]);
      size_t nbytes = DataBytes(*t.GetDLTensorPtr());
      w->U64(nbytes);
      w->Raw(static_cast<const char*>(t.data_ptr()) + t.byte_offset(), nbytes);
      return;
    }
    case kTVMFFIArray: {
      ffi::Array<ffi::Any> arr = v.cast<ffi::Array<ffi::Any>>();
      w->U32(static_cast<uint32_t>(ConstTag::kArray));
      w->U64(arr.size());
      for (const ffi::Any& item : arr) WriteConstant(w, item, depth + 1);
      return;
    }
    default:
      TVM_FFI_THROW(TypeError) << "a VM constant cannot be a `" << v.GetTypeKey() << "`";
  }
}

ffi::Tensor ReadTensor(Reader* r) {
  DLDataType dtype = ReadDType(r);
  TVM_FFI_CHECK(dtype.bits > 0 && dtype.lanes > 0, ValueError)
      << "corrupt VM executable: tensor constant of zero-width dtype";
  uint32_t ndim = r->U32();
  TVM_FFI_CHECK(ndim <= static_cast<uint32_t>(kMaxTensorConstantNDim), ValueError)
      << "corrupt VM executable: tensor constant with " << ndim << " dimensions";
  std::vector<int64_t> shape(ndim);
  // numel * bits * lanes must not overflow while computing the byte size.
  unsigned __int128 bits = static_cast<unsigned __int128>(dtype.bits) * dtype.lanes;
  for (uint32_t i = 0; i < ndim; ++i) {
    shape[i] = r->I64();
    TVM_FFI_CHECK(shape[i] >= 0, ValueError)
        << "corrupt VM executable: negative tensor extent " << shape[i];
    // Once past 2^64 bits no stored u64 size can match; stop multiplying (only a later zero
    // extent can still change the answer).
    if (shape[i] == 0) {
      bits = 0;
    } else if (bits <= (static_cast<unsigned __int128>(1) << 64)) {
      bits *= static_cast<uint64_t>(shape[i]);
    }
  }
  uint64_t nbytes = r->U64();
  TVM_FFI_CHECK(static_cast<unsigned __int128>(nbytes) == (bits + 7) / 8, ValueError)
      << "corrupt VM executable: tensor constant byte size " << nbytes
      << " does not match its shape and dtype";
  const char* data = r->Take(nbytes, "tensor data");
  ffi::Tensor t = Empty(shape, dtype, DLDevice{kDLCPU, 0});
  if (nbytes > 0) std::memcpy(t.data_ptr(), data, nbytes);
  return t;
}

ffi::Any ReadConstant(Reader* r, int depth) {
  TVM_FFI_CHECK(depth < kMaxConstantNesting, ValueError)
      << "corrupt VM executable: constants nested deeper than " << kMaxConstantNesting;
  uint32_t tag = r->U32();
  switch (static_cast<ConstTag>(tag)) {
    case ConstTag::kNone:
      return ffi::Any();
    case ConstTag::kInt:
      return r->I64();
    case ConstTag::kBool: {
      uint8_t b = r->U8();
      TVM_FFI_CHECK(b <= 1, ValueError) << "corrupt VM executable: bool constant " << int{b};
      return b == 1;
    }
    case ConstTag::kFloat: {
      uint64_t bits = r->U64();
      double d;
      std::memcpy(&d, &bits, 8);
      return d;
    }
    case ConstTag::kString:
      return ffi::String(r->Str("string constant"));
    case ConstTag::kDataType:
      return ReadDType(r);
    case ConstTag::kDevice: {
      DLDevice dev;
      dev.device_type = static_cast<DLDeviceType>(r->I32());
      dev.device_id = r->I32();
      return dev;
    }
    case ConstTag::kShape: {
      uint64_t n = r->Count(8, "shape");
      std::vector<int64_t> dims(n);
      for (int64_t& d : dims) d = r->I64();
      return ffi::Shape(dims);
    }
    case ConstTag::kTensor:
      return ReadTensor(r);
    case ConstTag::kArray: {
      // No reserve: nested arrays could otherwise each reserve for the whole input.
      uint64_t n = r->Count(kMinConstantBytes, "array");
      std::vector<ffi::Any> items;
      for (uint64_t i = 0; i < n; ++i) items.push_back(ReadConstant(r, depth + 1));
      return ffi::Array<ffi::Any>(items);
    }
  }
  TVM_FFI_THROW(ValueError) << "corrupt VM executable: unknown constant tag " << tag;
}

}  // namespace

ffi::Bytes VMExecutableObj::SaveToBytes() const {
  Writer w;
  w.U64(kExecutableMagic);
  w.U32(kExecutableVersion);
  w.U32(0);
  w.U64(func_table.size());
  w.U64(constants.size());
  w.U64(instr_data.size());
  for (const VMFuncInfo& f : func_table) {
    w.Str(f.name);
    w.I64(static_cast<int64_t>(f.kind));
    w.I64(f.num_args);
    w.I64(f.register_file_size);
    w.I64(f.start_instr);
    w.I64(f.end_instr);
    w.U64(f.param_names.size());
    for (const std::string& p : f.param_names) w.Str(p);
  }
  for (const ffi::Any& c : constants) WriteConstant(&w, c, 0);
  for (ExecWord word : instr_data) w.I64(word);
  return ffi::Bytes(w.out());
}

ffi::Module LoadExecutableFromBytes(const char* data, size_t size) {
  Reader r(data, size);
  TVM_FFI_CHECK(size >= 8 && r.U64() == kExecutableMagic, ValueError)
      << "not a VM executable (bad magic number)";
  uint32_t version = r.U32();
  TVM_FFI_CHECK(version == kExecutableVersion, ValueError)
      << "unsupported VM executable format version " << version << " (this runtime reads "
      << kExecutableVersion << ")";
  uint32_t flags = r.U32();
  TVM_FFI_CHECK(flags == 0, ValueError) << "corrupt VM executable: unknown flags " << flags;
  uint64_t num_funcs = r.U64();
  uint64_t num_consts = r.U64();
  uint64_t num_words = r.U64();
  // The three sections must fit in what is left, whatever their order of reading.
  TVM_FFI_CHECK(num_funcs <= r.left() / kMinFunctionBytes &&
                    num_consts <= r.left() / kMinConstantBytes && num_words <= r.left() / 8,
                ValueError)
      << "corrupt VM executable: section counts (" << num_funcs << ", " << num_consts << ", "
      << num_words << ") exceed the " << r.left() << " remaining bytes";

  auto exec = ffi::make_object<VMExecutableObj>();
  exec->func_table.resize(num_funcs);
  for (VMFuncInfo& f : exec->func_table) {
    f.name = r.Str("function name");
    int64_t kind = r.I64();
    TVM_FFI_CHECK(kind == static_cast<int64_t>(FuncKind::kPacked) ||
                      kind == static_cast<int64_t>(FuncKind::kBytecode),
                  ValueError)
        << "corrupt VM executable: function `" << f.name << "` has unknown kind " << kind;
    f.kind = static_cast<FuncKind>(kind);
    f.num_args = r.I64();
    f.register_file_size = r.I64();
    f.start_instr = r.I64();
    f.end_instr = r.I64();
    uint64_t num_params = r.Count(8, "parameter name");
    f.param_names.reserve(num_params);
    for (uint64_t i = 0; i < num_params; ++i) f.param_names.push_back(r.Str("parameter name"));
  }
  exec->constants.reserve(num_consts);
  for (uint64_t i = 0; i < num_consts; ++i) exec->constants.push_back(ReadConstant(&r, 0));
  TVM_FFI_CHECK(num_words <= r.left() / 8, ValueError)
      << "corrupt VM executable: code section truncated";
  exec->instr_data.resize(num_words);
  for (ExecWord& word : exec->instr_data) word = r.I64();
  TVM_FFI_CHECK(r.left() == 0, ValueError)
      << "corrupt VM executable: " << r.left() << " trailing bytes";
  exec->Validate();
  return ffi::Module(ffi::ObjectPtr<ffi::ModuleObj>(std::move(exec)));
}

TVM_FFI_STATIC_INIT_BLOCK() {
  // The loader `ffi.ModuleLoadFromFile` uses for an executable embedded in a library's
  // import tree (kind "relax.VMExecutable"); also the entry point for untrusted bytes.
  RegisterRuntimeGlobal("ffi.Module.load_from_bytes.relax.VMExecutable",
                        [](const ffi::Bytes& bytes) {
                          return LoadExecutableFromBytes(bytes.data(), bytes.size());
                        });
}

}  // namespace vm
}  // namespace runtime
}  // namespace tvm
