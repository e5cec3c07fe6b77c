// The Navigate RPC's requests and responses (capsweep.proto) as a NavCrowd's agents and state:
// what the server reads and writes around a crowd it makes per request. Server-only (the
// embeddable client does not link Recast or Detour).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <capsweep/navigation.h>
#include "service/capsweep.pb.h"
#include "service/columns.h"

namespace capsweep::service {

// The most ticks and next corners one request may ask for.
inline constexpr std::uint32_t kMaxNavigateTicks = 600;
inline constexpr std::uint32_t kMaxNavigateCorners = 16;

BatchShape shape_of(const pb::NavigateRequest& r);

// One agent of a request: its body, speed, id, layers and goal.
struct NavigateAgent {
  Capsule body;
  float speed = 1.5f;
  std::uint32_t id = 0;
  std::uint32_t layers = kAllLayers;
  Vec3 goal;
  float vertical_speed = 0;                      // carried in (NavCrowd::set_carried)
  std::uint32_t ground_triangle = kNoTriangle;
};

// The request's agents, or "" with `why` naming the first agent refused and the reason (a body
// not finite or with radius <= 0, a goal not finite, a speed not > 0, a mask of 0, a vertical
// speed not finite).
std::vector<NavigateAgent> read_request(const pb::NavigateRequest& r, std::size_t n, std::string& why);

// The crowd's settings from a request: the movement settings and the optional crowd fields.
NavCrowdSettings crowd_settings(const pb::NavigateRequest& r, const MoveSettings& move, const BatchOptions& batch);

// The crowd after its ticks: every agent's status, body, velocity and carried state, and its
// next `corners` path corners.
void write_response(const NavCrowd& crowd, std::uint32_t corners, pb::NavigateResponse& r);

}  // namespace capsweep::service
