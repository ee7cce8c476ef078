#include "protocol.h"

#include <cstring>

namespace tvm {
namespace runtime {
namespace rpc {

const uint8_t* Reader::Take(size_t n) {
  TVM_FFI_CHECK(n <= size_ - pos_, ValueError)
      << "malformed RPC frame: needs " << n << " more bytes, has " << (size_ - pos_);
  const uint8_t* p = data_ + pos_;
  pos_ += n;
  return p;
}

uint8_t Reader::U8() { return *Take(1); }
uint16_t Reader::U16() {
  uint16_t v;
  std::memcpy(&v, Take(2), 2);
  return v;
}
uint32_t Reader::U32() {
  uint32_t v;
  std::memcpy(&v, Take(4), 4);
  return v;
}
uint64_t Reader::U64() {
  uint64_t v;
  std::memcpy(&v, Take(8), 8);
  return v;
}
double Reader::F64() {
  double v;
  std::memcpy(&v, Take(8), 8);
  return v;
}
std::string Reader::Str() {
  uint32_t n = U32();
  const uint8_t* p = Take(n);
  return std::string(reinterpret_cast<const char*>(p), n);
}
std::string Reader::Blob() {
  uint64_t n = U64();
  TVM_FFI_CHECK(n <= remaining(), ValueError) << "malformed RPC frame: blob of " << n << " bytes";
  const uint8_t* p = Take(static_cast<size_t>(n));
  return std::string(reinterpret_cast<const char*>(p), n);
}

}  // namespace rpc
}  // namespace runtime
}  // namespace tvm
