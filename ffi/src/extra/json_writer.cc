/*
 * json::Stringify: ffi values -> JSON text (extra/json.h). Same text as apache-tvm-ffi for the
 * same value: "%.17g" floats, ".0" on integral floats below 2^53, NaN/Infinity literals,
 * "\/" and \u00XX escapes, UTF-8 passed through, `indent` spaces per level with ": " after
 * keys.
 */
#include <tvm/ffi/extra/json.h>

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <string>
#include <unordered_set>

#include "../support/internal.h"
#include "reflection_util.h"

namespace tvm {
namespace ffi {
namespace json {
namespace {

class Writer {
 public:
  explicit Writer(int indent) : indent_(indent) {}

  void Write(const Any& v) {
    int32_t ti = v.type_index();
    switch (ti) {
      case kTVMFFINone:
        out_ += "null";
        return;
      case kTVMFFIBool:
        out_ += v.raw()->v_int64 != 0 ? "true" : "false";
        return;
      case kTVMFFIInt: {
        char buf[32];
        int n = std::snprintf(buf, sizeof(buf), "%" PRId64, v.raw()->v_int64);
        out_.append(buf, n);
        return;
      }
      case kTVMFFIFloat:
        WriteFloat(v.raw()->v_float64);
        return;
      case kTVMFFISmallStr:
      case kTVMFFIStr:
        WriteString(extra_detail::BytesView(v));
        return;
      case kTVMFFIArray:
        WriteSequence(v.cast<ffi::Array<Any>>());
        return;
      case kTVMFFIList: {
        const void* p = v.raw()->v_obj;
        if (!open_lists_.insert(p).second) {
          TVM_FFI_THROW(ValueError) << "Cycle detected: List contains itself";
        }
        WriteSequence(v.cast<ffi::List<Any>>());
        open_lists_.erase(p);
        return;
      }
      case kTVMFFIMap:
        WriteObject(v.cast<ffi::Map<Any, Any>>());
        return;
      default:
        TVM_FFI_THROW(ValueError) << "Unsupported type: `" << extra_detail::TypeKey(ti) << "`";
    }
  }

  std::string& text() { return out_; }

 private:
  void NewLine() {
    out_.push_back('\n');
    if (level_ > 0) out_.append(static_cast<size_t>(level_), ' ');
  }

  void WriteFloat(double d) {
    if (std::isnan(d)) {
      out_ += "NaN";
    } else if (std::isinf(d)) {
      out_ += d < 0 ? "-Infinity" : "Infinity";
    } else {
      char buf[40];
      double whole;
      int n;
      if (std::fabs(d) < 9007199254740992.0 && std::modf(d, &whole) == 0) {
        n = std::snprintf(buf, sizeof(buf), "%.1f", whole);
      } else {
        n = std::snprintf(buf, sizeof(buf), "%.17g", d);
      }
      out_.append(buf, n);
    }
  }

  void WriteString(std::string_view s) {
    out_.push_back('"');
    for (char ch : s) {
      unsigned char c = static_cast<unsigned char>(ch);
      switch (ch) {
        case '"': out_ += "\\\""; break;
        case '\\': out_ += "\\\\"; break;
        case '/': out_ += "\\/"; break;
        case '\b': out_ += "\\b"; break;
        case '\f': out_ += "\\f"; break;
        case '\n': out_ += "\\n"; break;
        case '\r': out_ += "\\r"; break;
        case '\t': out_ += "\\t"; break;
        default:
          if (c < 0x20 || c == 0x7f) {
            char buf[8];
            int n = std::snprintf(buf, sizeof(buf), "\\u%04x", c);
            out_.append(buf, n);
          } else {
            out_.push_back(ch);
          }
      }
    }
    out_.push_back('"');
  }

  template <typename Seq>
  void WriteSequence(const Seq& seq) {
    out_.push_back('[');
    level_ += indent_;
    size_t i = 0;
    for (const Any& item : seq) {
      if (i++ != 0) out_.push_back(',');
      if (indent_ != 0) NewLine();
      Write(item);
    }
    level_ -= indent_;
    if (indent_ != 0) NewLine();
    out_.push_back(']');
  }

  void WriteObject(const ffi::Map<Any, Any>& map) {
    out_.push_back('{');
    level_ += indent_;
    size_t i = 0;
    for (const auto& kv : map) {
      if (i++ != 0) out_.push_back(',');
      if (indent_ != 0) NewLine();
      const Any& key = kv.first;
      if (!extra_detail::IsStr(key.type_index())) {
        TVM_FFI_THROW(ValueError) << "Expect key to be string, got `"
                                  << extra_detail::TypeKey(key.type_index()) << "`";
      }
      WriteString(extra_detail::BytesView(key));
      out_.push_back(':');
      if (indent_ != 0) out_.push_back(' ');
      Write(kv.second);
    }
    level_ -= indent_;
    if (indent_ != 0) NewLine();
    out_.push_back('}');
  }

  int indent_;
  int level_ = 0;
  std::string out_;
  std::unordered_set<const void*> open_lists_;
};

}  // namespace

String Stringify(const json::Value& value, const Optional<int>& indent) {
  Writer writer(indent.has_value() ? indent.value() : 0);
  writer.Write(value);
  return String(writer.text());
}

TVM_FFI_STATIC_INIT_BLOCK() {
  internal::RegisterBuiltin("ffi.json.Stringify",
                            [](Any value, Optional<int> indent) -> String {
                              return Stringify(value, indent);
                            });
}

}  // namespace json
}  // namespace ffi
}  // namespace tvm
