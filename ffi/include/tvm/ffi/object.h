/*
 * The object model: Object (exactly the 24-byte TVMFFIObject header, no vtable), ObjectPtr<T>
 * (an owning pointer), ObjectRef (the base of typed references), make_object, and the macros
 * that give a C++ class its type key and runtime type index.
 *
 * Reference counting is done inline on the packed strong/weak word (see TVMFFIObject in
 * c_api.h), so objects made by any binary that follows the ABI can be shared freely.
 */
#ifndef TVM_FFI_OBJECT_H_
#define TVM_FFI_OBJECT_H_

#include <tvm/ffi/base_details.h>

#include <cstdlib>
#include <new>
#include <string>
#include <type_traits>
#include <utility>

namespace tvm {
namespace ffi {

namespace details {
struct ObjectUnsafe;
/*! \brief Tag for constructing a reference with no value yet (filled in right after). */
struct UnsafeInit {};
template <typename T>
void ObjectDefaultDeleter(void* self, int flags);
}  // namespace details

/*! \brief Type indices as a C++ namespace-level alias of the C enum. */
using TypeIndex = TVMFFITypeIndex;

/*!
 * \brief Base of every object. Its only state is the ABI header; subclasses append fields.
 * A subclass that adds virtual functions places its vptr before this header, which is why
 * conversions between Object* and subclass pointers must be static_casts.
 */
class Object {
 public:
  Object() {
    header_.combined_ref_count = 0;
    header_.type_index = 0;
    header_.__padding = 0;
    header_.deleter = nullptr;
  }
  Object(const Object&) = delete;
  Object& operator=(const Object&) = delete;

  /*! \brief The runtime type index stored in the header. */
  int32_t type_index() const { return header_.type_index; }
  /*! \brief The registered type key, e.g. "ffi.Array". */
  std::string GetTypeKey() const {
    const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(header_.type_index);
    return std::string(info->type_key.data, info->type_key.size);
  }
  /*! \brief Number of strong references. */
  int32_t use_count() const {
    return static_cast<int32_t>(details::AtomicLoadRelaxed(&header_.combined_ref_count) &
                                0xFFFFFFFFULL);
  }
  bool unique() const { return use_count() == 1; }
  /*! \brief Whether this object is a TargetType (or a subclass of it). */
  template <typename TargetType>
  bool IsInstance() const;

  static constexpr const char* _type_key = "ffi.Object";
  static constexpr int32_t _type_index = kTVMFFIObject;
  static constexpr int32_t _type_depth = 0;
  static constexpr int32_t _type_child_slots = 0;
  static constexpr bool _type_child_slots_can_overflow = true;
  static constexpr bool _type_final = false;
  static constexpr bool _type_mutable = false;
  static int32_t RuntimeTypeIndex() { return kTVMFFIObject; }

 protected:
  TVMFFIObject header_;

  void IncRef() { details::AtomicFetchAdd(&header_.combined_ref_count, 1, __ATOMIC_RELAXED); }
  void DecRef() {
    constexpr uint64_t kBoth = (uint64_t{1} << 32) | 1;
    uint64_t old = details::AtomicFetchSub(&header_.combined_ref_count, 1, __ATOMIC_RELEASE);
    if (old == kBoth) {
      __atomic_thread_fence(__ATOMIC_ACQUIRE);
      if (header_.deleter != nullptr) header_.deleter(this, kTVMFFIObjectDeleterFlagBitMaskBoth);
    } else if ((old & 0xFFFFFFFFULL) == 1) {
      __atomic_thread_fence(__ATOMIC_ACQUIRE);
      if (header_.deleter != nullptr) header_.deleter(this, kTVMFFIObjectDeleterFlagBitMaskStrong);
      uint64_t old_weak = details::AtomicFetchSub(&header_.combined_ref_count, uint64_t{1} << 32,
                                                  __ATOMIC_ACQ_REL);
      if (old_weak == (uint64_t{1} << 32) && header_.deleter != nullptr) {
        header_.deleter(this, kTVMFFIObjectDeleterFlagBitMaskWeak);
      }
    }
  }

  friend struct details::ObjectUnsafe;
  template <typename>
  friend class ObjectPtr;
  template <typename T>
  friend void details::ObjectDefaultDeleter(void* self, int flags);
};

/*!
 * \brief An owning pointer to an object of type T (or a subclass).
 */
template <typename T>
class ObjectPtr {
 public:
  ObjectPtr() = default;
  ObjectPtr(std::nullptr_t) {}  // NOLINT(*)
  ObjectPtr(const ObjectPtr& other) : data_(other.data_) {
    if (data_ != nullptr) static_cast<Object*>(data_)->IncRef();
  }
  ObjectPtr(ObjectPtr&& other) noexcept : data_(other.data_) { other.data_ = nullptr; }
  template <typename U, typename = std::enable_if_t<std::is_base_of_v<T, U>>>
  ObjectPtr(const ObjectPtr<U>& other) : data_(other.data_) {  // NOLINT(*)
    if (data_ != nullptr) static_cast<Object*>(data_)->IncRef();
  }
  template <typename U, typename = std::enable_if_t<std::is_base_of_v<T, U>>>
  ObjectPtr(ObjectPtr<U>&& other) : data_(other.data_) {  // NOLINT(*)
    other.data_ = nullptr;
  }
  ~ObjectPtr() { reset(); }

