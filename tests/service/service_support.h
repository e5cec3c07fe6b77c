// The service tests' shared pieces: a server on loopback serving scenes, a client and a raw stub
// for it, and the check that two lists of answers are the library's, field by field.
#pragma once

#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include <capsweep/client.h>
#include "service/capsweep.grpc.pb.h"
#include "service/server.h"
#include "tests/support/same_answers.h"
#include "tests/support/scene_list.h"

namespace service_support {

using namespace capsweep;
using service::pb::Capsweep;

inline service::ServerConfig config_with(std::vector<std::string> scenes, std::size_t max_batch = 262144,
                                  std::size_t max_message = 64u << 20) {
  service::ServerConfig c;
  c.listen = "127.0.0.1:0";
  c.max_batch = max_batch;
  c.max_message_bytes = max_message;
  for (const std::string& s : scenes) c.worlds.push_back({s, World(scenes::load(s)), s, false, 0, nullptr});
  return c;
}

inline std::string address(const service::Server& s) { return "127.0.0.1:" + std::to_string(s.port()); }

inline service::ClientOptions client_options(const service::Server& s, std::size_t batch = 16384) {
  service::ClientOptions o;
  o.servers = {address(s)};
  o.batch = batch;
  return o;
}

inline std::unique_ptr<Capsweep::Stub> raw_stub(const service::Server& s) {
  grpc::ChannelArguments args;
  args.SetMaxSendMessageSize(-1);
  args.SetMaxReceiveMessageSize(-1);
  return Capsweep::NewStub(grpc::CreateCustomChannel(address(s), grpc::InsecureChannelCredentials(), args));
}

template <class T>
void expect_same(const std::vector<T>& a, const std::vector<T>& b, const char* what) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    ASSERT_TRUE(answers::same(a[i], b[i])) << what << " " << i;
    if constexpr (std::is_same_v<T, Verdict>) {
      ASSERT_TRUE(answers::same_ground(a[i], b[i])) << what << " " << i;
    }
  }
}

}  // namespace service_support
