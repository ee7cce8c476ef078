/*
 * DISCO_CHECK(cond, Kind) << "message": throws Kind with just the message. Disco's checks
 * guard user input, so the message is the error (TVM_FFI_CHECK would prefix the C++
 * condition text, which means nothing to a Python caller).
 */
#ifndef TVM_RUNTIME_EXTRA_SRC_DISCO_CHECK_H_
#define TVM_RUNTIME_EXTRA_SRC_DISCO_CHECK_H_

#include <tvm/ffi/error.h>

#define DISCO_CHECK(cond, ErrorKind) \
  if (TVM_FFI_LIKELY(cond)) {        \
  } else                             \
    TVM_FFI_THROW(ErrorKind)

#endif  // TVM_RUNTIME_EXTRA_SRC_DISCO_CHECK_H_
