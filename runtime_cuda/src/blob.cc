/*
 * Reading and writing the CUDA module blob (format in blob.h).
 */
#include "blob.h"

#include <tvm/ffi/error.h>

#include <set>

namespace tvm {
namespace runtime {
namespace cuda {
namespace {

class Reader {
 public:
  Reader(const char* data, size_t size) : data_(data), size_(size) {}
  uint64_t U64(const char* what) { return Uint(8, what); }
  std::string Str(const char* what) {
    uint64_t n = U64(what);
    Need(n, what);
    std::string out(data_ + pos_, n);
    pos_ += n;
    return out;
  }
  /*! \brief A count of items of at least `min_item` bytes each, checked against what is left. */
  uint64_t Count(size_t min_item, const char* what) {
    uint64_t n = U64(what);
    if (n > left() / min_item) {
      TVM_FFI_THROW(ValueError) << "corrupt CUDA module: " << what << " count " << n
                                << " exceeds the " << left() << " bytes left";
    }
    return n;
  }
  uint64_t Uint(int nbytes, const char* what) {
    Need(nbytes, what);
    uint64_t v = 0;
    for (int i = nbytes - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(data_[pos_ + i]);
    pos_ += nbytes;
    return v;
  }
  size_t left() const { return size_ - pos_; }

 private:
  void Need(uint64_t n, const char* what) {
    if (n > left()) {
      TVM_FFI_THROW(ValueError) << "corrupt CUDA module: truncated " << what << " at byte " << pos_
                                << " (needs " << n << ", " << left() << " left)";
    }
  }
  const char* data_;
  size_t size_;
  size_t pos_ = 0;
};

void PutUint(std::string* out, uint64_t v, int nbytes) {
  for (int i = 0; i < nbytes; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

void PutStr(std::string* out, const std::string& s) {
  PutUint(out, s.size(), 8);
  out->append(s);
}

}  // namespace

CUDABlob ParseCUDABlob(const char* data, size_t size) {
  if (data == nullptr && size != 0) TVM_FFI_THROW(ValueError) << "corrupt CUDA module: null data";
  Reader r(data, size);
  CUDABlob blob;
  blob.fmt = r.Str("format");
  if (blob.fmt != "ptx" && blob.fmt != "cubin" && blob.fmt != "fatbin" && blob.fmt != "cuda") {
    TVM_FFI_THROW(ValueError) << "corrupt CUDA module: unknown format `" << blob.fmt
                              << "` (expected ptx, cubin, fatbin or cuda)";
  }
  // Each function entry is at least 5 u64 (two string lengths, three counts).
  uint64_t n = r.Count(40, "function");
  std::set<std::string> seen;
  for (uint64_t i = 0; i < n; ++i) {
    std::string key = r.Str("function key");
    if (!seen.insert(key).second) {
      TVM_FFI_THROW(ValueError) << "corrupt CUDA module: function `" << key << "` appears twice";
    }
    FunctionInfo info;
    info.name = r.Str("function name");
    uint64_t k = r.Count(4, "argument type");
    info.arg_types.resize(k);
    for (DLDataType& t : info.arg_types) {
      t.code = static_cast<uint8_t>(r.Uint(1, "argument type"));
      t.bits = static_cast<uint8_t>(r.Uint(1, "argument type"));
      t.lanes = static_cast<uint16_t>(r.Uint(2, "argument type"));
    }
    uint64_t m = r.Count(8, "launch parameter tag");
    for (uint64_t j = 0; j < m; ++j) info.launch_param_tags.push_back(r.Str("launch parameter tag"));
    uint64_t e = r.Count(4, "argument extra tag");
    info.arg_extra_tags.resize(e);
    for (int32_t& tag : info.arg_extra_tags) {
      tag = static_cast<int32_t>(static_cast<uint32_t>(r.Uint(4, "argument extra tag")));
    }
    blob.functions.emplace_back(std::move(key), std::move(info));
  }
  blob.code = r.Str("code");
  if (r.left() != 0) {
    TVM_FFI_THROW(ValueError) << "corrupt CUDA module: " << r.left() << " trailing bytes";
  }
  return blob;
}

std::string WriteCUDABlob(const CUDABlob& blob) {
  std::string out;
  PutStr(&out, blob.fmt);
  PutUint(&out, blob.functions.size(), 8);
  for (const auto& kv : blob.functions) {
    const FunctionInfo& info = kv.second;
    PutStr(&out, kv.first);
    PutStr(&out, info.name);
    PutUint(&out, info.arg_types.size(), 8);
    for (const DLDataType& t : info.arg_types) {
      PutUint(&out, t.code, 1);
      PutUint(&out, t.bits, 1);
      PutUint(&out, t.lanes, 2);
    }
    PutUint(&out, info.launch_param_tags.size(), 8);
    for (const std::string& tag : info.launch_param_tags) PutStr(&out, tag);
    PutUint(&out, info.arg_extra_tags.size(), 8);
    for (int32_t tag : info.arg_extra_tags) PutUint(&out, static_cast<uint32_t>(tag), 4);
  }
  PutStr(&out, blob.code);
  return out;
}

}  // namespace cuda
}  // namespace runtime
}  // namespace tvm
