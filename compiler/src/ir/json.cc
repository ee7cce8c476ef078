/*
 * JSON save/load of IR ("ir.SaveJSON", "ir.LoadJSON"), driven by field reflection.
 *
 *   {"format": "tvm_stack.ir.json.1", "root": V, "nodes": [{"type": key, "fields": {name: V}}]}
 *
 * Nodes are listed children first; an object shared in the graph (a Var used many times) is
 * saved once, so identity survives the round trip. Values V: null, "text",
 * {"int": n}, {"bool": b}, {"float": "text"}, {"dtype": "float32"}, {"node": index},
 * [V, ...] (Array), {"map": [[K, V], ...]} (Map).
 */
#include <tvm/ffi/error.h>
#include <tvm/ir/reflection.h>
#include <tvm/ir/expr.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <unordered_map>

#include "../support/registry.h"

namespace tvm {
namespace {

void WriteString(std::ostringstream& os, const std::string& s) {
  os << '"';
  for (unsigned char c : s) {
    if (c == '"') os << "\\\"";
    else if (c == '\\') os << "\\\\";
    else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", c);
      os << buf;
    } else {
      os << static_cast<char>(c);
    }
  }
  os << '"';
}

class Writer {
 public:
  std::ostringstream nodes;
  int count{0};
  std::unordered_map<const Object*, int> index;

  std::string Value(const Any& v) {
    std::ostringstream os;
    int32_t ti = v.type_index();
    switch (ti) {
      case kTVMFFINone: return "null";
      case kTVMFFIBool: return v.cast<bool>() ? "{\"bool\": true}" : "{\"bool\": false}";
      case kTVMFFIInt: return "{\"int\": " + std::to_string(v.cast<int64_t>()) + "}";
      case kTVMFFIFloat: {
        char buf[64];
        std::snprintf(buf, sizeof(buf), "%.17g", v.cast<double>());
        return std::string("{\"float\": \"") + buf + "\"}";
      }
      case kTVMFFIDataType: return "{\"dtype\": \"" + DTypeToString(v.cast<DataType>()) + "\"}";
      case kTVMFFISmallStr:
      case kTVMFFIStr:
        WriteString(os, v.cast<std::string>());
        return os.str();
      case kTVMFFIArray: {
        os << "[";
        bool first = true;
        for (const Any& x : v.cast<Array<Any>>()) {
          std::string s = Value(x);
          os << (first ? "" : ", ") << s;
          first = false;
        }
        os << "]";
        return os.str();
      }
      case kTVMFFIMap: {
        std::vector<std::string> items;
        for (const auto& kv : v.cast<Map<Any, Any>>()) {
          std::string k = Value(kv.first);
          std::string val = Value(kv.second);
          items.push_back("[" + k + ", " + val + "]");
        }
        os << "{\"map\": [";
        for (size_t i = 0; i < items.size(); ++i) os << (i ? ", " : "") << items[i];
        os << "]}";
        return os.str();
      }
      default: break;
    }
    if (ti < kTVMFFIStaticObjectBegin) TVM_FFI_THROW(TypeError) << "SaveJSON: cannot save a " << v.GetTypeKey();
    const Object* o = static_cast<const Object*>(static_cast<const void*>(v.raw()->v_obj));
    auto it = index.find(o);
    if (it != index.end()) return "{\"node\": " + std::to_string(it->second) + "}";
    const std::vector<ir::FieldEntry>* fields = ir::GetFields(ti);
    if (fields == nullptr) TVM_FFI_THROW(TypeError) << "SaveJSON: " << v.GetTypeKey() << " is not an IR node";
    std::vector<std::pair<std::string, std::string>> fs;
    for (const ir::FieldEntry& f : *fields) fs.emplace_back(f.name, Value(ir::ReadField(o, f)));
    int id = count++;
    index[o] = id;
    nodes << (id ? ",\n  " : "\n  ") << "{\"type\": \"" << o->GetTypeKey() << "\", \"fields\": {";
    for (size_t i = 0; i < fs.size(); ++i) {
      nodes << (i ? ", " : "");
      WriteString(nodes, fs[i].first);
      nodes << ": " << fs[i].second;
    }
    nodes << "}}";
    return "{\"node\": " + std::to_string(id) + "}";
  }
};

// ------------------------------------------------------------------------------------------
// A small JSON reader
// ------------------------------------------------------------------------------------------

struct JValue {
  enum Kind { kNull, kBool, kNumber, kString, kArray, kObject } kind{kNull};
  bool b{false};
  std::string text;  // number text or string
  std::vector<JValue> items;
  std::vector<std::pair<std::string, JValue>> members;
  const JValue* Get(const std::string& k) const {
    for (const auto& m : members) {
      if (m.first == k) return &m.second;
    }
    return nullptr;
  }
};

class Parser {
 public:
  explicit Parser(const std::string& s) : s_(s) {}
  JValue Parse() {
    JValue v = Value();
    Ws();
    if (pos_ != s_.size()) Fail("trailing characters");
    return v;
  }

