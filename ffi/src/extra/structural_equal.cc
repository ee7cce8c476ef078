/*
 * StructuralEqual::Equal / GetFirstMismatch (extra/structural_equal.h): the comparison
 * apache-tvm-ffi 0.1.16 defines, reading objects only through the shared type table (field
 * records, metadata's structural kind, the `__s_equal__` attribute column), so objects of any
 * library compare alike. When a mismatch path is wanted, each level that fails adds its step on
 * the way out (innermost first), and the two step lists become AccessPaths at the end.
 */
#include <tvm/ffi/extra/structural_equal.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <unordered_map>
#include <utility>
#include <vector>

#include "../support/internal.h"
#include "structural_common.h"

namespace tvm {
namespace ffi {
namespace {
using namespace extra_detail;  // NOLINT(build/namespaces)
using reflection::AccessPath;
using reflection::AccessStep;

class EqualWalker {
 public:
  EqualWalker(bool map_free_vars, bool skip_tensor_content)
      : region_(map_free_vars ? kTVMFFIDefRegionKindPattern : kTVMFFIDefRegionKindNone),
        skip_tensor_content_(skip_tensor_content) {}

  /*! \brief Record mismatch steps into these lists (innermost first). */
  void TracePaths(std::vector<AccessStep>* lhs, std::vector<AccessStep>* rhs) {
    lhs_path_ = lhs;
    rhs_path_ = rhs;
  }

  bool Equal(const Any& lhs, const Any& rhs) {
    const TVMFFIAny* a = lhs.raw();
    const TVMFFIAny* b = rhs.raw();
    if (a->type_index != b->type_index) {
      // Only the small and heap forms of one kind (str or bytes) meet across type indices.
      bool both_str = IsStr(a->type_index) && IsStr(b->type_index);
      bool both_bytes = IsBytes(a->type_index) && IsBytes(b->type_index);
      return (both_str || both_bytes) && BytesView(lhs) == BytesView(rhs);
    }
    int32_t ti = a->type_index;
    if (ti < kTVMFFIStaticObjectBegin) {
      if (ti == kTVMFFIFloat && std::isnan(a->v_float64)) return std::isnan(b->v_float64);
      return a->zero_padding == b->zero_padding && a->v_int64 == b->v_int64;
    }
    if (++depth_ > kStructuralMaxDepth) {
      --depth_;
      TVM_FFI_THROW(ValueError) << "StructuralEqual: maximum nesting depth ("
                                << kStructuralMaxDepth << ") exceeded";
    }
    bool result;
    try {
      result = EqualObjects(lhs, rhs, ti);
    } catch (...) {
      --depth_;
      throw;
    }
    --depth_;
    return result;
  }

 private:
  bool EqualObjects(const Any& lhs, const Any& rhs, int32_t ti) {
    switch (ti) {
      case kTVMFFIBigInt:
        return BigIntWords(lhs) == BigIntWords(rhs);
      case kTVMFFIStr:
      case kTVMFFIBytes:
        return BytesView(lhs) == BytesView(rhs);
      case kTVMFFIArray:
      case kTVMFFIList:
        return EqualSequences(SequenceItems(lhs), SequenceItems(rhs));
      case kTVMFFIMap:
      case kTVMFFIDict:
        return EqualMaps(MapObjOf(lhs), MapObjOf(rhs));
      case kTVMFFIShape: {
        Shape x = lhs.cast<Shape>(), y = rhs.cast<Shape>();
        return x.size() == y.size() && std::equal(x.begin(), x.end(), y.begin());
      }
      case kTVMFFITensor:
        return EqualTensors(lhs, rhs);
      default:
        return EqualReflected(RefOf(lhs), RefOf(rhs), ti);
    }
  }

  bool EqualReflected(const ObjectRef& lhs, const ObjectRef& rhs, int32_t ti) {
    TVMFFISEqHashKind kind = StructuralKindOrThrow(ti, "StructuralEqual");
    if (kind == kTVMFFISEqHashKindUniqueInstance) return lhs.same_as(rhs);
    if (kind == kTVMFFISEqHashKindConstTreeNode && lhs.same_as(rhs)) return true;
    if (kind == kTVMFFISEqHashKindDAGNode || kind == kTVMFFISEqHashKindFreeVar) {
      auto it = lhs_to_rhs_.find(lhs);
      if (it != lhs_to_rhs_.end()) return it->second.same_as(rhs);
      if (rhs_to_lhs_.count(rhs)) return false;  // rhs is bound to another node
    }
    if (kind != kTVMFFISEqHashKindFreeVar) {
      bool ok = EqualFields(lhs, rhs, ti);
      if (ok && kind == kTVMFFISEqHashKindDAGNode) Bind(lhs, rhs);
      return ok;
    }
    // A free variable's own fields are uses, not definitions, in a Simple region.
    TVMFFIDefRegionKind saved = region_;
    if (region_ == kTVMFFIDefRegionKindSimple) region_ = kTVMFFIDefRegionKindNone;
    bool ok;
    try {
      ok = EqualFields(lhs, rhs, ti);
    } catch (...) {
      region_ = saved;
      throw;
    }
    region_ = saved;
    if (!ok) return false;
    if (lhs.same_as(rhs) || region_ != kTVMFFIDefRegionKindNone) {
      Bind(lhs, rhs);
      return true;
    }
    return false;
  }

