/*
 * Runs a compiled model (a .so from relax.build(...).export_library or
 * `python -m tvm.driver compile`) with the runtime alone: loads the library (its root module
 * is the VM executable), reads float32/int64 .npy inputs, calls "main", writes the output
 * as .npy.
 *
 *   run_model model.so out.npy in0.npy [in1.npy ...]
 *
 * Links libtvm_ffi + libtvm_runtime only; exit status 1 with the error on any failure
 * (unreadable .npy, wrong input shape or dtype: the VM's checks).
 */
#include <tvm/ffi/extra/module.h>
#include <tvm/runtime/tensor.h>
#include <tvm/runtime/vm/vm.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace ffi = tvm::ffi;
namespace vm = tvm::runtime::vm;

namespace {

struct Array {
  DLDataType dtype;
  std::vector<int64_t> shape;
  std::vector<char> data;
};

/*! \brief A little-endian, C-order .npy of float32/float64/int32/int64 (numpy's format 1.0/2.0). */
Array ReadNpy(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot open " + path);
  char magic[8];
  f.read(magic, 8);
  if (!f || std::memcmp(magic, "\x93NUMPY", 6) != 0) throw std::runtime_error(path + " is not a .npy file");
  uint32_t hlen = 0;
  if (magic[6] == 1) {
    uint16_t h16 = 0;
    f.read(reinterpret_cast<char*>(&h16), 2);
    hlen = h16;
  } else {
    f.read(reinterpret_cast<char*>(&hlen), 4);
  }
  std::string header(hlen, '\0');
  f.read(&header[0], hlen);
  if (!f) throw std::runtime_error(path + ": truncated header");
  Array a;
  auto field = [&](const std::string& key) {
    size_t p = header.find("'" + key + "'");
    if (p == std::string::npos) throw std::runtime_error(path + ": no " + key + " in the header");
    return header.substr(header.find(':', p) + 1);
  };
  std::string descr = field("descr");
  descr = descr.substr(descr.find('\'') + 1);
  descr = descr.substr(0, descr.find('\''));
  if (descr == "<f4") a.dtype = DLDataType{kDLFloat, 32, 1};
  else if (descr == "<f8") a.dtype = DLDataType{kDLFloat, 64, 1};
  else if (descr == "<i4") a.dtype = DLDataType{kDLInt, 32, 1};
  else if (descr == "<i8") a.dtype = DLDataType{kDLInt, 64, 1};
  else throw std::runtime_error(path + ": unsupported dtype " + descr);
  if (field("fortran_order").find("True") < field("fortran_order").find(',')) {
    throw std::runtime_error(path + ": Fortran order is not supported");
  }
  std::string shape = field("shape");
  shape = shape.substr(shape.find('(') + 1, shape.find(')') - shape.find('(') - 1);
  std::stringstream ss(shape);
  size_t count = 1;
  for (std::string d; std::getline(ss, d, ',');) {
    if (d.find_first_not_of(" ") == std::string::npos) continue;
    a.shape.push_back(std::stoll(d));
    count *= static_cast<size_t>(a.shape.back());
  }
  a.data.resize(count * a.dtype.bits / 8);
  f.read(a.data.data(), static_cast<std::streamsize>(a.data.size()));
  if (!f) throw std::runtime_error(path + ": truncated data");
  return a;
}

void WriteNpy(const std::string& path, const ffi::Tensor& t) {
  const DLTensor* dl = t.GetDLTensorPtr();
  const char* descr = dl->dtype.code == kDLFloat ? (dl->dtype.bits == 32 ? "<f4" : "<f8")
                                                 : (dl->dtype.bits == 32 ? "<i4" : "<i8");
  std::string shape = "(";
  size_t count = 1;
  for (int i = 0; i < dl->ndim; ++i) {
    shape += std::to_string(dl->shape[i]) + (dl->ndim == 1 ? "," : (i + 1 < dl->ndim ? ", " : ""));
    count *= static_cast<size_t>(dl->shape[i]);
  }
  shape += ")";
  std::string header = "{'descr': '" + std::string(descr) + "', 'fortran_order': False, 'shape': " + shape + ", }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::vector<char> data(count * dl->dtype.bits / 8);
  tvm::runtime::CopyToBytes(t, data.data(), data.size());
  std::ofstream f(path, std::ios::binary);
  uint16_t hlen = static_cast<uint16_t>(header.size());
  f.write("\x93NUMPY\x01\x00", 8);
  f.write(reinterpret_cast<const char*>(&hlen), 2);
  f << header;
  f.write(data.data(), static_cast<std::streamsize>(data.size()));
  if (!f) throw std::runtime_error("cannot write " + path);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s MODEL.so OUT.npy [IN.npy ...]\n", argv[0]);
    return 2;
  }
  try {
    ffi::Module exec = ffi::Module::LoadFromFile(argv[1]);
    if (std::string(exec->kind()) != "relax.VMExecutable") {
      throw std::runtime_error(std::string(argv[1]) + " holds no compiled model (root module kind " +
                               exec->kind() + ")");
    }
    vm::VirtualMachine machine = vm::VirtualMachine::Create(exec, DLDevice{kDLCPU, 0});
    std::vector<tvm::runtime::Tensor> inputs;
    std::vector<ffi::AnyView> args;
    for (int i = 3; i < argc; ++i) {
      Array a = ReadNpy(argv[i]);
      tvm::runtime::Tensor t = tvm::runtime::Empty(a.shape, a.dtype, DLDevice{kDLCPU, 0});
      tvm::runtime::CopyFromBytes(t, a.data.data(), a.data.size());
      inputs.push_back(t);
    }
    for (const auto& t : inputs) args.push_back(t);
    ffi::Any out;
    machine["main"].CallPacked(args.data(), static_cast<int32_t>(args.size()), &out);
    WriteNpy(argv[2], out.cast<ffi::Tensor>());
    std::printf("run_model: wrote %s\n", argv[2]);
    return 0;
  } catch (const ffi::Error& e) {
    std::fprintf(stderr, "run_model: %s", e.FullMessage().c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "run_model: %s\n", e.what());
  }
  return 1;
}
