/*
 * Structural equality and hashing over reflected fields ("ir.StructuralEqual",
 * "ir.StructuralHash"). Variables are compared by binding: a field marked `defines` binds the
 * Var on each side to the other; later uses must agree with the binding. Free variables are
 * equal only to themselves unless `map_free_vars` is set.
 */
#include <tvm/ffi/string.h>
#include <tvm/ir/reflection.h>
#include <tvm/ir/expr.h>
#include <tvm/ir/structural.h>

#include <cstring>
#include <functional>
#include <unordered_map>
#include <vector>

#include "../support/registry.h"

namespace tvm {
namespace {

// Which type indices are variables (filled by the dialects through ir::RegisterVarType).
std::vector<bool>& VarTypes() {
  static std::vector<bool> types;
  return types;
}

bool IsVarType(int32_t ti) {
  const std::vector<bool>& types = VarTypes();
  return ti >= 0 && static_cast<size_t>(ti) < types.size() && types[ti];
}

class SEqual {
 public:
  // With `int_diffs`, integer constants (IntImm) of one dtype are equal whatever their values;
  // the pairs that differ are appended to it.
  explicit SEqual(bool map_free_vars, std::vector<IntDiff>* int_diffs = nullptr)
      : map_free_vars_(map_free_vars), int_diffs_(int_diffs) {}

  bool Eq(const Any& a, const Any& b, bool defines) {
    if (a.type_index() != b.type_index()) return false;
    int32_t ti = a.type_index();
    if (ti < kTVMFFIStaticObjectBegin) {
      if (ti == kTVMFFISmallStr || ti == kTVMFFISmallBytes) return a.cast<std::string>() == b.cast<std::string>();
      return a.raw()->v_int64 == b.raw()->v_int64;
    }
    const Object* x = static_cast<const Object*>(static_cast<const void*>(a.raw()->v_obj));
    const Object* y = static_cast<const Object*>(static_cast<const void*>(b.raw()->v_obj));
    if (x == y && !defines) {
      // Same object: equal unless it is a Var bound differently.
      if (!IsVarType(ti)) return true;
    }
    if (ti == kTVMFFIStr) return a.cast<std::string>() == b.cast<std::string>();
    if (IsVarType(ti)) return VarEq(x, y, defines);
    if (int_diffs_ != nullptr && ti == IntImmNode::RuntimeTypeIndex()) {
      auto* u = static_cast<const IntImmNode*>(x);
      auto* v = static_cast<const IntImmNode*>(y);
      if (u->dtype != v->dtype) return false;
      if (u->value != v->value) int_diffs_->push_back({u, u->value, v->value});
      return true;
    }
    if (ti == kTVMFFIArray) {
      Array<Any> u = a.cast<Array<Any>>(), v = b.cast<Array<Any>>();
      if (u.size() != v.size()) return false;
      for (size_t i = 0; i < u.size(); ++i) {
        if (!Eq(u[i], v[i], defines)) return false;
      }
      return true;
    }
    if (ti == kTVMFFIMap) {
      Map<Any, Any> u = a.cast<Map<Any, Any>>(), v = b.cast<Map<Any, Any>>();
      if (u.size() != v.size()) return false;
      // Keys: strings compare by value; Var keys (buffer_map) by binding.
      for (const auto& kv : u) {
        bool found = false;
        for (const auto& kw : v) {
          if (KeyEq(kv.first, kw.first)) {
            if (!Eq(kv.second, kw.second, false)) return false;
            found = true;
            break;
          }
        }
        if (!found) return false;
      }
      return true;
    }
    const std::vector<ir::FieldEntry>* fields = ir::GetFields(ti);
    if (fields == nullptr) return x == y;
    for (const ir::FieldEntry& f : *fields) {
      if (!Eq(ir::ReadField(x, f), ir::ReadField(y, f), f.defines)) return false;
    }
    return true;
  }

 private:
  bool KeyEq(const Any& a, const Any& b) {
    if (a.type_index() != b.type_index()) return false;
    if (IsVarType(a.type_index())) {
      auto it = map_.find(static_cast<const void*>(a.raw()->v_obj));
      return it != map_.end() && it->second == static_cast<const void*>(b.raw()->v_obj);
    }
    return Eq(a, b, false);
  }

  bool VarEq(const Object* x, const Object* y, bool defines) {
    const PrimExprNode* vx = static_cast<const PrimExprNode*>(x);
    const PrimExprNode* vy = static_cast<const PrimExprNode*>(y);
    auto it = map_.find(x);
    if (it != map_.end()) return it->second == y;
    if (rmap_.count(y)) return false;
    if (defines || map_free_vars_) {
      if (vx->dtype != vy->dtype) return false;
      map_[x] = y;
      rmap_[y] = x;
      return true;
    }
    return x == y;
  }