  void Bind(const ObjectRef& lhs, const ObjectRef& rhs) {
    lhs_to_rhs_[lhs] = rhs;
    rhs_to_lhs_[rhs] = lhs;
  }

  /*! \brief Runs fn with region_ set to `kind`, restoring it afterwards. */
  template <typename F>
  bool InRegion(TVMFFIDefRegionKind kind, F fn) {
    TVMFFIDefRegionKind saved = region_;
    region_ = kind;
    bool ok;
    try {
      ok = fn();
    } catch (...) {
      region_ = saved;
      throw;
    }
    region_ = saved;
    return ok;
  }

  void AddAttrSteps(const String& name) {
    if (lhs_path_ == nullptr) return;
    lhs_path_->push_back(AccessStep::Attr(name));
    rhs_path_->push_back(AccessStep::Attr(name));
  }

  bool EqualFields(const ObjectRef& lhs, const ObjectRef& rhs, int32_t ti) {
    if (std::optional<Function> hook = TypeAttrFunction("__s_equal__", ti)) {
      Function cb = Function::FromTyped(
          [this](AnyView x, AnyView y, int region, AnyView field_name) -> bool {
            bool ok = InRegion(CallbackRegion(region, region_),
                               [&] { return Equal(Any(x), Any(y)); });
            if (!ok) AddAttrSteps(field_name.cast<String>());
            return ok;
          });
      return (*hook)(lhs, rhs, cb).cast<bool>();
    }
    const TVMFFIObject* a = ObjectOf(Any(lhs));
    const TVMFFIObject* b = ObjectOf(Any(rhs));
    for (const TVMFFIFieldInfo* f : AllFields(ti)) {
      if (f->flags & kTVMFFIFieldFlagBitMaskSEqHashIgnore) continue;
      Any x = GetField(f, a);
      Any y = GetField(f, b);
      bool opens;
      TVMFFIDefRegionKind kind = FieldRegion(f->flags, region_, &opens);
      bool ok = opens ? InRegion(kind, [&] { return Equal(x, y); }) : Equal(x, y);
      if (!ok) {
        AddAttrSteps(String(std::string(FieldName(f))));
        return false;
      }
    }
    return true;
  }

  bool EqualSequences(const std::vector<Any>& lhs, const std::vector<Any>& rhs) {
    if (lhs.size() != rhs.size() && lhs_path_ == nullptr) return false;
    size_t n = std::min(lhs.size(), rhs.size());
    for (size_t i = 0; i < n; ++i) {
      if (!Equal(lhs[i], rhs[i])) {
        if (lhs_path_ != nullptr) {
          lhs_path_->push_back(AccessStep::ArrayItem(static_cast<int64_t>(i)));
          rhs_path_->push_back(AccessStep::ArrayItem(static_cast<int64_t>(i)));
        }
        return false;
      }
    }
    if (lhs.size() == rhs.size()) return true;
    int64_t at = static_cast<int64_t>(n);
    if (lhs.size() > rhs.size()) {
      lhs_path_->push_back(AccessStep::ArrayItem(at));
      rhs_path_->push_back(AccessStep::ArrayItemMissing(at));
    } else {
      lhs_path_->push_back(AccessStep::ArrayItemMissing(at));
      rhs_path_->push_back(AccessStep::ArrayItem(at));
    }
    return false;
  }

  /*! \brief The key as the other side names it: a bound object maps to its partner. */
  static Any MapKey(const Any& key,
                    const std::unordered_map<ObjectRef, ObjectRef, RefPtrHash, RefPtrEqual>& m) {
    if (!IsObject(key.type_index())) return key;
    auto it = m.find(RefOf(key));
    return it != m.end() ? Any(it->second) : key;
  }

