/*
 * ReprPrint (extra/dataclass.h): the text apache-tvm-ffi prints for a value. Objects are
 * printed once per call: an object printed before reuses its text, one still being printed
 * (a cycle) shows as "...".
 */
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/extra/dataclass.h>

#include <cstdlib>
#include <iomanip>
#include <sstream>
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

const char* DeviceName(int type) {
  switch (type) {
    case 1: return "cpu";
    case 2: return "cuda";
    case 3: return "cuda_host";
    case 4: return "opencl";
    case 7: return "vulkan";
    case 8: return "metal";
    case 9: return "vpi";
    case 10: return "rocm";
    case 11: return "rocm_host";
    case 12: return "ext_dev";
    case 13: return "cuda_managed";
    case 14: return "oneapi";
    case 15: return "webgpu";
    case 16: return "hexagon";
    case 17: return "maia";
    case 18: return "trn";
    default: return "unknown";
  }
}

std::string DeviceText(DLDevice d) {
  return std::string(DeviceName(d.device_type)) + ":" + std::to_string(d.device_id);
}

std::string DTypeText(DLDataType t) {
  TVMFFIAny out;
  out.type_index = kTVMFFINone;
  out.zero_padding = 0;
  out.v_int64 = 0;
  if (TVMFFIDataTypeToString(&t, &out) != 0) throw details::MoveFromRaised();
  Any owned = Any::FromOwnedRaw(out);
  return std::string(BytesView(owned));
}

std::string Hex(uint64_t v, int width) {
  std::ostringstream os;
  os << std::hex << std::setw(width) << std::setfill('0') << v;
  return os.str();
}

/*! \brief Python-style quoted string: \n \t \r \\ \" escapes, \xNN for other controls and
 *  invalid UTF-8, \uXXXX / \UXXXXXXXX for non-ASCII code points; ANSI colour codes kept. */
std::string PyQuote(std::string_view s) {
  std::string out = "\"";
  size_t n = s.size();
  auto byte = [&](size_t i) -> unsigned { return i < n ? static_cast<unsigned char>(s[i]) : 0u; };
  size_t i = 0;
  while (i < n) {
    unsigned c = byte(i);
    if (c == 0x1b && i + 1 < n && s[i + 1] == '[') {
      size_t j = i + 2;
      while (j < n && ((s[j] >= '0' && s[j] <= '9') || s[j] == ';')) ++j;
      if (j < n && (s[j] == 'm' || s[j] == 'K')) {
        out += "\\x1b[";
        out.append(s.data() + i + 2, j - i - 1);
        i = j + 1;
        continue;
      }
    }
    switch (c) {
      case '\n': out += "\\n"; ++i; continue;
      case '\t': out += "\\t"; ++i; continue;
      case '\r': out += "\\r"; ++i; continue;
      case '\\': out += "\\\\"; ++i; continue;
      case '"': out += "\\\""; ++i; continue;
      default: break;
    }
    if (c < 0x80) {
      if (c < 0x20 || c == 0x7f) {
        out += "\\x" + Hex(c, 2);
      } else {
        out.push_back(static_cast<char>(c));
      }
      ++i;
      continue;
    }
    auto cont = [&](size_t k) { return (byte(k) & 0xC0) == 0x80; };
    if ((c & 0xE0) == 0xC0 && i + 1 < n && cont(i + 1)) {
      out += "\\u" + Hex(((c & 0x1F) << 6) | (byte(i + 1) & 0x3F), 4);
      i += 2;
    } else if ((c & 0xF0) == 0xE0 && i + 2 < n) {
      if (cont(i + 1) && cont(i + 2)) {
        out += "\\u" + Hex(((c & 0x0F) << 12) | ((byte(i + 1) & 0x3F) << 6) | (byte(i + 2) & 0x3F), 4);
        i += 3;
      } else {
        out += "\\x" + Hex(c, 2);
        ++i;
      }
    } else if ((c & 0xF8) == 0xF0 && i + 3 < n) {
      if (cont(i + 1) && cont(i + 2) && cont(i + 3)) {
        out += "\\U" + Hex(((c & 0x07) << 18) | ((byte(i + 1) & 0x3F) << 12) |
                               ((byte(i + 2) & 0x3F) << 6) | (byte(i + 3) & 0x3F),
                           8);
        i += 4;
      } else {
        out += "\\x" + Hex(c, 2);
        ++i;
      }
    } else {
      out += "\\x" + Hex(c, 2);
      ++i;
    }
  }
  out.push_back('"');
  return out;
}

std::string BytesLiteral(std::string_view s) {
  std::string out = "b\"";
  for (char ch : s) {
    unsigned c = static_cast<unsigned char>(ch);
    if (c >= 32 && c < 127 && c != '"' && c != '\\') {
      out.push_back(ch);
    } else {
      out += "\\x" + Hex(c, 2);
    }
  }
  out.push_back('"');
  return out;
}

const TVMFFIObject* GlobalSentinel(const char* name) {
  std::optional<Function> f = Function::GetGlobal(name);
  if (!f.has_value()) return nullptr;
  static thread_local Any keep;  // the sentinels are process-lifetime singletons
  keep = (*f)();
  return ObjectOf(keep);
}

class Printer {
 public:
  Printer() {
    const char* env = std::getenv("TVM_FFI_REPR_WITH_ADDR");
    with_addr_ = env != nullptr && std::string_view(env) == "1";
    static const TVMFFIObject* missing = GlobalSentinel("ffi.GetInvalidObject");
    static const TVMFFIObject* kwargs = GlobalSentinel("ffi.GetKwargsObject");
    missing_ = missing;
    kwargs_ = kwargs;
  }

