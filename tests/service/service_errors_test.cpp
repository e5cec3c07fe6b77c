// The service's refusals, in this process on loopback: every kind of bad input gets its promised
// status, random or truncated messages never take the server down or change a later answer, a
// passed deadline stops the work, and compressed requests are refused.
#include <gtest/gtest.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include <cmath>
#include <future>
#include <limits>
#include <thread>
#include <type_traits>

#include "tools/arena.h"
#include "tools/crowd.h"
#include "tools/workloads.h"
#include "core/random.h"
#include "service/capsweep.grpc.pb.h"
#include <capsweep/client.h>
#include "service/convert.h"
#include "service/server.h"
#include "tests/support/batches.h"
#include "tests/support/layered_world.h"
#include "tests/support/same_answers.h"
#include "tests/support/scene_list.h"
#include "tests/service/service_support.h"


namespace {

using namespace capsweep;
using namespace service_support;
using service::pb::Capsweep;
namespace pb = capsweep::v1;

class ServiceErrors : public ::testing::Test {
 protected:
  ServiceErrors() : server_(config_with({"@arena"}, 5000, 1u << 20)), stub_(raw_stub(server_)) {}

  grpc::StatusCode sweep(const pb::SweepRequest& r, double deadline_seconds = 30) {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::microseconds(std::int64_t(deadline_seconds * 1e6)));
    pb::SweepResponse resp;
    const grpc::Status s = stub_->Sweep(&ctx, r, &resp);
    message_ = s.error_message();
    return s.error_code();
  }

  pb::SweepRequest request(std::size_t n, const std::string& world = "@arena") {
    const World w(make_arena());
    pb::SweepRequest r;
    r.set_world(world);
    service::write_request(make_workload(w, Workload::validate, n, 3), r);
    return r;
  }

  std::uint64_t errors(const std::string& rpc, const std::string& code) {
    grpc::ClientContext ctx;
    pb::InfoResponse info;
    EXPECT_TRUE(stub_->Info(&ctx, {}, &info).ok());
    for (const pb::RpcCounters& c : info.rpcs()) {
      if (c.rpc() == rpc) {
        auto it = c.errors().find(code);
        return it == c.errors().end() ? 0 : it->second;
      }
    }
    return 0;
  }

  service::Server server_;
  std::unique_ptr<Capsweep::Stub> stub_;
  std::string message_;
};

TEST_F(ServiceErrors, UnknownWorldIsNotFound) {
  EXPECT_EQ(sweep(request(10, "atlantis")), grpc::StatusCode::NOT_FOUND);
  EXPECT_NE(message_.find("atlantis"), std::string::npos);
  EXPECT_EQ(sweep(request(10, "")), grpc::StatusCode::OK) << "the only world is the default";
  EXPECT_EQ(errors("Sweep", "NOT_FOUND"), 1u);
}

