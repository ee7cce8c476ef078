/*
 * The RPC server: a TCP listener with one thread per connection (up to a limit), each running
 * a Session over length-prefixed frames. Binds 127.0.0.1 by default; binding any other
 * address requires a token, since a session can call any registered function.
 *
 * Globals: `rpc.ServerStart(host, port, token, max_sessions) -> port` (background thread,
 * port 0 picks a free one), `rpc.ServerStop(port)`, `rpc.ServeForever(host, port, token,
 * max_sessions, port_file)` (blocking; the tvm_rpc binary and `python -m tvm.rpc.server`).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include "../support/registry.h"
#include "protocol.h"
#include "session.h"

namespace tvm {
namespace runtime {
namespace rpc {
namespace {

bool ReadFull(int fd, void* buf, size_t n) {
  char* p = static_cast<char*>(buf);
  while (n > 0) {
    ssize_t got = ::recv(fd, p, n, 0);
    if (got <= 0) {
      if (got < 0 && errno == EINTR) continue;
      return false;
    }
    p += got;
    n -= static_cast<size_t>(got);
  }
  return true;
}

bool WriteFull(int fd, const void* buf, size_t n) {
  const char* p = static_cast<const char*>(buf);
  while (n > 0) {
    ssize_t sent = ::send(fd, p, n, MSG_NOSIGNAL);
    if (sent <= 0) {
      if (sent < 0 && errno == EINTR) continue;
      return false;
    }
    p += sent;
    n -= static_cast<size_t>(sent);
  }
  return true;
}

bool IsLoopback(const std::string& host) {
  return host == "127.0.0.1" || host == "localhost" || host.rfind("127.", 0) == 0 || host == "::1";
}

class Server {
 public:
  Server(std::string host, int port, std::string token, int max_sessions)
      : host_(std::move(host)), token_(std::move(token)), max_sessions_(max_sessions) {
    TVM_FFI_CHECK(!token_.empty() || IsLoopback(host_), ValueError)
        << "refusing to serve RPC on " << host_ << " without a token: a session can call any "
        << "registered function; pass a token, or bind 127.0.0.1";
    TVM_FFI_CHECK(max_sessions_ >= 1, ValueError) << "max_sessions must be >= 1";
    TVM_FFI_CHECK(port >= 0 && port <= 65535, ValueError) << "invalid port " << port;
    std::string addr = host_ == "localhost" ? "127.0.0.1" : host_;
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    TVM_FFI_CHECK(listen_fd_ >= 0, RuntimeError) << "socket(): " << std::strerror(errno);
    int one = 1;
    ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_port = htons(static_cast<uint16_t>(port));
    if (::inet_pton(AF_INET, addr.c_str(), &sa.sin_addr) != 1) {
      ::close(listen_fd_);
      TVM_FFI_THROW(ValueError) << "invalid IPv4 address " << host_;
    }
    if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) != 0 ||
        ::listen(listen_fd_, 16) != 0) {
      int err = errno;
      ::close(listen_fd_);
      TVM_FFI_THROW(RuntimeError) << "cannot listen on " << host_ << ":" << port << ": " << std::strerror(err);
    }
    socklen_t len = sizeof(sa);
    ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&sa), &len);
    port_ = ntohs(sa.sin_port);
    char tmpl[] = "/tmp/tvm_rpc_XXXXXX";
    TVM_FFI_CHECK(::mkdtemp(tmpl) != nullptr, RuntimeError) << "cannot create the upload folder";
    workdir_ = tmpl;
  }

  ~Server() {
    Stop();
    while (active_.load() > 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    std::error_code ec;
    std::filesystem::remove_all(workdir_, ec);
  }

  int port() const { return port_; }

  /*! \brief Accepts connections until Stop(); polls so Stop() is noticed within 100 ms. */
  void Serve() {
    while (!stop_.load()) {
      pollfd pfd{listen_fd_, POLLIN, 0};
      int ready = ::poll(&pfd, 1, 100);
      if (ready <= 0) continue;
      int fd = ::accept(listen_fd_, nullptr, nullptr);
      if (fd < 0) continue;
      if (active_.load() >= max_sessions_) {
        ::close(fd);  // over capacity: the client sees the connection close
        continue;
      }
      ++active_;
      {
        std::lock_guard<std::mutex> lock(conn_mutex_);
        connections_.insert(fd);
      }
      std::thread([this, fd] {
        ServeConnection(fd);
        {
          std::lock_guard<std::mutex> lock(conn_mutex_);
          connections_.erase(fd);
        }
        ::close(fd);
        --active_;
      }).detach();
    }
  }

  /*! \brief Stops accepting and ends every open session (their reads return at once). */
  void Stop() {
    if (!stop_.exchange(true) && listen_fd_ >= 0) {
      ::close(listen_fd_);
    }
    std::lock_guard<std::mutex> lock(conn_mutex_);
    for (int fd : connections_) ::shutdown(fd, SHUT_RDWR);
  }

 private:
  /*! \brief One session; any protocol violation ends it (and only it). */
  void ServeConnection(int fd) {
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    timeval idle{600, 0};  // an idle client does not hold a thread forever
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &idle, sizeof(idle));
    Session session(workdir_, token_);
    std::vector<uint8_t> payload;
    while (!stop_.load()) {
      uint32_t header[2];
      if (!ReadFull(fd, header, sizeof(header))) return;
      if (header[0] != kFrameMagic || header[1] == 0 || header[1] > kMaxFrameBytes) return;
      payload.resize(header[1]);
      if (!ReadFull(fd, payload.data(), payload.size())) return;
      Writer response;
      try {
        if (!session.Handle(payload.data(), payload.size(), &response)) return;
      } catch (const std::exception&) {
        return;  // malformed frame: close this connection, keep serving others
      }
      uint32_t out_header[2] = {kFrameMagic, static_cast<uint32_t>(response.buffer().size())};
      if (!WriteFull(fd, out_header, sizeof(out_header)) ||
          !WriteFull(fd, response.buffer().data(), response.buffer().size())) {
        return;
      }
    }
  }

  std::string host_;
  std::string token_;
  int max_sessions_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::string workdir_;
  std::atomic<bool> stop_{false};
  std::atomic<int> active_{0};
  std::mutex conn_mutex_;
  std::set<int> connections_;
};

