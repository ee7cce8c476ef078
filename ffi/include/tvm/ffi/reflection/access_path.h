/*
 * Access paths: how to reach a value inside a nested structure (object fields, sequence items,
 * map items), as apache-tvm-ffi 0.1.16 represents them. StructuralEqual::GetFirstMismatch
 * returns a pair of them and VisitErrorContext::FindAccessPaths an array.
 *
 * Both objects have the reference's type key and C++ layout (relative to the object header):
 *   ffi.reflection.AccessStep  (48 bytes)  kind: int32 @24, key: Any @32
 *   ffi.reflection.AccessPath  (48 bytes)  parent: Optional<ObjectRef> @24 (the enclosing path,
 *                              None at the root), step: Optional<AccessStep> @32 (None at the
 *                              root), depth: int32 @40 (0 at the root)
 * libtvm_ffi registers their fields (read-only), metadata (structural kind ConstTreeNode) and
 * the AccessPath methods `_root`, `_extend`, `_attr`, ... under the reference's names, so a
 * binary compiled against either header set reads and builds the same objects.
 */
#ifndef TVM_FFI_REFLECTION_ACCESS_PATH_H_
#define TVM_FFI_REFLECTION_ACCESS_PATH_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/c_api.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/tuple.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/optional.h>
#include <tvm/ffi/string.h>

#include <cstdint>
#include <vector>

namespace tvm {
namespace ffi {
namespace reflection {

/*! \brief What a step accesses (the *Missing kinds name the side of a mismatch that lacks it). */
enum class AccessKind : int32_t {
  kAttr = 0,
  kArrayItem = 1,
  kMapItem = 2,
  kAttrMissing = 3,
  kArrayItemMissing = 4,
  kMapItemMissing = 5,
};

class AccessStep;

/*! \brief One step: a field name (String), a sequence index (int) or a map key (any value). */
class AccessStepObj : public Object {
 public:
  AccessKind kind;
  Any key;

  AccessStepObj() = default;
  AccessStepObj(AccessKind kind, Any key) : kind(kind), key(std::move(key)) {}

  /*! \brief Same kind and equal keys (AnyEqual). */
  inline bool StepEqual(const AccessStep& other) const;

  static constexpr TVMFFISEqHashKind _type_s_eq_hash_kind = kTVMFFISEqHashKindConstTreeNode;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("ffi.reflection.AccessStep", AccessStepObj, Object);
};

class AccessStep : public ObjectRef {
 public:
  AccessStep(AccessKind kind, Any key)
      : ObjectRef(make_object<AccessStepObj>(kind, std::move(key))) {}
  static AccessStep Attr(String field_name) {
    return AccessStep(AccessKind::kAttr, std::move(field_name));
  }
  static AccessStep AttrMissing(String field_name) {
    return AccessStep(AccessKind::kAttrMissing, std::move(field_name));
  }
  static AccessStep ArrayItem(int64_t index) { return AccessStep(AccessKind::kArrayItem, index); }
  static AccessStep ArrayItemMissing(int64_t index) {
    return AccessStep(AccessKind::kArrayItemMissing, index);
  }
  static AccessStep MapItem(Any key) { return AccessStep(AccessKind::kMapItem, std::move(key)); }
  static AccessStep MapItemMissing(Any key = nullptr) {
    return AccessStep(AccessKind::kMapItemMissing, std::move(key));
  }
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(AccessStep, ObjectRef, AccessStepObj);
};

inline bool AccessStepObj::StepEqual(const AccessStep& other) const {
  return kind == other->kind && AnyEqual()(key, other->key);
}

class AccessPath;

/*! \brief A path: a chain of parent links from the leaf step back to the root. */
class AccessPathObj : public Object {
 public:
  Optional<ObjectRef> parent;
  Optional<AccessStep> step;
  int32_t depth;

  AccessPathObj() = default;
  AccessPathObj(Optional<ObjectRef> parent, Optional<AccessStep> step, int32_t depth)
      : parent(std::move(parent)), step(std::move(step)), depth(depth) {}

  inline Optional<AccessPath> GetParent() const;
  inline AccessPath Extend(AccessStep step) const;
  inline AccessPath Attr(String field_name) const;
  inline AccessPath AttrMissing(String field_name) const;
  inline AccessPath ArrayItem(int64_t index) const;
  inline AccessPath ArrayItemMissing(int64_t index) const;
  inline AccessPath MapItem(Any key) const;
  inline AccessPath MapItemMissing(Any key) const;
  /*! \brief The steps from the root to this path. */
  inline Array<AccessStep> ToSteps() const;
  /*! \brief Same depth and equal steps. */
  inline bool PathEqual(const AccessPath& other) const;
  /*! \brief Whether `other` starts with this path. */
  inline bool IsPrefixOf(const AccessPath& other) const;

