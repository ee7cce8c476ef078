/*
 * Reflection of ffi.reflection.AccessStep, ffi.reflection.AccessPath and ffi.VisitErrorContext
 * (reflection/access_path.h, extra/visit_error_context.h), registered through the C ABI as
 * apache-tvm-ffi registers them: read-only fields with the same names, order, offsets and type
 * schemas; metadata (creator, size, structural kind); AccessPath's methods `_root`, `_extend`,
 * `_attr`, `_array_item`, `_map_item`, `_attr_missing`, `_array_item_missing`,
 * `_map_item_missing`, `_is_prefix_of`, `_to_steps`, `_path_equal`; `__ffi_repr__` printing
 * `<root>.field[0]["key"][<missing:1>]`.
 */
#include <tvm/ffi/extra/visit_error_context.h>
#include <tvm/ffi/reflection/access_path.h>

#include <cstddef>
#include <type_traits>
#include <sstream>
#include <string>

#include "../support/internal.h"

namespace tvm {
namespace ffi {
namespace {
using reflection::AccessKind;
using reflection::AccessPath;
using reflection::AccessPathObj;
using reflection::AccessStep;
using reflection::AccessStepObj;

TVMFFIByteArray Bytes_(const char* s) { return TVMFFIByteArray{s, std::char_traits<char>::length(s)}; }

/*! \brief Getter/setter of a field of C++ type T (AccessKind travels as an int). */
template <typename T>
int GetterOf(void* addr, TVMFFIAny* out) {
  TVM_FFI_SAFE_CALL_BEGIN();
  if constexpr (std::is_same_v<T, AccessKind>) {
    *out = Any(static_cast<int64_t>(*static_cast<const AccessKind*>(addr))).release();
  } else {
    *out = Any(*static_cast<const T*>(addr)).release();
  }
  TVM_FFI_SAFE_CALL_END();
}

template <typename T>
int SetterOf(void* addr, const TVMFFIAny* value) {
  TVM_FFI_SAFE_CALL_BEGIN();
  AnyView v = AnyView::FromRaw(*value);
  if constexpr (std::is_same_v<T, AccessKind>) {
    *static_cast<AccessKind*>(addr) = static_cast<AccessKind>(v.cast<int32_t>());
  } else if constexpr (std::is_same_v<T, Any>) {
    *static_cast<Any*>(addr) = Any(v);
  } else {
    *static_cast<T*>(addr) = v.cast<T>();
  }
  TVM_FFI_SAFE_CALL_END();
}

template <typename T>
void Field(int32_t type_index, const char* name, size_t offset, const char* schema,
           int32_t static_type_index) {
  // The schema text is static, so the byte arrays may point into it (the runtime copies).
  std::string metadata = std::string("{\"type_schema\":\"") + schema + "\"}";
  TVMFFIFieldInfo info{};
  info.name = Bytes_(name);
  info.doc = TVMFFIByteArray{nullptr, 0};
  info.metadata = TVMFFIByteArray{metadata.data(), metadata.size()};
  info.flags = 0;
  info.size = std::is_same_v<T, AccessKind> ? 4 : static_cast<int64_t>(sizeof(T));
  info.alignment = static_cast<int64_t>(alignof(T));
  info.offset = static_cast<int64_t>(offset);
  info.getter = GetterOf<T>;
  info.setter = reinterpret_cast<void*>(static_cast<TVMFFIFieldSetter>(SetterOf<T>));
  info.default_value_or_factory.type_index = kTVMFFINone;
  info.default_value_or_factory.zero_padding = 0;
  info.default_value_or_factory.v_int64 = 0;
  info.field_static_type_index = static_type_index;
  TVM_FFI_CHECK_SAFE_CALL(TVMFFITypeRegisterField(type_index, &info));
}

/*! \brief Offset of a member from the object header (Object has no vtable: same address). */
template <typename T, typename M>
size_t OffsetOf(M T::*member) {
  ObjectPtr<T> probe = make_object<T>();
  return static_cast<size_t>(reinterpret_cast<const char*>(&(probe.get()->*member)) -
                             reinterpret_cast<const char*>(static_cast<Object*>(probe.get())));
}

template <typename T>
int CreatorOf(TVMFFIObjectHandle* out) {
  TVM_FFI_SAFE_CALL_BEGIN();
  *out = details::ObjectUnsafe::MoveToHandle(make_object<T>());
  TVM_FFI_SAFE_CALL_END();
}

template <typename T>
void Metadata(TVMFFISEqHashKind kind) {
  TVMFFITypeMetadata md{};
  md.doc = TVMFFIByteArray{nullptr, 0};
  md.creator = CreatorOf<T>;
  md.total_size = static_cast<int32_t>(sizeof(T));
  md.structural_eq_hash_kind = kind;
  TVM_FFI_CHECK_SAFE_CALL(TVMFFITypeRegisterMetadata(T::RuntimeTypeIndex(), &md));
}

void Method(int32_t type_index, const char* name, bool is_static, Function f) {
  TVMFFIMethodInfo info{};
  info.name = Bytes_(name);
  info.doc = TVMFFIByteArray{nullptr, 0};
  info.metadata = TVMFFIByteArray{nullptr, 0};
  info.flags = is_static ? kTVMFFIFieldFlagBitMaskIsStaticMethod : 0;
  Any holder(f);
  info.method = *holder.raw();
  TVM_FFI_CHECK_SAFE_CALL(TVMFFITypeRegisterMethod(type_index, &info));
}

void Attr(int32_t type_index, const char* name, Function f) {
  TVMFFIByteArray key = Bytes_(name);
  Any holder(f);
  TVM_FFI_CHECK_SAFE_CALL(TVMFFITypeRegisterAttr(type_index, &key, holder.raw()));
}

/*! \brief `.name`, `[3]`, `[<repr(key)>]`, `[<missing:...>]`. */
std::string StepText(const AccessStepObj* step, const Function& repr) {
  std::ostringstream os;
  switch (step->kind) {
    case AccessKind::kAttr:
      os << "." << step->key.cast<String>().view();
      break;
    case AccessKind::kArrayItem:
      os << "[" << step->key.cast<int64_t>() << "]";
      break;
    case AccessKind::kMapItem:
      os << "[" << repr(step->key).cast<String>().view() << "]";
      break;
    case AccessKind::kArrayItemMissing:
      os << "[<missing:" << step->key.cast<int64_t>() << ">]";
      break;
    case AccessKind::kAttrMissing:
    case AccessKind::kMapItemMissing:
      os << "[<missing:" << repr(step->key).cast<String>().view() << ">]";
      break;
    default:
      TVM_FFI_THROW(ValueError) << "unknown access kind " << static_cast<int>(step->kind);
  }
  return os.str();
}

void RegisterAccessStep() {
  int32_t ti = AccessStepObj::RuntimeTypeIndex();
  Field<AccessKind>(ti, "kind", OffsetOf(&AccessStepObj::kind), "{\\\"type\\\":\\\"int\\\"}",
                    kTVMFFIInt);
  Field<Any>(ti, "key", OffsetOf(&AccessStepObj::key), "{\\\"type\\\":\\\"Any\\\"}", -1);
  Metadata<AccessStepObj>(kTVMFFISEqHashKindConstTreeNode);
  Attr(ti, "__ffi_repr__", Function::FromTyped([](AccessStep self, Function repr) {
         return String(StepText(self.get(), repr));
       }));
}

void RegisterAccessPath() {
  int32_t ti = AccessPathObj::RuntimeTypeIndex();
  Field<Optional<ObjectRef>>(
      ti, "parent", OffsetOf(&AccessPathObj::parent),
      "{\\\"type\\\":\\\"Optional\\\",\\\"args\\\":[{\\\"type\\\":\\\"ffi.Object\\\"}]}", -1);
  Field<Optional<AccessStep>>(ti, "step", OffsetOf(&AccessPathObj::step),
                              "{\\\"type\\\":\\\"Optional\\\",\\\"args\\\":[{\\\"type\\\":"
                              "\\\"ffi.reflection.AccessStep\\\"}]}",
                              -1);
  Field<int32_t>(ti, "depth", OffsetOf(&AccessPathObj::depth), "{\\\"type\\\":\\\"int\\\"}",
                 kTVMFFIInt);
  Metadata<AccessPathObj>(kTVMFFISEqHashKindConstTreeNode);
  Method(ti, "_root", true, Function::FromTyped([]() { return AccessPath::Root(); }));
  Method(ti, "_extend", false,
         Function::FromTyped([](AccessPath self, AccessStep s) { return self->Extend(s); }));
  Method(ti, "_attr", false,
         Function::FromTyped([](AccessPath self, String n) { return self->Attr(n); }));
  Method(ti, "_array_item", false,
         Function::FromTyped([](AccessPath self, int64_t i) { return self->ArrayItem(i); }));
  Method(ti, "_map_item", false,
         Function::FromTyped([](AccessPath self, Any k) { return self->MapItem(k); }));
  Method(ti, "_attr_missing", false,
         Function::FromTyped([](AccessPath self, String n) { return self->AttrMissing(n); }));
  Method(ti, "_array_item_missing", false, Function::FromTyped([](AccessPath self, int64_t i) {
           return self->ArrayItemMissing(i);
         }));
  Method(ti, "_map_item_missing", false,
         Function::FromTyped([](AccessPath self, Any k) { return self->MapItemMissing(k); }));
  Method(ti, "_is_prefix_of", false, Function::FromTyped([](AccessPath self, AccessPath other) {
           return self->IsPrefixOf(other);
         }));
  Method(ti, "_to_steps", false,
         Function::FromTyped([](AccessPath self) { return self->ToSteps(); }));
  Method(ti, "_path_equal", false, Function::FromTyped([](AccessPath self, AccessPath other) {
           return self->PathEqual(other);
         }));
  Attr(ti, "__ffi_repr__", Function::FromTyped([](AccessPath self, Function repr) {
         std::string s = "<root>";
         for (const AccessStep& step : self->ToSteps()) s += StepText(step.get(), repr);
         return String(s);
       }));
}

void RegisterVisitErrorContext() {
  int32_t ti = VisitErrorContextObj::RuntimeTypeIndex();
  Field<List<ObjectRef>>(
      ti, "reverse_visit_pattern", OffsetOf(&VisitErrorContextObj::reverse_visit_pattern),
      "{\\\"type\\\":\\\"ffi.List\\\",\\\"args\\\":[{\\\"type\\\":\\\"ffi.Object\\\"}]}",
      kTVMFFIList);
  Field<Optional<ObjectRef>>(
      ti, "prev_error_context", OffsetOf(&VisitErrorContextObj::prev_error_context),
      "{\\\"type\\\":\\\"Optional\\\",\\\"args\\\":[{\\\"type\\\":\\\"ffi.Object\\\"}]}", -1);
  Metadata<VisitErrorContextObj>(kTVMFFISEqHashKindUnsupported);
}

}  // namespace

TVM_FFI_STATIC_INIT_BLOCK() {
  RegisterAccessStep();
  RegisterAccessPath();
  RegisterVisitErrorContext();
}

}  // namespace ffi
}  // namespace tvm
