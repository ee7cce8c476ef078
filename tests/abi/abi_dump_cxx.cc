/*
 * Prints the C++ ABI facts of tvm::ffi::ModuleObj and the types its virtual functions pass
 * by value, as seen by the headers this file is compiled against: object size, where the
 * TVMFFIObject header and `imports_` sit, the vtable slot of every virtual function (with the
 * exact signature: a const or parameter mismatch fails to compile), and the sizes of
 * Optional<Function>, Optional<String>, Optional<int>, Optional<double>, Array<Any>, Map<String, Function>.
 * Built against our headers and against apache-tvm-ffi's (like abi_dump.cc); no library is
 * needed: nothing here is called.
 */
#include <tvm/ffi/extra/module.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <type_traits>

namespace {

using tvm::ffi::Any;
using tvm::ffi::Array;
using tvm::ffi::Bytes;
using tvm::ffi::Function;
using tvm::ffi::Map;
using tvm::ffi::Module;
using tvm::ffi::ModuleObj;
using tvm::ffi::Object;
using tvm::ffi::Optional;
using tvm::ffi::String;

/*! \brief Itanium: a pointer to a virtual member function holds 1 + the vtable byte offset. */
template <typename PMF>
long VtableSlot(PMF pmf) {
  static_assert(sizeof(PMF) == 2 * sizeof(std::uintptr_t), "Itanium member function pointer");
  std::uintptr_t words[2];
  std::memcpy(words, &pmf, sizeof(words));
  if ((words[0] & 1) == 0) return -1;  // not virtual
  return static_cast<long>((words[0] - 1) / sizeof(void*));
}

/*! \brief Reaches the protected member to take its offset (an Itanium data member pointer). */
struct ImportsProbe : ModuleObj {
  static long ImportsOffset() {
    auto member = &ImportsProbe::imports_;
    std::ptrdiff_t offset;
    static_assert(sizeof(member) == sizeof(offset), "Itanium data member pointer");
    std::memcpy(&offset, &member, sizeof(offset));
    return static_cast<long>(offset);
  }
};

#define SLOT(NAME, SIG) \
  std::printf("cxx vslot ModuleObj.%s %ld\n", #NAME, VtableSlot(static_cast<SIG>(&ModuleObj::NAME)))

void Dump() {
  std::printf("cxx sizeof ModuleObj %zu\n", sizeof(ModuleObj));
  // Object header position inside the object: computed on a fake address, nothing is read.
  alignas(ModuleObj) static unsigned char storage[sizeof(ModuleObj)];
  auto* mod = reinterpret_cast<ModuleObj*>(storage);
  std::printf("cxx offsetof ModuleObj.Object %ld\n",
              static_cast<long>(reinterpret_cast<unsigned char*>(static_cast<Object*>(mod)) -
                                storage));
  std::printf("cxx offsetof ModuleObj.imports_ %ld\n", ImportsProbe::ImportsOffset());
  SLOT(kind, const char* (ModuleObj::*)() const);
  SLOT(GetPropertyMask, int (ModuleObj::*)() const);
  SLOT(GetFunction, Optional<Function> (ModuleObj::*)(const String&));
  SLOT(ImplementsFunction, bool (ModuleObj::*)(const String&));
  SLOT(GetFunctionDoc, Optional<String> (ModuleObj::*)(const String&));
  SLOT(GetFunctionMetadata, Optional<String> (ModuleObj::*)(const String&));
  SLOT(WriteToFile, void (ModuleObj::*)(const String&, const String&) const);
  SLOT(GetWriteFormats, Array<String> (ModuleObj::*)() const);
  SLOT(SaveToBytes, Bytes (ModuleObj::*)() const);
  SLOT(InspectSource, String (ModuleObj::*)(const String&) const);
  SLOT(ImportModule, void (ModuleObj::*)(const Module&));
  SLOT(ClearImports, void (ModuleObj::*)());
  std::printf("cxx sizeof Optional<Function> %zu\n", sizeof(Optional<Function>));
  std::printf("cxx sizeof Optional<String> %zu\n", sizeof(Optional<String>));
  // Passed by reference to json::Stringify (extra C++ API): Any-backed in 0.1.16 headers.
  std::printf("cxx sizeof Optional<int> %zu\n", sizeof(Optional<int>));
  std::printf("cxx sizeof Optional<double> %zu\n", sizeof(Optional<double>));
  std::printf("cxx sizeof Array<Any> %zu\n", sizeof(Array<Any>));
  std::printf("cxx sizeof Map<String,Function> %zu\n", sizeof(Map<String, Function>));
  std::printf("cxx sizeof String %zu\n", sizeof(String));
  std::printf("cxx sizeof Module %zu\n", sizeof(Module));
  // Not trivially copyable = returned through a hidden pointer (the Itanium rule).
  std::printf("cxx trivially_copyable Optional<Function> %d\n",
              std::is_trivially_copyable_v<Optional<Function>> ? 1 : 0);
  std::printf("cxx trivially_copyable Optional<String> %d\n",
              std::is_trivially_copyable_v<Optional<String>> ? 1 : 0);
  std::printf("cxx trivially_copyable String %d\n", std::is_trivially_copyable_v<String> ? 1 : 0);
}

}  // namespace

int main() {
  Dump();
  return 0;
}