  bool map_free_vars_;
  std::vector<IntDiff>* int_diffs_;
  std::unordered_map<const void*, const void*> map_, rmap_;
};

class SHash {
 public:
  explicit SHash(bool map_free_vars, bool ignore_int_values = false)
      : map_free_vars_(map_free_vars), ignore_int_values_(ignore_int_values) {}

  static uint64_t Combine(uint64_t h, uint64_t v) {
    return h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
  }

  uint64_t Hash(const Any& a, bool defines) {
    int32_t ti = a.type_index();
    uint64_t h = Combine(0x1234567, static_cast<uint64_t>(ti));
    if (ti < kTVMFFIStaticObjectBegin) {
      if (ti == kTVMFFISmallStr || ti == kTVMFFISmallBytes) {
        return Combine(h, std::hash<std::string>()(a.cast<std::string>()));
      }
      return Combine(h, static_cast<uint64_t>(a.raw()->v_int64));
    }
    const Object* x = static_cast<const Object*>(static_cast<const void*>(a.raw()->v_obj));
    if (ti == kTVMFFIStr) return Combine(h, std::hash<std::string>()(a.cast<std::string>()));
    if (ignore_int_values_ && ti == IntImmNode::RuntimeTypeIndex()) {
      return Combine(h, std::hash<std::string>()(DTypeToString(static_cast<const IntImmNode*>(x)->dtype)));
    }
    if (IsVarType(ti)) {
      const PrimExprNode* v = static_cast<const PrimExprNode*>(x);
      h = Combine(h, std::hash<std::string>()(DTypeToString(v->dtype)));
      auto it = ids_.find(x);
      if (it != ids_.end()) return Combine(h, it->second);
      if (defines || map_free_vars_) {
        uint64_t id = ids_.size() + 1;
        ids_[x] = id;
        return Combine(h, id);
      }
      return Combine(h, reinterpret_cast<uint64_t>(x));
    }
    if (ti == kTVMFFIArray) {
      for (const Any& e : a.cast<Array<Any>>()) h = Combine(h, Hash(e, defines));
      return h;
    }
    if (ti == kTVMFFIMap) {
      uint64_t acc = 0;  // order independent
      for (const auto& kv : a.cast<Map<Any, Any>>()) {
        uint64_t k = IsVarType(kv.first.type_index()) ? 7 : Hash(kv.first, false);
        acc += Combine(k, Hash(kv.second, false));
      }
      return Combine(h, acc);
    }
    const std::vector<ir::FieldEntry>* fields = ir::GetFields(ti);
    if (fields == nullptr) return Combine(h, reinterpret_cast<uint64_t>(x));
    for (const ir::FieldEntry& f : *fields) h = Combine(h, Hash(ir::ReadField(x, f), f.defines));
    return h;
  }

 private:
  bool map_free_vars_;
  bool ignore_int_values_;
  std::unordered_map<const void*, uint64_t> ids_;
};

}  // namespace

void ir::RegisterVarType(int32_t type_index) {
  std::vector<bool>& types = VarTypes();
  if (static_cast<size_t>(type_index) >= types.size()) types.resize(type_index + 1, false);
  types[type_index] = true;
}

bool StructuralEqual(const Any& a, const Any& b, bool map_free_vars) {
  return SEqual(map_free_vars).Eq(a, b, false);
}

int64_t StructuralHash(const Any& a, bool map_free_vars) {
  return static_cast<int64_t>(SHash(map_free_vars).Hash(a, false) >> 1);
}

bool StructuralEqualModuloInts(const Any& a, const Any& b, std::vector<IntDiff>* diffs) {
  return SEqual(false, diffs).Eq(a, b, false);
}

int64_t StructuralHashModuloInts(const Any& a) {
  return static_cast<int64_t>(SHash(false, true).Hash(a, false) >> 1);
}

TVM_FFI_STATIC_INIT_BLOCK() {
  RegisterCompilerGlobal("ir.StructuralEqual", [](Any a, Any b, bool map_free_vars) {
    return StructuralEqual(a, b, map_free_vars);
  });
  RegisterCompilerGlobal("ir.StructuralHash", [](Any a, bool map_free_vars) {
    return StructuralHash(a, map_free_vars);
  });
  RegisterCompilerGlobal("ir.StructuralHashModuloInts", [](Any a) { return StructuralHashModuloInts(a); });
}

}  // namespace tvm
