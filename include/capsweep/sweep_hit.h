// What a sweep answers.
#pragma once

#include <cstdint>
#include <cstring>

#include <capsweep/vec3.h>

namespace capsweep {

// The part of the obstacle that is touched. For a capsule obstacle: edge = its side, vertex = a cap.
enum class Feature : std::uint8_t { none = 0, face = 1, edge = 2, vertex = 3 };

inline constexpr std::uint32_t kNoTriangle = 0xFFFFFFFFu;

struct SweepHit {
  bool hit = false;
  Feature feature = Feature::none;
  float t = 1.f;          // fraction of the motion travelled at first contact, in [0, 1]; 1 on a miss
  Vec3 normal;            // unit, from the obstacle toward the capsule
  Vec3 point;             // contact point on the obstacle
  float depth = 0.f;      // > 0 only when the start overlaps: push-out distance along `normal`
  std::uint32_t triangle = kNoTriangle;  // index of the touched triangle (set by the world)

  // t == 0 on a hit: the capsule touched or overlapped the obstacle where it started.
  bool started_in_contact() const { return hit && t == 0.f; }
};

// Bit-for-bit equality of every field (not of padding): what determinism promises.
inline bool identical(const SweepHit& a, const SweepHit& b) {
  auto same = [](const auto& x, const auto& y) { return std::memcmp(&x, &y, sizeof x) == 0; };
  return a.hit == b.hit && a.feature == b.feature && same(a.t, b.t) && same(a.normal, b.normal) &&
         same(a.point, b.point) && same(a.depth, b.depth) && a.triangle == b.triangle;
}

}  // namespace capsweep
