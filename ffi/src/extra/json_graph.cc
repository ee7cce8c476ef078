/*
 * ToJSONGraph / FromJSONGraph (extra/serialization.h) and the ffi.ToJSONGraph(String),
 * ffi.FromJSONGraph(String) globals. Objects are written field by field from the shared field
 * records and rebuilt with the type's creator (metadata) or `__ffi_new__`, fields set through
 * their setters; `__data_to_json__` / `__data_from_json__` replace that for a type.
 */
#include <tvm/ffi/extra/serialization.h>

#include <string>
#include <unordered_map>
#include <unordered_set>

#include "../support/internal.h"
#include "reflection_util.h"

namespace tvm {
namespace ffi {
namespace {
using namespace extra_detail;  // NOLINT(build/namespaces)

constexpr int kMaxDepth = 1000;

/*! \brief Counts nesting of a recursive walk; ValueError past kMaxDepth. */
class DepthGuard {
 public:
  explicit DepthGuard(int* depth) : depth_(depth) {
    if (++*depth_ > kMaxDepth) {
      --*depth_;
      TVM_FFI_THROW(ValueError) << "JSON graph: maximum nesting depth (" << kMaxDepth
                                << ") exceeded";
    }
  }
  ~DepthGuard() { --*depth_; }

 private:
  int* depth_;
};

const char kB64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string Base64Encode(std::string_view in) {
  std::string out;
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    uint32_t v = (static_cast<unsigned char>(in[i]) << 16) |
                 (static_cast<unsigned char>(in[i + 1]) << 8) | static_cast<unsigned char>(in[i + 2]);
    out += {kB64[v >> 18], kB64[(v >> 12) & 63], kB64[(v >> 6) & 63], kB64[v & 63]};
  }
  if (i + 1 == in.size()) {
    uint32_t v = static_cast<unsigned char>(in[i]) << 16;
    out += {kB64[v >> 18], kB64[(v >> 12) & 63], '=', '='};
  } else if (i + 2 == in.size()) {
    uint32_t v = (static_cast<unsigned char>(in[i]) << 16) | (static_cast<unsigned char>(in[i + 1]) << 8);
    out += {kB64[v >> 18], kB64[(v >> 12) & 63], kB64[(v >> 6) & 63], '='};
  }
  return out;
}

std::string Base64Decode(std::string_view in) {
  auto val = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  if (in.size() % 4 != 0) TVM_FFI_THROW(ValueError) << "Invalid base64 string length";
  std::string out;
  for (size_t i = 0; i < in.size(); i += 4) {
    int pad = 0;
    uint32_t v = 0;
    for (size_t k = 0; k < 4; ++k) {
      char c = in[i + k];
      if (c == '=' && i + 4 == in.size() && k >= 2) {
        ++pad;
        v <<= 6;
        continue;
      }
      int d = val(c);
      if (d < 0 || pad != 0) TVM_FFI_THROW(ValueError) << "Invalid base64 character";
      v = (v << 6) | static_cast<uint32_t>(d);
    }
    out.push_back(static_cast<char>(v >> 16));
    if (pad < 2) out.push_back(static_cast<char>((v >> 8) & 255));
    if (pad < 1) out.push_back(static_cast<char>(v & 255));
  }
  return out;
}

std::string DTypeString(DLDataType t) {
  TVMFFIAny out{};
  if (TVMFFIDataTypeToString(&t, &out) != 0) throw details::MoveFromRaised();
  Any owned = Any::FromOwnedRaw(out);
  return std::string(BytesView(owned));
}

DLDataType DTypeFromString(const String& s) {
  TVMFFIByteArray arr{s.data(), s.size()};
  DLDataType t;
  if (TVMFFIDataTypeFromString(&arr, &t) != 0) throw details::MoveFromRaised();
  return t;
}

bool IsInlineField(int32_t ti) {
  return ti == kTVMFFINone || ti == kTVMFFIBool || ti == kTVMFFIInt || ti == kTVMFFIFloat ||
         ti == kTVMFFIDataType;
}

// Small out-of-line helpers keep GraphWriter::Node's frame small (it recurses once per level;
// under ASan every String temporary of an inline body would sit in that frame).
__attribute__((noinline)) void SetKey(json::Object* node, const char* key, Any value) {
  node->Set(String(key), std::move(value));
}
__attribute__((noinline)) void SetType(json::Object* node, int32_t ti) {
  node->Set(String("type"), String(TypeKey(ti)));
}

[[noreturn]] __attribute__((noinline)) void CycleError(int32_t ti) {
  TVM_FFI_THROW(ValueError) << "Cycle detected during serialization: a "
                            << (ti == kTVMFFIList ? "List" : "Dict") << " contains itself";
}

/*! \brief Node of a value without children (POD, string, bytes, shape). */
__attribute__((noinline)) void LeafNode(const Any& v, int32_t ti, json::Object* node) {
  const TVMFFIAny* raw = v.raw();
  switch (ti) {
    case kTVMFFINone:
      SetType(node, ti);
      return;
    case kTVMFFIBool:
    case kTVMFFIInt:
    case kTVMFFIFloat:
      SetType(node, ti);
      SetKey(node, "data", v);
      return;
    case kTVMFFIDataType:
      SetType(node, ti);
      SetKey(node, "data", String(DTypeString(raw->v_dtype)));
      return;
    case kTVMFFIDevice:
      SetType(node, ti);
      SetKey(node, "data", json::Array{static_cast<int64_t>(raw->v_device.device_type),
                                       static_cast<int64_t>(raw->v_device.device_id)});
      return;
    case kTVMFFISmallStr:
    case kTVMFFIStr:
      SetType(node, kTVMFFIStr);
      SetKey(node, "data", String(BytesView(v)));
      return;
    case kTVMFFISmallBytes:
    case kTVMFFIBytes:
      SetType(node, kTVMFFIBytes);
      SetKey(node, "data", String(Base64Encode(BytesView(v))));
      return;
    case kTVMFFIShape: {
      SetType(node, ti);
      json::Array data;
      for (int64_t d : v.cast<Shape>()) data.push_back(d);
      SetKey(node, "data", data);
      return;
    }
    default:
      TVM_FFI_THROW(RuntimeError) << "Cannot serialize type `" << TypeKey(ti) << "`";
  }
}

class GraphWriter {
 public:
  int64_t Node(const Any& v) {
    auto it = index_.find(v);
    if (it != index_.end()) return it->second;
    DepthGuard guard(&depth_);
    int32_t ti = v.type_index();
    json::Object node;
    if (ti == kTVMFFIArray || ti == kTVMFFIList || ti == kTVMFFIMap || ti == kTVMFFIDict) {
      SetType(&node, ti);
      const void* p = v.raw()->v_obj;
      bool mutable_container = ti == kTVMFFIList || ti == kTVMFFIDict;
      if (mutable_container && !open_.insert(p).second) CycleError(ti);
      json::Array data;
      if (ti == kTVMFFIArray || ti == kTVMFFIList) {
        for (const Any& x : SequenceItems(v)) data.push_back(Node(x));
      } else {
        for (const auto& kv : MapItems(v)) {
          data.push_back(Node(kv.first));
          data.push_back(Node(kv.second));
        }
      }
      if (mutable_container) open_.erase(p);
      SetKey(&node, "data", data);
    } else if (ti >= kTVMFFIStaticObjectBegin && !IsStr(ti) && !IsBytes(ti) && ti != kTVMFFIShape) {
      SetType(&node, ti);
      SetKey(&node, "data", ObjectData(v, ti));
    } else {
      LeafNode(v, ti, &node);
    }
    int64_t idx = static_cast<int64_t>(nodes_.size());
    nodes_.push_back(node);
    index_.emplace(v, idx);
    return idx;
  }

