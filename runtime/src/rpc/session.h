/*
 * One client connection's state: the table of remote objects it holds (handle id -> value),
 * its upload folder, and request dispatch.
 */
#ifndef TVM_RUNTIME_SRC_RPC_SESSION_H_
#define TVM_RUNTIME_SRC_RPC_SESSION_H_

#include <tvm/ffi/any.h>

#include <string>
#include <unordered_map>
#include <vector>

#include "protocol.h"

namespace tvm {
namespace runtime {
namespace rpc {

class Session {
 public:
  /*! \param workdir Folder uploads go to (created and owned by the server). */
  Session(std::string workdir, std::string token) : workdir_(std::move(workdir)), token_(std::move(token)) {}

  /*!
   * \brief Serves one request payload, writing the response payload.
   * \return false when the connection must close (bad hello); malformed payloads throw.
   */
  bool Handle(const uint8_t* data, size_t size, Writer* response);

  size_t num_handles() const { return handles_.size(); }

 private:
  ffi::Any ReadValue(Reader* r, int depth);
  void WriteValue(Writer* w, const ffi::Any& v);
  ffi::Any& Lookup(uint64_t id);
  uint64_t Keep(ffi::Any v);
  void Dispatch(Op op, Reader* r, Writer* w);

  std::string workdir_;
  std::string token_;
  bool greeted_ = false;
  uint64_t next_id_ = 1;
  std::unordered_map<uint64_t, ffi::Any> handles_;
};

}  // namespace rpc
}  // namespace runtime
}  // namespace tvm
#endif  // TVM_RUNTIME_SRC_RPC_SESSION_H_
