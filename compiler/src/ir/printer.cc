/*
 * Text printer ("ir.AsText"): the values every dialect shares, IRModule, and the dispatch to
 * the printers the dialects register (tvm/ir/printer.h). Nodes nobody prints render from
 * their reflected fields: `Type(field=..., ...)`.
 */
#include <tvm/ir/module.h>
#include <tvm/ir/printer.h>
#include <tvm/ir/reflection.h>
#include <tvm/ir/structural.h>

#include <sstream>
#include <unordered_map>

#include "../support/registry.h"

namespace tvm {
namespace {

std::unordered_map<int32_t, ir::NodePrinter>& Printers() {
  static std::unordered_map<int32_t, ir::NodePrinter> printers;
  return printers;
}

/*! \brief The printer of `type_index` or of its nearest ancestor that has one; else null. */
ir::NodePrinter FindPrinter(int32_t type_index) {
  const auto& printers = Printers();
  auto it = printers.find(type_index);
  if (it != printers.end()) return it->second;
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(type_index);
  for (int32_t d = info->type_depth - 1; d >= 0; --d) {
    it = printers.find(info->type_ancestors[d]->type_index);
    if (it != printers.end()) return it->second;
  }
  return nullptr;
}

std::string PrintNode(const ObjectRef& o, const std::string& name) {
  if (ir::NodePrinter p = FindPrinter(o->type_index())) return p(o, name);
  return ir::GenericText(o);
}

void PrintAny(std::ostringstream& os, const Any& v) {
  switch (v.type_index()) {
    case kTVMFFINone: os << "None"; return;
    case kTVMFFIInt: os << v.cast<int64_t>(); return;
    case kTVMFFIBool: os << (v.cast<bool>() ? "True" : "False"); return;
    case kTVMFFIFloat: os << v.cast<double>(); return;
    case kTVMFFIDataType: os << '"' << DTypeToString(v.cast<DataType>()) << '"'; return;
    case kTVMFFISmallStr:
    case kTVMFFIStr: os << '"' << v.cast<std::string>() << '"'; return;
    default: break;
  }
  if (auto arr = v.as<Array<Any>>()) {
    os << "[";
    bool first = true;
    for (const Any& x : *arr) {
      if (!first) os << ", ";
      first = false;
      PrintAny(os, x);
    }
    os << "]";
    return;
  }
  if (auto m = v.as<Map<Any, Any>>()) {
    os << "{";
    bool first = true;
    for (const auto& kv : *m) {
      if (!first) os << ", ";
      first = false;
      PrintAny(os, kv.first);
      os << ": ";
      PrintAny(os, kv.second);
    }
    os << "}";
    return;
  }
  if (auto o = v.as<ObjectRef>()) {
    os << PrintNode(*o, "main");
    return;
  }
  os << "<" << v.GetTypeKey() << ">";
}

/*! \brief Each function under its name, by the printer of its dialect. */
std::string PrintModule(const ObjectRef& node, const std::string&) {
  const IRModuleNode* m = node.as<IRModuleNode>();
  std::string out = "# IRModule\n";
  for (const auto& kv : m->functions) out += PrintNode(kv.second, std::string(kv.first));
  return out;
}

}  // namespace

namespace ir {

void RegisterNodePrinter(int32_t type_index, NodePrinter printer) { Printers()[type_index] = printer; }

std::string GenericText(const ObjectRef& o) {
  std::ostringstream os;
  os << o.GetTypeKey() << "(";
  const std::vector<FieldEntry>* fields = GetFields(o.type_index());
  if (fields != nullptr) {
    bool first = true;
    for (const FieldEntry& f : *fields) {
      if (!first) os << ", ";
      first = false;
      os << f.name << "=";
      PrintAny(os, ReadField(o.get(), f));
    }
  }
  os << ")";
  return os.str();
}

}  // namespace ir

std::string AsText(const Any& node) {
  std::ostringstream os;
  PrintAny(os, node);
  return os.str();
}

TVM_FFI_STATIC_INIT_BLOCK() {
  ir::RegisterNodePrinter(IRModuleNode::RuntimeTypeIndex(), PrintModule);
  RegisterCompilerGlobal("ir.AsText", [](Any node) { return AsText(node); });
}

}  // namespace tvm
