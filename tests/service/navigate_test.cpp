// The Navigate RPC answers what a NavCrowd answers for the same agents, goals, settings and
// ticks, bit for bit (the navmesh built from the served world for the server's body and the
// request's settings), and refuses malformed requests with INVALID_ARGUMENT naming the column
// or the agent.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>

#include <capsweep/navigation.h>

#include "service/convert.h"
#include "tests/service/service_support.h"
#include "tools/nav_run.h"

namespace {

using namespace service_support;
namespace pb = capsweep::service::pb;

constexpr const char* kLevel = "recast_nav_test.obj";

Vec3 feet(const Capsule& c) { return {c.a.x, c.a.y - c.radius, c.a.z}; }

struct Crowd {
  std::vector<Capsule> bodies;
  std::vector<Vec3> goals;
};

// 16 agents on the level's navmesh, each with a reachable goal.
Crowd crowd_on(const World& world, const NavMesh& navmesh) {
  Crowd c;
  c.bodies = spawn_on_navmesh(world, navmesh, MoveSettings{}, 16, 11);
  for (std::size_t i = 0; i < c.bodies.size(); ++i) {
    Vec3 goal;
    EXPECT_TRUE(navmesh.random_reachable(feet(c.bodies[i]), 70 + i, goal));
    c.goals.push_back(goal);
  }
  return c;
}

pb::NavigateRequest request(const Crowd& c, std::uint32_t ticks, std::uint32_t corners) {
  pb::NavigateRequest r;
  r.set_world(kLevel);
  for (std::size_t i = 0; i < c.bodies.size(); ++i) {
    service::add(*r.mutable_capsules(), c.bodies[i]);
    service::add(*r.mutable_goal(), c.goals[i]);
    r.add_speed(1.2f + 0.05f * float(i));
    r.add_id(std::uint32_t(100 + i));
  }
  r.set_ticks(ticks);
  r.set_corners(corners);
  return r;
}

// What the request's crowd does in one NavCrowd of its own on `navmesh`: the same agents, speeds,
// ids and goals as request() sends, `ticks` ticks.
std::unique_ptr<NavCrowd> walked(const World& world, const NavMesh& navmesh, const MoveSettings& move, const Crowd& c,
                                 int ticks) {
  NavCrowdSettings s;
  s.move = move;
  s.batch.threads = 1;
  auto crowd = std::make_unique<NavCrowd>(world, navmesh, s);
  for (std::size_t i = 0; i < c.bodies.size(); ++i) {
    crowd->add(c.bodies[i], 1.2f + 0.05f * float(i), std::uint32_t(100 + i));
    crowd->set_goal(i, c.goals[i]);
  }
  for (int t = 0; t < ticks; ++t) crowd->tick();
  return crowd;
}

std::pair<grpc::Status, pb::NavigateResponse> navigate(const service::Server& server, const pb::NavigateRequest& r) {
  grpc::ClientContext ctx;
  pb::NavigateResponse resp;
  const grpc::Status s = raw_stub(server)->Navigate(&ctx, r, &resp);
  return {s, resp};
}

// The server's answer to the crowd `c` walking 25 ticks with `move` (4 corners each).
pb::NavigateResponse answered(const service::Server& server, const Crowd& c, const MoveSettings& move) {
  pb::NavigateRequest r = request(c, 25, 4);
  *r.mutable_settings() = service::to_pb(move);
  const auto [status, answer] = navigate(server, r);
  EXPECT_TRUE(status.ok()) << status.error_message();
  return answer;
}

// The level 1.5 m higher: a navmesh of it lies over the level's floors, so which was walked shows.
std::vector<Triangle> raised_level() {
  std::vector<Triangle> raised = scenes::load(kLevel);
  for (Triangle& t : raised) {
    for (Vec3& v : t.v) v.y += 1.5f;
  }
  return raised;
}

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }
bool same_bits(const Vec3& a, const Vec3& b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// The answer is the crowd's: every agent's status, body, velocity, carried state and corners.
void expect_crowd(const pb::NavigateResponse& r, const NavCrowd& crowd, std::uint32_t corners) {
  const auto agents = crowd.agents();
  ASSERT_EQ(std::size_t(r.status_size()), agents.size());
  ASSERT_TRUE(service::has(r.capsule(), agents.size()) && service::has(r.velocity(), agents.size()));
  int corner = 0;
  for (std::size_t i = 0; i < agents.size(); ++i) {
    const NavAgent& a = agents[i];
    const int k = int(i);
    EXPECT_EQ(r.status(k), int(a.status)) << i;
    EXPECT_EQ(r.returning(k), a.returning) << i;
    const Capsule c = service::capsule_at(r.capsule(), i);
    EXPECT_TRUE(same_bits(c.a, a.capsule.a) && same_bits(c.b, a.capsule.b) && same_bits(c.radius, a.capsule.radius)) << i;
    EXPECT_TRUE(same_bits(service::vec3_at(r.velocity(), i), a.velocity)) << i;
    EXPECT_TRUE(same_bits(r.vertical_speed(k), a.vertical_speed)) << i;
    EXPECT_EQ(r.ground_triangle(k), a.ground_triangle) << i;
    EXPECT_EQ(r.flags(k), crowd.results()[i].flags) << i;
    EXPECT_EQ(r.replans(k), a.replans) << i;
    const std::vector<Vec3> next = crowd.corners(i, int(corners));
    ASSERT_EQ(r.corner_count(k), next.size()) << i;
    for (const Vec3& v : next) EXPECT_TRUE(same_bits(service::vec3_at(r.corner(), std::size_t(corner++)), v)) << i;
  }
  EXPECT_EQ(corner, r.corner().x_size());
}

TEST(Navigate, AnswersWhatANavCrowdAnswersForTheSameRequest) {
  const service::ServerConfig config = config_with({kLevel});
  const Capsule body = config.navmesh_body;
  service::Server server(config);
  const World world(scenes::load(kLevel));

  for (const float step : {MoveSettings{}.step_height, 0.5f}) {  // the navmesh follows the request's settings
    MoveSettings move;
    move.step_height = step;
    const NavMesh navmesh = NavMesh::build(world, navmesh_settings(move, body), 1);
    const Crowd c = crowd_on(world, navmesh);
    const pb::NavigateResponse answer = answered(server, c, move);
    const std::unique_ptr<NavCrowd> crowd = walked(world, navmesh, move, c, 25);
    expect_crowd(answer, *crowd, 4);
    std::size_t walking = 0;
    for (const NavAgent& a : crowd->agents()) walking += a.status == NavStatus::walking || a.status == NavStatus::arrived;
    EXPECT_GT(walking, c.bodies.size() / 2);
    // The same request again (the navmesh now cached): the same bytes.
    EXPECT_EQ(answered(server, c, move).SerializeAsString(), answer.SerializeAsString());
  }
}

TEST(Navigate, RefusesMalformedRequestsNamingTheColumnOrAgent) {
  const service::ServerConfig config = config_with({kLevel});
  service::Server server(config);
  const World world(scenes::load(kLevel));
  const NavMesh navmesh = NavMesh::build(world, navmesh_settings(MoveSettings{}, config.navmesh_body), 1);
  const Crowd c = crowd_on(world, navmesh);
  auto refusal = [&](const pb::NavigateRequest& r) {
    const auto [status, answer] = navigate(server, r);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << status.error_message();
    return status.error_message();
  };
  pb::NavigateRequest r = request(c, 2, 0);
  r.mutable_goal()->mutable_x()->RemoveLast();
  EXPECT_NE(refusal(r).find("goal"), std::string::npos);
  r = request(c, 2, 0);
  r.mutable_capsules()->mutable_a()->set_y(3, NAN);
  EXPECT_EQ(refusal(r), "agent 3: capsules: the body must be finite with a radius > 0");
  r = request(c, 2, 0);
  r.mutable_goal()->set_z(5, INFINITY);
  EXPECT_EQ(refusal(r), "agent 5: goal: not finite");
  r = request(c, 2, 0);
  r.set_speed(0, 0);
  EXPECT_EQ(refusal(r), "agent 0: speed: must be > 0");
  r = request(c, 2, 0);
  r.set_ticks(601);
  EXPECT_EQ(refusal(r), "ticks: 601 is more than 600");
  r = request(c, 2, 0);
  r.set_corners(17);
  EXPECT_EQ(refusal(r), "corners: 17 is more than 16");
  r = request(c, 2, 0);
  r.mutable_capsules()->set_radius(1, 2.f);
  const std::string wide = refusal(r);
  EXPECT_EQ(wide.rfind("agent 1: ", 0), 0u) << wide;
  EXPECT_NE(wide.find("wider than the navmesh"), std::string::npos) << wide;
  r = request(c, 2, 0);
  r.set_layers(0);
  EXPECT_NE(refusal(r).find("layers"), std::string::npos);
  r = request(c, 2, 0);
  r.mutable_settings()->set_dt(-1);
  refusal(r);
  r = request(c, 2, 0);
  r.set_world("nowhere");
  EXPECT_EQ(navigate(server, r).first.error_code(), grpc::StatusCode::NOT_FOUND);
  // An empty crowd is answered (nothing to do), not refused.
  pb::NavigateRequest empty;
  empty.set_world(kLevel);
  const auto [status, answer] = navigate(server, empty);
  EXPECT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(answer.status_size(), 0);
}

}  // namespace

