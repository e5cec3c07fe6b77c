// Why a query was refused. Kernels check their inputs and never return a hit for bad ones.
#pragma once

#include <cstdint>

#include <capsweep/shapes.h>

namespace capsweep {

enum class Status : std::uint8_t {
  ok = 0,
  non_finite_capsule,   // NaN or Inf in a capsule endpoint or radius
  bad_radius,           // radius < 0, or 0 where a solid capsule is needed (agents, overlaps, contacts)
  non_finite_motion,    // NaN or Inf in the motion vector
  non_finite_triangle,  // NaN or Inf in a triangle vertex
  out_of_range,         // a coordinate, radius or motion component beyond kMaxCoordinate
  bad_layers,           // a layer mask that sees no layer: 0, or nothing in common with the batch's
};

// Larger magnitudes leave float with less than ~6 cm of resolution; nothing in a game world
// is that far out, so such input is refused rather than answered imprecisely.
inline constexpr float kMaxCoordinate = 1.0e6f;

const char* describe(Status s);

Status check_capsule(const Capsule& c);           // a solid capsule (agent, overlap, contact): radius > 0
Status check_obstacle_capsule(const Capsule& c);  // a static capsule: radius >= 0 (0 = segment)
Status check_motion(const Vec3& motion);
Status check_triangle(const Triangle& t);
// A sweep: radius >= 0 (0 = a ray or a moving segment, see sweep.h), then check_motion.
Status check_sweep(const Capsule& moving, const Vec3& motion);
// A moving ellipsoid: finite, each radius > 0 (bad_radius), within range; then check_motion.
// Its NaN/Inf is reported as non_finite_capsule (the moving shape).
Status check_ellipsoid_sweep(const Ellipsoid& moving, const Vec3& motion);
// An agent's move (World::move, World::validate): check_capsule, then check_motion.
Status check_agent_move(const Capsule& agent, const Vec3& motion);
// A query's, agent's or claim's own layer mask within its batch's (SweepOptions::layers): it
// sees the triangles on `layers & batch_layers`, and a mask that leaves no layer would see
// nothing at all, which is never what a caller means, so it is refused (bad_layers).
inline Status check_layers(std::uint32_t layers, std::uint32_t batch_layers = kAllLayers) {
  return (layers & batch_layers) != 0 ? Status::ok : Status::bad_layers;
}

}  // namespace capsweep