  static constexpr TVMFFISEqHashKind _type_s_eq_hash_kind = kTVMFFISEqHashKindConstTreeNode;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("ffi.reflection.AccessPath", AccessPathObj, Object);

 private:
  static const AccessPathObj* ParentOf(const AccessPathObj* p) {
    return static_cast<const AccessPathObj*>(p->parent.value().get());
  }
  static bool PathEqual(const AccessPathObj* lhs, const AccessPathObj* rhs) {
    if (lhs->depth != rhs->depth) return false;
    while (lhs != rhs && lhs->parent.has_value()) {
      if (!rhs->parent.has_value() || !lhs->step.has_value() || !rhs->step.has_value()) {
        return false;
      }
      if (!(*lhs->step)->StepEqual(*rhs->step)) return false;
      lhs = ParentOf(lhs);
      rhs = ParentOf(rhs);
    }
    return true;
  }
};

class AccessPath : public ObjectRef {
 public:
  template <typename Iter>
  static AccessPath FromSteps(Iter begin, Iter end) {
    AccessPath path = Root();
    for (Iter it = begin; it != end; ++it) path = path->Extend(*it);
    return path;
  }
  static AccessPath FromSteps(const Array<AccessStep>& steps) {
    return FromSteps(steps.begin(), steps.end());
  }
  /*! \brief The empty path (depth 0, no parent, no step). */
  static AccessPath Root() {
    return AccessPath(make_object<AccessPathObj>(std::nullopt, std::nullopt, 0));
  }
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(AccessPath, ObjectRef, AccessPathObj);
};

/*! \brief A (lhs, rhs) pair of paths: an ffi.Array of two AccessPath objects. */
using AccessPathPair = Tuple<AccessPath, AccessPath>;

inline Optional<AccessPath> AccessPathObj::GetParent() const {
  if (!parent.has_value()) return std::nullopt;
  return AccessPath(GetObjectPtr<AccessPathObj>(parent.value()));
}

inline AccessPath AccessPathObj::Extend(AccessStep step) const {
  ObjectRef self(details::ObjectUnsafe::PtrFromUnowned<Object>(this));
  return AccessPath(make_object<AccessPathObj>(std::move(self), std::move(step), depth + 1));
}
inline AccessPath AccessPathObj::Attr(String field_name) const {
  return Extend(AccessStep::Attr(std::move(field_name)));
}
inline AccessPath AccessPathObj::AttrMissing(String field_name) const {
  return Extend(AccessStep::AttrMissing(std::move(field_name)));
}
inline AccessPath AccessPathObj::ArrayItem(int64_t index) const {
  return Extend(AccessStep::ArrayItem(index));
}
inline AccessPath AccessPathObj::ArrayItemMissing(int64_t index) const {
  return Extend(AccessStep::ArrayItemMissing(index));
}
inline AccessPath AccessPathObj::MapItem(Any key) const {
  return Extend(AccessStep::MapItem(std::move(key)));
}
inline AccessPath AccessPathObj::MapItemMissing(Any key) const {
  return Extend(AccessStep::MapItemMissing(std::move(key)));
}

inline Array<AccessStep> AccessPathObj::ToSteps() const {
  std::vector<AccessStep> reverse;
  reverse.reserve(static_cast<size_t>(depth > 0 ? depth : 0));
  for (const AccessPathObj* p = this; p->parent.has_value(); p = ParentOf(p)) {
    TVM_FFI_ICHECK(p->step.has_value());
    reverse.push_back(*p->step);
  }
  return Array<AccessStep>(reverse.rbegin(), reverse.rend());
}

inline bool AccessPathObj::PathEqual(const AccessPath& other) const {
  return PathEqual(this, other.get());
}

inline bool AccessPathObj::IsPrefixOf(const AccessPath& other) const {
  if (depth > other->depth) return false;
  const AccessPathObj* p = other.get();
  while (p->depth > depth) p = ParentOf(p);
  return PathEqual(this, p);
}

}  // namespace reflection
}  // namespace ffi
}  // namespace tvm
#endif  // TVM_FFI_REFLECTION_ACCESS_PATH_H_
