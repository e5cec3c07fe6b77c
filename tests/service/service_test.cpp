// The service in this process, on loopback: every RPC answers exactly what the library answers
// in-process, every kind of bad input gets its promised status, and random or truncated
// messages never take the server down or change a later answer.
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

namespace {

using namespace capsweep;
using service::pb::Capsweep;
namespace pb = capsweep::v1;

service::ServerConfig config_with(std::vector<std::string> scenes, std::size_t max_batch = 262144,
                                  std::size_t max_message = 64u << 20) {
  service::ServerConfig c;
  c.listen = "127.0.0.1:0";
  c.max_batch = max_batch;
  c.max_message_bytes = max_message;
  for (const std::string& s : scenes) c.worlds.push_back({s, World(scenes::load(s)), s, false, 0});
  return c;
}

std::string address(const service::Server& s) { return "127.0.0.1:" + std::to_string(s.port()); }

service::ClientOptions client_options(const service::Server& s, std::size_t batch = 16384) {
  service::ClientOptions o;
  o.servers = {address(s)};
  o.batch = batch;
  return o;
}

std::unique_ptr<Capsweep::Stub> raw_stub(const service::Server& s) {
  grpc::ChannelArguments args;
  args.SetMaxSendMessageSize(-1);
  args.SetMaxReceiveMessageSize(-1);
  return Capsweep::NewStub(grpc::CreateCustomChannel(address(s), grpc::InsecureChannelCredentials(), args));
}

// Queries no world may answer, mixed into every batch: each must be refused alone.
template <class Q>
void poison(std::vector<Q>& batch, Capsule Q::*capsule_field) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  for (std::size_t i = 3; i < batch.size(); i += 97) {
    Capsule& c = batch[i].*capsule_field;
    switch (i % 4) {
      case 0: c.a.x = nan; break;
      case 1: c.radius = -0.5f; break;
      case 2: c.b.y = 3e7f; break;
      default: c.a.z = inf; break;
    }
  }
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

class ServiceScenes : public ::testing::TestWithParam<std::string> {};

TEST_P(ServiceScenes, EveryRpcAnswersLikeTheLibrary) {
  service::Server server(config_with({GetParam()}));
  const World world(scenes::load(GetParam()));
  batches::Batches q = batches::make(world, 3000, 21);
  poison(q.sweeps, &SweepQuery::capsule);
  poison(q.claims, &ClaimedMove::from);
  for (std::size_t i = 5; i < q.capsules.size(); i += 89) q.capsules[i].radius = i % 2 ? 0.f : std::nanf("");
  for (std::size_t i = 7; i < q.agents.size(); i += 101) q.agents[i].displacement.x = std::nanf("");
  // Small batches on the client: many requests, several in flight, reassembled in order.
  service::Client client(client_options(server, 1000));

  for (SweepPath path : {SweepPath::simd, SweepPath::scalar, SweepPath::brute}) {
    BatchOptions o;
    o.path = path;
    std::vector<SweepHit> here(q.sweeps.size()), there(q.sweeps.size());
    std::vector<Status> here_status(q.sweeps.size()), there_status(q.sweeps.size());
    const std::size_t refused = world.sweep(q.sweeps, here, o, here_status);
    EXPECT_GT(refused, 0u);
    client.sweep(GetParam(), q.sweeps, there, there_status, path);
    expect_same(here, there, "sweep");
    EXPECT_EQ(here_status, there_status);

    std::vector<SweepEllipsoidQuery> ellipsoids = make_ellipsoid_workload(world, Workload::long_range, 1500, 22);
    ellipsoids[4].ellipsoid.radii.z = 0;  // refused
    std::vector<SweepHit> e_here(ellipsoids.size()), e_there(ellipsoids.size());
    std::vector<Status> e_status(ellipsoids.size()), e_status_there(ellipsoids.size());
    EXPECT_EQ(world.sweep_ellipsoid(ellipsoids, e_here, o, e_status), 1u);
    client.sweep_ellipsoid(GetParam(), ellipsoids, e_there, e_status_there, path);
    expect_same(e_here, e_there, "sweep_ellipsoid");
    EXPECT_EQ(e_status, e_status_there);

    if (path == SweepPath::brute) continue;

    std::vector<MoveResult> moved(q.agents.size()), moved_there(q.agents.size());
    std::vector<Status> move_status(q.agents.size()), move_status_there(q.agents.size());
    MoveSettings ms;
    ms.step_height = 0.3f;  // a non-default setting must travel too
    world.move(q.agents, ms, moved, o, {}, move_status);
    client.move(GetParam(), q.agents, ms, moved_there, move_status_there, path);
    expect_same(moved, moved_there, "move");
    BatchOptions floorless = o;
    floorless.layers = 4u;
    world.move(q.agents, ms, moved, floorless, {}, move_status);
    client.move(GetParam(), q.agents, ms, moved_there, move_status_there, path, 4u);
    expect_same(moved, moved_there, "move on layer 4");
    EXPECT_EQ(move_status, move_status_there);

    ValidateSettings vs;
    vs.max_speed = 8;
    vs.jump_speed = 3;  // and the server's state of each claim travels too
    std::vector<ClaimedMove> claims = q.claims;
    for (std::size_t i = 0; i < claims.size(); ++i) {
      claims[i].vertical_speed = float(int(i % 5) - 2) * 3.f;
      claims[i].grounded = i % 2 == 0;
    }
    std::vector<Verdict> verdicts(claims.size()), verdicts_there(claims.size());
    world.validate(claims, vs, verdicts, o);
    client.validate(GetParam(), claims, vs, verdicts_there, path);
    expect_same(verdicts, verdicts_there, "validate");
    // The other rule and ground triangles travel too.
    for (std::size_t i = 0; i < claims.size(); i += 3) claims[i].ground_triangle = std::uint32_t(i);
    vs.rule = ClaimRule::straight_segment;
    world.validate(claims, vs, verdicts, o);
    client.validate(GetParam(), claims, vs, verdicts_there, path);
    expect_same(verdicts, verdicts_there, "validate straight segments");
  }
  std::vector<OverlapResult> over(q.capsules.size()), over_there(q.capsules.size());
  std::vector<Status> over_status(q.capsules.size()), over_status_there(q.capsules.size());
  world.overlap(q.capsules, 0.03f, over, {}, over_status);
  client.overlap(GetParam(), q.capsules, 0.03f, over_there, over_status_there);
  expect_same(over, over_there, "overlap");
  EXPECT_EQ(over_status, over_status_there);

  // The whole message (what ServerInfo carries is checked against it below).
  pb::InfoResponse info;
  ASSERT_TRUE(info.ParseFromString(client.info_message()));
  const service::ServerInfo plain = client.info();
  ASSERT_EQ(plain.worlds.size(), 1u);
  EXPECT_EQ(plain.worlds[0].name, GetParam());
  EXPECT_EQ(plain.worlds[0].triangles, world.triangle_count());
  EXPECT_EQ(plain.version, info.version());
  ASSERT_EQ(info.worlds_size(), 1);
  EXPECT_EQ(info.worlds(0).name(), GetParam());
  EXPECT_EQ(info.worlds(0).triangles(), world.triangle_count());
  for (const pb::RpcCounters& c : info.rpcs()) {
    if (c.rpc() == "Sweep") {
      EXPECT_EQ(c.queries(), 3 * q.sweeps.size());
      EXPECT_GT(c.refused_queries(), 0u);
    }
  }

  // A batch that sees only layer 2 (nothing of these worlds, all on layer 1): every sweep
  // misses, through the service as in the library; layer 1: the answers of every layer.
  for (SweepPath path : {SweepPath::simd, SweepPath::scalar, SweepPath::brute}) {
    BatchOptions hidden = on_path(path);
    hidden.layers = 2u;
    std::vector<SweepHit> l_here(q.sweeps.size()), l_there(q.sweeps.size()), all_layers(q.sweeps.size());
    world.sweep(q.sweeps, l_here, hidden);
    client.sweep(GetParam(), q.sweeps, l_there, {}, path, 2u);
    expect_same(l_here, l_there, "sweep on layer 2");
    for (const SweepHit& h : l_there) ASSERT_FALSE(h.hit);
    world.sweep(q.sweeps, all_layers, on_path(path));
    client.sweep(GetParam(), q.sweeps, l_there, {}, path, 1u);
    expect_same(all_layers, l_there, "sweep on layer 1");
  }
}

INSTANTIATE_TEST_SUITE_P(Scenes, ServiceScenes, ::testing::Values("@arena", "recast_dungeon.obj"),
                         [](const auto& info) { return scenes::test_name(info.param); });

// Each element's own layers (the element_layers column), with the request's: the answers of the
// library for the same masks, a 0 or a mask sharing no layer with the request's refused alone.
TEST(ServiceLayers, EachElementSeesItsOwnLayersAsInTheLibrary) {
  const std::vector<Triangle> tris = make_arena();
  const World world(tris, layered::floors_and_walls(tris));
  service::ServerConfig c = config_with({});
  c.worlds.push_back({"layered", world, "@arena (floors 1, walls 2)", false, 0});
  service::Server server(c);
  service::Client client(client_options(server, 700));
  batches::Batches q = batches::make(world, 2000, 23);
  const std::uint32_t masks[] = {kAllLayers, 1u, 2u, 1u | 2u, 0u};
  for (std::size_t i = 0; i < q.sweeps.size(); ++i) q.sweeps[i].layers = masks[i % 5];
  for (std::size_t i = 0; i < q.agents.size(); ++i) q.agents[i].layers = masks[(i + 1) % 5];
  for (std::size_t i = 0; i < q.claims.size(); ++i) q.claims[i].layers = masks[(i + 2) % 5];
  std::vector<SweepEllipsoidQuery> ellipsoids = make_ellipsoid_workload(world, Workload::validate, 1000, 24);
  for (std::size_t i = 0; i < ellipsoids.size(); ++i) ellipsoids[i].layers = masks[(i + 3) % 5];
  for (std::uint32_t request : {kAllLayers, 1u}) {
    SCOPED_TRACE(request);
    BatchOptions o;
    o.layers = request;
    std::vector<SweepHit> here(q.sweeps.size()), there(q.sweeps.size());
    std::vector<Status> here_status(q.sweeps.size()), there_status(q.sweeps.size());
    world.sweep(q.sweeps, here, o, here_status);
    client.sweep("layered", q.sweeps, there, there_status, SweepPath::simd, request);
    expect_same(here, there, "sweep");
    EXPECT_EQ(here_status, there_status);
    EXPECT_EQ(std::count(there_status.begin(), there_status.end(), Status::bad_layers),
              std::ptrdiff_t(request == kAllLayers ? q.sweeps.size() / 5 : 2 * (q.sweeps.size() / 5)));
    std::vector<SweepHit> e_here(ellipsoids.size()), e_there(ellipsoids.size());
    std::vector<Status> e_status(ellipsoids.size()), e_status_there(ellipsoids.size());
    world.sweep_ellipsoid(ellipsoids, e_here, o, e_status);
    client.sweep_ellipsoid("layered", ellipsoids, e_there, e_status_there, SweepPath::simd, request);
    expect_same(e_here, e_there, "sweep_ellipsoid");
    EXPECT_EQ(e_status, e_status_there);
    std::vector<MoveResult> moved(q.agents.size()), moved_there(q.agents.size());
    std::vector<Status> move_status(q.agents.size()), move_status_there(q.agents.size());
    world.move(q.agents, MoveSettings{}, moved, o, {}, move_status);
    client.move("layered", q.agents, MoveSettings{}, moved_there, move_status_there, SweepPath::simd, request);
    expect_same(moved, moved_there, "move");
    EXPECT_EQ(move_status, move_status_there);
    std::vector<Verdict> verdicts(q.claims.size()), verdicts_there(q.claims.size());
    world.validate(q.claims, ValidateSettings{}, verdicts, o);
    client.validate("layered", q.claims, ValidateSettings{}, verdicts_there, SweepPath::simd, request);
    expect_same(verdicts, verdicts_there, "validate");
  }
  // A column of the wrong length is refused, naming it.
  pb::SweepRequest r;
  r.set_world("layered");
  service::write_request(std::span(q.sweeps).subspan(0, 10), r);
  r.mutable_element_layers()->RemoveLast();
  grpc::ClientContext ctx;
  pb::SweepResponse resp;
  const grpc::Status st = raw_stub(server)->Sweep(&ctx, r, &resp);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(st.error_message().find("element_layers"), std::string::npos) << st.error_message();
}

// ServerConfig::threads takes 0 .. kMaxThreads, as every batch does (past 65,536 oneTBB crashed).
TEST(ServiceConfig, ThreadsOutsideTheLimitAreRefusedByName) {
  for (const int threads : {kMaxThreads + 1, -1}) {
    service::ServerConfig c = config_with({"@arena"});
    c.threads = threads;
    try {
      service::Server server(std::move(c));
      ADD_FAILURE() << "threads " << threads << " was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("threads must be from 0 (every core) to 1024, got " + std::to_string(threads)),
                std::string::npos)
          << e.what();
    }
  }
  service::ServerConfig c = config_with({"@arena"});
  c.threads = kMaxThreads;
  service::Server server(std::move(c));
  EXPECT_GT(server.port(), 0);
}

