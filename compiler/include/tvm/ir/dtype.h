/*
 * DLDataType helpers used throughout the compiler (the IR stores DLDataType directly).
 */
#ifndef TVM_IR_DTYPE_H_
#define TVM_IR_DTYPE_H_

#include <tvm/ffi/c_api.h>

#include <cstdint>
#include <string>

namespace tvm {

using DataType = DLDataType;

inline DataType MakeDType(int code, int bits, int lanes = 1) {
  DataType t;
  t.code = static_cast<uint8_t>(code);
  t.bits = static_cast<uint8_t>(bits);
  t.lanes = static_cast<uint16_t>(lanes);
  return t;
}
inline DataType Int(int bits, int lanes = 1) { return MakeDType(kDLInt, bits, lanes); }
inline DataType UInt(int bits, int lanes = 1) { return MakeDType(kDLUInt, bits, lanes); }
inline DataType Float(int bits, int lanes = 1) { return MakeDType(kDLFloat, bits, lanes); }
inline DataType Bool(int lanes = 1) { return MakeDType(kDLBool, 8, lanes); }
inline DataType Handle() { return MakeDType(kDLOpaqueHandle, 64, 1); }
inline DataType Void() { return MakeDType(kDLOpaqueHandle, 0, 1); }

inline bool operator==(const DataType& a, const DataType& b) {
  return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes;
}
inline bool operator!=(const DataType& a, const DataType& b) { return !(a == b); }

inline bool IsInt(DataType t) { return t.code == kDLInt; }
inline bool IsUInt(DataType t) { return t.code == kDLUInt; }
inline bool IsIntOrUInt(DataType t) { return t.code == kDLInt || t.code == kDLUInt; }
inline bool IsFloat(DataType t) { return t.code == kDLFloat; }
inline bool IsBool(DataType t) { return t.code == kDLBool || (t.code == kDLUInt && t.bits == 1); }
inline bool IsHandle(DataType t) { return t.code == kDLOpaqueHandle; }
inline DataType WithLanes(DataType t, int lanes) {
  t.lanes = static_cast<uint16_t>(lanes);
  return t;
}
inline DataType ElementOf(DataType t) { return WithLanes(t, 1); }

/*! \brief "float32", "int64x4", "bool", "handle"... */
std::string DTypeToString(DataType t);

}  // namespace tvm
#endif  // TVM_IR_DTYPE_H_
