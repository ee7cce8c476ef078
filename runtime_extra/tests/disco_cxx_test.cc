/*
 * A C++ application drives a Disco session through the registry only (no Disco header, no
 * C++ symbol of libtvm_runtime_extra): the embedding use the design card names.
 */
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <tvm/ffi/any.h>
#include <tvm/ffi/container/shape.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/string.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace {

using tvm::ffi::Any;
using tvm::ffi::Function;

Function Global(const char* name) { return Function::GetGlobalRequired(name); }

class DiscoCxx : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // Loaded on demand, as Python does (RTLD_LOCAL: it registers by name).
    const char* path = std::getenv("LIB_TVM_RUNTIME_EXTRA");
    ASSERT_NE(path, nullptr);
    ASSERT_NE(dlopen(path, RTLD_NOW | RTLD_LOCAL), nullptr) << dlerror();
  }
};

TEST_F(DiscoCxx, ThreadedSessionRunsFunctionsAndMovesTensors) {
  Any sess = Global("runtime.disco.SessionThreaded")(int64_t{3}, int64_t{1});
  EXPECT_EQ(Global("runtime.disco.SessionGetNumWorkers")(sess).cast<int64_t>(), 3);
  Any rank_fn = Global("runtime.disco.SessionGetGlobalFunc")(sess, "runtime.disco.worker_rank");
  Any rank = Global("runtime.disco.SessionCallPacked")(sess, 0, 0, rank_fn);
  for (int64_t i = 0; i < 3; ++i) {
    EXPECT_EQ(Global("runtime.disco.DRefDebugGetFromRemote")(rank, i).cast<int64_t>(), i);
  }
  // A tensor to worker 0 and back.
  Function empty = Global("runtime.TensorEmpty");
  DLDataType f32{kDLFloat, 32, 1};
  auto host = empty(tvm::ffi::Shape({4}), f32, DLDevice{kDLCPU, 0}).cast<tvm::ffi::Tensor>();
  for (int i = 0; i < 4; ++i) static_cast<float*>(host.data_ptr())[i] = 1.5f * i;
  Any empty_fn = Global("runtime.disco.SessionGetGlobalFunc")(sess, "runtime.disco.empty");
  Any remote = Global("runtime.disco.SessionCallPacked")(sess, 0, 0, empty_fn, tvm::ffi::Shape({4}),
                                                         f32, nullptr, false, true);
  Global("runtime.disco.SessionCopyToWorker0")(sess, host, remote);
  auto back = empty(tvm::ffi::Shape({4}), f32, DLDevice{kDLCPU, 0}).cast<tvm::ffi::Tensor>();
  Global("runtime.disco.SessionCopyFromWorker0")(sess, back, remote);
  Global("runtime.disco.SessionSyncWorker")(sess, int64_t{0});
  for (int i = 0; i < 4; ++i) EXPECT_EQ(static_cast<float*>(back.data_ptr())[i], 1.5f * i);
  Global("runtime.disco.SessionShutdown")(sess);
}

TEST_F(DiscoCxx, AWorkerErrorIsATypedErrorNamingTheWorker) {
  Any sess = Global("runtime.disco.SessionThreaded")(int64_t{2}, int64_t{1});
  Global("runtime.disco.SessionGetGlobalFunc")(sess, "no.such.function");
  try {
    Global("runtime.disco.SessionSyncWorker")(sess, int64_t{1});
    FAIL() << "no error";
  } catch (const tvm::ffi::Error& e) {
    EXPECT_EQ(e.kind(), "DiscoWorkerError");
    EXPECT_NE(e.message().find("raised ValueError in get_global_func"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("no.such.function"), std::string::npos);
    // Both workers made the mistake: one exception names both, whichever came first.
    EXPECT_NE(e.message().find("1 more worker error"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("worker 0 raised"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("worker 1 raised"), std::string::npos) << e.message();
  }
  // The session goes on.
  Global("runtime.disco.SessionSyncWorker")(sess, int64_t{1});
}

// A pool that links its workers by pipes (TVM's read_fd/write_fd convention, what Python's pool
// does) in a program that leaves SIGPIPE at its default: a worker that is gone must be an error
// naming it, never a SIGPIPE that kills the controller.
TEST_F(DiscoCxx, APipeLinkToADeadWorkerIsAnErrorNotSigpipe) {
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  struct sigaction old {};
  ASSERT_EQ(sigaction(SIGPIPE, &dfl, &old), 0);
  Function pool = Function::FromTyped([](int64_t worker_id) -> Any {
    if (worker_id == 0) return Any(nullptr);
    int cmd[2], rep[2];
    if (pipe(cmd) != 0 || pipe(rep) != 0) return Any(nullptr);
    pid_t pid = fork();
    if (pid == 0) _exit(0);  // a worker that is gone at once
    close(cmd[0]);
    close(rep[1]);
    waitpid(pid, nullptr, 0);  // its end of both pipes is closed for sure
    return Any(tvm::ffi::Shape({rep[0], cmd[1]}));
  });
  Any sess = Global("runtime.disco.SessionProcessFromPool")(int64_t{2}, int64_t{1}, pool);
  try {
    Global("runtime.disco.SessionGetGlobalFunc")(sess, "runtime.disco.worker_rank");
    Global("runtime.disco.SessionSyncWorker")(sess, int64_t{1});
    FAIL() << "no error";
  } catch (const tvm::ffi::Error& e) {
    EXPECT_EQ(e.kind(), "DiscoWorkerLostError") << e.message();
    EXPECT_NE(e.message().find("worker 1"), std::string::npos) << e.message();
  }
  Global("runtime.disco.SessionShutdown")(sess);
  sigaction(SIGPIPE, &old, nullptr);
}

}  // namespace
