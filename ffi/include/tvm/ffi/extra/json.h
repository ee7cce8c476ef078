/*
 * JSON text <-> ffi values. A JSON value is an Any: null/true/false, int64 (integers that fit),
 * double (also NaN, Infinity, -Infinity as in JavaScript), String, Array<Any> (arrays) and
 * Map<Any, Any> (objects, keys are Strings, insertion order kept).
 */
#ifndef TVM_FFI_EXTRA_JSON_H_
#define TVM_FFI_EXTRA_JSON_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/extra/base.h>
#include <tvm/ffi/optional.h>
#include <tvm/ffi/string.h>

namespace tvm {
namespace ffi {
namespace json {

/*! \brief A JSON value. */
using Value = Any;
/*! \brief A JSON object. */
using Object = ffi::Map<Any, Any>;
/*! \brief A JSON array. */
using Array = ffi::Array<Any>;

/*!
 * \brief Parses JSON text.
 * \param json_str The text.
 * \param error_msg When not NULL, a failure stores its message here ("" on success) and
 *        returns None instead of throwing ValueError. Messages name the position:
 *        "Expecting value: line 1 column 4 (char 3)".
 */
TVM_FFI_EXTRA_CXX_API json::Value Parse(const String& json_str, String* error_msg = nullptr);

/*!
 * \brief Writes a JSON value as text: compact without indent, else one item per line indented
 *        by `indent` spaces per level. Floats keep 17 significant digits; integral floats end
 *        in ".0". ValueError for values JSON cannot hold (non-string keys, other types, a List
 *        containing itself).
 */
TVM_FFI_EXTRA_CXX_API String Stringify(const json::Value& value,
                                       const Optional<int>& indent = std::nullopt);

}  // namespace json
}  // namespace ffi
}  // namespace tvm
#endif  // TVM_FFI_EXTRA_JSON_H_