  ObjectPtr& operator=(const ObjectPtr& other) {
    ObjectPtr(other).swap(*this);
    return *this;
  }
  ObjectPtr& operator=(ObjectPtr&& other) noexcept {
    ObjectPtr(std::move(other)).swap(*this);
    return *this;
  }
  void swap(ObjectPtr& other) noexcept { std::swap(data_, other.data_); }

  T* get() const { return data_; }
  T* operator->() const { return data_; }
  T& operator*() const { return *data_; }
  explicit operator bool() const { return data_ != nullptr; }
  int32_t use_count() const { return data_ != nullptr ? data_->use_count() : 0; }
  bool unique() const { return use_count() == 1; }
  void reset() {
    if (data_ != nullptr) {
      static_cast<Object*>(data_)->DecRef();
      data_ = nullptr;
    }
  }
  bool operator==(const ObjectPtr& other) const { return data_ == other.data_; }
  bool operator!=(const ObjectPtr& other) const { return data_ != other.data_; }
  bool operator==(std::nullptr_t) const { return data_ == nullptr; }
  bool operator!=(std::nullptr_t) const { return data_ != nullptr; }

 private:
  /*! \brief Adopts one reference already counted. */
  explicit ObjectPtr(T* data) : data_(data) {}
  T* data_{nullptr};

  template <typename>
  friend class ObjectPtr;
  friend struct details::ObjectUnsafe;
};

/*!
 * \brief Base class of typed references: a nullable ObjectPtr<Object> with helpers.
 * Subclasses declare their object type with TVM_FFI_DEFINE_OBJECT_REF_METHODS_*.
 */
class ObjectRef {
 public:
  ObjectRef() = default;
  explicit ObjectRef(ObjectPtr<Object> data) : data_(std::move(data)) {}
  explicit ObjectRef(details::UnsafeInit) {}

  bool defined() const { return data_ != nullptr; }
  const Object* get() const { return data_.get(); }
  const Object* operator->() const { return data_.get(); }
  bool same_as(const ObjectRef& other) const { return data_ == other.data_; }
  int32_t use_count() const { return data_.use_count(); }
  bool unique() const { return data_.unique(); }
  int32_t type_index() const { return data_ != nullptr ? data_->type_index() : kTVMFFINone; }
  std::string GetTypeKey() const { return data_ != nullptr ? data_->GetTypeKey() : "None"; }
  /*! \brief The object as ObjectType if it is one, else nullptr. */
  template <typename ObjectType>
  const ObjectType* as() const {
    if (data_ != nullptr && data_->IsInstance<ObjectType>()) {
      return static_cast<const ObjectType*>(data_.get());
    }
    return nullptr;
  }

  using ContainerType = Object;
  static constexpr bool _type_is_nullable = true;
  /*! \brief Set by references that provide their own TypeTraits (e.g. typed containers). */
  static constexpr bool _type_custom_traits = false;

