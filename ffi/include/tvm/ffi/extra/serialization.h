/*
 * Object graphs as JSON values (apache-tvm-ffi's format, so either library reads what the
 * other wrote):
 *
 *   {"root_index": <int>, "nodes": [<node>, ...], "metadata": <any, only when given>}
 *
 * Each node is {"type": "<type key>", "data": ...}: None has no data; bool/int/float their
 * value; DataType its string; Device [type, id]; ffi.String the text; ffi.Bytes base64;
 * Array/List the node indices of the items; Map/Dict alternating key and value indices;
 * ffi.Shape the dims; a reflected object {field: value} where int/bool/float/DataType/None
 * typed fields are inline and any other field is a node index. Equal strings and POD values
 * and the same object share one node.
 */
#ifndef TVM_FFI_EXTRA_SERIALIZATION_H_
#define TVM_FFI_EXTRA_SERIALIZATION_H_

#include <tvm/ffi/extra/base.h>
#include <tvm/ffi/extra/json.h>

namespace tvm {
namespace ffi {

/*!
 * \brief Serialises a value and everything reachable from it (shared objects stay shared).
 * \param value The value.
 * \param metadata Stored under "metadata" unless None.
 */
TVM_FFI_EXTRA_CXX_API json::Value ToJSONGraph(const Any& value,
                                              const Any& metadata = Any(nullptr));

/*! \brief Rebuilds the value ToJSONGraph serialised (ValueError/TypeError on malformed input). */
TVM_FFI_EXTRA_CXX_API Any FromJSONGraph(const json::Value& value);

}  // namespace ffi
}  // namespace tvm
#endif  // TVM_FFI_EXTRA_SERIALIZATION_H_
