// The three sweep paths on every scene of scenes/ and the arena, for 100k queries of each workload
// (rays included) and 100k adversarial capsules, rays and segments:
//   - scalar (BVH + scalar kernel) gives exactly brute's bytes (brute on a subset of the large
//     scenes, to keep CI quick);
//   - simd agrees with scalar: the same answer, or both accepted by the oracle with
//     |dt| * |d| within the tolerance;
//   - the oracle accepts every answer where simd and scalar differ, and a sample of the rest;
//   - simd answers are bit-identical for every thread count 1..nproc and for a reversed batch.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <thread>

#include <capsweep/world.h>
#include "tools/arena.h"
#include <capsweep/files.h>
#include "tools/workloads.h"
#include "tests/support/oracle.h"
#include "tests/support/scene_list.h"
#include "tests/support/scene_oracle.h"
#include "tests/support/scene_queries.h"

namespace {

using namespace capsweep;

constexpr std::size_t kQueries = 100'000;
constexpr std::size_t kOracleSample = 2000;  // per query set, besides every disagreement



double tolerance_for(const SweepQuery& q) {
  double largest = 0;
  for (const Vec3& v : {q.capsule.a, q.capsule.b, q.capsule.a + q.motion, q.capsule.b + q.motion}) {
    largest = std::max(largest, double(max_abs_component(v)));
  }
  return oracle::tolerance(largest + q.capsule.radius);
}

std::vector<SweepHit> run(const World& w, std::span<const SweepQuery> q, SweepPath path, int threads = 0) {
  std::vector<SweepHit> hits(q.size());
  SweepOptions o;
  o.path = path;
  o.threads = threads;
  EXPECT_EQ(w.sweep(q, hits, o), 0u);
  return hits;
}

class ScenePaths : public testing::TestWithParam<std::string> {};

TEST_P(ScenePaths, AllPathsAgreeAndTheOracleAcceptsThem) {
  const std::vector<Triangle> tris = scenes::load(GetParam());
  const World world(tris);
  const oracle::TriangleGrid grid(tris);
  // Brute force over a large scene costs ~n per query: a subset there.
  const std::size_t brute_count = tris.size() > 200'000 ? 2'000 : tris.size() > 20'000 ? 10'000 : kQueries;
  const int cores = int(std::max(1u, std::thread::hardware_concurrency()));

  struct Set {
    const char* name;
    std::vector<SweepQuery> queries;
  };
  std::vector<Set> sets;
  sets.push_back({"tick", make_workload(world, Workload::tick, kQueries, 31)});
  sets.push_back({"validate", make_workload(world, Workload::validate, kQueries, 32)});
  sets.push_back({"long", make_workload(world, Workload::long_range, kQueries, 33)});
  sets.push_back({"adversarial", cases::adversarial_scene_queries(tris, kQueries, 34)});
  sets.push_back({"ray", make_workload(world, Workload::ray, kQueries, 35)});
  sets.push_back({"adv. rays", cases::adversarial_scene_queries(tris, kQueries / 2, 36, true)});

  for (const Set& set : sets) {
    SCOPED_TRACE(set.name);
    const auto& q = set.queries;
    const auto simd = run(world, q, SweepPath::simd);
    const auto scalar = run(world, q, SweepPath::scalar);
    const auto brute = run(world, std::span(q).first(std::min(brute_count, q.size())), SweepPath::brute);

    for (std::size_t i = 0; i < brute.size(); ++i) {
      ASSERT_TRUE(identical(scalar[i], brute[i])) << "query " << i << ": scalar t=" << scalar[i].t
                                                  << " tri " << scalar[i].triangle << ", brute t=" << brute[i].t
                                                  << " tri " << brute[i].triangle;
    }
    std::size_t differ = 0, hits = 0;
    for (std::size_t i = 0; i < q.size(); ++i) {
      hits += scalar[i].hit;
      const bool sample = i % (q.size() / kOracleSample) == 0;
      if (identical(simd[i], scalar[i])) {
        if (sample) {
          ASSERT_EQ(oracle::judge_scene(scalar[i], q[i], tris, &grid), "") << "query " << i;
        }
        continue;
      }
      ++differ;
      ASSERT_EQ(oracle::judge_scene(simd[i], q[i], tris, &grid), "") << "simd, query " << i;
      ASSERT_EQ(oracle::judge_scene(scalar[i], q[i], tris, &grid), "") << "scalar, query " << i;
      if (simd[i].hit && scalar[i].hit) {
        const double dt = std::fabs(double(simd[i].t) - double(scalar[i].t));
        ASSERT_LE(dt * length(to_double(q[i].motion)), tolerance_for(q[i])) << "query " << i;
      }
    }
    // Both paths run the same exact geometry in double: they differ only in the last bits.
    EXPECT_LT(differ, q.size() / 20) << "simd and scalar disagree too often";
    EXPECT_GT(hits, q.size() / 100) << "the query set hardly touches the scene";

    for (int threads = 1; threads <= cores; ++threads) {
      const auto again = run(world, q, SweepPath::simd, threads);
      for (std::size_t i = 0; i < q.size(); ++i) {
        ASSERT_TRUE(identical(again[i], simd[i])) << threads << " threads, query " << i;
      }
    }
    std::vector<SweepQuery> reversed(q.rbegin(), q.rend());
    const auto back = run(world, reversed, SweepPath::simd);
    for (std::size_t i = 0; i < q.size(); ++i) {
      ASSERT_TRUE(identical(back[q.size() - 1 - i], simd[i])) << "reversed batch, query " << i;
    }
    std::printf("[ %-28s %-11s ] %zu queries, %zu hits, %zu simd/scalar differences, brute on %zu\n",
                GetParam().c_str(), set.name, q.size(), hits, differ, brute.size());
  }
}

INSTANTIATE_TEST_SUITE_P(EveryScene, ScenePaths, testing::ValuesIn(scenes::names()),
                         [](const auto& info) { return scenes::test_name(info.param); });

}  // namespace
