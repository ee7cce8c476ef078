/*
 * The RPC wire format (docs/rpc.md): length-prefixed frames carrying one request or one
 * response, values in a small tagged encoding, all little-endian. Every read is bounds
 * checked; a malformed frame raises ValueError and the server closes that connection.
 */
#ifndef TVM_RUNTIME_SRC_RPC_PROTOCOL_H_
#define TVM_RUNTIME_SRC_RPC_PROTOCOL_H_

#include <tvm/ffi/any.h>

#include <cstdint>
#include <string>
#include <vector>

namespace tvm {
namespace runtime {
namespace rpc {

/*! \brief First 4 bytes of every frame ("TVMR" as a little-endian u32). */
constexpr uint32_t kFrameMagic = 0x524D5654;
/*! \brief Protocol version exchanged in Hello. */
constexpr uint32_t kProtocolVersion = 1;
/*! \brief Largest payload accepted (tensors are sent in pieces above this). */
constexpr uint32_t kMaxFrameBytes = 256u << 20;

enum class Op : uint8_t {
  kHello = 1,
  kGetGlobal = 2,
  kCall = 3,
  kUpload = 4,
  kLoadModule = 5,
  kModuleGetFunction = 6,
  kTensorEmpty = 7,
  kTensorWrite = 8,
  kTensorRead = 9,
  kTensorInfo = 10,
  kFree = 11,
};

enum class Status : uint8_t { kOk = 0, kError = 1 };

enum class Tag : uint8_t {
  kNone = 0,
  kInt = 1,
  kBool = 2,
  kFloat = 3,
  kStr = 4,
  kBytes = 5,
  kDevice = 6,
  kDataType = 7,
  kShape = 8,
  kHandle = 9,  // a remote object, by session handle id
  kArray = 10,
};

/*! \brief Reads a payload; throws ValueError on any overrun or bad value. */
class Reader {
 public:
  Reader(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t U8();
  uint16_t U16();
  uint32_t U32();
  uint64_t U64();
  int64_t I64() { return static_cast<int64_t>(U64()); }
  double F64();
  std::string Str();    // u32 length + bytes
  std::string Blob();   // u64 length + bytes
  const uint8_t* Take(size_t n);
  bool AtEnd() const { return pos_ == size_; }
  size_t remaining() const { return size_ - pos_; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

class Writer {
 public:
  void U8(uint8_t v) { buf_.push_back(v); }
  void U16(uint16_t v) { Raw(&v, 2); }
  void U32(uint32_t v) { Raw(&v, 4); }
  void U64(uint64_t v) { Raw(&v, 8); }
  void I64(int64_t v) { Raw(&v, 8); }
  void F64(double v) { Raw(&v, 8); }
  void Str(const std::string& s) {
    U32(static_cast<uint32_t>(s.size()));
    Raw(s.data(), s.size());
  }
  void Blob(const void* data, size_t n) {
    U64(n);
    Raw(data, n);
  }
  void Raw(const void* p, size_t n) {
    const uint8_t* b = static_cast<const uint8_t*>(p);
    buf_.insert(buf_.end(), b, b + n);
  }
  std::vector<uint8_t>& buffer() { return buf_; }

 private:
  std::vector<uint8_t> buf_;
};

}  // namespace rpc
}  // namespace runtime
}  // namespace tvm
#endif  // TVM_RUNTIME_SRC_RPC_PROTOCOL_H_
