/*
 * A small field-reflection layer for IR nodes.
 *
 * Every IR node class lists its fields once (name, member pointer, whether the field defines
 * a variable). The list is registered twice: with libtvm_ffi (TVMFFITypeRegisterField, so the
 * Python wrappers see the fields as properties) and in a table of this library that the
 * generic algorithms walk: structural equality and hashing, and the fallback printer.
 * IR nodes have no vtable, so a field's offset from the object handle is its C++ offset.
 */
#ifndef TVM_IR_REFLECTION_H_
#define TVM_IR_REFLECTION_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/c_api.h>
#include <tvm/ffi/object.h>

#include <cstdint>
#include <string>
#include <vector>

namespace tvm {
namespace ir {

/*! \brief One reflected field of an IR node. */
struct FieldEntry {
  std::string name;
  int64_t offset;
  /*! \brief Reads the field at `addr` as an owned value. */
  ffi::Any (*get)(const void* addr);
  /*! \brief True when the field binds a variable (For.loop_var, PrimFunc.params, ...). */
  bool defines;
  /*! \brief Writes `value` (converted to the field's type) into a fresh, unshared object. */
  void (*set)(void* addr, const ffi::Any& value);
};

/*! \brief Creates a default-constructed node of `type_index` (JSON loading); null if unknown. */
ffi::ObjectRef CreateNode(int32_t type_index);

/*! \brief The fields of the exact type `type_index` (nullptr when it has none registered). */
const std::vector<FieldEntry>* GetFields(int32_t type_index);

/*! \brief Reads field `f` of `obj`. */
inline ffi::Any ReadField(const ffi::Object* obj, const FieldEntry& f) {
  return f.get(reinterpret_cast<const char*>(obj) + f.offset);
}

namespace detail {
void RegisterField(int32_t type_index, const FieldEntry& entry, TVMFFIFieldGetter getter);
void RegisterCreator(int32_t type_index, ffi::ObjectRef (*create)());

template <typename F>
void SetFromAny(void* addr, const ffi::Any& value) {
  *static_cast<F*>(addr) = value.cast<F>();
}

template <typename T>
ffi::ObjectRef Create() {
  return ffi::ObjectRef(ffi::ObjectPtr<ffi::Object>(ffi::make_object<T>()));
}

template <typename F>
ffi::Any GetAsAny(const void* addr) {
  return ffi::Any(*static_cast<const F*>(addr));
}

template <typename F>
int FfiGetter(void* addr, TVMFFIAny* result) {
  try {
    *result = ffi::Any(*static_cast<const F*>(addr)).release();
    return 0;
  } catch (const std::exception& e) {
    TVMFFIErrorSetRaisedFromCStr("RuntimeError", e.what());
    return -1;
  }
}
}  // namespace detail

/*!
 * \brief Field registration for node type T:
 *   Reflect<AddNode>().Field("dtype", &AddNode::dtype).Field("a", &AddNode::a);
 */
template <typename T>
class Reflect {
 public:
  template <typename F, typename C>
  Reflect& Field(const char* name, F C::*member, bool defines = false) {
    alignas(T) static char probe_storage[sizeof(T)];
    const T* probe = reinterpret_cast<const T*>(probe_storage);
    int64_t offset = reinterpret_cast<const char*>(&(probe->*member)) -
                     reinterpret_cast<const char*>(static_cast<const ffi::Object*>(probe));
    FieldEntry entry{name, offset, &detail::GetAsAny<F>, defines, &detail::SetFromAny<F>};
    detail::RegisterCreator(T::RuntimeTypeIndex(), &detail::Create<T>);
    detail::RegisterField(T::RuntimeTypeIndex(), entry, &detail::FfiGetter<F>);
    return *this;
  }
};

}  // namespace ir
}  // namespace tvm
#endif  // TVM_IR_REFLECTION_H_
