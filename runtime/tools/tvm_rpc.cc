/*
 * tvm_rpc: serves the runtime over TCP (protocol: docs/rpc.md).
 *
 *   tvm_rpc [--host 127.0.0.1] [--port 9090] [--token T | --no-token] [--max-sessions 8]
 *           [--port-file F]
 *
 * A session can call any registered function, so a client must know the token even on
 * loopback (another user of the machine can reach 127.0.0.1 too): without --token or
 * $TVM_RPC_TOKEN (which keeps it out of `ps`) a random one is made and printed at start.
 * --no-token opts out, on loopback only. --port 0 picks a free port, written to --port-file.
 */
#include <tvm/ffi/function.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

namespace {

/*! \brief 128 random bits as hex, from the kernel's generator. */
std::string RandomToken() {
  std::ifstream urandom("/dev/urandom", std::ios::binary);
  unsigned char bytes[16];
  if (!urandom.read(reinterpret_cast<char*>(bytes), sizeof(bytes))) {
    std::fprintf(stderr, "tvm_rpc: cannot read /dev/urandom to make a token; pass --token\n");
    std::exit(1);
  }
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char b : bytes) {
    out += kHex[b >> 4];
    out += kHex[b & 15];
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::string host = "127.0.0.1", token, port_file;
  int64_t port = 9090, max_sessions = 8;
  bool no_token = false;
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
    } else if (arg == "--no-token") {
      no_token = true;
    } else if (arg == "--max-sessions") {
      max_sessions = std::atoll(value().c_str());
    } else if (arg == "--port-file") {
      port_file = value();
    } else {
      std::fprintf(stderr,
                   "usage: tvm_rpc [--host H] [--port P] [--token T | --no-token] "
                   "[--max-sessions N] [--port-file F]\n");
      return arg == "--help" || arg == "-h" ? 0 : 2;
    }
  }
  if (no_token && !token.empty()) {
    std::fprintf(stderr, "tvm_rpc: --no-token and a token (--token or $TVM_RPC_TOKEN) conflict\n");
    return 2;
  }
  if (!no_token && token.empty()) {
    token = RandomToken();
    std::fprintf(stderr, "tvm_rpc: token %s (clients: tvm.rpc.connect(host, port, key=TOKEN))\n",
                 token.c_str());
    std::fflush(stderr);
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
