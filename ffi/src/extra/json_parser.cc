/*
 * json::Parse: JSON text -> ffi values (extra/json.h). A recursive-descent reader over the
 * bytes of the String; errors carry Python json-module style messages with line, column and
 * character offset, the text apache-tvm-ffi produces for the same input.
 */
#include <tvm/ffi/extra/json.h>

#include <cerrno>
#include <cinttypes>
#include <cstdlib>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "../support/internal.h"

namespace tvm {
namespace ffi {
namespace json {
namespace {

/*! \brief Nesting deeper than this is refused (an error, not a stack overflow). */
constexpr int kMaxDepth = 1000;

class Reader {
 public:
  explicit Reader(const String& text)
      : text_(text), begin_(text_.data()), pos_(begin_), end_(begin_ + text_.size()),
        line_begin_(begin_) {}

  bool ReadDocument(Any* out) {
    if (!ReadValue(out, 0)) return false;
    SkipWhitespace();
    if (pos_ != end_) return Fail("Extra data");
    return true;
  }

  std::string Message() {
    if (message_.empty()) Fail("Syntax error near");
    return message_;
  }

 private:
  int Peek() const { return pos_ == end_ ? -1 : static_cast<unsigned char>(*pos_); }

  void SkipWhitespace() {
    for (; pos_ != end_; ++pos_) {
      char c = *pos_;
      if (c == '\n') {
        ++line_;
        line_begin_ = pos_ + 1;
      } else if (c != ' ' && c != '\t' && c != '\r') {
        break;
      }
    }
  }

  /*! \brief Records an error at the current position; always false. */
  bool Fail(const char* what) {
    message_ = std::string(what) + ": line " + std::to_string(line_) + " column " +
               std::to_string(pos_ - line_begin_ + 1) + " (char " +
               std::to_string(pos_ - begin_) + ")";
    return false;
  }
  bool FailAt(const char* at, const char* what) {
    pos_ = at;
    return Fail(what);
  }

  /*! \brief Consumes `word` if the input continues with it (advancing over the matched part). */
  bool Consume(const char* word) {
    for (; *word != '\0'; ++word, ++pos_) {
      if (pos_ == end_ || *pos_ != *word) return false;
    }
    return true;
  }

  bool ReadValue(Any* out, int depth) {
    SkipWhitespace();
    const char* start = pos_;
    switch (Peek()) {
      case -1:
        return Fail("Expecting value");
      case '{':
        return ReadObject(out, depth + 1);
      case '[':
        return ReadArray(out, depth + 1);
      case '"':
        return ReadString(out);
      case 't':
        if (Consume("true")) { *out = true; return true; }
        return FailAt(start, "Expecting value");
      case 'f':
        if (Consume("false")) { *out = false; return true; }
        return FailAt(start, "Expecting value");
      case 'n':
        if (Consume("null")) { *out = nullptr; return true; }
        return FailAt(start, "Expecting value");
      default:
        return ReadNumber(out);
    }
  }

  bool ReadArray(Any* out, int depth) {
    if (depth > kMaxDepth) return Fail("Maximum nesting depth exceeded");
    ++pos_;  // '['
    SkipWhitespace();
    if (Peek() == -1) return Fail("Expecting value");
    std::vector<Any> items;
    if (Peek() == ']') {
      ++pos_;
      *out = json::Array();
      return true;
    }
    while (Peek() != -1) {
      Any item;
      if (!ReadValue(&item, depth)) return false;
      items.push_back(std::move(item));
      SkipWhitespace();
      int c = Peek();
      if (c == ']') {
        ++pos_;
        *out = json::Array(items.begin(), items.end());
        return true;
      }
      if (c != ',') return Fail("Expecting ',' delimiter");
      ++pos_;
      SkipWhitespace();
    }
    return false;  // input ended after ',': "Syntax error near"
  }

  bool ReadObject(Any* out, int depth) {
    if (depth > kMaxDepth) return Fail("Maximum nesting depth exceeded");
    ++pos_;  // '{'
    SkipWhitespace();
    if (Peek() == -1) return Fail("Expecting property name enclosed in double quotes");
    if (Peek() == '}') {
      ++pos_;
      *out = json::Object();
      return true;
    }
    std::vector<std::pair<Any, Any>> items;
    while (Peek() != -1) {
      if (Peek() != '"') return Fail("Expecting property name enclosed in double quotes");
      Any key;
      if (!ReadString(&key)) return false;
      SkipWhitespace();
      if (Peek() != ':') return Fail("Expecting ':' delimiter");
      ++pos_;
      Any value;
      if (!ReadValue(&value, depth)) return false;
      items.emplace_back(std::move(key), std::move(value));
      SkipWhitespace();
      int c = Peek();
      if (c == '}') {
        ++pos_;
        *out = json::Object(items.begin(), items.end());
        return true;
      }
      if (c != ',') return Fail("Expecting ',' delimiter");
      ++pos_;
      SkipWhitespace();
    }
    return false;
  }

  bool ReadHex4(int32_t* out) {
    int32_t v = 0;
    for (int i = 0; i < 4; ++i, ++pos_) {
      if (pos_ == end_) return false;
      char c = *pos_;
      int d;
      if (c >= '0' && c <= '9') {
        d = c - '0';
      } else if (c >= 'a' && c <= 'f') {
        d = c - 'a' + 10;
      } else if (c >= 'A' && c <= 'F') {
        d = c - 'A' + 10;
      } else {
        return false;
      }
      v = v * 16 + d;
    }
    *out = v;
    return true;
  }

