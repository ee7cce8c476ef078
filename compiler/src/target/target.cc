/*
 * Target parsing and printing ("target.Target", "target.TargetStr").
 */
#include <tvm/ffi/error.h>
#include <tvm/ir/reflection.h>
#include <tvm/target/target.h>

#include <sstream>
#include <vector>

#include "../support/registry.h"

namespace tvm {

std::string TargetNode::Attr(const std::string& key, const std::string& fallback) const {
  std::optional<ffi::String> v = attrs.Get(ffi::String(key));
  return v.has_value() ? std::string(*v) : fallback;
}

Target Target::Parse(const std::string& text) {
  std::istringstream is(text);
  std::vector<std::string> parts;
  for (std::string p; is >> p;) parts.push_back(p);
  if (parts.empty()) TVM_FFI_THROW(ValueError) << "empty target string";
  ffi::ObjectPtr<TargetNode> n = ffi::make_object<TargetNode>();
  n->kind = ffi::String(parts[0]);
  if (parts[0] != "llvm" && parts[0] != "c" && parts[0] != "cuda" && parts[0] != "nvptx") {
    TVM_FFI_THROW(ValueError) << "target kind " << parts[0]
                              << " is not supported by this compiler (llvm, c, cuda, nvptx)";
  }
  for (size_t i = 1; i < parts.size(); ++i) {
    const std::string& p = parts[i];
    if (p.size() < 2 || p[0] != '-') TVM_FFI_THROW(ValueError) << "bad target option '" << p << "' in '" << text << "'";
    size_t start = p.find_first_not_of('-');
    size_t eq = p.find('=');
    std::string key = p.substr(start, eq == std::string::npos ? std::string::npos : eq - start);
    std::string value = eq == std::string::npos ? "true" : p.substr(eq + 1);
    if (key.empty()) TVM_FFI_THROW(ValueError) << "bad target option '" << p << "'";
    n->attrs.Set(ffi::String(key), ffi::String(value));
  }
  if (n->IsDevice()) {
    // TVM spells the GPU architecture -arch for cuda and -mcpu for nvptx; keep both readable.
    std::string arch = n->Attr("arch", n->Attr("mcpu", "sm_80"));
    if (arch.rfind("sm_", 0) != 0 || arch.size() < 5 ||
        arch.find_first_not_of("0123456789", 3) < arch.size() - (arch.back() == 'a' ? 1 : 0)) {
      TVM_FFI_THROW(ValueError) << "target " << text << ": GPU architecture '" << arch
                                << "' is not of the form sm_XY (e.g. sm_80, sm_90a)";
    }
    n->attrs.Set(ffi::String("arch"), ffi::String(arch));
    n->host = Target::Parse("llvm");
  }
  return Target(n);
}

Target Target::WithHost(const Target& device, const Target& host) {
  if (!device->IsDevice()) {
    TVM_FFI_THROW(ValueError) << "target " << device.str() << " is a host target; only device "
                              << "targets (cuda, nvptx) take a host";
  }
  if (host->IsDevice()) TVM_FFI_THROW(ValueError) << "host target " << host.str() << " is a device target";
  ffi::ObjectPtr<TargetNode> n = ffi::make_object<TargetNode>();
  n->kind = device->kind;
  n->attrs = device->attrs;
  n->host = host;
  return Target(n);
}

std::string Target::str() const {
  std::string out(get()->kind);
  for (const auto& kv : get()->attrs) out += " -" + std::string(kv.first) + "=" + std::string(kv.second);
  return out;
}

TVM_FFI_STATIC_INIT_BLOCK() {
  ir::Reflect<TargetNode>()
      .Field("kind", &TargetNode::kind)
      .Field("attrs", &TargetNode::attrs)
      .Field("host", &TargetNode::host);
  RegisterCompilerGlobal("target.TargetWithHost", [](Target t, Target h) { return Target::WithHost(t, h); });
  RegisterCompilerGlobal("target.Target", [](std::string text) { return Target::Parse(text); });
  RegisterCompilerGlobal("target.TargetStr", [](Target t) { return t.str(); });
}

}  // namespace tvm
