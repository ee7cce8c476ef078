/*
 * The field table behind tvm/ir/reflection.h, and DTypeToString.
 */
#include <tvm/ffi/error.h>
#include <tvm/ir/dtype.h>
#include <tvm/ir/reflection.h>

#include <cstring>
#include <mutex>
#include <unordered_map>

namespace tvm {
namespace ir {
namespace {

std::unordered_map<int32_t, std::vector<FieldEntry>>& Table() {
  static auto* table = new std::unordered_map<int32_t, std::vector<FieldEntry>>();
  return *table;
}

TVMFFIByteArray Text(const std::string& s) { return TVMFFIByteArray{s.data(), s.size()}; }

std::unordered_map<int32_t, ffi::ObjectRef (*)()>& Creators() {
  static auto* table = new std::unordered_map<int32_t, ffi::ObjectRef (*)()>();
  return *table;
}

}  // namespace

ffi::ObjectRef CreateNode(int32_t type_index) {
  auto it = Creators().find(type_index);
  return it == Creators().end() ? ffi::ObjectRef() : it->second();
}

const std::vector<FieldEntry>* GetFields(int32_t type_index) {
  auto it = Table().find(type_index);
  return it == Table().end() ? nullptr : &it->second;
}

namespace detail {

void RegisterCreator(int32_t type_index, ffi::ObjectRef (*create)()) { Creators()[type_index] = create; }

void RegisterField(int32_t type_index, const FieldEntry& entry, TVMFFIFieldGetter getter) {
  std::vector<FieldEntry>& fields = Table()[type_index];
  fields.push_back(entry);
  // libtvm_ffi keeps the name bytes; keep them alive for the process.
  static auto* names = new std::vector<std::string*>();
  std::string* name = new std::string(entry.name);
  names->push_back(name);
  TVMFFIFieldInfo info;
  std::memset(&info, 0, sizeof(info));
  info.name = Text(*name);
  static const char* kDoc = "";
  static const char* kMeta = "{\"type_schema\": {\"type\": \"Any\"}}";
  info.doc = TVMFFIByteArray{kDoc, 0};
  info.metadata = TVMFFIByteArray{kMeta, std::strlen(kMeta)};
  info.flags = entry.defines ? kTVMFFIFieldFlagBitMaskSEqHashDefSimple : 0;
  info.size = 8;
  info.alignment = 8;
  info.offset = entry.offset;
  info.getter = getter;
  info.setter = nullptr;
  info.default_value_or_factory.type_index = kTVMFFINone;
  info.default_value_or_factory.zero_padding = 0;
  info.default_value_or_factory.v_int64 = 0;
  info.field_static_type_index = kTVMFFIAny;
  if (TVMFFITypeRegisterField(type_index, &info) != 0) {
    TVMFFIObjectHandle err = nullptr;
    TVMFFIErrorMoveFromRaised(&err);
    if (err != nullptr) TVMFFIObjectDecRef(err);
  }
}

}  // namespace detail
}  // namespace ir

std::string DTypeToString(DataType t) {
  if (t.code == kDLOpaqueHandle && t.bits == 0) return "void";
  TVMFFIAny out;
  out.type_index = kTVMFFINone;
  if (TVMFFIDataTypeToString(&t, &out) != 0) {
    TVMFFIObjectHandle err = nullptr;
    TVMFFIErrorMoveFromRaised(&err);
    if (err != nullptr) TVMFFIObjectDecRef(err);
    return "unknown";
  }
  ffi::Any owned = ffi::Any::FromOwnedRaw(out);
  return owned.cast<std::string>();
}

}  // namespace tvm
