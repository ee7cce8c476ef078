/*
 * Shape: an immutable tuple of int64 (type index 69).
 *
 * Layout (ABI): header, TVMFFIShapeCell {const int64_t* data; size_t size} at +24 (object size
 * 40). Other binaries only ever read through the cell, so where the numbers live is our choice;
 * we keep them inline right after the cell (+40), one allocation per shape.
 */
#ifndef TVM_FFI_CONTAINER_SHAPE_H_
#define TVM_FFI_CONTAINER_SHAPE_H_

#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/list.h>

#include <algorithm>
#include <initializer_list>
#include <iterator>
#include <string>
#include <type_traits>
#include <vector>

namespace tvm {
namespace ffi {

/*! \brief The Shape object. `data`/`size` are the ABI cell fields. */
class ShapeObj : public Object, public TVMFFIShapeCell {
 public:
  using index_type = int64_t;

  /*! \brief Product of the dimensions (1 for a 0-d shape). */
  int64_t Product() const {
    int64_t out = 1;
    for (size_t i = 0; i < this->size; ++i) out *= this->data[i];
    return out;
  }

  /*! \brief A shape of `n` dimensions stored inline; `*out` receives the writable numbers. */
  static ObjectPtr<ShapeObj> Create(size_t n, int64_t** out) {
    ObjectPtr<ShapeObj> p = make_inplace_array_object<ShapeObj, int64_t>(n);
    int64_t* dims = reinterpret_cast<int64_t*>(reinterpret_cast<char*>(p.get()) + sizeof(ShapeObj));
    p->data = dims;
    p->size = n;
    *out = dims;
    return p;
  }

  TVM_FFI_DECLARE_OBJECT_INFO_STATIC("ffi.Shape", ShapeObj, Object, kTVMFFIShape);
};

static_assert(sizeof(ShapeObj) == 40, "Shape numbers must start at +40");

/*! \brief Reference to an immutable int64 tuple. */
class Shape : public ObjectRef {
 public:
  using index_type = int64_t;
  using iterator = const int64_t*;

  Shape() : Shape(static_cast<const int64_t*>(nullptr), static_cast<const int64_t*>(nullptr)) {}
  Shape(std::initializer_list<int64_t> dims) : Shape(dims.begin(), dims.end()) {}  // NOLINT(*)
  Shape(const std::vector<int64_t>& dims) : Shape(dims.begin(), dims.end()) {}     // NOLINT(*)
  template <typename Iter, typename = std::enable_if_t<!std::is_integral_v<Iter>>>
  Shape(Iter first, Iter last) : ObjectRef(details::UnsafeInit{}) {
    int64_t* dims = nullptr;
    size_t n = static_cast<size_t>(std::distance(first, last));
    ObjectPtr<ShapeObj> p = ShapeObj::Create(n, &dims);
    for (; first != last; ++first) *dims++ = static_cast<int64_t>(*first);
    data_ = std::move(p);
  }
  explicit Shape(ObjectPtr<Object> n) : ObjectRef(std::move(n)) {}
  explicit Shape(details::UnsafeInit tag) : ObjectRef(tag) {}

  size_t size() const { return Cell()->size; }
  size_t ndim() const { return size(); }
  bool empty() const { return size() == 0; }
  const int64_t* data() const { return Cell()->data; }
  /*! \brief Dimension i, unchecked (like std::vector). */
  int64_t operator[](size_t i) const { return data()[i]; }
  /*! \brief Dimension i (IndexError when out of range). */
  int64_t at(size_t i) const {
    if (i >= size()) {
      TVM_FFI_THROW(IndexError) << "index " << i << " out of range for Shape of size " << size();
    }
    return data()[i];
  }
  int64_t front() const { return at(0); }
  int64_t back() const { return at(size() - 1); }
  iterator begin() const { return data(); }
  iterator end() const { return data() + size(); }
  int64_t Product() const {
    int64_t out = 1;
    for (int64_t d : *this) out *= d;
    return out;
  }

  const ShapeObj* get() const { return static_cast<const ShapeObj*>(data_.get()); }
  const ShapeObj* operator->() const { return get(); }

  using ContainerType = ShapeObj;
  static constexpr bool _type_is_nullable = false;
  static constexpr bool _type_custom_traits = true;

 private:
  /*! \brief The ABI cell, read the way any binary's shape is read. */
  const TVMFFIShapeCell* Cell() const {
    return TVMFFIShapeGetCellPtr(details::ObjectUnsafe::ToHandle(data_.get()));
  }
};

/*! \brief Shape travels as a Shape object; an Array or List of ints converts to a new Shape. */
template <>
struct TypeTraits<Shape> : ObjectRefTraitsBase<Shape> {
  static bool CheckAnyStrict(const TVMFFIAny* v) { return v->type_index == kTVMFFIShape; }
  static std::optional<Shape> TryCastFromAnyView(const TVMFFIAny* v) {
    if (v->type_index == kTVMFFIShape) {
      Object* obj = details::ObjectUnsafe::FromHandle(v->v_obj);
      return details::ObjectUnsafe::RefFromPtr<Shape>(details::ObjectUnsafe::PtrFromUnowned(obj));
    }
    if (v->type_index != kTVMFFIArray && v->type_index != kTVMFFIList) return std::nullopt;
    std::vector<int64_t> dims;
    for (const Any& item : *details::SeqOf(v)) {
      if (item.type_index() != kTVMFFIInt) return std::nullopt;
      dims.push_back(item.raw()->v_int64);
    }
    return Shape(dims);
  }
  static std::string TypeStr() { return "Shape"; }
};

/*! \brief Shapes are equal when their dimensions are (whichever objects hold them). */
inline bool operator==(const Shape& a, const Shape& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
}
inline bool operator!=(const Shape& a, const Shape& b) { return !(a == b); }

}  // namespace ffi
}  // namespace tvm
#endif  // TVM_FFI_CONTAINER_SHAPE_H_