  json::Array nodes_;

 private:
  Any ObjectData(const Any& v, int32_t ti) {
    if (std::optional<Function> hook = TypeAttrFunction("__data_to_json__", ti)) return (*hook)(v);
    const TVMFFITypeInfo* info = TypeInfo(ti);
    bool creator = info->metadata != nullptr && info->metadata->creator != nullptr;
    if (!creator && TypeAttr("__ffi_new__", ti).is_none()) {
      TVM_FFI_THROW(TypeError) << "Type `" << TypeKey(ti) << "` does not support ToJSONGraph "
                               << "(no native creator or __ffi_new__ type attr)";
    }
    const TVMFFIObject* obj = ObjectOf(v);
    json::Object data;
    for (const TVMFFIFieldInfo* f : AllFields(ti)) {
      Any value = GetField(f, obj);
      String name(FieldName(f));
      int32_t fti = f->field_static_type_index;
      if (fti == kTVMFFINone) {
        data.Set(name, Any(nullptr));
      } else if (fti == kTVMFFIBool) {
        data.Set(name, value.cast<bool>());
      } else if (fti == kTVMFFIInt) {
        data.Set(name, value.cast<int64_t>());
      } else if (fti == kTVMFFIFloat) {
        data.Set(name, value.cast<double>());
      } else if (fti == kTVMFFIDataType) {
        data.Set(name, String(DTypeString(value.cast<DLDataType>())));
      } else {
        data.Set(name, Node(value));
      }
    }
    return data;
  }