 protected:
  ObjectPtr<Object> data_;
  Object* get_mutable() const { return data_.get(); }
  friend struct details::ObjectUnsafe;
};

namespace details {

/*! \brief Placement of objects: malloc'd memory, a per-type deleter in this binary. */
template <typename T>
void ObjectDefaultDeleter(void* self, int flags) {
  T* tptr = static_cast<T*>(reinterpret_cast<Object*>(self));
  if (flags & kTVMFFIObjectDeleterFlagBitMaskStrong) tptr->T::~T();
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) std::free(static_cast<void*>(tptr));
}

/*! \brief Registers (or looks up) the runtime index of T, parented by ParentType. */
template <typename T, typename ParentType>
int32_t RegisterTypeIndex() {
  static_assert(std::is_base_of_v<ParentType, T>, "parent must be a base class");
  const char* key = T::_type_key;
  TVMFFIByteArray key_arr{key, std::char_traits<char>::length(key)};
  return TVMFFITypeGetOrAllocIndex(&key_arr, -1, T::_type_depth, T::_type_child_slots,
                                   T::_type_child_slots_can_overflow ? 1 : 0,
                                   ParentType::RuntimeTypeIndex());
}

/*! \brief Escape hatches between C handles and C++ objects; used by the headers only. */
struct ObjectUnsafe {
  static TVMFFIObject* GetHeader(const Object* obj) {
    return const_cast<TVMFFIObject*>(&obj->header_);
  }
  static void IncRef(const Object* obj) { const_cast<Object*>(obj)->IncRef(); }
  static void DecRef(const Object* obj) { const_cast<Object*>(obj)->DecRef(); }
  /*! \brief Object* of a C handle (they are the same address). */
  static Object* FromHandle(TVMFFIObjectHandle handle) { return reinterpret_cast<Object*>(handle); }
  static TVMFFIObjectHandle ToHandle(const Object* obj) {
    return const_cast<TVMFFIObject*>(&obj->header_);
  }
  /*! \brief Adopts an owned reference. */
  template <typename T = Object>
  static ObjectPtr<T> PtrFromOwned(Object* obj) {
    return ObjectPtr<T>(static_cast<T*>(obj));
  }
  template <typename T = Object>
  static ObjectPtr<T> PtrFromOwnedHandle(TVMFFIObjectHandle handle) {
    return PtrFromOwned<T>(FromHandle(handle));
  }
  /*! \brief Takes a new reference. */
  template <typename T = Object>
  static ObjectPtr<T> PtrFromUnowned(const Object* obj) {
    if (obj != nullptr) IncRef(obj);
    return ObjectPtr<T>(static_cast<T*>(const_cast<Object*>(obj)));
  }
  /*! \brief Releases the pointer without dropping its reference; returns the handle. */
  template <typename T>
  static TVMFFIObjectHandle MoveToHandle(ObjectPtr<T>&& ptr) {
    T* raw = ptr.data_;
    ptr.data_ = nullptr;
    return raw == nullptr ? nullptr : ToHandle(static_cast<Object*>(raw));
  }
  static TVMFFIObjectHandle MoveToHandle(ObjectRef&& ref) {
    return MoveToHandle(std::move(ref.data_));
  }
  template <typename T>
  static const ObjectPtr<Object>& GetPtr(const T& ref) {
    return ref.data_;
  }
  template <typename RefType>
  static RefType RefFromPtr(ObjectPtr<Object> ptr) {
    RefType ref(UnsafeInit{});
    ref.data_ = std::move(ptr);
    return ref;
  }
  /*! \brief Fills a freshly constructed object's header. */
  static void InitHeader(Object* obj, int32_t type_index, void (*deleter)(void*, int)) {
    obj->header_.combined_ref_count = (uint64_t{1} << 32) | 1;
    obj->header_.type_index = type_index;
    obj->header_.__padding = 0;
    obj->header_.deleter = deleter;
  }
};

/*! \brief Checks the range reservation first, then the ancestor table. */
inline bool IsInstanceOfIndex(int32_t object_type_index, int32_t target_index, int32_t target_depth,
                              int32_t target_child_slots, bool target_final) {
  if (object_type_index == target_index) return true;
  if (target_final) return false;
  if (object_type_index < target_index) return false;
  if (target_index == kTVMFFIObject) return object_type_index >= kTVMFFIStaticObjectBegin;
  if (object_type_index <= target_index + target_child_slots) return true;
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(object_type_index);
  return info->type_depth > target_depth &&
         info->type_ancestors[target_depth]->type_index == target_index;
}

}  // namespace details

template <typename TargetType>
inline bool Object::IsInstance() const {
  if constexpr (std::is_same_v<TargetType, Object>) {
    return true;
  } else {
    return details::IsInstanceOfIndex(type_index(), TargetType::RuntimeTypeIndex(),
                                      TargetType::_type_depth, TargetType::_type_child_slots,
                                      TargetType::_type_final);
  }
}

/*!
 * \brief Allocates and constructs a T, returning the only reference.
 * Memory comes from malloc and is released by a deleter compiled into this binary.
 */
template <typename T, typename... Args>
ObjectPtr<T> make_object(Args&&... args) {
  static_assert(alignof(T) <= alignof(std::max_align_t), "over-aligned objects unsupported");
  void* mem = std::malloc(sizeof(T));
  if (mem == nullptr) throw std::bad_alloc();
  T* obj;
  try {
    obj = new (mem) T(std::forward<Args>(args)...);
  } catch (...) {
    std::free(mem);  // the constructor threw: nothing else owns the memory
    throw;
  }
  details::ObjectUnsafe::InitHeader(static_cast<Object*>(obj), T::RuntimeTypeIndex(),
                                    details::ObjectDefaultDeleter<T>);
  return details::ObjectUnsafe::PtrFromOwned<T>(static_cast<Object*>(obj));
}

/*!
 * \brief Allocates a T followed by room for `num_elems` ElemType (for objects that keep their
 * payload inline, such as Array or heap strings). The extra elements are not constructed.
 */
template <typename T, typename ElemType, typename... Args>
ObjectPtr<T> make_inplace_array_object(size_t num_elems, Args&&... args) {
  size_t bytes = sizeof(T) + num_elems * sizeof(ElemType);
  bytes = (bytes + alignof(T) - 1) / alignof(T) * alignof(T);
  void* mem = std::malloc(bytes);
  if (mem == nullptr) throw std::bad_alloc();
  T* obj;
  try {
    obj = new (mem) T(std::forward<Args>(args)...);
  } catch (...) {
    std::free(mem);
    throw;
  }
  details::ObjectUnsafe::InitHeader(static_cast<Object*>(obj), T::RuntimeTypeIndex(),
                                    details::ObjectDefaultDeleter<T>);
  return details::ObjectUnsafe::PtrFromOwned<T>(static_cast<Object*>(obj));
}

/*! \brief Returns a typed pointer to the object of `ref`, sharing ownership. */
template <typename T>
ObjectPtr<T> GetObjectPtr(const ObjectRef& ref) {
  return details::ObjectUnsafe::PtrFromUnowned<T>(ref.get());
}

/*!
 * \brief Declares a dynamically indexed object type (index allocated at load time).
 * Must be used inside the class body; registration happens when the binary is loaded.
 */
#define TVM_FFI_DECLARE_OBJECT_INFO(TypeKey, TypeName, ParentType)                          \
  static constexpr const char* _type_key = TypeKey;                                         \
  static constexpr int32_t _type_depth = ParentType::_type_depth + 1;                       \
  using _type_parent = ParentType;                                                          \
  static int32_t RuntimeTypeIndex() {                                                       \
    static const int32_t index = ::tvm::ffi::details::RegisterTypeIndex<TypeName, ParentType>(); \
    return index;                                                                           \
  }                                                                                         \
  static inline const int32_t _type_index_at_load = RuntimeTypeIndex()

/*! \brief Like TVM_FFI_DECLARE_OBJECT_INFO for a type that has no subclasses. */
#define TVM_FFI_DECLARE_OBJECT_INFO_FINAL(TypeKey, TypeName, ParentType) \
  static constexpr bool _type_final = true;                              \
  static constexpr int32_t _type_child_slots = 0;                        \
  static constexpr bool _type_child_slots_can_overflow = false;          \
  TVM_FFI_DECLARE_OBJECT_INFO(TypeKey, TypeName, ParentType)

/*! \brief Declares one of the builtin types whose index is fixed by the ABI (64..78). */
#define TVM_FFI_DECLARE_OBJECT_INFO_STATIC(TypeKey, TypeName, ParentType, StaticIndex) \
  static constexpr const char* _type_key = TypeKey;                                    \
  static constexpr int32_t _type_index = StaticIndex;                                  \
  static constexpr int32_t _type_depth = ParentType::_type_depth + 1;                  \
  static constexpr bool _type_final = true;                                            \
  static constexpr int32_t _type_child_slots = 0;                                      \
  static constexpr bool _type_child_slots_can_overflow = false;                        \
  using _type_parent = ParentType;                                                     \
  static int32_t RuntimeTypeIndex() { return StaticIndex; }

/*!
 * \brief Constructors and accessors of a reference type whose value may be null.
 */
#define TVM_FFI_DEFINE_OBJECT_REF_METHODS_NULLABLE(TypeName, ParentType, ObjectName)       \
  TypeName() = default;                                                                    \
  explicit TypeName(::tvm::ffi::ObjectPtr<ObjectName> n) : ParentType(std::move(n)) {}     \
  explicit TypeName(::tvm::ffi::details::UnsafeInit tag) : ParentType(tag) {} \
  const ObjectName* operator->() const { return static_cast<const ObjectName*>(data_.get()); } \
  const ObjectName* get() const { return operator->(); }                                   \
  using ContainerType = ObjectName;                                                        \
  static constexpr bool _type_is_nullable = true

/*!
 * \brief Constructors and accessors of a reference type that always holds a value.
 */
#define TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(TypeName, ParentType, ObjectName)    \
  explicit TypeName(::tvm::ffi::ObjectPtr<ObjectName> n) : ParentType(std::move(n)) {}     \
  explicit TypeName(::tvm::ffi::details::UnsafeInit tag) : ParentType(tag) {} \
  const ObjectName* operator->() const { return static_cast<const ObjectName*>(data_.get()); } \
  const ObjectName* get() const { return operator->(); }                                   \
  using ContainerType = ObjectName;                                                        \
  static constexpr bool _type_is_nullable = false

}  // namespace ffi
}  // namespace tvm
#endif  // TVM_FFI_OBJECT_H_