  std::string Print(const Any& v, int depth = 0) {
    int32_t ti = v.type_index();
    const TVMFFIAny* raw = v.raw();
    switch (ti) {
      case kTVMFFINone: return "None";
      case kTVMFFIBool: return raw->v_int64 != 0 ? "True" : "False";
      case kTVMFFIInt: return std::to_string(raw->v_int64);
      case kTVMFFIFloat: {
        std::ostringstream os;
        os << raw->v_float64;
        return os.str();
      }
      case kTVMFFIDataType: return DTypeText(raw->v_dtype);
      case kTVMFFIDevice: return DeviceText(raw->v_device);
      case kTVMFFISmallStr: return PyQuote(BytesView(v));
      case kTVMFFISmallBytes: return BytesLiteral(BytesView(v));
      default: break;
    }
    if (ti < kTVMFFIStaticObjectBegin) return TypeKey(ti);
    const TVMFFIObject* obj = ObjectOf(v);
    if (obj == nullptr) return "None";
    auto done = cache_.find(obj);
    if (done != cache_.end()) return done->second;
    if (open_.count(obj)) return with_addr_ ? "...@" + Addr(obj) : "...";
    if (obj == missing_) return "<MISSING>";
    if (obj == kwargs_) return "<KWARGS>";
    if (ti == kTVMFFIStr) return PyQuote(BytesView(v));
    if (ti == kTVMFFIBytes) return BytesLiteral(BytesView(v));
    if (ti == kTVMFFITensor) {
      const DLTensor* t = reinterpret_cast<const DLTensor*>(reinterpret_cast<const char*>(obj) +
                                                            sizeof(TVMFFIObject));
      std::string s = DTypeText(t->dtype) + "[";
      for (int i = 0; i < t->ndim; ++i) {
        if (i > 0) s += ", ";
        s += std::to_string(t->shape[i]);
      }
      s += "]@" + DeviceText(t->device);
      if (with_addr_) s += "@" + Addr(obj);
      return s;
    }
    if (ti == kTVMFFIShape) {
      Shape shape = v.cast<Shape>();
      std::string s = "Shape(";
      for (size_t i = 0; i < shape.size(); ++i) {
        if (i > 0) s += ", ";
        s += std::to_string(shape[i]);
      }
      return s + ")";
    }
    if (depth > kMaxDepth) {
      TVM_FFI_THROW(ValueError) << "ReprPrint: maximum nesting depth (" << kMaxDepth
                                << ") exceeded";
    }
    bool container = ti == kTVMFFIArray || ti == kTVMFFIList || ti == kTVMFFIMap ||
                     ti == kTVMFFIDict;
    open_.insert(obj);
    std::string s;
    if (std::optional<Function> hook = TypeAttrFunction("__ffi_repr__", ti)) {
      Function recurse = Function::FromTyped(
          [this, depth](AnyView x) -> String { return String(Print(Any(x), depth + 1)); });
      s = std::string((*hook)(v, recurse).cast<String>().view());
    } else if (ti == kTVMFFIArray || ti == kTVMFFIList) {
      std::vector<Any> items = SequenceItems(v);
      s = ti == kTVMFFIArray ? "(" : "[";
      for (size_t i = 0; i < items.size(); ++i) {
        if (i > 0) s += ", ";
        s += Print(items[i], depth + 1);
      }
      if (ti == kTVMFFIArray && items.size() == 1) s += ",";
      s += ti == kTVMFFIArray ? ")" : "]";
    } else if (ti == kTVMFFIMap || ti == kTVMFFIDict) {
      std::vector<std::pair<Any, Any>> items = MapItems(v);
      s = "{";
      for (size_t i = 0; i < items.size(); ++i) {
        if (i > 0) s += ", ";
        s += Print(items[i].first, depth + 1);
        s += ": ";
        s += Print(items[i].second, depth + 1);
      }
      s += "}";
    } else {
      s = TypeKey(ti);
      if (with_addr_) s += "@" + Addr(obj);
      std::string body;
      std::unordered_set<std::string_view> seen;
      bool any_field = false;
      for (const TVMFFIFieldInfo* f : AllFields(ti)) {
        if (f->flags & kTVMFFIFieldFlagBitMaskReprOff) continue;
        any_field = true;
        std::string text = Print(GetField(f, obj), depth + 1);
        if (!seen.insert(FieldName(f)).second) continue;
        if (!body.empty()) body += ", ";
        body += std::string(FieldName(f)) + "=" + text;
      }
      if (any_field) s += "(" + body + ")";
    }
    if (with_addr_ && container) s += "@" + Addr(obj);
    open_.erase(obj);
    cache_[obj] = s;
    return s;
  }

 private:
  static std::string Addr(const TVMFFIObject* obj) {
    std::ostringstream os;
    os << "0x" << std::hex << reinterpret_cast<uintptr_t>(obj);
    return os.str();
  }

  bool with_addr_ = false;
  const TVMFFIObject* missing_ = nullptr;
  const TVMFFIObject* kwargs_ = nullptr;
  std::unordered_set<const TVMFFIObject*> open_;
  std::unordered_map<const TVMFFIObject*, std::string> cache_;
};

}  // namespace

String ReprPrint(const Any& value) { return String(Printer().Print(value)); }

TVM_FFI_STATIC_INIT_BLOCK() {
  internal::RegisterBuiltin("ffi.ReprPrint", [](Any value) -> String { return ReprPrint(value); });
}

}  // namespace ffi
}  // namespace tvm
