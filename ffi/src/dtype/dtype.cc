/*
 * dtype text <-> DLDataType, with the spellings of the ABI (e.g. "float32x4", "bfloat16",
 * "float8_e4m3fn", "bool", "handle", "int8xvscalex4").
 */
#include <tvm/ffi/any.h>

#include <cstring>
#include <string>
#include <string_view>

namespace tvm {
namespace ffi {
namespace {

/*! \brief Names of the codes that print without a bit count (fp8/fp6/fp4 families). */
struct NamedCode {
  const char* name;
  uint8_t code;
  uint8_t bits;
};
constexpr NamedCode kMiniFloats[] = {
    {"float8_e3m4", kDLFloat8_e3m4, 8},       {"float8_e4m3", kDLFloat8_e4m3, 8},
    {"float8_e4m3b11fnuz", kDLFloat8_e4m3b11fnuz, 8}, {"float8_e4m3fn", kDLFloat8_e4m3fn, 8},
    {"float8_e4m3fnuz", kDLFloat8_e4m3fnuz, 8}, {"float8_e5m2", kDLFloat8_e5m2, 8},
    {"float8_e5m2fnuz", kDLFloat8_e5m2fnuz, 8}, {"float8_e8m0fnu", kDLFloat8_e8m0fnu, 8},
    {"float6_e2m3fn", kDLFloat6_e2m3fn, 6},     {"float6_e3m2fn", kDLFloat6_e3m2fn, 6},
    {"float4_e2m1fn", kDLFloat4_e2m1fn, 4},
};

const char* BitsCodeName(uint8_t code) {
  switch (code) {
    case kDLInt: return "int";
    case kDLUInt: return "uint";
    case kDLFloat: return "float";
    case kDLBfloat: return "bfloat";
    case kDLBool: return "bool";
    default: return nullptr;
  }
}

std::string ToText(const DLDataType& t) {
  if (t.code == kDLBool && t.bits == 8 && t.lanes == 1) return "bool";
  if (t.code == kDLOpaqueHandle) {
    if (t.bits == 0 && t.lanes == 0) return "";
    return "handle";
  }
  std::string out;
  if (const char* name = BitsCodeName(t.code)) {
    out = name;
    if (!(t.code == kDLBool && t.bits == 8)) out += std::to_string(t.bits);
  } else {
    for (const NamedCode& m : kMiniFloats) {
      if (m.code == t.code) out = m.name;
    }
    if (out.empty()) {
      TVM_FFI_THROW(ValueError) << "DLDataType contains unknown type_code=" << static_cast<int>(t.code);
    }
  }
  int16_t lanes = static_cast<int16_t>(t.lanes);
  if (lanes > 1) {
    out += "x" + std::to_string(lanes);
  } else if (lanes < -1) {
    out += "xvscalex" + std::to_string(-lanes);
  }
  return out;
}

bool ParseUInt(std::string_view s, uint64_t max, uint64_t* out) {
  if (s.empty() || s.size() > 20) return false;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<uint64_t>(c - '0');
    if (v > max) return false;
  }
  *out = v;
  return true;
}

[[noreturn]] void Unknown(std::string_view text) {
  TVM_FFI_THROW(ValueError) << "unknown dtype `" << text << "`";
}

/*! \brief Splits the lanes suffix ("x4", "xvscalex4", "_x2" after fp4 names) off `body`. */
int32_t ParseLanes(std::string_view text, std::string_view* body) {
  size_t pos = body->find("xvscalex");
  if (pos != std::string_view::npos) {
    uint64_t n;
    if (!ParseUInt(body->substr(pos + 8), 32767, &n) || n == 0) Unknown(text);
    *body = body->substr(0, pos);
    return -static_cast<int32_t>(n);
  }
  pos = body->rfind('x');
  if (pos != std::string_view::npos && pos + 1 < body->size()) {
    uint64_t n;
    // Lanes print as a signed 16-bit count (negative = scalable), so 32767 is the most.
    if (ParseUInt(body->substr(pos + 1), 32767, &n)) {
      if (n == 0) Unknown(text);
      *body = body->substr(0, pos);
      if (!body->empty() && body->back() == '_') body->remove_suffix(1);
      return static_cast<int32_t>(n);
    }
  }
  return 1;
}

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

DLDataType FromText(std::string_view text) {
  DLDataType t{kDLOpaqueHandle, 0, 0};
  if (text.empty() || text == "void") return t;
  std::string_view body = text;
  int32_t lanes = ParseLanes(text, &body);
  t.lanes = static_cast<uint16_t>(static_cast<int16_t>(lanes));
  if (body == "bool") {
    t.code = kDLBool;
    t.bits = 8;
    return t;
  }
  if (body == "handle") {
    t.code = kDLOpaqueHandle;
    t.bits = 64;
    return t;
  }
  // Normalise the short spellings of the fp8/fp6/fp4 families.
  std::string canon(body);
  for (const char* alias : {"fp8_", "f8_"}) {
    if (StartsWith(body, alias)) canon = "float8_" + std::string(body.substr(std::strlen(alias)));
  }
  for (const char* alias : {"fp6_", "f6_"}) {
    if (StartsWith(body, alias)) canon = "float6_" + std::string(body.substr(std::strlen(alias)));
  }
  for (const char* alias : {"fp4_", "f4_"}) {
    if (StartsWith(body, alias)) canon = "float4_" + std::string(body.substr(std::strlen(alias)));
  }
  for (const NamedCode& m : kMiniFloats) {
    if (canon == m.name) {
      t.code = m.code;
      t.bits = m.bits;
      return t;
    }
  }
  struct Prefix {
    const char* text;
    uint8_t code;
    uint8_t default_bits;
  };
  // Longest prefixes first so "uint" is not read as "u" + "int".
  static const Prefix kPrefixes[] = {{"bfloat", kDLBfloat, 16}, {"float", kDLFloat, 32},
                                     {"uint", kDLUInt, 32},     {"int", kDLInt, 32},
                                     {"bool", kDLBool, 8},      {"bf", kDLBfloat, 16},
                                     {"i", kDLInt, 32},         {"u", kDLUInt, 32},
                                     {"f", kDLFloat, 32}};
  for (const Prefix& p : kPrefixes) {
    if (!StartsWith(body, p.text)) continue;
    std::string_view bits_text = body.substr(std::strlen(p.text));
    t.code = p.code;
    if (bits_text.empty()) {
      t.bits = p.default_bits;
      return t;
    }
    uint64_t bits;
    if (!ParseUInt(bits_text, 255, &bits) || bits == 0) Unknown(text);
    t.bits = static_cast<uint8_t>(bits);
    return t;
  }
  Unknown(text);
}

}  // namespace
}  // namespace ffi
}  // namespace tvm

extern "C" {

int TVMFFIDataTypeFromString(const TVMFFIByteArray* str, DLDataType* out) {
  TVM_FFI_SAFE_CALL_BEGIN();
  TVM_FFI_CHECK(str != nullptr && out != nullptr, ValueError) << "null argument";
  TVM_FFI_CHECK(str->data != nullptr || str->size == 0, ValueError) << "null data";
  *out = tvm::ffi::FromText(std::string_view(str->data, str->size));
  TVM_FFI_SAFE_CALL_END();
}

int TVMFFIDataTypeToString(const DLDataType* dtype, TVMFFIAny* out) {
  TVM_FFI_SAFE_CALL_BEGIN();
  TVM_FFI_CHECK(dtype != nullptr && out != nullptr, ValueError) << "null argument";
  std::string text = tvm::ffi::ToText(*dtype);
  tvm::ffi::details::MakeBytesValue<tvm::ffi::StringObj>(text.data(), text.size(),
                                                        kTVMFFISmallStr, out);
  TVM_FFI_SAFE_CALL_END();
}

}  // extern "C"
