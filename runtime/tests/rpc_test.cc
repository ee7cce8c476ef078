// RPC server: the protocol end to end with a raw-socket client, token policy, and corrupt
// frames that must close one connection while the server keeps serving.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <tvm/ffi/function.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {
using namespace tvm;

constexpr uint32_t kMagic = 0x524D5654;

/*! A minimal client speaking the wire format directly (docs/rpc.md). */
class RawClient {
 public:
  explicit RawClient(int port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_port = htons(static_cast<uint16_t>(port));
    ::inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) == 0;
    timeval tv{10, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  }
  ~RawClient() { ::close(fd_); }
  bool connected() const { return connected_; }

  void SendRaw(const std::vector<uint8_t>& bytes) {
    (void)::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
  }
  void SendFrame(const std::vector<uint8_t>& payload) {
    std::vector<uint8_t> frame(8);
    uint32_t header[2] = {kMagic, static_cast<uint32_t>(payload.size())};
    std::memcpy(frame.data(), header, 8);
    frame.insert(frame.end(), payload.begin(), payload.end());
    SendRaw(frame);
  }
  /*! \brief The response payload, or nothing if the server closed the connection. */
  std::optional<std::vector<uint8_t>> Receive() {
    uint32_t header[2];
    if (!ReadFull(header, 8) || header[0] != kMagic) return std::nullopt;
    std::vector<uint8_t> payload(header[1]);
    if (!ReadFull(payload.data(), payload.size())) return std::nullopt;
    return payload;
  }

 private:
  bool ReadFull(void* buf, size_t n) {
    char* p = static_cast<char*>(buf);
    while (n > 0) {
      ssize_t got = ::recv(fd_, p, n, 0);
      if (got <= 0) return false;
      p += got;
      n -= got;
    }
    return true;
  }
  int fd_;
  bool connected_;
};

struct Payload {
  std::vector<uint8_t> b;
  Payload& U8(uint8_t v) { b.push_back(v); return *this; }
  Payload& U32(uint32_t v) { Raw(&v, 4); return *this; }
  Payload& U64(uint64_t v) { Raw(&v, 8); return *this; }
  Payload& I64(int64_t v) { Raw(&v, 8); return *this; }
  Payload& Str(const std::string& s) { U32(s.size()); Raw(s.data(), s.size()); return *this; }
  void Raw(const void* p, size_t n) {
    const uint8_t* c = static_cast<const uint8_t*>(p);
    b.insert(b.end(), c, c + n);
  }
};

std::vector<uint8_t> Hello(const std::string& token) {
  return Payload().U8(1).U32(1).Str(token).b;
}

int StartServer(const std::string& token = "") {
  return static_cast<int>(ffi::Function::GetGlobalRequired("rpc.ServerStart")(
                              "127.0.0.1", int64_t{0}, token, int64_t{4})
                              .cast<int64_t>());
}
void StopServer(int port) { ffi::Function::GetGlobalRequired("rpc.ServerStop")(int64_t{port}); }

uint64_t ReadHandle(const std::vector<uint8_t>& resp) {
  // status(1) tag(1) id(8) type_index(4)
  EXPECT_EQ(resp.size(), 14u);
  EXPECT_EQ(resp[0], 0);
  EXPECT_EQ(resp[1], 9);
  uint64_t id;
  std::memcpy(&id, resp.data() + 2, 8);
  return id;
}

TEST(RPC, CallARemoteFunction) {
  ffi::Function::SetGlobal("test.rpc.add", ffi::Function::FromTyped([](int64_t a, int64_t b) { return a + b; }), true);
  int port = StartServer();
  RawClient c(port);
  ASSERT_TRUE(c.connected());
  c.SendFrame(Hello(""));
  auto hello = c.Receive();
  ASSERT_TRUE(hello.has_value());
  EXPECT_EQ((*hello)[0], 0);
  c.SendFrame(Payload().U8(2).Str("test.rpc.add").b);
  uint64_t f = ReadHandle(*c.Receive());
  c.SendFrame(Payload().U8(3).U64(f).U32(2).U8(1).I64(40).U8(1).I64(2).b);
  auto result = c.Receive();
  ASSERT_TRUE(result.has_value());
  ASSERT_EQ(result->size(), 10u);
  EXPECT_EQ((*result)[1], 1);  // int
  int64_t v;
  std::memcpy(&v, result->data() + 2, 8);
  EXPECT_EQ(v, 42);
  // A remote error comes back as a typed error response, the session continues.
  c.SendFrame(Payload().U8(3).U64(f).U32(1).U8(1).I64(1).b);
  auto err = c.Receive();
  ASSERT_TRUE(err.has_value());
  EXPECT_EQ((*err)[0], 1);
  std::string kind(reinterpret_cast<const char*>(err->data() + 5), (*err)[1]);
  EXPECT_EQ(kind, "TypeError");
  // Unknown handles and freeing twice are errors too.
  c.SendFrame(Payload().U8(11).U64(f).b);
  EXPECT_EQ((*c.Receive())[0], 0);
  c.SendFrame(Payload().U8(11).U64(f).b);
  EXPECT_EQ((*c.Receive())[0], 1);
  StopServer(port);
}

