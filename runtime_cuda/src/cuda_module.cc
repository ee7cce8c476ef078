/*
 * The CUDA module and its kernels (see cuda_module.h); registers
 * `ffi.Module.load_from_bytes.cuda`.
 */
#include "cuda_module.h"

#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/string.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "blob.h"
#include "context.h"
#include "driver.h"
#include "launch.h"
#include "registry.h"

namespace tvm {
namespace runtime {
namespace cuda {
namespace {

enum class ImageKind { kPTX, kCubin, kFatbin, kUnknown };

ImageKind DetectImage(const std::string& code) {
  size_t i = 0;
  while (i < code.size() && (code[i] == ' ' || code[i] == '\t' || code[i] == '\n' || code[i] == '\r')) ++i;
  if (code.size() >= 4) {
    const auto* b = reinterpret_cast<const unsigned char*>(code.data());
    if (b[0] == 0x7f && b[1] == 'E' && b[2] == 'L' && b[3] == 'F') return ImageKind::kCubin;
    if (b[0] == 0x50 && b[1] == 0xED && b[2] == 0x55 && b[3] == 0xBA) return ImageKind::kFatbin;
  }
  if (i < code.size() && (code[i] == '.' || (code[i] == '/' && i + 1 < code.size() && code[i + 1] == '/'))) {
    return ImageKind::kPTX;
  }
  return ImageKind::kUnknown;
}

// Dynamic shared memory above this needs an explicit opt-in per function.
constexpr size_t kDefaultDynSharedLimit = 48 * 1024;

class CUDAModuleObj : public ffi::ModuleObj {
 public:
  CUDAModuleObj(std::string bytes, CUDABlob blob)
      : bytes_(std::move(bytes)), blob_(std::move(blob)), image_(DetectImage(blob_.code)) {
    for (size_t i = 0; i < blob_.functions.size(); ++i) index_[blob_.functions[i].first] = i;
  }

  ~CUDAModuleObj() {
    // Never throws; at exit the driver may already be gone (errors ignored).
    const DriverState& s = GetDriverState();
    if (!s.available) return;
    for (size_t dev = 0; dev < loaded_.size(); ++dev) {
      if (loaded_[dev] == nullptr) continue;
      CUcontext cur = nullptr;
      if (s.api.cuCtxGetCurrent(&cur) != CUDA_SUCCESS) continue;
      try {
        BindDevice(static_cast<int>(dev), "unload a CUDA module");
      } catch (...) {
        continue;
      }
      s.api.cuModuleUnload(loaded_[dev]);
      s.api.cuCtxSetCurrent(cur);
    }
  }

  const char* kind() const final { return "cuda"; }
  int GetPropertyMask() const final {
    return ffi::kModuleBinarySerializable | ffi::kModuleRunnable;
  }
  /*! \brief The kernel `name`; ValueError when its signature cannot be launched. */
  ffi::Optional<ffi::Function> GetFunction(const ffi::String& name) final;
  using ffi::ModuleObj::GetFunction;
  bool ImplementsFunction(const ffi::String& name) final {
    return index_.count(std::string(name)) != 0;
  }
  using ffi::ModuleObj::ImplementsFunction;
  ffi::Bytes SaveToBytes() const final { return ffi::Bytes(bytes_); }
  ffi::String InspectSource(const ffi::String&) const final { return ffi::String(blob_.code); }
  ffi::Array<ffi::String> GetWriteFormats() const final { return {ffi::String(blob_.fmt)}; }

  /*! \brief The image loaded on `device` (current on this thread), loading it on first use. */
  CUmodule ModuleOn(int device, const DriverApi& api) {
    std::lock_guard<std::mutex> lock(mu_);
    if (loaded_.size() <= static_cast<size_t>(device)) loaded_.resize(device + 1, nullptr);
    if (loaded_[device] == nullptr) {
      if (image_ == ImageKind::kUnknown) {
        TVM_FFI_THROW(RuntimeError)
            << "this CUDA module holds " << (blob_.fmt == "cuda" ? "CUDA C source" : "an unknown image")
            << ", not PTX/cubin/fatbin: compile it before launching";
      }
      CUmodule m = nullptr;
      // std::string keeps a NUL after the data: PTX reaches the driver NUL-terminated.
      TVM_CUDA_CALL(api, cuModuleLoadData, &m, blob_.code.c_str());
      loaded_[device] = m;
    }
    return loaded_[device];
  }

  const CUDABlob& blob() const { return blob_; }

 private:
  std::string bytes_;
  CUDABlob blob_;
  ImageKind image_;
  std::unordered_map<std::string, size_t> index_;
  std::mutex mu_;
  std::vector<CUmodule> loaded_;  // by device id
};

/*! \brief One kernel: its signature, launch spec and per-device CUfunction cache. */
class CUDAKernel {
 public:
  CUDAKernel(ffi::ObjectPtr<CUDAModuleObj> module, const FunctionInfo* info)
      : module_(std::move(module)), info_(info), spec_(ParseLaunchTags(info->name, info->launch_param_tags)) {
    CheckSignature(*info_);
  }