struct BackgroundServer {
  std::unique_ptr<Server> server;
  std::thread thread;
};

std::mutex g_servers_mutex;
std::map<int, std::unique_ptr<BackgroundServer>>& Servers() {
  static auto* servers = new std::map<int, std::unique_ptr<BackgroundServer>>();
  return *servers;
}

}  // namespace

TVM_FFI_STATIC_INIT_BLOCK() {
  RegisterRuntimeGlobal("rpc.ServerStart", [](const ffi::String& host, int64_t port,
                                              const ffi::String& token, int64_t max_sessions) {
    auto bg = std::make_unique<BackgroundServer>();
    bg->server = std::make_unique<Server>(std::string(host), static_cast<int>(port),
                                          std::string(token), static_cast<int>(max_sessions));
    Server* s = bg->server.get();
    bg->thread = std::thread([s] { s->Serve(); });
    int bound = s->port();
    std::lock_guard<std::mutex> lock(g_servers_mutex);
    Servers()[bound] = std::move(bg);
    return static_cast<int64_t>(bound);
  });
  RegisterRuntimeGlobal("rpc.ServerStop", [](int64_t port) {
    std::unique_ptr<BackgroundServer> bg;
    {
      std::lock_guard<std::mutex> lock(g_servers_mutex);
      auto it = Servers().find(static_cast<int>(port));
      TVM_FFI_CHECK(it != Servers().end(), ValueError) << "no RPC server on port " << port;
      bg = std::move(it->second);
      Servers().erase(it);
    }
    bg->server->Stop();
    bg->thread.join();
  });
  RegisterRuntimeGlobal("rpc.ServeForever", [](const ffi::String& host, int64_t port,
                                               const ffi::String& token, int64_t max_sessions,
                                               const ffi::String& port_file) {
    Server server(std::string(host), static_cast<int>(port), std::string(token),
                  static_cast<int>(max_sessions));
    std::fprintf(stderr, "tvm_rpc: serving on %s:%d\n", std::string(host).c_str(), server.port());
    if (!port_file.empty()) {
      std::ofstream(std::string(port_file)) << server.port() << "\n";
    }
    server.Serve();
  });
}

}  // namespace rpc
}  // namespace runtime
}  // namespace tvm