  std::unordered_map<Any, int64_t, AnyHash, AnyEqual> index_;
  std::unordered_set<const void*> open_;
  int depth_ = 0;
};

class GraphReader {
 public:
  explicit GraphReader(const json::Value& v) {
    std::optional<json::Object> top = v.as<json::Object>();
    if (!top.has_value()) TVM_FFI_THROW(ValueError) << "Invalid JSON Object Graph, expected an object";
    std::optional<Any> root = top->Get(String("root_index"));
    if (!root.has_value() || root->type_index() != kTVMFFIInt) {
      TVM_FFI_THROW(ValueError) << "Invalid JSON Object Graph, expected `root_index` integer field";
    }
    std::optional<Any> nodes = top->Get(String("nodes"));
    if (!nodes.has_value() || nodes->type_index() != kTVMFFIArray) {
      TVM_FFI_THROW(ValueError) << "Invalid JSON Object Graph, expected `nodes` array field";
    }
    root_ = root->cast<int64_t>();
    nodes_ = nodes->cast<json::Array>();
    decoded_.resize(nodes_.size());
    state_.resize(nodes_.size(), 0);
  }

  Any Root() { return Get(root_); }

 private:
  Any Get(int64_t i) {
    if (i < 0 || i >= static_cast<int64_t>(nodes_.size())) {
      TVM_FFI_THROW(ValueError) << "Invalid JSON Object Graph: invalid node index " << i;
    }
    if (state_[i] == 2) return decoded_[i];
    if (state_[i] == 1) {
      TVM_FFI_THROW(ValueError) << "Invalid JSON Object Graph: node " << i << " refers to itself";
    }
    state_[i] = 1;
    DepthGuard guard(&depth_);
    Any v = Decode(nodes_[i].cast<json::Object>());
    decoded_[i] = v;
    state_[i] = 2;
    return v;
  }

  static Any Field(const json::Object& node, const char* name) {
    std::optional<Any> v = node.Get(String(name));
    if (!v.has_value()) TVM_FFI_THROW(KeyError) << "Invalid JSON Object Graph: node has no `" << name << "`";
    return *v;
  }

  Any Decode(const json::Object& node) {
    String key = Field(node, "type").cast<String>();
    TVMFFIByteArray arr{key.data(), key.size()};
    int32_t ti;
    if (TVMFFITypeKeyToIndex(&arr, &ti) != 0) throw details::MoveFromRaised();
    switch (ti) {
      case kTVMFFINone: return Any(nullptr);
      case kTVMFFIBool: return Field(node, "data").cast<bool>();
      case kTVMFFIInt: return Field(node, "data").cast<int64_t>();
      case kTVMFFIFloat: return Field(node, "data").cast<double>();
      case kTVMFFIDataType: return DTypeFromString(Field(node, "data").cast<String>());
      case kTVMFFIDevice: {
        json::Array d = Field(node, "data").cast<json::Array>();
        if (d.size() != 2) {
          TVM_FFI_THROW(ValueError) << "Invalid JSON Object Graph: Device data must be an array of "
                                    << "[device_type, device_id], got " << d.size() << " element(s)";
        }
        return DLDevice{static_cast<DLDeviceType>(d[0].cast<int32_t>()), d[1].cast<int32_t>()};
      }
      case kTVMFFIStr: return Field(node, "data").cast<String>();
      case kTVMFFIBytes: {
        std::string raw = Base64Decode(Field(node, "data").cast<String>().view());
        return Bytes(raw.data(), raw.size());
      }
      case kTVMFFIArray:
      case kTVMFFIList: {
        std::vector<Any> items;
        for (const Any& x : Field(node, "data").cast<json::Array>()) items.push_back(Get(x.cast<int64_t>()));
        if (ti == kTVMFFIArray) return Array<Any>(items.begin(), items.end());
        return List<Any>(items.begin(), items.end());
      }
      case kTVMFFIMap:
      case kTVMFFIDict: {
        json::Array d = Field(node, "data").cast<json::Array>();
        if (d.size() % 2 != 0) {
          TVM_FFI_THROW(ValueError) << "Invalid JSON Object Graph: Map/Dict data must contain an even "
                                    << "number of [key, value] entries, got " << d.size();
        }
        if (ti == kTVMFFIMap) {
          Map<Any, Any> m;
          for (size_t i = 0; i < d.size(); i += 2) m.Set(Get(d[i].cast<int64_t>()), Get(d[i + 1].cast<int64_t>()));
          return m;
        }
        Dict<Any, Any> m;
        for (size_t i = 0; i < d.size(); i += 2) m.Set(Get(d[i].cast<int64_t>()), Get(d[i + 1].cast<int64_t>()));
        return m;
      }
      case kTVMFFIShape: {
        std::vector<int64_t> dims;
        for (const Any& x : Field(node, "data").cast<json::Array>()) dims.push_back(x.cast<int64_t>());
        return Shape(dims);
      }
      default:
        return DecodeObject(ti, Field(node, "data"));
    }
  }