  void operator()(ffi::PackedArgs args, ffi::Any*) {
    PackedKernelArgs packed;
    packed.Pack(*info_, spec_, args);
    int device = CurrentDevice();
    const DriverApi& api = RequireDriver("launch a CUDA kernel");
    BindDevice(device, "launch a CUDA kernel");
    PerDevice& fn = FunctionOn(device, api);
    const LaunchDims& d = packed.dims();
    if (d.dyn_shared_bytes >= kDefaultDynSharedLimit && d.dyn_shared_bytes > fn.dyn_smem_set) {
      std::lock_guard<std::mutex> lock(state_->mu);
      if (d.dyn_shared_bytes > fn.dyn_smem_set) {
        TVM_CUDA_CALL(api, cuFuncSetAttribute, fn.func, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                      static_cast<int>(d.dyn_shared_bytes));
        fn.dyn_smem_set = d.dyn_shared_bytes;
      }
    }
    CUlaunchAttribute attrs[3];
    unsigned num_attrs = 0;
    if (spec_.programmatic_dependent_launch) {
      attrs[num_attrs].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
      attrs[num_attrs++].value.programmaticStreamSerializationAllowed = 1;
    }
    if (spec_.cooperative_launch) {
      attrs[num_attrs].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
      attrs[num_attrs++].value.cooperative = 1;
    }
    if (spec_.has_cluster) {
      attrs[num_attrs].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
      attrs[num_attrs].value.clusterDim.x = d.cluster[0];
      attrs[num_attrs].value.clusterDim.y = d.cluster[1];
      attrs[num_attrs++].value.clusterDim.z = d.cluster[2];
    }
    CUlaunchConfig config{};
    config.gridDimX = d.grid[0];
    config.gridDimY = d.grid[1];
    config.gridDimZ = d.grid[2];
    config.blockDimX = d.block[0];
    config.blockDimY = d.block[1];
    config.blockDimZ = d.block[2];
    config.sharedMemBytes = static_cast<unsigned>(d.dyn_shared_bytes);
    config.hStream = static_cast<CUstream>(TVMFFIEnvGetStream(kDLCUDA, device));
    config.attrs = num_attrs ? attrs : nullptr;
    config.numAttrs = num_attrs;
    CUresult r = api.cuLaunchKernelEx(&config, fn.func, packed.params(), nullptr);
    if (r != CUDA_SUCCESS) {
      CheckDriverCall(r, ("cuLaunchKernelEx (kernel `" + info_->name + "`, grid (" +
                          std::to_string(d.grid[0]) + ", " + std::to_string(d.grid[1]) + ", " +
                          std::to_string(d.grid[2]) + "), block (" + std::to_string(d.block[0]) +
                          ", " + std::to_string(d.block[1]) + ", " + std::to_string(d.block[2]) +
                          "), dynamic shared memory " + std::to_string(d.dyn_shared_bytes) + ")")
                             .c_str());
    }
  }

 private:
  struct PerDevice {
    CUfunction func = nullptr;
    std::atomic<size_t> dyn_smem_set{kDefaultDynSharedLimit};  // the opt-in already granted
  };
  // Shared by copies of the callable (Function::FromPacked may copy it).
  struct State {
    std::mutex mu;
    std::vector<std::unique_ptr<PerDevice>> by_device;
  };

  PerDevice& FunctionOn(int device, const DriverApi& api) {
    std::lock_guard<std::mutex> lock(state_->mu);
    auto& v = state_->by_device;
    if (v.size() <= static_cast<size_t>(device)) v.resize(device + 1);
    if (!v[device]) {
      CUmodule m = module_->ModuleOn(device, api);
      auto fn = std::make_unique<PerDevice>();
      TVM_CUDA_CALL(api, cuModuleGetFunction, &fn->func, m, info_->name.c_str());
      v[device] = std::move(fn);
    }
    return *v[device];
  }

  ffi::ObjectPtr<CUDAModuleObj> module_;  // keeps the blob (info_) and loaded images alive
  const FunctionInfo* info_;
  LaunchSpec spec_;
  std::shared_ptr<State> state_ = std::make_shared<State>();
};

ffi::Optional<ffi::Function> CUDAModuleObj::GetFunction(const ffi::String& name) {
  auto it = index_.find(std::string(name));
  if (it == index_.end()) return std::nullopt;
  auto self = ffi::details::ObjectUnsafe::PtrFromUnowned<CUDAModuleObj>(this);
  return ffi::Function::FromPacked(CUDAKernel(self, &blob_.functions[it->second].second));
}

}  // namespace

ffi::Module LoadCUDAModuleFromBytes(const char* data, size_t size) {
  CUDABlob blob = ParseCUDABlob(data, size);
  if (blob.fmt != "cuda" && DetectImage(blob.code) == ImageKind::kUnknown) {
    TVM_FFI_THROW(ValueError) << "CUDA module of format `" << blob.fmt
                              << "`: the code is neither PTX, cubin nor fatbin (first bytes do not "
                                 "match any of their signatures)";
  }
  for (const auto& kv : blob.functions) {
    ParseLaunchTags(kv.second.name, kv.second.launch_param_tags);  // reject bad tags early
  }
  auto obj = ffi::make_object<CUDAModuleObj>(std::string(data, size), std::move(blob));
  return ffi::Module(ffi::ObjectPtr<ffi::ModuleObj>(std::move(obj)));
}

TVM_FFI_STATIC_INIT_BLOCK() {
  RegisterGlobal("ffi.Module.load_from_bytes.cuda", [](const ffi::Bytes& bytes) {
    return LoadCUDAModuleFromBytes(bytes.data(), bytes.size());
  });
}

}  // namespace cuda
}  // namespace runtime
}  // namespace tvm
