/*
 * Runs one function of a compiled kernel library on float32 tensors kept in files, with
 * libtvm_ffi + libtvm_runtime only (the cross test runs the aarch64 build under qemu).
 *
 *   kernel_runner KERNELS.so FUNC in:x.f32:256x64 in:w.f32:64x32 out:y.f32:256x32
 *
 * Each argument after FUNC is one tensor, in call order: `in:` files are read (raw
 * little-endian float32, row-major), `out:` tensors are written after the call.
 */
#include <tvm/ffi/extra/module.h>
#include <tvm/runtime/tensor.h>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

namespace ffi = tvm::ffi;

namespace {

struct Arg {
  bool out;
  std::string path;
  std::vector<int64_t> shape;
  int64_t size = 1;
};

bool Parse(const std::string& spec, Arg* arg) {
  size_t a = spec.find(':');
  size_t b = spec.rfind(':');
  if (a == std::string::npos || a == b) return false;
  std::string kind = spec.substr(0, a);
  if (kind != "in" && kind != "out") return false;
  arg->out = kind == "out";
  arg->path = spec.substr(a + 1, b - a - 1);
  std::string dims = spec.substr(b + 1);
  for (size_t pos = 0; pos <= dims.size();) {
    size_t x = dims.find('x', pos);
    if (x == std::string::npos) x = dims.size();
    char* end = nullptr;
    std::string d = dims.substr(pos, x - pos);
    long long v = std::strtoll(d.c_str(), &end, 10);
    if (d.empty() || *end != '\0' || v <= 0) return false;
    arg->shape.push_back(v);
    arg->size *= v;
    pos = x + 1;
  }
  return true;
}

bool ReadFile(const Arg& arg, std::vector<float>* data) {
  data->resize(arg.size);
  std::FILE* f = std::fopen(arg.path.c_str(), "rb");
  if (!f) return false;
  size_t n = std::fread(data->data(), sizeof(float), data->size(), f);
  std::fclose(f);
  return n == data->size();
}

bool WriteFile(const Arg& arg, const std::vector<float>& data) {
  std::FILE* f = std::fopen(arg.path.c_str(), "wb");
  if (!f) return false;
  size_t n = std::fwrite(data.data(), sizeof(float), data.size(), f);
  return std::fclose(f) == 0 && n == data.size();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s KERNELS.so FUNC (in|out):FILE:D0xD1... ...\n", argv[0]);
    return 2;
  }
  std::vector<Arg> args(argc - 3);
  for (int i = 3; i < argc; ++i) {
    if (!Parse(argv[i], &args[i - 3])) {
      std::fprintf(stderr, "kernel_runner: bad tensor argument '%s'\n", argv[i]);
      return 2;
    }
  }
  try {
    ffi::Module lib = ffi::Module::LoadFromFile(argv[1]);
    std::optional<ffi::Function> found = lib.GetFunction(argv[2]);
    if (!found.has_value()) {
      std::fprintf(stderr, "kernel_runner: %s has no function %s\n", argv[1], argv[2]);
      return 1;
    }
    ffi::Function func = *found;
    DLDevice cpu{kDLCPU, 0};
    DLDataType f32{kDLFloat, 32, 1};
    std::vector<tvm::runtime::Tensor> tensors;
    std::vector<ffi::AnyView> views;
    for (const Arg& arg : args) {
      tensors.push_back(tvm::runtime::Empty(arg.shape, f32, cpu));
      if (!arg.out) {
        std::vector<float> data;
        if (!ReadFile(arg, &data)) {
          std::fprintf(stderr, "kernel_runner: cannot read %lld floats from %s\n",
                       static_cast<long long>(arg.size), arg.path.c_str());
          return 1;
        }
        tvm::runtime::CopyFromBytes(tensors.back(), data.data(), data.size() * sizeof(float));
      }
    }
    for (const auto& t : tensors) views.emplace_back(t);
    ffi::Any result;
    func.CallPacked(views.data(), static_cast<int32_t>(views.size()), &result);
    for (size_t i = 0; i < args.size(); ++i) {
      if (!args[i].out) continue;
      std::vector<float> data(args[i].size);
      tvm::runtime::CopyToBytes(tensors[i], data.data(), data.size() * sizeof(float));
      if (!WriteFile(args[i], data)) {
        std::fprintf(stderr, "kernel_runner: cannot write %s\n", args[i].path.c_str());
        return 1;
      }
    }
    std::printf("kernel_runner: %s(%zu tensors) done\n", argv[2], args.size());
    return 0;
  } catch (const ffi::Error& e) {
    std::fprintf(stderr, "kernel_runner: %s", e.FullMessage().c_str());
    return 1;
  }
}
