/*
 * tvm_rpc: serves the runtime over TCP (protocol: docs/rpc.md).
 *
 *   tvm_rpc [--host 127.0.0.1] [--port 9090] [--token T] [--max-sessions 8] [--port-file F]
 *
 * The token may also come from $TVM_RPC_TOKEN (keeps it out of `ps`). Binding anything but a
 * loopback address requires a token. --port 0 picks a free port, written to --port-file.
 */
#include <tvm/ffi/function.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

int main(int argc, char** argv) {
  std::string host = "127.0.0.1", token, port_file;
  int64_t port = 9090, max_sessions = 8;
  if (const char* env = std::getenv("TVM_RPC_TOKEN")) token = env;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "tvm_rpc: %s needs a value\n", arg.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (arg == "--host") {
      host = value();
    } else if (arg == "--port") {
      port = std::atoll(value().c_str());
    } else if (arg == "--token") {
      token = value();
    } else if (arg == "--max-sessions") {
      max_sessions = std::atoll(value().c_str());
    } else if (arg == "--port-file") {
      port_file = value();
    } else {
      std::fprintf(stderr,
                   "usage: tvm_rpc [--host H] [--port P] [--token T] [--max-sessions N] "
                   "[--port-file F]\n");
      return arg == "--help" || arg == "-h" ? 0 : 2;
    }
  }
  try {
    tvm::ffi::Function::GetGlobalRequired("rpc.ServeForever")(host, port, token, max_sessions,
                                                              port_file);
  } catch (const tvm::ffi::Error& e) {
    std::fprintf(stderr, "tvm_rpc: %s: %s\n", e.kind().c_str(), e.message().c_str());
    return 1;
  }
  return 0;
}
