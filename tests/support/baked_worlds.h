// Worlds with instances or tiles and their oracle, the same triangles baked into a static world:
// what tests/world/instances_test.cpp and tiles_test.cpp share.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <mutex>
#include <vector>

#include <capsweep/instances.h>
#include <capsweep/tiles.h>
#include <capsweep/world.h>
#include "core/random.h"
#include "tests/support/same_answers.h"
#include "tests/support/scene_queries.h"
#include "tools/workloads.h"

namespace capsweep {

inline Quat random_rotation(Random& rng) {
  // A uniform unit quaternion (Shoemake, "Uniform random rotations", Graphics Gems III).
  const double u1 = rng.uniform(), u2 = rng.uniform(0, 2 * M_PI), u3 = rng.uniform(0, 2 * M_PI);
  const double a = std::sqrt(1 - u1), b = std::sqrt(u1);
  return {a * std::sin(u2), a * std::cos(u2), b * std::sin(u3), b * std::cos(u3)};
}

// A point drawn uniformly in [x0, x1] x [y0, y1] x [z0, z1], z first, then y, then x: the order
// g++ drew them in when they were a constructor's arguments, whose order C++ leaves open (clang
// draws them x first, and would meet other worlds from the same seed than the normal build).
inline Vec3d drawn_point(Random& rng, double x0, double x1, double y0, double y1, double z0, double z1) {
  const double z = rng.uniform(z0, z1);
  const double y = rng.uniform(y0, y1);
  const double x = rng.uniform(x0, x1);
  return {x, y, z};
}

inline Quat about_y(double angle) { return {0, std::sin(angle / 2), 0, std::cos(angle / 2)}; }

inline std::vector<Triangle> moved(std::vector<Triangle> tris, const Vec3d& offset) {
  for (Triangle& t : tris) {
    for (Vec3& v : t.v) v = to_float(to_double(v) + offset);
  }
  return tris;
}

// Queries for a world and its baked twin: `per_workload` of each person workload and of rays
// (when `workloads`: a person cannot stand 2 cm clear far out, where a float steps by more), then
// `hard` adversarial cases against its triangles and 300 adversarial rays.
inline std::vector<SweepQuery> baked_queries(const World& baked, bool workloads, std::uint64_t seed, int per_workload,
                                             int hard) {
  std::vector<SweepQuery> q;
  if (workloads) {
    for (Workload wl : {Workload::tick, Workload::validate, Workload::long_range, Workload::ray}) {
      const auto part = make_workload(baked, wl, std::size_t(per_workload), seed + std::uint64_t(wl));
      q.insert(q.end(), part.begin(), part.end());
    }
  }
  std::vector<Triangle> tris;
  for (std::uint32_t i = 0; i < baked.triangle_count(); ++i) tris.push_back(baked.triangle(i));
  const auto hardest = cases::adversarial_scene_queries(tris, std::size_t(hard), seed + 9);
  q.insert(q.end(), hardest.begin(), hardest.end());
  const auto rays = cases::adversarial_scene_queries(tris, 300, seed + 10, true);
  q.insert(q.end(), rays.begin(), rays.end());
  return q;
}

inline std::vector<SweepEllipsoidQuery> ellipsoids_for(const std::vector<SweepQuery>& q) {
  std::vector<SweepEllipsoidQuery> e;
  for (std::size_t i = 0; i < q.size(); i += 3) {
    const Capsule& c = q[i].capsule;
    if (c.radius <= 0) continue;
    const Vec3 centre = (c.a + c.b) * 0.5f;
    e.push_back({{centre, {c.radius, c.radius + 0.5f * std::fabs(c.b.y - c.a.y), c.radius * 0.7f}}, q[i].motion, q[i].layers});
  }
  return e;
}

// Every query kind and path on `world` against brute force on `baked`, byte for byte (a quarter
// of the queries or more hitting an instance or a tile).
inline void expect_answers_as_baked(const World& world, const World& baked, const std::vector<SweepQuery>& q) {
  const std::vector<SweepEllipsoidQuery> e = ellipsoids_for(q);
  std::vector<Capsule> capsules;
  for (const SweepQuery& s : q) {
    if (s.capsule.radius > 0) capsules.push_back({s.capsule.a + s.motion * 0.5f, s.capsule.b + s.motion * 0.5f, s.capsule.radius});
  }
  for (std::uint32_t mask : {kAllLayers, 1u, 2u}) {
    SCOPED_TRACE("layers " + std::to_string(mask));
    SweepOptions brute = on_path(SweepPath::brute, 2);
    brute.layers = mask;
    std::vector<SweepHit> expected(q.size()), expected_e(e.size());
    baked.sweep(q, expected, brute);
    baked.sweep_ellipsoid(e, expected_e, brute);
    std::vector<OverlapResult> expected_o(capsules.size());
    baked.overlap(capsules, 0.05f, expected_o, brute);
    std::size_t hits = 0, placed_hits = 0;
    for (SweepPath path : {SweepPath::simd, SweepPath::scalar, SweepPath::brute}) {
      SweepOptions o = on_path(path, path == SweepPath::scalar ? 1 : 2);
      o.layers = mask;
      std::vector<SweepHit> got(q.size()), got_e(e.size());
      world.sweep(q, got, o);
      world.sweep_ellipsoid(e, got_e, o);
      for (std::size_t i = 0; i < q.size(); ++i) {
        ASSERT_TRUE(identical(got[i], expected[i])) << name(path) << " query " << i << ": t " << got[i].t << " triangle "
                                                    << got[i].triangle << ", baked t " << expected[i].t << " triangle "
                                                    << expected[i].triangle;
        hits += got[i].hit;
        placed_hits += got[i].hit && (world.instance_of(got[i].triangle) || world.tile_of(got[i].triangle));
      }
      for (std::size_t i = 0; i < e.size(); ++i) {
        ASSERT_TRUE(identical(got_e[i], expected_e[i])) << name(path) << " ellipsoid " << i << ": t " << got_e[i].t
                                                        << ", baked t " << expected_e[i].t;
      }
    }
    for (int threads : {1, 2}) {
      std::vector<OverlapResult> got_o(capsules.size());
      SweepOptions masked = on_path(SweepPath::simd, threads);
      masked.layers = mask;
      world.overlap(capsules, 0.05f, got_o, masked);
      for (std::size_t i = 0; i < capsules.size(); ++i) {
        ASSERT_TRUE(answers::same(got_o[i], expected_o[i])) << "overlap " << i << " on " << threads << " threads";
      }
    }
    // The cases reach the instances and tiles, not only the static part.
    EXPECT_GT(placed_hits, q.size() / 4) << "hits " << hits;
  }
}

// The newest frame, as a server publishes it to the threads answering batches. Under a mutex,
// not std::atomic<std::shared_ptr>: libstdc++ 12 guards that with a lock bit ThreadSanitizer
// cannot see, and the frames tests run under it.
class LatestFrame {
 public:
  explicit LatestFrame(const World& first) : frame_(std::make_shared<const World>(first)) {}
  std::shared_ptr<const World> load() const {
    std::lock_guard<std::mutex> hold(mutex_);
    return frame_;
  }
  void store(const World& next) {
    auto made = std::make_shared<const World>(next);
    std::lock_guard<std::mutex> hold(mutex_);
    frame_.swap(made);  // the old frame is released outside the lock, with `made`
  }

 private:
  mutable std::mutex mutex_;
  std::shared_ptr<const World> frame_;
};

}  // namespace capsweep