// Ellipsoid agents through Move and Validate: a crowd of ellipsoids, and one of capsules and
// ellipsoids, answered as in the library field by field; the columns of a shape no agent has may be
// left out; a shape that is none, or an ellipsoid without its columns, is an invalid argument.
TEST(ServiceShapes, EllipsoidAndMixedAgentsMoveAndValidateAsInTheLibrary) {
  service::Server server(config_with({"@arena"}));
  service::Client client(client_options(server, 500));
  const World world(make_arena());
  for (const std::vector<AgentShape>& shapes :
       {std::vector<AgentShape>{AgentShape::ellipsoid}, std::vector<AgentShape>{AgentShape::capsule, AgentShape::ellipsoid}}) {
    CrowdSettings cs;
    cs.agents = 800;
    cs.seed = 6;
    cs.trace = true;
    cs.agent_shapes = shapes;
    // Agents carry their ground triangle from tick to tick, as this interface passes them.
    Crowd crowd(world, cs);
    std::vector<ClaimedMove> claims;
    for (int t = 0; t < 15; ++t) {
      crowd.tick();
      if (t >= 12) crowd.claims(claims);
    }
    std::vector<Agent> agents = crowd.agents();
    agents[5].ellipsoid.radii.x = -1;  // refused alone (a capsule agent ignores its ellipsoid)
    for (SweepPath path : {SweepPath::simd, SweepPath::scalar}) {
      BatchOptions o;
      o.path = path;
      std::vector<MoveResult> moved(agents.size()), moved_there(agents.size());
      std::vector<Status> status(agents.size()), status_there(agents.size());
      world.move(agents, MoveSettings{}, moved, o, {}, status);
      client.move("@arena", agents, MoveSettings{}, moved_there, status_there, path);
      expect_same(moved, moved_there, "move");
      EXPECT_EQ(status, status_there);
      ValidateSettings vs;
      vs.max_speed = 2;
      std::vector<Verdict> verdicts(claims.size()), verdicts_there(claims.size());
      world.validate(claims, vs, verdicts, o);
      client.validate("@arena", claims, vs, verdicts_there, path);
      expect_same(verdicts, verdicts_there, "validate");
    }
  }
  // A batch of ellipsoids only needs no capsule columns; a shape that is none, or an ellipsoid
  // whose columns are missing, is refused naming the column.
  const auto stub = raw_stub(server);
  auto move = [&](const pb::MoveRequest& r) {
    grpc::ClientContext ctx;
    pb::MoveResponse resp;
    return std::pair{stub->Move(&ctx, r, &resp), resp};
  };
  pb::MoveRequest r;
  r.set_world("@arena");
  Agent e;
  e.shape = AgentShape::ellipsoid;
  e.ellipsoid = {{0, 0.95f, 0}, {0.35f, 0.9f, 0.35f}};
  e.displacement = {0.1f, 0, 0};
  service::write_request(std::vector<Agent>(3, e), r);
  EXPECT_EQ(r.capsules().radius_size(), 0);
  const auto [ok, answer] = move(r);
  EXPECT_TRUE(ok.ok()) << ok.error_message();
  EXPECT_EQ(answer.shape_size(), 3);
  pb::MoveRequest bad = r;
  bad.set_shape(1, pb::AgentShape(5));
  EXPECT_EQ(move(bad).first.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(move(bad).first.error_message().find("shape: element 1 is 5"), std::string::npos);
  bad = r;
  bad.clear_ellipsoid_centre();
  EXPECT_EQ(move(bad).first.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(move(bad).first.error_message().find("ellipsoid_centre"), std::string::npos) << move(bad).first.error_message();
  bad = r;
  bad.set_shape(0, pb::SHAPE_CAPSULE);  // a capsule, and no capsule columns
  EXPECT_EQ(move(bad).first.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(move(bad).first.error_message().find("capsules"), std::string::npos) << move(bad).first.error_message();
  // Columns that may be left out are left out whole: a radius without its ends, or ellipsoid
  // centres without radii, is refused naming the column (a fuzzed request read past them).
  bad = r;
  bad.mutable_capsules()->add_radius(0.35f);
  bad.mutable_capsules()->add_radius(0.35f);
  bad.mutable_capsules()->add_radius(0.35f);
  EXPECT_EQ(move(bad).first.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(move(bad).first.error_message().find("capsules.a"), std::string::npos) << move(bad).first.error_message();
  Agent c;
  c.capsule = {{0, 0.37f, 0}, {0, 1.47f, 0}, 0.35f};
  pb::MoveRequest capsules_only;
  capsules_only.set_world("@arena");
  service::write_request(std::vector<Agent>(2, c), capsules_only);
  ASSERT_EQ(capsules_only.ellipsoid_centre().x_size(), 0);
  for (int i = 0; i < 2; ++i) service::add(*capsules_only.mutable_ellipsoid_centre(), {0, 1, 0});
  EXPECT_EQ(move(capsules_only).first.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(move(capsules_only).first.error_message().find("ellipsoid_radii"), std::string::npos)
      << move(capsules_only).first.error_message();
}

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