  bool EqualMaps(const MapBaseObj* lhs, const MapBaseObj* rhs) {
    if (lhs->size() != rhs->size() && lhs_path_ == nullptr) return false;
    for (const auto& kv : *lhs) {
      Any rkey = MapKey(kv.first, lhs_to_rhs_);
      if (!rhs->count(AnyView(rkey))) {
        if (lhs_path_ != nullptr) {
          lhs_path_->push_back(AccessStep::MapItem(kv.first));
          rhs_path_->push_back(AccessStep::MapItemMissing(rkey));
        }
        return false;
      }
      Any rvalue = rhs->at(AnyView(rkey));
      if (!Equal(kv.second, rvalue)) {
        if (lhs_path_ != nullptr) {
          lhs_path_->push_back(AccessStep::MapItem(kv.first));
          rhs_path_->push_back(AccessStep::MapItem(rkey));
        }
        return false;
      }
    }
    if (lhs->size() == rhs->size()) return true;
    for (const auto& kv : *rhs) {
      Any lkey = MapKey(kv.first, rhs_to_lhs_);
      if (!lhs->count(AnyView(lkey))) {
        lhs_path_->push_back(AccessStep::MapItemMissing(lkey));
        rhs_path_->push_back(AccessStep::MapItem(kv.first));
        return false;
      }
    }
    return false;
  }

  bool EqualTensors(const Any& lhs, const Any& rhs) {
    if (ObjectOf(lhs) == ObjectOf(rhs)) return true;
    const DLTensor* x = TensorOf(lhs);
    const DLTensor* y = TensorOf(rhs);
    if (x->ndim != y->ndim) return false;
    for (int32_t i = 0; i < x->ndim; ++i) {
      if (x->shape[i] != y->shape[i]) return false;
    }
    if (x->dtype.code != y->dtype.code || x->dtype.bits != y->dtype.bits ||
        x->dtype.lanes != y->dtype.lanes) {
      return false;
    }
    if (skip_tensor_content_) return true;
    size_t bytes = TensorDataBytes(x, "StructuralEqual");
    TensorDataBytes(y, "StructuralEqual");
    return bytes == 0 || std::memcmp(x->data, y->data, bytes) == 0;
  }

  TVMFFIDefRegionKind region_;
  bool skip_tensor_content_;
  int depth_ = 0;
  std::vector<AccessStep>* lhs_path_ = nullptr;
  std::vector<AccessStep>* rhs_path_ = nullptr;
  std::unordered_map<ObjectRef, ObjectRef, RefPtrHash, RefPtrEqual> lhs_to_rhs_;
  std::unordered_map<ObjectRef, ObjectRef, RefPtrHash, RefPtrEqual> rhs_to_lhs_;
};

}  // namespace

bool StructuralEqual::Equal(const Any& lhs, const Any& rhs, bool map_free_vars,
                            bool skip_tensor_content) {
  return EqualWalker(map_free_vars, skip_tensor_content).Equal(lhs, rhs);
}

Optional<reflection::AccessPathPair> StructuralEqual::GetFirstMismatch(const Any& lhs,
                                                                       const Any& rhs,
                                                                       bool map_free_vars,
                                                                       bool skip_tensor_content) {
  EqualWalker walker(map_free_vars, skip_tensor_content);
  std::vector<AccessStep> lhs_steps, rhs_steps;
  walker.TracePaths(&lhs_steps, &rhs_steps);
  if (walker.Equal(lhs, rhs)) return std::nullopt;
  return reflection::AccessPathPair(AccessPath::FromSteps(lhs_steps.rbegin(), lhs_steps.rend()),
                                    AccessPath::FromSteps(rhs_steps.rbegin(), rhs_steps.rend()));
}

TVM_FFI_STATIC_INIT_BLOCK() {
  internal::RegisterBuiltin("ffi.StructuralEqual",
                            [](Any lhs, Any rhs, bool map_free_vars, bool skip_tensor_content) {
                              return StructuralEqual::Equal(lhs, rhs, map_free_vars,
                                                            skip_tensor_content);
                            });
  internal::RegisterBuiltin(
      "ffi.GetFirstStructuralMismatch",
      [](Any lhs, Any rhs, bool map_free_vars, bool skip_tensor_content) -> Any {
        Optional<reflection::AccessPathPair> m =
            StructuralEqual::GetFirstMismatch(lhs, rhs, map_free_vars, skip_tensor_content);
        if (!m.has_value()) return Any();
        return Any(ObjectRef(*m));
      });
  // The hook column exists even when no type sets it (as in the reference).
  TVMFFIByteArray name{"__s_equal__", 11};
  TVMFFIAny none{};
  none.type_index = kTVMFFINone;
  TVMFFITypeRegisterAttr(kTVMFFINone, &name, &none);
}

}  // namespace ffi
}  // namespace tvm