// A reload swaps the world under its name: the navmesh cached for the old world (keyed by its
// generation) is not the one the next Navigate walks; it answers on the new world's navmesh.
// A world served with the navmesh its snapshot keeps (capsweep build --navmesh): a request whose
// settings derive that navmesh's settings walks it (here one built for the level 1.5 m higher,
// so that which one is walked shows), and one whose settings differ gets the navmesh built for
// them, as before.
TEST(Navigate, WalksTheNavmeshTheSnapshotKeepsWhenItsSettingsAreTheRequests) {
  service::ServerConfig config = config_with({kLevel});
  const Capsule body = config.navmesh_body;
  const World world(scenes::load(kLevel));
  const NavMesh kept = NavMesh::build(World(raised_level()), navmesh_settings(MoveSettings{}, body), 1);
  config.worlds[0].navmesh = std::make_shared<const NavMesh>(kept);
  service::Server server(config);
  for (const float step : {MoveSettings{}.step_height, 0.5f}) {
    MoveSettings move;
    move.step_height = step;
    const NavMesh own = NavMesh::build(world, navmesh_settings(move, body), 1);
    const Crowd c = crowd_on(world, own);
    const pb::NavigateResponse answer = answered(server, c, move);
    const bool keeps = step == MoveSettings{}.step_height;
    expect_crowd(answer, *walked(world, keeps ? kept : own, move, c, 25), 4);
    if (keeps) {  // the two navmeshes move the crowd differently: the answer says which was walked
      const auto on_own = walked(world, own, move, c, 25);
      bool differ = false;
      for (std::size_t i = 0; i < c.bodies.size(); ++i) {
        differ |= !same_bits(service::capsule_at(answer.capsule(), i).a, on_own->agents()[i].capsule.a);
      }
      EXPECT_TRUE(differ);
    }
  }
}

