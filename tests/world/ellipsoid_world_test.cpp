// World::sweep_ellipsoid on the arena and every scene of scenes/: person-sized ellipsoids on each
// workload's motions, and ellipsoids of every shape grazing the scenes' own vertices, edges and
// faces. The three paths give the same bytes (brute on a subset of the large scenes), every
// thread count and the reversed batch give the same bytes, and the eSpace oracle accepts a
// sample of every set.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <thread>

#include <capsweep/world.h>
#include "core/random.h"
#include "tests/support/ellipsoid_oracle.h"
#include "tests/support/scene_list.h"
#include "tests/support/scene_queries.h"
#include "tools/workloads.h"

namespace {

using namespace capsweep;

constexpr std::size_t kQueries = 20'000;
constexpr std::size_t kOracleSample = 300;

std::vector<SweepEllipsoidQuery> people(const World& world, Workload w, std::size_t count, std::uint64_t seed) {
  return make_ellipsoid_workload(world, w, count, seed);
}

// The adversarial capsules, each turned into an ellipsoid around its first end: round, flat,
// very flat or long, with the capsule's radius as one of its radii, so that the grazing gaps stay
// grazing along that axis.
std::vector<SweepEllipsoidQuery> shapes(const std::vector<Triangle>& tris, std::size_t count, std::uint64_t seed) {
  Random rng(seed);
  std::vector<SweepEllipsoidQuery> out;
  for (const SweepQuery& q : cases::adversarial_scene_queries(tris, count, seed)) {
    const float r = q.capsule.radius;
    Vec3 radii{r, r, r};
    switch (rng.below(4)) {
      case 0: break;
      case 1: radii.y = r * float(rng.uniform(0.05, 0.5)); break;
      case 2: radii.x = r * 1e-3f; break;
      default: radii.z = r * float(rng.uniform(2, 5)); break;
    }
    out.push_back({{q.capsule.a, radii}, q.motion});
  }
  return out;
}

std::vector<SweepHit> run(const World& w, std::span<const SweepEllipsoidQuery> q, SweepPath path, int threads = 0) {
  std::vector<SweepHit> hits(q.size());
  SweepOptions o;
  o.path = path;
  o.threads = threads;
  EXPECT_EQ(w.sweep_ellipsoid(q, hits, o), 0u);
  return hits;
}

class SceneEllipsoids : public testing::TestWithParam<std::string> {};

TEST_P(SceneEllipsoids, AllPathsGiveTheSameBytesAndTheOracleAcceptsThem) {
  const std::vector<Triangle> tris = scenes::load(GetParam());
  const World world(tris);
  const oracle::TriangleGrid grid(tris);
  const std::size_t brute_count = tris.size() > 200'000 ? 500 : tris.size() > 20'000 ? 3'000 : kQueries;
  const int cores = int(std::max(1u, std::thread::hardware_concurrency()));
  struct Set {
    const char* name;
    std::vector<SweepEllipsoidQuery> queries;
  };
  const std::vector<Set> sets = {{"tick", people(world, Workload::tick, kQueries, 41)},
                                 {"validate", people(world, Workload::validate, kQueries, 42)},
                                 {"long", people(world, Workload::long_range, kQueries, 43)},
                                 {"adversarial", shapes(tris, kQueries, 44)}};
  for (const Set& set : sets) {
    SCOPED_TRACE(set.name);
    const auto& q = set.queries;
    const auto simd = run(world, q, SweepPath::simd);
    const auto scalar = run(world, q, SweepPath::scalar);
    const auto brute = run(world, std::span(q).first(std::min(brute_count, q.size())), SweepPath::brute);
    std::size_t hits = 0;
    for (std::size_t i = 0; i < q.size(); ++i) {
      hits += simd[i].hit;
      ASSERT_TRUE(identical(simd[i], scalar[i])) << "query " << i << ": simd t=" << simd[i].t << ", scalar t=" << scalar[i].t;
      if (i < brute.size()) {
        ASSERT_TRUE(identical(scalar[i], brute[i])) << "query " << i;
      }
      if (i % (q.size() / kOracleSample) == 0) {
        ASSERT_EQ(oracle::judge_ellipsoid_scene(simd[i], q[i], tris, grid), "") << "query " << i;
      }
    }
    EXPECT_GT(hits, q.size() / 200) << "the set hardly touches the scene";
    for (int threads = 1; threads <= cores; ++threads) {
      const auto again = run(world, q, SweepPath::simd, threads);
      for (std::size_t i = 0; i < q.size(); ++i) ASSERT_TRUE(identical(again[i], simd[i])) << threads << " threads, query " << i;
    }
    std::vector<SweepEllipsoidQuery> reversed(q.rbegin(), q.rend());
    const auto back = run(world, reversed, SweepPath::simd);
    for (std::size_t i = 0; i < q.size(); ++i) {
      ASSERT_TRUE(identical(back[q.size() - 1 - i], simd[i])) << "reversed batch, query " << i;
    }
    std::printf("[ %-28s %-11s ] %zu ellipsoids, %zu hits, brute on %zu\n", GetParam().c_str(), set.name, q.size(), hits,
                brute.size());
  }
}

INSTANTIATE_TEST_SUITE_P(EveryScene, SceneEllipsoids, testing::ValuesIn(scenes::names()),
                         [](const auto& info) { return scenes::test_name(info.param); });

TEST(EllipsoidWorld, BadQueriesAreRefusedAndTheRestAnswered) {
  const World world(scenes::load("@arena"));
  std::vector<SweepEllipsoidQuery> q = people(world, Workload::validate, 40, 3);
  q[3].ellipsoid.radii.y = 0;
  q[7].motion.x = NAN;
  std::vector<SweepHit> hits(q.size());
  std::vector<Status> status(q.size());
  EXPECT_EQ(world.sweep_ellipsoid(q, hits, {}, status), 2u);
  EXPECT_EQ(status[3], Status::bad_radius);
  EXPECT_EQ(status[7], Status::non_finite_motion);
  EXPECT_FALSE(hits[3].hit);
  EXPECT_FALSE(hits[7].hit);
  std::vector<SweepHit> short_hits(1);
  EXPECT_THROW(world.sweep_ellipsoid(q, short_hits), std::invalid_argument);
  // A stop that fires cancels the batch.
  SweepOptions o;
  o.stop = [] { return true; };
  EXPECT_THROW(world.sweep_ellipsoid(q, hits, o), Cancelled);
}

}  // namespace