  Any DecodeObject(int32_t ti, const Any& data) {
    if (std::optional<Function> hook = TypeAttrFunction("__data_from_json__", ti)) return (*hook)(data);
    const TVMFFITypeInfo* info = TypeInfo(ti);
    Any obj;
    if (info->metadata != nullptr && info->metadata->creator != nullptr) {
      TVMFFIObjectHandle h = nullptr;
      if (info->metadata->creator(&h) != 0) throw details::MoveFromRaised();
      obj = AnyFromObject(static_cast<TVMFFIObject*>(h));
      TVMFFIObjectDecRef(h);
    } else if (std::optional<Function> make = TypeAttrFunction("__ffi_new__", ti)) {
      obj = (*make)();
    } else {
      TVM_FFI_THROW(TypeError) << "Type `" << TypeKey(ti) << "` does not support FromJSONGraph "
                               << "(no native creator or __ffi_new__ type attr)";
    }
    TVMFFIObject* p = ObjectOf(obj);
    json::Object fields = data.cast<json::Object>();
    for (const TVMFFIFieldInfo* f : AllFields(ti)) {
      std::optional<Any> encoded = fields.Get(String(FieldName(f)));
      Any value;
      if (encoded.has_value()) {
        int32_t fti = f->field_static_type_index;
        if (fti == kTVMFFINone) {
          value = Any(nullptr);
        } else if (fti == kTVMFFIBool) {
          value = encoded->cast<bool>();
        } else if (fti == kTVMFFIInt) {
          value = encoded->cast<int64_t>();
        } else if (fti == kTVMFFIFloat) {
          value = encoded->cast<double>();
        } else if (fti == kTVMFFIDataType) {
          value = DTypeFromString(encoded->cast<String>());
        } else {
          value = Get(encoded->cast<int64_t>());
        }
      } else if (f->flags & kTVMFFIFieldFlagBitMaskHasDefault) {
        AnyView def = AnyView::FromRaw(f->default_value_or_factory);
        value = (f->flags & kTVMFFIFieldFlagBitMaskDefaultFromFactory) ? def.cast<Function>()() : Any(def);
      } else {
        TVM_FFI_THROW(TypeError) << "Required field `" << FieldName(f) << "` not set in type `"
                                 << TypeKey(ti) << "`";
      }
      SetField(f, p, value);
    }
    return obj;
  }

  int64_t root_ = 0;
  json::Array nodes_;
  std::vector<Any> decoded_;
  std::vector<int8_t> state_;
  int depth_ = 0;
};

}  // namespace

json::Value ToJSONGraph(const Any& value, const Any& metadata) {
  GraphWriter writer;
  json::Object result;
  result.Set(String("root_index"), writer.Node(value));
  result.Set(String("nodes"), writer.nodes_);
  if (!metadata.is_none()) result.Set(String("metadata"), metadata);
  return result;
}

Any FromJSONGraph(const json::Value& value) { return GraphReader(value).Root(); }

TVM_FFI_STATIC_INIT_BLOCK() {
  internal::RegisterBuiltin("ffi.ToJSONGraph",
                            [](Any v, Any metadata) { return ToJSONGraph(v, metadata); });
  internal::RegisterBuiltin("ffi.FromJSONGraph", [](Any v) { return FromJSONGraph(v); });
  internal::RegisterBuiltin("ffi.ToJSONGraphString", [](Any v, Any metadata) {
    return json::Stringify(ToJSONGraph(v, metadata));
  });
  internal::RegisterBuiltin("ffi.FromJSONGraphString",
                            [](const String& s) { return FromJSONGraph(json::Parse(s)); });
}

}  // namespace ffi
}  // namespace tvm