// What an agent carries from one request to the next (its vertical speed and ground triangle, as
// the response gave them): a request that sends them answers what a NavCrowd given them answers,
// and an agent sent up at 3 m/s rises where one sent nothing does not.
TEST(Navigate, CarriesEachAgentsVerticalSpeedAndGroundIn) {
  const service::ServerConfig config = config_with({kLevel});
  service::Server server(config);
  const World world(scenes::load(kLevel));
  const NavMesh navmesh = NavMesh::build(world, navmesh_settings(MoveSettings{}, config.navmesh_body), 1);
  const Crowd c = crowd_on(world, navmesh);
  pb::NavigateRequest r = request(c, 3, 2);
  const auto [first_status, first] = navigate(server, r);  // where each stands, and on what
  ASSERT_TRUE(first_status.ok()) << first_status.error_message();
  r.clear_capsules();
  for (std::size_t i = 0; i < c.bodies.size(); ++i) {
    service::add(*r.mutable_capsules(), service::capsule_at(first.capsule(), i));
    r.add_vertical_speed(i % 2 ? 3.f : first.vertical_speed(int(i)));
    r.add_ground_triangle(i % 2 ? kNoTriangle : first.ground_triangle(int(i)));
  }
  const auto [status, answer] = navigate(server, r);
  ASSERT_TRUE(status.ok()) << status.error_message();
  NavCrowdSettings s;
  s.batch.threads = 1;
  NavCrowd carried(world, navmesh, s), fresh(world, navmesh, s);
  for (std::size_t i = 0; i < c.bodies.size(); ++i) {
    for (NavCrowd* crowd : {&carried, &fresh}) {
      crowd->add(service::capsule_at(first.capsule(), i), 1.2f + 0.05f * float(i), std::uint32_t(100 + i));
      crowd->set_goal(i, c.goals[i]);
    }
    carried.set_carried(i, r.vertical_speed(int(i)), r.ground_triangle(int(i)));
  }
  for (int t = 0; t < 3; ++t) carried.tick(), fresh.tick();
  expect_crowd(answer, carried, 2);
  for (std::size_t i = 1; i < c.bodies.size(); i += 2) {
    EXPECT_GT(carried.agents()[i].capsule.a.y, fresh.agents()[i].capsule.a.y + 0.05f) << i;
  }
  // A vertical speed that is not finite is refused, naming the agent and the column.
  r.set_vertical_speed(3, std::nanf(""));
  const auto [bad, unused] = navigate(server, r);
  EXPECT_EQ(bad.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(bad.error_message().find("agent 3: vertical_speed"), std::string::npos) << bad.error_message();
}

TEST(Navigate, AfterAReloadAnswersOnTheNewWorldsNavmesh) {
  const service::ServerConfig config = config_with({kLevel});
  const Capsule body = config.navmesh_body;
  service::Server server(config);
  const World old_world(scenes::load(kLevel));
  const NavMesh old_navmesh = NavMesh::build(old_world, navmesh_settings(MoveSettings{}, body), 1);
  ASSERT_TRUE(navigate(server, request(crowd_on(old_world, old_navmesh), 2, 0)).first.ok());  // cached now

  // The new world: the same level 1.5 m higher, so the old navmesh lies under its floors.
  const World new_world(raised_level());
  ASSERT_TRUE(server.replace_world({kLevel, new_world, "raised", false, 0, nullptr}));
  const NavMesh navmesh = NavMesh::build(new_world, navmesh_settings(MoveSettings{}, body), 1);
  const Crowd c = crowd_on(new_world, navmesh);
  const auto [status, answer] = navigate(server, request(c, 25, 4));
  ASSERT_TRUE(status.ok()) << status.error_message();
  expect_crowd(answer, *walked(new_world, navmesh, MoveSettings{}, c, 25), 4);
}
