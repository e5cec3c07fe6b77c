// The benchmark and test workloads: a 1.8 m person (r = 0.35 m, vertical 1.1 m axis) standing
// on a random walkable triangle (normal.y > 0.7, picked by area), its bottom sphere 2 cm clear of
// that triangle's plane (sphere centre at p + (0, 0.35 / n.y + 0.02, 0)); starts closer than
// 1 cm to any triangle are redrawn. It moves
//   tick      0.05-0.2 m horizontally (a walking step),
//   validate  0.5-2 m horizontally (a claimed player move),
//   long      5-30 m in any direction;
// or, as a ray (radius 0, a = b) from its eyes 1.6 m above the ground:
//   ray       5-30 m in any direction (line of sight, hitscan; the same rays Embree casts).
// Seeded: the same scene, workload, count and seed give the same queries everywhere.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <capsweep/world.h>
#include "core/random.h"

namespace capsweep {

enum class Workload { tick, validate, long_range, ray };
const char* name(Workload w);
bool parse_workload(const std::string& text, Workload& out);

inline constexpr float kPersonRadius = 0.35f;
inline constexpr float kPersonAxis = 1.1f;
inline constexpr float kPersonEyes = 1.6f;  // above the ground, for the ray workload

// Random places to stand: points on walkable triangles (normal.y > 0.7), picked by area.
class StandingPlaces {
 public:
  // Throws std::runtime_error if the scene has no walkable triangle.
  explicit StandingPlaces(const World& world);
  // A random point on walkable ground.
  Vec3d point(Random& rng) const;
  // A person standing at a random point, its bottom sphere 2 cm clear of the triangle's plane
  // (not checked against the rest of the mesh: see World::is_clear).
  Capsule person(Random& rng) const;

 private:
  Vec3d point(Random& rng, Vec3d& normal) const;
  const World& world_;
  std::vector<std::uint32_t> walkable_;
  std::vector<double> cumulative_;
  double total_ = 0;
};

// Throws std::runtime_error if the scene has no walkable triangle or no clear place to stand.
std::vector<SweepQuery> make_workload(const World& world, Workload workload, std::size_t count, std::uint64_t seed);

// The same person as an ellipsoid: the capsule's centre, radii (0.35, 0.9, 0.35), which lie
// inside the capsule, so it starts as clear; the same motions. Not for the ray workload
// (std::invalid_argument).
inline constexpr Vec3 kPersonEllipsoidRadii{kPersonRadius, kPersonRadius + kPersonAxis / 2, kPersonRadius};
std::vector<SweepEllipsoidQuery> make_ellipsoid_workload(const World& world, Workload workload, std::size_t count,
                                                         std::uint64_t seed);

}  // namespace capsweep
