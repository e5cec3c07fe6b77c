// Requests at poses of their own, on two replicas in this process: a request carrying poses is
// answered with the same bytes by both, and as the library answers on the world at those poses;
// a pose set uploaded to one replica and named at another costs a FAILED_PRECONDITION that the
// client answers by re-sending the poses; bad poses are refused naming the row, and kept nowhere.
#include <gtest/gtest.h>
#include <grpcpp/grpcpp.h>

#include <cmath>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include "service/capsweep.grpc.pb.h"
#include <capsweep/client.h>
#include "service/convert.h"
#include "service/poses.h"
#include "service/server.h"
#include "tests/service/service_support.h"
#include "tests/support/baked_worlds.h"
#include "tests/support/batches.h"
#include "tests/support/test_meshes.h"
#include "tools/arena.h"

namespace {

using namespace capsweep;
namespace pb = capsweep::v1;
using namespace service_support;

constexpr int kInstances = 6;

// The arena with crates and slabs placed in it: instances 10 to 15.
World level() {
  const std::vector<Triangle> crate = testmesh::Mesh().box({-1, 0, -1}, {1, 2, 1}).triangles();
  const std::vector<Triangle> slab = testmesh::Mesh().box({-3, -0.3f, -3}, {3, 0, 3}).triangles();
  std::vector<Instance> parts;
  for (int k = 0; k < kInstances; ++k) {
    parts.push_back({std::uint32_t(10 + k), std::uint32_t(k % 2), Pose{Vec3d(-12 + 5 * k, 0.5, 4 - 2 * k), about_y(0.3 * k)}});
  }
  return World(World(make_arena()), {World(crate), World(slab)}, std::move(parts));
}

// New poses for four of them (not in id order), one tilted about x.
std::vector<InstancePose> new_poses() {
  const double s = std::sin(0.2), c = std::cos(0.2);
  return {{13, {Vec3d(2, 0.25, -3), about_y(1.1)}},
          {10, {Vec3d(-6, 1.5, 6), Quat{s, 0, 0, c}}},
          {15, {Vec3d(8.5, 0, 1), Quat{}}},
          {11, {Vec3d(0, 0.75, 0), about_y(-0.7)}}};
}

service::ServerConfig serving(const World& world, std::size_t pose_sets = 64, std::size_t max_batch = 262144) {
  service::ServerConfig c;
  c.listen = "127.0.0.1:0";
  c.max_batch = max_batch;
  c.pose_sets = pose_sets;
  c.worlds.push_back({"level", world, "level", false, 0, nullptr});
  c.worlds.push_back({"plain", World(make_arena()), "plain", false, 0, nullptr});
  return c;
}

template <class Request>
Request at_poses(Request r, std::span<const InstancePose> poses) {
  r.set_world("level");
  service::write_poses(poses, *r.mutable_poses());
  return r;
}

// The same request to both replicas: the same bytes back.
template <class Request, class Response, class Method>
Response on_both(Capsweep::Stub& a, Capsweep::Stub& b, const Request& req, Method method) {
  Response ra, rb;
  grpc::ClientContext ca, cb;
  const grpc::Status sa = (a.*method)(&ca, req, &ra), sb = (b.*method)(&cb, req, &rb);
  EXPECT_TRUE(sa.ok()) << sa.error_message();
  EXPECT_TRUE(sb.ok()) << sb.error_message();
  EXPECT_EQ(ra.SerializeAsString(), rb.SerializeAsString()) << "the replicas answer differently";
  return ra;
}

TEST(ServicePoses, APosedRequestAnswersTheSameBytesOnBothReplicasAndAsTheLibrary) {
  const World world = level();
  const std::vector<InstancePose> poses = new_poses();
  const World posed = world.posed(poses);
  const World still = posed.posed(poses);  // posed again at the same poses: nothing moved (as posed_from_file)
  service::Server first(serving(world)), second(serving(world));
  auto a = raw_stub(first), b = raw_stub(second);
  batches::Batches q = batches::make(posed, 500, 37);

  // Sweep: as World::posed answers (a sweep does not read how instances moved).
  {
    pb::SweepRequest req;
    service::write_request(q.sweeps, req);
    const pb::SweepResponse resp =
        on_both<pb::SweepRequest, pb::SweepResponse>(*a, *b, at_poses(req, poses), &Capsweep::Stub::Sweep);
    std::vector<SweepHit> got(q.sweeps.size()), expected(q.sweeps.size()), loaded(q.sweeps.size());
    ASSERT_TRUE(service::read_response(resp, got, {}));
    posed.sweep(q.sweeps, expected);
    expect_same(got, expected, "sweep");
    std::size_t on_moved = 0, changed = 0;
    world.sweep(q.sweeps, loaded);
    for (std::size_t i = 0; i < got.size(); ++i) {
      on_moved += got[i].hit && posed.instance_of(got[i].triangle) && posed.instance_of(got[i].triangle)->id != 12;
      changed += !identical(got[i], loaded[i]);
    }
    EXPECT_GT(on_moved, 10u) << "the queries meet the instances moved";
    EXPECT_GT(changed, 10u) << "the poses change answers";
    // Without poses: the world as loaded, as before.
    req.set_world("level");
    const pb::SweepResponse plain = on_both<pb::SweepRequest, pb::SweepResponse>(*a, *b, req, &Capsweep::Stub::Sweep);
    ASSERT_TRUE(service::read_response(plain, got, {}));
    expect_same(got, loaded, "sweep without poses");
  }
  // SweepEllipsoid.
  {
    const std::vector<SweepEllipsoidQuery> e = ellipsoids_for(q.sweeps);
    pb::SweepEllipsoidRequest req;
    service::write_request(e, req);
    const pb::SweepResponse resp = on_both<pb::SweepEllipsoidRequest, pb::SweepResponse>(
        *a, *b, at_poses(req, poses), &Capsweep::Stub::SweepEllipsoid);
    std::vector<SweepHit> got(e.size()), expected(e.size());
    ASSERT_TRUE(service::read_response(resp, got, {}));
    posed.sweep_ellipsoid(e, expected);
    expect_same(got, expected, "ellipsoid");
  }
  // Overlap.
  {
    pb::OverlapRequest req;
    service::write_request(q.capsules, req);
    req.set_clearance(0.05f);
    const pb::OverlapResponse resp =
        on_both<pb::OverlapRequest, pb::OverlapResponse>(*a, *b, at_poses(req, poses), &Capsweep::Stub::Overlap);
    std::vector<OverlapResult> got(q.capsules.size()), expected(q.capsules.size());
    ASSERT_TRUE(service::read_response(resp, got, {}));
    posed.overlap(q.capsules, 0.05f, expected);
    expect_same(got, expected, "overlap");
  }
  // Move: on the still frame, carrying and pushing no agent by the jump from the loaded poses.
  {
    pb::MoveRequest req;
    service::write_request(q.agents, req);
    *req.mutable_settings() = service::to_pb(MoveSettings{});
    const pb::MoveResponse resp = on_both<pb::MoveRequest, pb::MoveResponse>(*a, *b, at_poses(req, poses), &Capsweep::Stub::Move);
    std::vector<MoveResult> got(q.agents.size()), expected(q.agents.size());
    ASSERT_TRUE(service::read_response(resp, got, {}));
    still.move(q.agents, MoveSettings{}, expected);
    expect_same(got, expected, "move");
    for (const MoveResult& m : got) EXPECT_FALSE(m.flags & kMoveCrushed);
  }
  // Validate.
  {
    pb::ValidateRequest req;
    service::write_request(q.claims, req);
    *req.mutable_settings() = service::to_pb(ValidateSettings{});
    const pb::ValidateResponse resp =
        on_both<pb::ValidateRequest, pb::ValidateResponse>(*a, *b, at_poses(req, poses), &Capsweep::Stub::Validate);
    std::vector<Verdict> got(q.claims.size()), expected(q.claims.size());
    ASSERT_TRUE(service::read_response(resp, got));
    still.validate(q.claims, ValidateSettings{}, expected);
    expect_same(got, expected, "validate");
  }
}

TEST(ServicePoses, APoseSetsIdNamesItsContentWhateverTheRowsOrder) {
  std::vector<InstancePose> poses = new_poses();
  const std::string id = service::pose_set_id(poses);
  EXPECT_EQ(id.size(), 32u);
  std::swap(poses[0], poses[3]);
  EXPECT_EQ(service::pose_set_id(poses), id);
  poses[1].pose.position.x = std::nextafter(poses[1].pose.position.x, 1e9);
  EXPECT_NE(service::pose_set_id(poses), id);
  EXPECT_NE(service::pose_set_id({}), id);
}

TEST(ServicePoses, APoseSetUploadedToOneReplicaIsResentToAnother) {
  const World world = level();
  const std::vector<InstancePose> poses = new_poses();
  service::Server first(serving(world)), second(serving(world));
  auto a = raw_stub(first), b = raw_stub(second);
  const std::string id = service::Client(client_options(first)).upload_poses("level", poses);
  EXPECT_EQ(id, service::pose_set_id(poses)) << "every replica names the set as the client does";

  const std::vector<SweepQuery> queries = batches::make(world.posed(poses), 300, 5).sweeps;
  std::vector<SweepHit> expected(queries.size()), got(queries.size());
  world.posed(poses).sweep(queries, expected);
  pb::SweepRequest by_id;
  by_id.set_world("level");
  service::write_request(queries, by_id);
  by_id.set_pose_set(id);
  {
    pb::SweepResponse resp;
    grpc::ClientContext ctx;
    const grpc::Status s = b->Sweep(&ctx, by_id, &resp);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
    EXPECT_NE(s.error_message().find("'" + id + "' is not held by this replica"), std::string::npos) << s.error_message();
    EXPECT_NE(s.error_message().find("send the request again with its poses"), std::string::npos) << s.error_message();
  }
  // Replica A answers by id what B answers with the poses carried.
  pb::SweepResponse at_a, at_b;
  {
    grpc::ClientContext ca, cb;
    ASSERT_TRUE(a->Sweep(&ca, by_id, &at_a).ok());
    pb::SweepRequest carried = at_poses(by_id, poses);
    carried.clear_pose_set();
    ASSERT_TRUE(b->Sweep(&cb, carried, &at_b).ok());
  }
  EXPECT_EQ(at_a.SerializeAsString(), at_b.SerializeAsString());
  ASSERT_TRUE(service::read_response(at_a, got, {}));
  expect_same(got, expected, "by id");

  // The client sends the set by id to B, is told to re-send, and does, once: B keeps it.
  service::ClientOptions o = client_options(second, 100);
  o.poses_by_id_from = 1;
  service::Client client(o);
  std::vector<SweepHit> hits(queries.size());
  client.sweep("level", queries, hits, {}, SweepPath::simd, kAllLayers, poses);
  expect_same(hits, expected, "client, re-sent");
  EXPECT_GE(client.pose_resends(), 1u);
  EXPECT_LE(client.pose_resends(), (queries.size() + 99) / 100) << "one per request at most";
  const std::size_t resent = client.pose_resends();
  client.sweep("level", queries, hits, {}, SweepPath::simd, kAllLayers, poses);
  expect_same(hits, expected, "client, by id");
  EXPECT_EQ(client.pose_resends(), resent) << "B kept the set the request carried";
  // A small set travels with each request, never by id.
  service::Client inline_client(client_options(second));
  inline_client.sweep("level", queries, hits, {}, SweepPath::simd, kAllLayers, poses);
  expect_same(hits, expected, "client, poses carried");
  EXPECT_EQ(inline_client.pose_resends(), 0u);
}

struct BadPoses {
  const char* what;
  std::vector<InstancePose> poses;
  std::string message;
  grpc::StatusCode code = grpc::StatusCode::INVALID_ARGUMENT;
};

TEST(ServicePoses, BadPosesAreRefusedNamingTheRowAndKeptNowhere) {
  const World world = level();
  service::Server server(serving(world, 64, 8));
  auto stub = raw_stub(server);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<InstancePose> many;
  for (int k = 0; k <= kInstances; ++k) many.push_back({std::uint32_t(10 + k), {}});
  std::vector<InstancePose> beyond_limit(9);
  const std::vector<BadPoses> cases = {
      {"unknown id", {{12, {}}, {999, {}}}, "poses: row 1 (instance 999): the world has no instance of that id"},
      {"NaN", {{10, {Vec3d(nan, 0, 0), Quat{}}}}, "poses: row 0 (instance 10): "},
      {"non-unit quaternion", {{11, {}}, {10, {Vec3d(), Quat{0, 0, 0, 0.5}}}}, "poses: row 1 (instance 10): "},
      {"id twice", {{10, {}}, {10, {}}}, "poses: row 1 (instance 10): posed twice, first in row 0"},
      {"more rows than instances", many, "poses: row 6: more rows than the world's 6 instances"},
      {"beyond --max-batch", beyond_limit, "poses: 9 rows are more than this server's limit of 8",
       grpc::StatusCode::RESOURCE_EXHAUSTED},
      {"placed beyond range", {{10, {Vec3d(1e6, 0, 0), Quat{}}}}, "poses: row 0 (instance 10): "},
  };
  const std::vector<SweepQuery> queries(3, SweepQuery{{{0, 1, 0}, {0, 2, 0}, 0.4f}, {1, 0, 0}});
  for (const BadPoses& c : cases) {
    SCOPED_TRACE(c.what);
    pb::SweepRequest req;
    req.set_world("level");
    service::write_request(queries, req);
    service::write_poses(c.poses, *req.mutable_poses());
    req.set_pose_set(service::pose_set_id(c.poses));  // "keep them": they must not be kept
    pb::SweepResponse resp;
    grpc::ClientContext ctx;
    const grpc::Status s = stub->Sweep(&ctx, req, &resp);
    EXPECT_EQ(s.error_code(), c.code) << s.error_message();
    EXPECT_NE(s.error_message().find(c.message), std::string::npos) << s.error_message();
    pb::UploadPosesRequest up;
    up.set_world("level");
    service::write_poses(c.poses, *up.mutable_poses());
    pb::UploadPosesResponse uploaded;
    grpc::ClientContext cu;
    const grpc::Status su = stub->UploadPoses(&cu, up, &uploaded);
    EXPECT_EQ(su.error_code(), c.code) << su.error_message();
    EXPECT_NE(su.error_message().find(c.message), std::string::npos) << su.error_message();
    req.clear_poses();
    grpc::ClientContext again;
    EXPECT_EQ(stub->Sweep(&again, req, &resp).error_code(), grpc::StatusCode::FAILED_PRECONDITION) << "nothing was kept";
  }
  // Columns of different lengths, an id not the poses', poses on a world without instances.
  pb::SweepRequest req;
  req.set_world("level");
  service::write_request(queries, req);
  const std::vector<InstancePose> good = new_poses();
  service::write_poses(good, *req.mutable_poses());
  auto refused = [&](const pb::SweepRequest& r, const std::string& message) {
    pb::SweepResponse resp;
    grpc::ClientContext ctx;
    const grpc::Status s = stub->Sweep(&ctx, r, &resp);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << message;
    EXPECT_NE(s.error_message().find(message), std::string::npos) << s.error_message();
  };
  pb::SweepRequest ragged = req;
  ragged.mutable_poses()->mutable_qw()->RemoveLast();
  refused(ragged, "poses: column qw has 3 rows, id has 4");
  pb::SweepRequest wrong_id = req;
  wrong_id.set_pose_set(std::string(32, '0'));
  refused(wrong_id, "pose_set: '00000000000000000000000000000000' is not the id of the poses sent with it ('" +
                        service::pose_set_id(good) + "')");
  pb::SweepRequest plain = req;
  plain.set_world("plain");
  refused(plain, "poses: the world has no instances to pose");
  // The Client throws the server's refusal.
  service::Client client(client_options(server));
  std::vector<SweepHit> hits(queries.size());
  const std::vector<InstancePose> unknown{{77, {}}};
  try {
    client.sweep("level", queries, hits, {}, SweepPath::simd, kAllLayers, unknown);
    ADD_FAILURE() << "an unknown instance was posed";
  } catch (const service::ServiceError& e) {
    EXPECT_EQ(e.code(), int(grpc::StatusCode::INVALID_ARGUMENT));
    EXPECT_NE(std::string(e.what()).find("row 0 (instance 77)"), std::string::npos) << e.what();
  }
}

TEST(ServicePoses, PoseSetsBeyondTheCacheLeaveLeastRecentlyUsedFirst) {
  const World world = level();
  service::Server server(serving(world, 2));
  service::Client client(client_options(server));
  std::vector<std::vector<InstancePose>> sets;
  for (int k = 0; k < 3; ++k) sets.push_back({{std::uint32_t(10 + k), {Vec3d(k, 0, 0), Quat{}}}});
  const std::string s0 = client.upload_poses("level", sets[0]), s1 = client.upload_poses("level", sets[1]);
  auto stub = raw_stub(server);
  auto held = [&](const std::string& id) {
    pb::OverlapRequest req;
    req.set_world("level");
    service::write_request(std::vector<Capsule>{{{0, 1, 0}, {0, 2, 0}, 0.3f}}, req);
    req.set_pose_set(id);
    pb::OverlapResponse resp;
    grpc::ClientContext ctx;
    const grpc::StatusCode code = stub->Overlap(&ctx, req, &resp).error_code();
    EXPECT_TRUE(code == grpc::StatusCode::OK || code == grpc::StatusCode::FAILED_PRECONDITION) << int(code);
    return code == grpc::StatusCode::OK;
  };
  EXPECT_TRUE(held(s0));  // s0 used after s1: s1 leaves first
  const std::string s2 = client.upload_poses("level", sets[2]);
  EXPECT_TRUE(held(s0));
  EXPECT_FALSE(held(s1));
  EXPECT_TRUE(held(s2));
  const std::string page = server.metrics_text();
  EXPECT_NE(page.find("capsweep_pose_sets_kept_total 3\n"), std::string::npos) << page;
  EXPECT_NE(page.find("capsweep_pose_sets_evicted_total 1\n"), std::string::npos) << page;
  EXPECT_NE(page.find("capsweep_pose_sets 2\n"), std::string::npos) << page;
  EXPECT_NE(page.find("capsweep_posed_requests_total{rpc=\"Overlap\"} 3\n"), std::string::npos) << page;
  EXPECT_NE(page.find("capsweep_errors_total{rpc=\"Overlap\",code=\"FAILED_PRECONDITION\"} 1\n"), std::string::npos) << page;
  const service::ServerInfo info = client.info();
  EXPECT_EQ(info.max_pose_sets, 2u);
  EXPECT_EQ(info.pose_sets, 2u);
  // A replica keeping no sets answers every request by id with FAILED_PRECONDITION.
  service::Server none(serving(world, 0));
  EXPECT_FALSE(service::Client(client_options(none)).upload_poses("level", sets[0]).empty());
  stub = raw_stub(none);
  EXPECT_FALSE(held(s0));
}

// The request fuzzer's corpus holds requests with poses and pose sets (its first byte picks the
// RPC): each parses as its request, with the poses or the id it was written with.
TEST(ServicePoses, TheRequestFuzzersCorpusCarriesPoses) {
  const std::string folder = std::string(CAPSWEEP_SOURCE_DIR) + "/tests/fuzz/corpus/fuzz_requests/";
  const std::vector<std::pair<std::string, int>> files = {
      {"sweep_poses", 1},          {"sweep_poses_refused", 3}, {"sweep_poses_ragged", 2}, {"sweep_poses_wrong_set", 1},
      {"sweep_pose_set", 0},       {"move_poses", 1},          {"validate_poses", 1},     {"overlap_poses", 1},
      {"sweep_ellipsoid_poses", 1}};
  for (const auto& [file, rows] : files) {
    SCOPED_TRACE(file);
    std::ifstream in(folder + file, std::ios::binary);
    const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    ASSERT_GT(bytes.size(), 1u);
    const std::string body = bytes.substr(1);
    auto check = [&](const auto& r) {
      EXPECT_EQ(r.poses().id_size(), rows);
      EXPECT_EQ(r.pose_set().empty(), file != "sweep_pose_set" && file != "sweep_poses_wrong_set");
    };
    switch (bytes[0] % 5) {
      case 0: { pb::SweepRequest r; ASSERT_TRUE(r.ParseFromString(body)); check(r); break; }
      case 1: { pb::MoveRequest r; ASSERT_TRUE(r.ParseFromString(body)); check(r); break; }
      case 2: { pb::ValidateRequest r; ASSERT_TRUE(r.ParseFromString(body)); check(r); break; }
      case 4: { pb::SweepEllipsoidRequest r; ASSERT_TRUE(r.ParseFromString(body)); check(r); break; }
      default: { pb::OverlapRequest r; ASSERT_TRUE(r.ParseFromString(body)); check(r); break; }
    }
  }
}

}  // namespace
