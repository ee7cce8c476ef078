/*
 * Target: what code is generated for. Parsed from "llvm -mtriple=... -mcpu=... -mattr=+a,+b"
 * or "cuda -arch=sm_90" / "nvptx -mcpu=sm_90" (device kinds, with a host target for the code
 * that launches their kernels; "llvm" when none is given).
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
  /*! \brief "llvm" (CPU through LLVM), "c", or a device kind: "cuda", "nvptx". */
  ffi::String kind;
  /*! \brief Options without the leading '-': mtriple, mcpu, mattr, arch ... (flags map to "true"). */
  ffi::Map<ffi::String, ffi::String> attrs;
  /*! \brief For device kinds: the target of the host code (null for host kinds). */
  ffi::ObjectRef host;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("target.Target", TargetNode, ffi::Object);

  std::string Attr(const std::string& key, const std::string& fallback = "") const;
  /*! \brief True for kinds whose code runs on a device and is launched by host code. */
  bool IsDevice() const { return kind == "cuda" || kind == "nvptx"; }
  /*! \brief DLPack device type of the code (kDLCPU = 1, kDLCUDA = 2). */
  int DeviceType() const { return IsDevice() ? 2 : 1; }
};

class Target : public ffi::ObjectRef {
 public:
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NULLABLE(Target, ffi::ObjectRef, TargetNode);
  /*! \brief Parses a target string; ValueError on unknown kinds or malformed options. */
  static Target Parse(const std::string& text);
  /*! \brief `device` with `host` as its host target (ValueError unless host is a CPU kind). */
  static Target WithHost(const Target& device, const Target& host);
  std::string str() const;
};

}  // namespace tvm
#endif  // TVM_TARGET_TARGET_H_
