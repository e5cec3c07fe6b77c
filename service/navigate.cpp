#include "service/navigate.h"

#include <cmath>

namespace capsweep::service {

namespace {

bool finite(const Vec3& v) { return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z); }

}  // namespace

BatchShape shape_of(const pb::NavigateRequest& r) {
  BatchShape s;
  shape_of(r.capsules(), "capsules", s);
  shape_of(r.goal(), "goal", s);
  s.optional_column("speed", std::size_t(r.speed_size()));
  s.optional_column("id", std::size_t(r.id_size()));
  s.optional_column("element_layers", std::size_t(r.element_layers_size()));
  s.optional_column("vertical_speed", std::size_t(r.vertical_speed_size()));
  s.optional_column("ground_triangle", std::size_t(r.ground_triangle_size()));
  return s;
}

std::vector<NavigateAgent> read_request(const pb::NavigateRequest& r, std::size_t n, std::string& why) {
  std::vector<NavigateAgent> agents(n);
  for (std::size_t i = 0; i < n; ++i) {
    NavigateAgent& a = agents[i];
    a.body = capsule_at(r.capsules(), i);
    a.goal = vec3_at(r.goal(), i);
    if (r.speed_size()) a.speed = r.speed(int(i));
    a.id = r.id_size() ? r.id(int(i)) : std::uint32_t(i);
    a.layers = layers_at(r.element_layers(), i);
    if (r.vertical_speed_size()) a.vertical_speed = r.vertical_speed(int(i));
    if (r.ground_triangle_size()) a.ground_triangle = r.ground_triangle(int(i));
    // World::move would refuse such a body tick after tick while the crowd kept planning for it:
    // the request is refused instead, naming the agent.
    const std::string agent = "agent " + std::to_string(i) + ": ";
    if (!finite(a.body.a) || !finite(a.body.b) || !std::isfinite(a.body.radius) || !(a.body.radius > 0)) {
      why = agent + "capsules: the body must be finite with a radius > 0";
    } else if (!finite(a.goal)) {
      why = agent + "goal: not finite";
    } else if (!(a.speed > 0) || !std::isfinite(a.speed)) {
      why = agent + "speed: must be > 0";
    } else if (a.layers == 0) {
      why = agent + "element_layers: a mask of no layer sees nothing";
    } else if (!std::isfinite(a.vertical_speed)) {
      why = agent + "vertical_speed: not finite";
    }
    if (!why.empty()) return {};
  }
  return agents;
}

NavCrowdSettings crowd_settings(const pb::NavigateRequest& r, const MoveSettings& move, const BatchOptions& batch) {
  NavCrowdSettings s;
  s.move = move;
  s.batch = batch;
  if (r.has_arrive_distance()) s.arrive_distance = r.arrive_distance();
  if (r.has_avoidance()) s.avoidance = r.avoidance();
  return s;
}

void write_response(const NavCrowd& crowd, std::uint32_t corners, pb::NavigateResponse& r) {
  const auto agents = crowd.agents();
  const auto results = crowd.results();
  const std::size_t n = agents.size();
  int* status = sized(r.mutable_status(), n);
  bool* returning = sized(r.mutable_returning(), n);
  CapsuleOut capsule(*r.mutable_capsule(), n);
  Vec3Out velocity(*r.mutable_velocity(), n);
  float* vertical_speed = sized(r.mutable_vertical_speed(), n);
  std::uint32_t* ground = sized(r.mutable_ground_triangle(), n);
  std::uint32_t* flags = sized(r.mutable_flags(), n);
  std::uint32_t* replans = sized(r.mutable_replans(), n);
  std::uint32_t* corner_count = sized(r.mutable_corner_count(), n);
  for (std::size_t i = 0; i < n; ++i) {
    const NavAgent& a = agents[i];
    status[i] = int(a.status);
    returning[i] = a.returning;
    capsule.put(i, a.capsule);
    velocity.put(i, a.velocity);
    vertical_speed[i] = a.vertical_speed;
    ground[i] = a.ground_triangle;
    flags[i] = i < results.size() ? results[i].flags : 0;
    replans[i] = a.replans;
    const std::vector<Vec3> next = corners ? crowd.corners(i, int(corners)) : std::vector<Vec3>{};
    corner_count[i] = std::uint32_t(next.size());
    for (const Vec3& c : next) add(*r.mutable_corner(), c);
  }
}

}  // namespace capsweep::service
