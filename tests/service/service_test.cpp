// The service in this process, on loopback: every RPC answers exactly what the library answers
// in-process, for every scene, layer mask, thread count and agent shape. (Bad input, deadlines
// and limits: service_errors_test.cpp.)
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
using service::pb::Capsweep;
namespace pb = capsweep::v1;
using namespace service_support;

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
  // The kernel the server runs, and why (kernel_isa_reason: the timing, where one was made).
  EXPECT_NE(info.build().find(std::string("SIMD ") + kernel_isa() + " (" + kernel_isa_reason() + ")"), std::string::npos)
      << info.build();
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
  c.worlds.push_back({"layered", world, "@arena (floors 1, walls 2)", false, 0, nullptr});
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

}  // namespace