TEST(RPC, TokenPolicy) {
  // Binding beyond loopback without a token is refused.
  EXPECT_THROW(ffi::Function::GetGlobalRequired("rpc.ServerStart")("0.0.0.0", int64_t{0}, "", int64_t{1}),
               ffi::Error);
  int port = StartServer("s3cret");
  {
    RawClient wrong(port);
    wrong.SendFrame(Hello("guess"));
    EXPECT_FALSE(wrong.Receive().has_value());  // closed
  }
  {
    RawClient right(port);
    right.SendFrame(Hello("s3cret"));
    EXPECT_TRUE(right.Receive().has_value());
  }
  {
    RawClient skipped(port);
    skipped.SendFrame(Payload().U8(2).Str("x").b);  // no hello first
    EXPECT_FALSE(skipped.Receive().has_value());
  }
  StopServer(port);
}

TEST(RPC, CorruptFramesCloseOnlyTheirConnection) {
  int port = StartServer();
  std::mt19937 rng(11);
  for (int iter = 0; iter < 300; ++iter) {
    RawClient c(port);
    ASSERT_TRUE(c.connected());
    c.SendFrame(Hello(""));
    ASSERT_TRUE(c.Receive().has_value());
    std::vector<uint8_t> junk(1 + rng() % 64);
    for (auto& x : junk) x = static_cast<uint8_t>(rng());
    switch (iter % 4) {
      case 0:
        c.SendFrame(junk);  // random payload: either an error response or a close
        break;
      case 1: {
        std::vector<uint8_t> bad_magic = {1, 2, 3, 4, 8, 0, 0, 0};
        c.SendRaw(bad_magic);
        break;
      }
      case 2: {
        uint32_t header[2] = {kMagic, 0xFFFFFFFFu};  // absurd length
        std::vector<uint8_t> frame(8);
        std::memcpy(frame.data(), header, 8);
        c.SendRaw(frame);
        break;
      }
      default:
        // A call whose argument list claims far more values than the frame holds.
        c.SendFrame(Payload().U8(3).U64(1).U32(1000).U8(10).U32(0xFFFFFFF).b);
    }
    (void)c.Receive();
  }
  // The server is still alive and serving.
  RawClient after(port);
  after.SendFrame(Hello(""));
  EXPECT_TRUE(after.Receive().has_value());
  StopServer(port);
}

TEST(RPC, RemoteTensors) {
  int port = StartServer();
  RawClient c(port);
  c.SendFrame(Hello(""));
  c.Receive();
  // shape [2, 2], float32, cpu:0
  Payload empty;
  empty.U8(7).U8(8).U32(2).I64(2).I64(2);
  empty.U8(7).U8(2).U8(32);
  uint16_t lanes = 1;
  empty.Raw(&lanes, 2);
  empty.U8(6).U32(1).U32(0);
  c.SendFrame(empty.b);
  uint64_t t = ReadHandle(*c.Receive());
  float data[4] = {1, 2, 3, 4};
  Payload write;
  write.U8(8).U64(t).U64(16);
  write.Raw(data, 16);
  c.SendFrame(write.b);
  EXPECT_EQ((*c.Receive())[0], 0);
  c.SendFrame(Payload().U8(9).U64(t).b);
  auto read = c.Receive();
  ASSERT_TRUE(read.has_value());
  ASSERT_EQ(read->size(), 2u + 8 + 16);
  EXPECT_EQ(std::memcmp(read->data() + 10, data, 16), 0);
  // Wrong byte count is a ValueError response, not a crash.
  Payload short_write;
  short_write.U8(8).U64(t).U64(4);
  short_write.Raw(data, 4);
  c.SendFrame(short_write.b);
  EXPECT_EQ((*c.Receive())[0], 1);
  StopServer(port);
}

}  // namespace