  static void AppendUtf8(std::string* s, int32_t cp) {
    if (cp < 0x80) {
      s->push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      s->push_back(static_cast<char>(0xC0 | (cp >> 6)));
      s->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      s->push_back(static_cast<char>(0xE0 | (cp >> 12)));
      s->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      s->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      s->push_back(static_cast<char>(0xF0 | (cp >> 18)));
      s->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      s->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      s->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }

  bool ReadString(Any* out) {
    const char* start = pos_;
    ++pos_;  // opening quote
    std::string s;
    while (pos_ != end_) {
      unsigned char c = static_cast<unsigned char>(*pos_);
      if (c == '"') {
        ++pos_;
        *out = String(std::move(s));
        return true;
      }
      if (c < 0x20) return Fail("Invalid control character at");
      if (c != '\\') {
        s.push_back(static_cast<char>(c));
        ++pos_;
        continue;
      }
      ++pos_;  // backslash
      int e = Peek();
      switch (e) {
        case '"': s.push_back('"'); ++pos_; break;
        case '\\': s.push_back('\\'); ++pos_; break;
        case '/': s.push_back('/'); ++pos_; break;
        case 'b': s.push_back('\b'); ++pos_; break;
        case 'f': s.push_back('\f'); ++pos_; break;
        case 'n': s.push_back('\n'); ++pos_; break;
        case 'r': s.push_back('\r'); ++pos_; break;
        case 't': s.push_back('\t'); ++pos_; break;
        case 'u': {
          const char* at = pos_;
          ++pos_;
          int32_t hi;
          if (!ReadHex4(&hi)) return FailAt(at, "Invalid \\uXXXX escape");
          int32_t cp = hi;
          if (hi >= 0xD800 && hi <= 0xDFFF) {
            if (hi >= 0xDC00 || !Consume("\\u")) {
              return FailAt(at, "Invalid surrogate pair of \\uXXXX escapes");
            }
            at = pos_;
            int32_t lo;
            if (!ReadHex4(&lo)) return FailAt(at, "Invalid \\uXXXX escape");
            if (lo < 0xDC00 || lo > 0xDFFF) {
              return FailAt(at, "Invalid surrogate pair of \\uXXXX escapes");
            }
            cp = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
          }
          AppendUtf8(&s, cp);
          break;
        }
        default:
          return Fail("Invalid \\escape");
      }
    }
    return FailAt(start, "Unterminated string starting at");
  }

  bool ReadNumber(Any* out) {
    const char* start = pos_;
    std::string digits;
    if (Peek() == '-') {
      digits.push_back('-');
      ++pos_;
      if (Peek() == 'I') {
        if (Consume("Infinity")) {
          *out = -std::numeric_limits<double>::infinity();
          return true;
        }
        return FailAt(start, "Expecting value");
      }
    } else if (Peek() == 'I') {
      if (Consume("Infinity")) {
        *out = std::numeric_limits<double>::infinity();
        return true;
      }
      return FailAt(start, "Expecting value");
    } else if (Peek() == 'N') {
      if (Consume("NaN")) {
        *out = std::numeric_limits<double>::quiet_NaN();
        return true;
      }
      return FailAt(start, "Expecting value");
    }
    bool integral = true;
    for (; pos_ != end_; ++pos_) {
      char c = *pos_;
      bool digit = c >= '0' && c <= '9';
      if (!(digit || c == 'e' || c == 'E' || c == '+' || c == '-' || c == '.')) break;
      if (c == '.' || c == 'e' || c == 'E') integral = false;
      digits.push_back(c);
    }
    if (digits.empty()) return Fail("Expecting value");
    const char* first = digits.c_str();
    const char* last = first + digits.size();
    char* stop = nullptr;
    if (integral) {
      errno = 0;
      intmax_t v = std::strtoimax(first, &stop, 10);
      if (errno == 0 && stop == last && v >= std::numeric_limits<int64_t>::min() &&
          v <= std::numeric_limits<int64_t>::max()) {
        *out = static_cast<int64_t>(v);
        return true;
      }
    }
    errno = 0;
    double d = std::strtod(first, &stop);
    if (errno == 0 && stop == last) {
      *out = d;
      return true;
    }
    return FailAt(start, "Expecting value");
  }

  String text_;  // keeps the bytes alive
  const char* begin_;
  const char* pos_;
  const char* end_;
  const char* line_begin_;
  int64_t line_ = 1;
  std::string message_;
};

}  // namespace

json::Value Parse(const String& json_str, String* error_msg) {
  Reader reader(json_str);
  Any result;
  if (reader.ReadDocument(&result)) {
    if (error_msg != nullptr) *error_msg = String("");
    return result;
  }
  std::string message = reader.Message();
  if (error_msg == nullptr) TVM_FFI_THROW(ValueError) << message;
  *error_msg = String(message);
  return Any(nullptr);
}

TVM_FFI_STATIC_INIT_BLOCK() {
  internal::RegisterBuiltin("ffi.json.Parse",
                            [](const String& text) -> Any { return json::Parse(text); });
}

}  // namespace json
}  // namespace ffi
}  // namespace tvm
