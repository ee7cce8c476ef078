/*
 * The text printer's dispatch ("ir.AsText", AsText in tvm/ir/structural.h).
 *
 * This layer prints what every dialect shares (None, numbers, strings, dtypes, arrays, maps,
 * IRModule) and knows no dialect's nodes: each dialect registers a printer for its base node
 * types from its own folder (src/tir/printer.cc, src/relax/ir/printer.cc). A node is printed
 * by the printer registered for its type or its nearest registered ancestor; a node without
 * one prints generically from its reflected fields, `Type(field=..., ...)`.
 */
#ifndef TVM_IR_PRINTER_H_
#define TVM_IR_PRINTER_H_

#include <tvm/ffi/object.h>

#include <cstdint>
#include <string>

namespace tvm {
namespace ir {

/*!
 * \brief Text of `node`. `name` is the name the node has in its IRModule when the module
 * prints its functions, "main" when the node is printed alone.
 */
using NodePrinter = std::string (*)(const ffi::ObjectRef& node, const std::string& name);

/*! \brief Prints `type_index` and the types derived from it (at static-init time). */
void RegisterNodePrinter(int32_t type_index, NodePrinter printer);

/*! \brief `Type(field=value, ...)` from the reflected fields (values printed by AsText). */
std::string GenericText(const ffi::ObjectRef& node);

}  // namespace ir
}  // namespace tvm
#endif  // TVM_IR_PRINTER_H_