 private:
  const std::string& s_;
  size_t pos_{0};

  [[noreturn]] void Fail(const char* what) {
    TVM_FFI_THROW(ValueError) << "LoadJSON: " << what << " at offset " << pos_;
  }
  void Ws() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\t' || s_[pos_] == '\r')) ++pos_;
  }
  bool Eat(char c) {
    Ws();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  void Expect(char c) {
    if (!Eat(c)) Fail("unexpected character");
  }
  std::string String() {
    Expect('"');
    std::string out;
    while (true) {
      if (pos_ >= s_.size()) Fail("unterminated string");
      char c = s_[pos_++];
      if (c == '"') break;
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= s_.size()) Fail("bad escape");
      char e = s_[pos_++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'u': {
          if (pos_ + 4 > s_.size()) Fail("bad \\u escape");
          unsigned cp = static_cast<unsigned>(std::strtoul(s_.substr(pos_, 4).c_str(), nullptr, 16));
          pos_ += 4;
          if (cp < 0x80) out += static_cast<char>(cp);
          else if (cp < 0x800) {
            out += static_cast<char>(0xC0 | (cp >> 6));
            out += static_cast<char>(0x80 | (cp & 0x3F));
          } else {
            out += static_cast<char>(0xE0 | (cp >> 12));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (cp & 0x3F));
          }
          break;
        }
        default: Fail("bad escape");
      }
    }
    return out;
  }
  JValue Value() {
    Ws();
    if (pos_ >= s_.size()) Fail("unexpected end");
    JValue v;
    char c = s_[pos_];
    if (c == '"') {
      v.kind = JValue::kString;
      v.text = String();
    } else if (c == '[') {
      ++pos_;
      v.kind = JValue::kArray;
      if (!Eat(']')) {
        do v.items.push_back(Value());
        while (Eat(','));
        Expect(']');
      }
    } else if (c == '{') {
      ++pos_;
      v.kind = JValue::kObject;
      if (!Eat('}')) {
        do {
          Ws();
          std::string k = String();
          Expect(':');
          v.members.emplace_back(k, Value());
        } while (Eat(','));
        Expect('}');
      }
    } else if (s_.compare(pos_, 4, "null") == 0) {
      pos_ += 4;
    } else if (s_.compare(pos_, 4, "true") == 0) {
      pos_ += 4;
      v.kind = JValue::kBool;
      v.b = true;
    } else if (s_.compare(pos_, 5, "false") == 0) {
      pos_ += 5;
      v.kind = JValue::kBool;
    } else {
      size_t start = pos_;
      while (pos_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '-' ||
                                  s_[pos_] == '+' || s_[pos_] == '.' || s_[pos_] == 'e' || s_[pos_] == 'E')) {
        ++pos_;
      }
      if (start == pos_) Fail("unexpected character");
      v.kind = JValue::kNumber;
      v.text = s_.substr(start, pos_ - start);
    }
    return v;
  }
};

class Reader {
 public:
  std::vector<ObjectRef> nodes;