TEST_F(ServiceErrors, AMaskOfNoLayerIsAnInvalidArgument) {
  pb::SweepRequest r = request(10);
  r.set_layers(0);  // sees nothing: surely a mistake
  EXPECT_EQ(sweep(r), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(message_.find("layers: a mask of no layer sees nothing"), std::string::npos) << message_;
  r.set_layers(1);
  EXPECT_EQ(sweep(r), grpc::StatusCode::OK) << message_;
}

TEST_F(ServiceErrors, MalformedBatchesAreInvalidArguments) {
  pb::SweepRequest r = request(10);
  r.mutable_motion()->mutable_y()->RemoveLast();
  EXPECT_EQ(sweep(r), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(message_.find("motion.y"), std::string::npos) << message_;
  r = request(10);
  r.mutable_capsules()->clear_radius();
  EXPECT_EQ(sweep(r), grpc::StatusCode::INVALID_ARGUMENT);
  r = request(10);
  r.set_path(pb::Path(9));
  EXPECT_EQ(sweep(r), grpc::StatusCode::INVALID_ARGUMENT);

  pb::SweepEllipsoidRequest e;
  e.set_world("@arena");
  const std::vector<SweepEllipsoidQuery> ellipsoids(4, SweepEllipsoidQuery{{{0, 1, 0}, {0.3f, 0.9f, 0.3f}}, {1, 0, 0}});
  service::write_request(ellipsoids, e);
  e.mutable_radii()->mutable_z()->RemoveLast();
  {
    grpc::ClientContext ctx;
    pb::SweepResponse resp;
    const grpc::Status st = stub_->SweepEllipsoid(&ctx, e, &resp);
    EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_NE(st.error_message().find("radii.z"), std::string::npos) << st.error_message();
  }

  pb::MoveRequest m;
  m.set_world("@arena");
  const std::vector<Agent> agents(3, Agent{{{0, 1, 0}, {0, 2, 0}, 0.3f}, {0.1f, 0, 0}, 0, 0});
  service::write_request(agents, m);
  m.mutable_settings()->set_max_iterations(1000000);  // would make one agent cost forever
  grpc::ClientContext c1;
  pb::MoveResponse mr;
  const grpc::Status s1 = stub_->Move(&c1, m, &mr);
  EXPECT_EQ(s1.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(s1.error_message().find("max_iterations"), std::string::npos);
  m.mutable_settings()->clear_max_iterations();
  m.mutable_id()->RemoveLast();
  grpc::ClientContext c2;
  EXPECT_EQ(stub_->Move(&c2, m, &mr).error_code(), grpc::StatusCode::INVALID_ARGUMENT);

  pb::OverlapRequest o;
  o.set_world("@arena");
  o.set_clearance(-1);
  grpc::ClientContext c3;
  pb::OverlapResponse orsp;
  EXPECT_EQ(stub_->Overlap(&c3, o, &orsp).error_code(), grpc::StatusCode::INVALID_ARGUMENT);

  pb::ValidateRequest v;
  v.set_world("@arena");
  v.mutable_settings()->set_tolerance(std::nanf(""));
  grpc::ClientContext c4;
  pb::ValidateResponse vr;
  EXPECT_EQ(stub_->Validate(&c4, v, &vr).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  // max_speed: unset is the library's 7 m/s (a 30 m/s claim is too fast), 0 is refused naming it;
  // a tolerance at or above a claim's radius is refused with the library's message.
  v.mutable_settings()->clear_tolerance();
  service::write_request(std::vector<ClaimedMove>{{{{0, 30, 0}, {0, 31, 0}, 0.35f}, {3, 0, 0}, 0.1f}}, v);
  {
    grpc::ClientContext c;
    ASSERT_TRUE(stub_->Validate(&c, v, &vr).ok());
    ASSERT_EQ(vr.kind_size(), 1);
    EXPECT_EQ(vr.kind(0), pb::VERDICT_TOO_FAST);
    EXPECT_TRUE(vr.reason(0) == pb::REASON_SPEED || vr.reason(0) == pb::REASON_TELEPORT) << vr.reason(0);
  }
  v.mutable_settings()->set_max_speed(0);
  {
    grpc::ClientContext c;
    const grpc::Status s = stub_->Validate(&c, v, &vr);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_NE(s.error_message().find("max_speed"), std::string::npos) << s.error_message();
  }
  v.mutable_settings()->set_max_speed(7);
  v.mutable_settings()->set_tolerance(0.35f);
  {
    grpc::ClientContext c;
    const grpc::Status s = stub_->Validate(&c, v, &vr);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_NE(s.error_message().find("tolerance 0.350000 m is not below claim 0's radius 0.350000 m"), std::string::npos)
        << s.error_message();
  }
  EXPECT_EQ(errors("Sweep", "INVALID_ARGUMENT"), 3u);
}

TEST_F(ServiceErrors, OversizedBatchesAndMessagesAreResourceExhausted) {
  EXPECT_EQ(sweep(request(5000)), grpc::StatusCode::OK);
  EXPECT_EQ(sweep(request(5001)), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_NE(message_.find("5000"), std::string::npos) << message_;
  pb::SweepRequest big = request(4000);  // under the batch limit, over 1 MB
  big.set_world(std::string(2u << 20, 'x'));
  ASSERT_GT(big.ByteSizeLong(), 1u << 20);
  EXPECT_EQ(sweep(big), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_EQ(sweep(request(100)), grpc::StatusCode::OK) << "and the server goes on";
}

TEST_F(ServiceErrors, ADeadlineStopsTheWorkAndIsReported) {
  pb::SweepRequest r;
  r.set_world("@arena");
  r.set_path(pb::PATH_BRUTE);  // about a second of work: long sweeps over every triangle
  const World w(make_arena());
  service::write_request(make_workload(w, Workload::long_range, 5000, 4), r);
  EXPECT_EQ(sweep(r, 0.02), grpc::StatusCode::DEADLINE_EXCEEDED);
  // The server notices between chunks and reports it (rather than finishing unseen work).
  std::uint64_t seen = 0;
  for (int k = 0; k < 100 && seen == 0; ++k) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    seen = errors("Sweep", "DEADLINE_EXCEEDED") + errors("Sweep", "CANCELLED");
  }
  EXPECT_EQ(seen, 1u);
  EXPECT_EQ(sweep(request(100)), grpc::StatusCode::OK);
}

// Sends raw bytes as a request to a method, as a broken or hostile client would.
grpc::Status send_raw(grpc::GenericStub& stub, const std::string& method, const std::string& bytes) {
  grpc::Slice slice(bytes);
  grpc::ByteBuffer request(&slice, 1), response;
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  std::promise<grpc::Status> done;
  stub.UnaryCall(&ctx, method, grpc::StubOptions(), &request, &response,
                 [&done](grpc::Status s) { done.set_value(std::move(s)); });
  return done.get_future().get();
}

TEST_F(ServiceErrors, RandomAndTruncatedMessagesNeverHurtTheServer) {
  grpc::GenericStub generic(grpc::CreateChannel(address(server_), grpc::InsecureChannelCredentials()));
  const World w(make_arena());
  const std::vector<SweepQuery> probe = make_workload(w, Workload::tick, 300, 8);
  std::vector<SweepHit> expected(probe.size());
  w.sweep(probe, expected);
  service::Client client(client_options(server_));

  pb::SweepRequest sweep_request = request(200);
  pb::MoveRequest move_request;
  move_request.set_world("@arena");
  service::write_request(std::vector<Agent>(50, Agent{{{0, 1, 0}, {0, 2, 0}, 0.3f}, {0.1f, 0, 0}, 0, 0}), move_request);
  const std::string valid[] = {sweep_request.SerializeAsString(), move_request.SerializeAsString()};
  const char* methods[] = {"/capsweep.v1.Capsweep/Sweep", "/capsweep.v1.Capsweep/Move", "/capsweep.v1.Capsweep/Validate",
                           "/capsweep.v1.Capsweep/Overlap", "/capsweep.v1.Capsweep/Info"};
  Random rng(99);
  int answered = 0, refused = 0;
  for (int round = 0; round < 600; ++round) {
    std::string bytes;
    switch (round % 3) {
      case 0:  // random bytes
        bytes.resize(rng.below(2000));
        for (char& c : bytes) c = char(rng.below(256));
        break;
      case 1:  // a valid message cut short
        bytes = valid[rng.below(2)];
        bytes.resize(rng.below(bytes.size()));
        break;
      default:  // a valid message with bytes changed
        bytes = valid[rng.below(2)];
        for (int k = 0; k < 8; ++k) bytes[rng.below(bytes.size())] = char(rng.below(256));
        break;
    }
    const grpc::Status s = send_raw(generic, methods[rng.below(5)], bytes);
    (s.ok() ? answered : refused)++;
    EXPECT_NE(s.error_code(), grpc::StatusCode::UNAVAILABLE) << "round " << round << ": the server went away";
    if (round % 50 == 49) {  // and correct answers go on
      std::vector<SweepHit> hits(probe.size());
      client.sweep("@arena", probe, hits);
      expect_same(expected, hits, "probe");
    }
  }
  EXPECT_GT(answered, 0);
  EXPECT_GT(refused, 0);
  // Bytes that do not parse are refused (INVALID_ARGUMENT) before any work; what parsed was
  // answered or refused by the checks, and nothing failed inside (that would be INTERNAL).
  for (const char* rpc : {"Sweep", "Move", "Validate", "Overlap", "Info"}) EXPECT_EQ(errors(rpc, "INTERNAL"), 0u) << rpc;
}

// Bytes that are not the method's message get INVALID_ARGUMENT naming the method and the
// message it takes (gRPC's own parsing would answer UNIMPLEMENTED with empty details), and are
// counted as that method's errors.
TEST_F(ServiceErrors, GarbageBytesAreRefusedNamingTheMethod) {
  grpc::GenericStub generic(grpc::CreateChannel(address(server_), grpc::InsecureChannelCredentials()));
  // 0x0f starts field 1 with wire type 7, which does not exist: no message parses these bytes.
  const std::string garbage = "\x0f garbage, not a protobuf message";
  const std::pair<std::string, std::string> methods[] = {
      {"Sweep", "SweepRequest"},       {"SweepEllipsoid", "SweepEllipsoidRequest"}, {"Move", "MoveRequest"},
      {"Validate", "ValidateRequest"}, {"Overlap", "OverlapRequest"},               {"Info", "InfoRequest"}};
  for (const auto& [method, message] : methods) {
    const grpc::Status s = send_raw(generic, "/capsweep.v1.Capsweep/" + method, garbage);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << method << ": " << s.error_message();
    EXPECT_EQ(s.error_message(), method + ": the request bytes are not a capsweep.v1." + message + " message");
    EXPECT_EQ(errors(method, "INVALID_ARGUMENT"), 1u) << method;
  }
  // The same method still answers a request that parses.
  EXPECT_EQ(sweep(request(10)), grpc::StatusCode::OK);
}

TEST_F(ServiceErrors, StandardHealthCheckSaysServing) {
  grpc::GenericStub generic(grpc::CreateChannel(address(server_), grpc::InsecureChannelCredentials()));
  // grpc.health.v1.HealthCheckRequest{service: ""} is the empty message; the answer
  // HealthCheckResponse{status: SERVING = 1} is field 1, varint 1.
  grpc::Slice slice(std::string{});
  grpc::ByteBuffer request(&slice, 1), response;
  grpc::ClientContext ctx;
  std::promise<grpc::Status> done;
  generic.UnaryCall(&ctx, "/grpc.health.v1.Health/Check", grpc::StubOptions(), &request, &response,
                    [&done](grpc::Status s) { done.set_value(std::move(s)); });
  ASSERT_TRUE(done.get_future().get().ok());
  std::vector<grpc::Slice> slices;
  ASSERT_TRUE(response.Dump(&slices).ok());
  std::string bytes;
  for (const grpc::Slice& s : slices) bytes.append(reinterpret_cast<const char*>(s.begin()), s.size());
  EXPECT_EQ(bytes, std::string("\x08\x01", 2));
}

}  // namespace

namespace {

// A Move whose call's deadline passes is stopped inside the tick (SweepOptions::stop): its
// handler ends long before the whole tick would have. The whole tick is first timed in-process
// (grown until it takes at least 2 s), so the comparison is a ratio within one run.
TEST(ServiceDeadlines, AMoveStopsWhenItsDeadlinePasses) {
  service::Server server(config_with({"recast_dungeon.obj"}, 1u << 22, 1024u << 20));
  auto stub = raw_stub(server);
  const World world(scenes::load("recast_dungeon.obj"));
  std::vector<Agent> agents;
  double whole = 0;
  for (std::size_t n = 5000; whole < 2.0 && n <= 640000; n *= 2) {
    const std::vector<SweepQuery> places = make_workload(world, Workload::validate, n, 5);
    agents.clear();
    for (std::size_t i = 0; i < places.size(); ++i) {
      agents.push_back({places[i].capsule, places[i].motion * 20.f, 0, std::uint32_t(i)});
    }
    std::vector<MoveResult> results(agents.size());
    MoveSettings no_agents;
    no_agents.agents_collide = false;
    const auto start = std::chrono::steady_clock::now();
    world.move(agents, no_agents, results);
    whole = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  ASSERT_GE(whole, 2.0) << "could not make a Move that takes 2 s";
  pb::MoveRequest m;
  m.set_world("recast_dungeon.obj");
  service::write_request(agents, m);
  m.mutable_settings()->set_agents_collide(false);
  grpc::ClientContext ctx;
  // The deadline leaves time for the request (15 MB) to arrive: a call whose deadline passes
  // while it is still being received is cancelled by gRPC before any handler sees it, and this
  // test is about a handler that is already running.
  const auto sent = std::chrono::steady_clock::now();
  ctx.set_deadline(std::chrono::system_clock::now() +
                   std::chrono::microseconds(std::int64_t(0.2 * whole * 1e6)));
  pb::MoveResponse resp;
  EXPECT_EQ(stub->Move(&ctx, m, &resp).error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
  // The handler records the refusal when it ends: well before the whole tick would have.
  bool recorded = false;
  while (!recorded && std::chrono::duration<double>(std::chrono::steady_clock::now() - sent).count() < 4 * whole) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    grpc::ClientContext c;
    pb::InfoResponse info;
    ASSERT_TRUE(stub->Info(&c, {}, &info).ok());
    for (const pb::RpcCounters& r : info.rpcs()) {
      if (r.rpc() == "Move" && r.errors().count("DEADLINE_EXCEEDED")) recorded = true;
    }
  }
  const double ended = std::chrono::duration<double>(std::chrono::steady_clock::now() - sent).count();
  EXPECT_TRUE(recorded);
  EXPECT_LT(ended, 0.5 * whole) << "the Move handler ran " << ended << " s of a " << whole << " s tick";
}

}  // namespace

namespace {

// A small gzip request that would inflate far past the size limit is refused before anything
// is inflated: compression is not accepted at all.
TEST(ServiceLimits, CompressedRequestsAreRefused) {
  service::Server server(config_with({"@arena"}, 5000, 1u << 20));
  auto stub = raw_stub(server);
  pb::SweepRequest r;
  r.set_world(std::string(64u << 20, 'x'));  // 64 MB that gzip makes about 64 KB
  grpc::ClientContext ctx;
  ctx.set_compression_algorithm(GRPC_COMPRESS_GZIP);
  pb::SweepResponse resp;
  const grpc::Status s = stub->Sweep(&ctx, r, &resp);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::UNIMPLEMENTED) << s.error_message();
  EXPECT_NE(s.error_message().find("gzip"), std::string::npos) << s.error_message();
  // Uncompressed requests are answered as before.
  pb::SweepRequest ok;
  ok.set_world("@arena");
  grpc::ClientContext c2;
  EXPECT_TRUE(stub->Sweep(&c2, ok, &resp).ok());
}

}  // namespace
