/*
 * One Disco control message: an action, a register id and arguments, as bytes.
 *
 * Commands flow controller -> worker, replies (and errors) worker -> controller, each one
 * frame. The values reuse the RPC codec (runtime/src/rpc/protocol.h: bounds-checked
 * Reader/Writer and its value tags) and add two tags of Disco's own: a register reference
 * (DRef on the controller, the register's value on the worker) and a tensor by value (host
 * bytes; only replies of the debug path and DebugSetRegister carry tensors).
 */
#ifndef TVM_RUNTIME_EXTRA_SRC_DISCO_MESSAGE_H_
#define TVM_RUNTIME_EXTRA_SRC_DISCO_MESSAGE_H_

#include <tvm/ffi/any.h>

#include "check.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tvm {
namespace runtime {
namespace disco {

/*! \brief TVM's DiscoAction numbers (0-8), plus the error reply this stack adds. */
enum class Action : uint8_t {
  kShutDown = 0,
  kKillReg = 1,
  kGetGlobalFunc = 2,
  kCallPacked = 3,
  kSyncWorker = 4,
  kCopyFromWorker0 = 5,
  kCopyToWorker0 = 6,
  kDebugGetFromRemote = 7,
  kDebugSetRegister = 8,
  /*! \brief Worker -> controller: args = (worker_id, kind, message, action name). */
  kError = 100,
};

/*! \brief "call_packed", "sync_worker", ... for error messages. */
const char* ActionName(Action a);

struct Message {
  Action action = Action::kShutDown;
  int64_t reg = 0;
  std::vector<ffi::Any> args;
  /*!
   * \brief Decoded register references: (argument index, register id). The argument itself
   * is None until the worker puts the register's value there.
   */
  std::vector<std::pair<size_t, int64_t>> reg_args;
};

/*!
 * \brief Encodes a message. `reg_of` maps a controller object to its register id (returns
 * -1 when it is not a DRef of this session). Arguments are limited to what a worker in
 * another process can rebuild: None, bool, int, float, str, bytes, DataType, Device, Shape,
 * arrays of those, DRef, and (with `allow_tensors`) tensors by value.
 * \throws TypeError naming the argument and its type for anything else.
 */
std::string EncodeMessage(Action action, int64_t reg, const ffi::AnyView* args, size_t num_args,
                          int64_t (*reg_of)(const ffi::Any&), bool allow_tensors);

/*! \brief Decodes a frame. \throws ValueError on a malformed frame (never reads past it). */
Message DecodeMessage(const std::string& frame);

/*! \brief Register id of a DRef argument, or -1 (used as `reg_of` by sessions). */
int64_t DRefRegOf(const ffi::Any& value);

}  // namespace disco
}  // namespace runtime
}  // namespace tvm
#endif  // TVM_RUNTIME_EXTRA_SRC_DISCO_MESSAGE_H_
