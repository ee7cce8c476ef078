/*
 * Target: what code is generated for. Parsed from "llvm -mtriple=... -mcpu=... -mattr=+a,+b".
 */
#ifndef TVM_TARGET_TARGET_H_
#define TVM_TARGET_TARGET_H_

#include <tvm/ffi/container/map.h>
#include <tvm/ffi/object.h>
#include <tvm/ffi/string.h>

#include <string>

namespace tvm {

class TargetNode : public ffi::Object {
 public:
  /*! \brief "llvm" (CPU through LLVM) or "c". */
  ffi::String kind;
  /*! \brief Options without the leading '-': mtriple, mcpu, mattr, ... (flags map to "true"). */
  ffi::Map<ffi::String, ffi::String> attrs;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("target.Target", TargetNode, ffi::Object);

  std::string Attr(const std::string& key, const std::string& fallback = "") const;
};

class Target : public ffi::ObjectRef {
 public:
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NULLABLE(Target, ffi::ObjectRef, TargetNode);
  /*! \brief Parses a target string; ValueError on unknown kinds or malformed options. */
  static Target Parse(const std::string& text);
  std::string str() const;
};

}  // namespace tvm
#endif  // TVM_TARGET_TARGET_H_
