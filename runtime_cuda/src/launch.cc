/*
 * Launch tags and kernel argument packing (see launch.h).
 */
#include "launch.h"

#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/error.h>

#include <cstring>
#include <limits>

namespace tvm {
namespace runtime {
namespace cuda {
namespace {

bool IsTag(const std::string& tag, const char* suffix) {
  return tag == std::string("tir.") + suffix || tag == std::string("tirx.") + suffix;
}

std::string TypeText(DLDataType t) {
  const char* base = t.code == kDLInt ? "int" : t.code == kDLUInt ? "uint" : t.code == kDLFloat
      ? "float" : t.code == kDLOpaqueHandle ? "handle" : t.code == kDLBfloat ? "bfloat" : "code";
  std::string s = std::string(base) + std::to_string(t.bits);
  if (t.code != kDLInt && t.code != kDLUInt && t.code != kDLFloat && t.code != kDLOpaqueHandle &&
      t.code != kDLBfloat) {
    s = "type code " + std::to_string(t.code) + " bits " + std::to_string(t.bits);
  }
  if (t.lanes != 1) s += "x" + std::to_string(t.lanes);
  return s;
}

const char* AnyTypeText(const ffi::AnyView& v) {
  switch (v.type_index()) {
    case kTVMFFINone: return "None";
    case kTVMFFIInt: return "int";
    case kTVMFFIBool: return "bool";
    case kTVMFFIFloat: return "float";
    case kTVMFFIOpaquePtr: return "opaque pointer";
    case kTVMFFIDLTensorPtr: return "DLTensor*";
    case kTVMFFITensor: return "Tensor";
    case kTVMFFIDataType: return "dtype";
    case kTVMFFIDevice: return "Device";
    default: return "object";
  }
}

[[noreturn]] void WrongType(const FunctionInfo& info, size_t i, const ffi::AnyView& v) {
  TVM_FFI_THROW(TypeError) << "CUDA kernel `" << info.name << "` argument " << i << ": expected "
                           << TypeText(info.arg_types[i]) << ", got " << AnyTypeText(v);
}

void* HandleArg(const FunctionInfo& info, size_t i, const ffi::AnyView& v) {
  switch (v.type_index()) {
    case kTVMFFINone:
      return nullptr;
    case kTVMFFIOpaquePtr:
      return v.raw()->v_ptr;
    case kTVMFFIDLTensorPtr:
    case kTVMFFITensor: {
      const DLTensor* t = v.cast<DLTensor*>();
      int type = t->device.device_type;
      if (type != kDLCUDA && type != kDLCUDAHost && type != kDLCUDAManaged) {
        TVM_FFI_THROW(ValueError) << "CUDA kernel `" << info.name << "` argument " << i
                                  << ": the tensor is not in CUDA-accessible memory (device type "
                                  << type << ")";
      }
      return static_cast<char*>(t->data) + t->byte_offset;
    }
    default:
      WrongType(info, i, v);
  }
}

int64_t IntArg(const FunctionInfo& info, size_t i, const ffi::AnyView& v) {
  if (v.type_index() != kTVMFFIInt && v.type_index() != kTVMFFIBool) WrongType(info, i, v);
  return v.raw()->v_int64;
}

template <typename T>
T CheckedInt(const FunctionInfo& info, size_t i, int64_t x) {
  bool ok = std::numeric_limits<T>::is_signed
      ? (x >= static_cast<int64_t>(std::numeric_limits<T>::min()) &&
         x <= static_cast<int64_t>(std::numeric_limits<T>::max()))
      : (x >= 0 && static_cast<uint64_t>(x) <= static_cast<uint64_t>(std::numeric_limits<T>::max()));
  if (!ok) {
    TVM_FFI_THROW(ValueError) << "CUDA kernel `" << info.name << "` argument " << i << ": " << x
                              << " does not fit " << TypeText(info.arg_types[i]);
  }
  return static_cast<T>(x);
}

double FloatArg(const FunctionInfo& info, size_t i, const ffi::AnyView& v) {
  if (v.type_index() == kTVMFFIFloat) return v.raw()->v_float64;
  if (v.type_index() == kTVMFFIInt || v.type_index() == kTVMFFIBool) {
    return static_cast<double>(v.raw()->v_int64);
  }
  WrongType(info, i, v);
}

template <typename T>
void Store(uint64_t* slot, T value) {
  std::memcpy(slot, &value, sizeof(T));
}

}  // namespace

LaunchSpec ParseLaunchTags(const std::string& kernel, const std::vector<std::string>& tags) {
  LaunchSpec spec;
  for (size_t i = 0; i < tags.size(); ++i) {
    const std::string& tag = tags[i];
    if (IsTag(tag, "use_dyn_shared_memory")) {
      if (i + 1 != tags.size()) {
        TVM_FFI_THROW(ValueError) << "CUDA kernel `" << kernel << "`: launch tag `" << tag
                                  << "` must be the last one";
      }
      spec.dyn_shared_memory = true;
      continue;
    }
    if (IsTag(tag, "use_programtic_dependent_launch") ||
        IsTag(tag, "use_programmatic_dependent_launch")) {
      spec.programmatic_dependent_launch = true;
      continue;
    }
    if (IsTag(tag, "use_cooperative_launch")) {
      spec.cooperative_launch = true;
      continue;
    }
    int base = -1;
    std::string axis;
    for (const auto& prefix : {std::make_pair("blockIdx.", 0), std::make_pair("threadIdx.", 3),
                               std::make_pair("clusterCtaIdx.", 6)}) {
      size_t n = std::strlen(prefix.first);
      if (tag.compare(0, n, prefix.first) == 0) {
        base = prefix.second;
        axis = tag.substr(n);
      }
    }
    if (base < 0 || axis.size() != 1 || axis[0] < 'x' || axis[0] > 'z') {
      TVM_FFI_THROW(ValueError) << "CUDA kernel `" << kernel << "`: unknown launch tag `" << tag
                                << "`";
    }
    if (base == 6) spec.has_cluster = true;
    spec.dims.push_back(base + (axis[0] - 'x'));
  }
  return spec;
}

void CheckSignature(const FunctionInfo& info) {
  for (size_t i = 0; i < info.arg_types.size(); ++i) {
    DLDataType t = info.arg_types[i];
    bool ok = t.lanes == 1 &&
              ((t.code == kDLOpaqueHandle && t.bits == 64) ||
               ((t.code == kDLInt || t.code == kDLUInt) &&
                (t.bits == 8 || t.bits == 16 || t.bits == 32 || t.bits == 64)) ||
               (t.code == kDLFloat && (t.bits == 32 || t.bits == 64)));
    if (!ok) {
      TVM_FFI_THROW(ValueError) << "CUDA kernel `" << info.name << "` argument " << i
                                << " has type " << TypeText(t)
                                << ", which cannot be passed to a kernel (handles, 8-64 bit "
                                   "ints, float32/float64)";
    }
    if (i < info.arg_extra_tags.size() && info.arg_extra_tags[i] != 0) {
      TVM_FFI_THROW(ValueError) << "CUDA kernel `" << info.name << "` argument " << i
                                << " has extra tag " << info.arg_extra_tags[i]
                                << " (TensorMap arguments are not supported)";
    }
  }
}

void PackedKernelArgs::Pack(const FunctionInfo& info, const LaunchSpec& spec, ffi::PackedArgs args) {
  size_t n = info.arg_types.size();
  size_t expected = n + spec.num_extents();
  if (static_cast<size_t>(args.size()) != expected) {
    TVM_FFI_THROW(TypeError) << "CUDA kernel `" << info.name << "` expects " << expected
                             << " arguments (" << n << " kernel arguments + "
                             << spec.num_extents() << " launch extents), got " << args.size();
  }
  slots_.assign(n, 0);
  pointers_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const ffi::AnyView& v = args[static_cast<int32_t>(i)];
    DLDataType t = info.arg_types[i];
    uint64_t* slot = &slots_[i];
    pointers_[i] = slot;
    if (t.code == kDLOpaqueHandle) {
      Store(slot, HandleArg(info, i, v));
    } else if (t.code == kDLFloat) {
      double x = FloatArg(info, i, v);
      if (t.bits == 32) Store(slot, static_cast<float>(x)); else Store(slot, x);
    } else if (t.code == kDLInt) {
      int64_t x = IntArg(info, i, v);
      switch (t.bits) {
        case 8: Store(slot, CheckedInt<int8_t>(info, i, x)); break;
        case 16: Store(slot, CheckedInt<int16_t>(info, i, x)); break;
        case 32: Store(slot, CheckedInt<int32_t>(info, i, x)); break;
        default: Store(slot, x);
      }
    } else {
      int64_t x = IntArg(info, i, v);
      switch (t.bits) {
        case 8: Store(slot, CheckedInt<uint8_t>(info, i, x)); break;
        case 16: Store(slot, CheckedInt<uint16_t>(info, i, x)); break;
        case 32: Store(slot, CheckedInt<uint32_t>(info, i, x)); break;
        default: Store(slot, static_cast<uint64_t>(x));  // uint64 from the int64 bit pattern
      }
    }
  }
  dims_ = LaunchDims();
  for (size_t j = 0; j < spec.num_extents(); ++j) {
    const ffi::AnyView& v = args[static_cast<int32_t>(n + j)];
    if (v.type_index() != kTVMFFIInt && v.type_index() != kTVMFFIBool) {
      TVM_FFI_THROW(TypeError) << "CUDA kernel `" << info.name << "` launch extent " << j
                               << ": expected int, got " << AnyTypeText(v);
    }
    int64_t x = v.raw()->v_int64;
    if (j == spec.dims.size()) {  // the dynamic shared memory size
      if (x < 0 || x > std::numeric_limits<unsigned>::max()) {
        TVM_FFI_THROW(ValueError) << "CUDA kernel `" << info.name
                                  << "`: dynamic shared memory of " << x << " bytes";
      }
      dims_.dyn_shared_bytes = static_cast<size_t>(x);
      continue;
    }
    if (x > std::numeric_limits<unsigned>::max()) {
      TVM_FFI_THROW(ValueError) << "CUDA kernel `" << info.name << "` launch extent " << j << " ("
                                << x << ") is too large";
    }
    unsigned extent = x <= 0 ? 1u : static_cast<unsigned>(x);
    int d = spec.dims[j];
    unsigned* target = d < 3 ? dims_.grid : d < 6 ? dims_.block : dims_.cluster;
    target[d % 3] = extent;
  }
}

}  // namespace cuda
}  // namespace runtime
}  // namespace tvm