  Any Decode(const JValue& v) {
    switch (v.kind) {
      case JValue::kNull: return Any();
      case JValue::kString: return Any(String(v.text));
      case JValue::kArray: {
        Array<Any> arr;
        for (const JValue& x : v.items) arr.push_back(Decode(x));
        return Any(arr);
      }
      case JValue::kObject: break;
      default: TVM_FFI_THROW(ValueError) << "LoadJSON: unexpected bare value";
    }
    if (v.members.size() != 1) TVM_FFI_THROW(ValueError) << "LoadJSON: bad tagged value";
    const std::string& tag = v.members[0].first;
    const JValue& x = v.members[0].second;
    if (tag == "int") return Any(static_cast<int64_t>(std::strtoll(x.text.c_str(), nullptr, 10)));
    if (tag == "bool") return Any(x.b);
    if (tag == "float") return Any(std::strtod(x.text.c_str(), nullptr));
    if (tag == "dtype") return Any(Any(String(x.text)).cast<DataType>());
    if (tag == "node") {
      int64_t id = std::strtoll(x.text.c_str(), nullptr, 10);
      if (id < 0 || id >= static_cast<int64_t>(nodes.size())) TVM_FFI_THROW(ValueError) << "LoadJSON: bad node index";
      return Any(nodes[id]);
    }
    if (tag == "map") {
      Map<Any, Any> m;
      for (const JValue& kv : x.items) {
        if (kv.kind != JValue::kArray || kv.items.size() != 2) TVM_FFI_THROW(ValueError) << "LoadJSON: bad map item";
        m.Set(Decode(kv.items[0]), Decode(kv.items[1]));
      }
      return Any(m);
    }
    TVM_FFI_THROW(ValueError) << "LoadJSON: unknown tag " << tag;
  }

  void AddNode(const JValue& n) {
    const JValue* type = n.Get("type");
    const JValue* fields = n.Get("fields");
    if (type == nullptr || fields == nullptr) TVM_FFI_THROW(ValueError) << "LoadJSON: node without type/fields";
    int32_t ti;
    TVMFFIByteArray key{type->text.data(), type->text.size()};
    if (TVMFFITypeKeyToIndex(&key, &ti) != 0) {
      TVMFFIObjectHandle err = nullptr;
      TVMFFIErrorMoveFromRaised(&err);
      if (err) TVMFFIObjectDecRef(err);
      TVM_FFI_THROW(ValueError) << "LoadJSON: unknown type " << type->text;
    }
    ObjectRef obj = ir::CreateNode(ti);
    const std::vector<ir::FieldEntry>* fs = ir::GetFields(ti);
    if (!obj.defined() || fs == nullptr) TVM_FFI_THROW(ValueError) << "LoadJSON: " << type->text << " is not an IR node";
    char* base = reinterpret_cast<char*>(const_cast<Object*>(obj.get()));
    for (const ir::FieldEntry& f : *fs) {
      const JValue* fv = fields->Get(f.name);
      if (fv == nullptr) TVM_FFI_THROW(ValueError) << "LoadJSON: " << type->text << " lacks field " << f.name;
      f.set(base + f.offset, Decode(*fv));
    }
    nodes.push_back(obj);
  }
};

}  // namespace

std::string SaveJSON(const Any& root) {
  Writer w;
  std::string r = w.Value(root);
  return "{\"format\": \"tvm_stack.ir.json.1\",\n \"root\": " + r + ",\n \"nodes\": [" + w.nodes.str() + "\n]}\n";
}

Any LoadJSON(const std::string& text) {
  JValue doc = Parser(text).Parse();
  const JValue* fmt = doc.Get("format");
  if (fmt == nullptr || fmt->text != "tvm_stack.ir.json.1") TVM_FFI_THROW(ValueError) << "LoadJSON: unknown format";
  const JValue* nodes = doc.Get("nodes");
  const JValue* root = doc.Get("root");
  if (nodes == nullptr || root == nullptr) TVM_FFI_THROW(ValueError) << "LoadJSON: missing root/nodes";
  Reader r;
  for (const JValue& n : nodes->items) r.AddNode(n);
  return r.Decode(*root);
}

TVM_FFI_STATIC_INIT_BLOCK() {
  RegisterCompilerGlobal("ir.SaveJSON", [](Any node) { return SaveJSON(node); });
  RegisterCompilerGlobal("ir.LoadJSON", [](std::string text) { return LoadJSON(text); });
}

}  // namespace tvm
