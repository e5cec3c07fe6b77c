#include "tools/workloads.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "core/random.h"

namespace capsweep {

const char* name(Workload w) {
  switch (w) {
    case Workload::tick: return "tick";
    case Workload::validate: return "validate";
    case Workload::long_range: return "long";
    case Workload::ray: return "ray";
  }
  return "?";
}

bool parse_workload(const std::string& text, Workload& out) {
  for (Workload w : {Workload::tick, Workload::validate, Workload::long_range, Workload::ray}) {
    if (text == name(w)) {
      out = w;
      return true;
    }
  }
  return false;
}

StandingPlaces::StandingPlaces(const World& world) : world_(world) {
  // Every triangle, the terrain's too (a hole's are on no layer: not there).
  for (std::uint32_t i = 0; i < world.triangle_count(); ++i) {
    if (world.layers_of(i) == 0) continue;
    const Triangle t = world.triangle(i);
    const Vec3d v0 = to_double(t.v[0]);
    const Vec3d n = cross(to_double(t.v[1]) - v0, to_double(t.v[2]) - v0);
    const double len = length(n);
    if (!(len > 0) || n.y / len <= 0.7) continue;
    total_ += len / 2;
    walkable_.push_back(std::uint32_t(i));
    cumulative_.push_back(total_);
  }
  if (walkable_.empty()) throw std::runtime_error("the scene has no walkable triangle (normal.y > 0.7)");
}

Vec3d StandingPlaces::point(Random& rng, Vec3d& normal) const {
  const double pick = rng.uniform() * total_;
  const std::size_t k = std::min(
      std::size_t(std::upper_bound(cumulative_.begin(), cumulative_.end(), pick) - cumulative_.begin()),
      walkable_.size() - 1);
  const Triangle t = world_.triangle(walkable_[k]);
  double u = rng.uniform(), v = rng.uniform();
  if (u + v > 1) {
    u = 1 - u;
    v = 1 - v;
  }
  const Vec3d v0 = to_double(t.v[0]);
  normal = cross(to_double(t.v[1]) - v0, to_double(t.v[2]) - v0);
  normal = normal / length(normal);
  return v0 + (to_double(t.v[1]) - v0) * u + (to_double(t.v[2]) - v0) * v;
}

Vec3d StandingPlaces::point(Random& rng) const {
  Vec3d normal;
  return point(rng, normal);
}

Capsule StandingPlaces::person(Random& rng) const {
  Vec3d n;
  const Vec3d p = point(rng, n);
  const Vec3d bottom = p + Vec3d{0, kPersonRadius / n.y + 0.02, 0};
  return {to_float(bottom), to_float(bottom + Vec3d{0, kPersonAxis, 0}), kPersonRadius};
}

std::vector<SweepQuery> make_workload(const World& world, Workload workload, std::size_t count, std::uint64_t seed) {
  const StandingPlaces places(world);
  std::vector<SweepQuery> queries;
  queries.reserve(count);
  Random rng(seed);
  std::size_t failed = 0;
  while (queries.size() < count) {
    const Capsule person = places.person(rng);
    Vec3d d;
    if (workload == Workload::long_range || workload == Workload::ray) {
      // The length first, then the direction: the order g++ made these draws in when they were
      // one unsequenced expression (clang made the other, and other queries from the same seed).
      const double len = rng.uniform(5, 30);
      d = rng.unit_vector() * len;
    } else {
      const double angle = rng.uniform(0, 2 * std::numbers::pi);
      const double len = workload == Workload::tick ? rng.uniform(0.05, 0.2) : rng.uniform(0.5, 2.0);
      d = {std::cos(angle) * len, 0, std::sin(angle) * len};
    }
    if (!world.is_clear(person, 0.01f)) {
      if (++failed > 1000 + 100 * count) throw std::runtime_error("no clear place for a person to stand in the scene");
      continue;
    }
    if (workload == Workload::ray) {
      // The bottom sphere's centre is r + 2 cm above the ground on flat floor.
      const Vec3 eyes = person.a + Vec3{0, kPersonEyes - kPersonRadius - 0.02f, 0};
      queries.push_back({{eyes, eyes, 0.f}, to_float(d)});
    } else {
      queries.push_back({person, to_float(d)});
    }
  }
  return queries;
}

std::vector<SweepEllipsoidQuery> make_ellipsoid_workload(const World& world, Workload workload, std::size_t count,
                                                         std::uint64_t seed) {
  if (workload == Workload::ray) throw std::invalid_argument("the ray workload has no ellipsoid");
  std::vector<SweepEllipsoidQuery> out;
  out.reserve(count);
  for (const SweepQuery& q : make_workload(world, workload, count, seed)) {
    out.push_back({{(q.capsule.a + q.capsule.b) * 0.5f, kPersonEllipsoidRadii}, q.motion});
  }
  return out;
}

}  // namespace capsweep
