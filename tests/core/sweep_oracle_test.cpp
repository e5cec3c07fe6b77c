// The analytic sweep against the independent oracle (conservative advancement) on a million
// random and adversarial cases per run.
#include <gtest/gtest.h>
#include "parallel/executor.h"

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <sstream>
#include <vector>

#include <capsweep/sweep.h>
#include "tests/support/cases.h"
#include "tests/support/oracle.h"

namespace {

using capsweep::Random;
using capsweep::SweepHit;

std::string describe_case(const cases::SweepCase& c, const SweepHit& h) {
  std::ostringstream s;
  s.precision(9);
  auto v = [&](const capsweep::Vec3& p) { s << "{" << p.x << "f, " << p.y << "f, " << p.z << "f}"; };
  s << cases::name(c.kind) << ": capsule a=";
  v(c.capsule.a);
  s << " b=";
  v(c.capsule.b);
  s << " r=" << c.capsule.radius << " d=";
  v(c.motion);
  s << " tri=";
  for (const auto& p : c.triangle.v) v(p);
  s << " -> hit=" << h.hit << " t=" << h.t << " feature=" << int(h.feature) << " depth=" << h.depth;
  return s.str();
}

std::uint64_t case_count() {
  if (const char* env = std::getenv("CAPSWEEP_ORACLE_CASES")) return std::strtoull(env, nullptr, 10);
  return 1'000'000;
}

TEST(SweepOracle, MillionRandomAndAdversarialCasesAreExact) {
  const std::uint64_t total = case_count();
  constexpr int kinds = int(cases::Kind::count);
  std::atomic<std::uint64_t> failures{0}, hits{0}, starts{0};
  std::vector<std::atomic<std::uint64_t>> per_kind_hits(kinds);
  std::mutex report_mutex;
  std::vector<std::string> reports;
  capsweep::parallel::for_ranges<std::uint64_t>(0, total, 4096, [&](const auto& range) {
    for (std::uint64_t i = range.begin(); i != range.end(); ++i) {
      Random rng(0xC0FFEEull * 1000003ull + i);
      const auto kind = cases::Kind(i % kinds);
      const cases::SweepCase c = cases::make(rng, kind);
      SweepHit hit;
      ASSERT_EQ(capsweep::sweep_capsule_triangle(c.capsule, c.motion, c.triangle, hit), capsweep::Status::ok);
      if (hit.hit) {
        ++hits;
        ++per_kind_hits[int(kind)];
      }
      if (hit.started_in_contact()) ++starts;
      const double tol = oracle::tolerance(cases::largest_coordinate(c));
      const std::string why =
          oracle::judge(hit, c.capsule, c.motion, c.capsule.radius, oracle::triangle_obstacle(c.triangle), tol);
      if (!why.empty()) {
        ++failures;
        std::lock_guard lock(report_mutex);
        if (reports.size() < 12) reports.push_back("case " + std::to_string(i) + " " + describe_case(c, hit) + "\n  " + why);
      }
    }
  });
  for (const auto& r : reports) ADD_FAILURE() << r;
  EXPECT_EQ(failures.load(), 0u) << "of " << total << " cases";
  // The generator must actually exercise contacts of every kind, not only misses.
  for (int k = 0; k < kinds; ++k) {
    EXPECT_GT(per_kind_hits[k].load(), total / kinds / 10) << cases::name(cases::Kind(k));
  }
  EXPECT_GT(starts.load(), total / kinds / 2);
  std::printf("oracle: %llu cases, %llu hits, %llu starts in contact\n", (unsigned long long)total,
              (unsigned long long)hits.load(), (unsigned long long)starts.load());
}

}  // namespace

namespace {

// Capsule against capsule: random axes (parallel, crossing, zero-length), aimed or not.
TEST(SweepOracle, CapsuleAgainstCapsuleCasesAreExact) {
  constexpr int total = 200000;
  std::atomic<int> failures{0}, hits{0};
  std::mutex report_mutex;
  std::vector<std::string> reports;
  capsweep::parallel::for_ranges<int>(0, total, 4096, [&](const auto& range) {
    for (int i = range.begin(); i != range.end(); ++i) {
      Random rng(0xCA95ull * 7919ull + std::uint64_t(i));
      const capsweep::Vec3d origin = rng.chance(0.3) ? rng.in_cube(5000) : rng.in_cube(10);
      const double len_b = rng.chance(0.15) ? 0 : rng.log_uniform(1e-3, 10);
      const capsweep::Vec3d db = rng.unit_vector();
      const capsweep::Vec3d b0 = origin, b1 = origin + db * len_b;
      const double rb = rng.chance(0.1) ? 0.0 : rng.log_uniform(1e-3, 3), ra = rng.log_uniform(1e-3, 3);
      const double len_a = rng.chance(0.15) ? 0 : rng.log_uniform(1e-3, 10);
      const capsweep::Vec3d da = rng.chance(0.25) ? db : rng.unit_vector();
      const capsweep::Vec3d target = b0 + db * (len_b * rng.uniform(-0.2, 1.2));
      const capsweep::Vec3d start = target + rng.unit_vector() * rng.uniform(0, 2 * (ra + rb + len_a + 1));
      const double speed = rng.log_uniform(1e-3, 30);
      capsweep::Vec3d d = target - start;
      d = rng.chance(0.8) && capsweep::length(d) > 0 ? d / capsweep::length(d) * speed : rng.unit_vector() * speed;
      const capsweep::Capsule moving{capsweep::to_float(start), capsweep::to_float(start + da * len_a), float(ra)};
      const capsweep::Capsule obstacle{capsweep::to_float(b0), capsweep::to_float(b1), float(rb)};
      const capsweep::Vec3 motion = capsweep::to_float(d);
      SweepHit hit;
      ASSERT_EQ(capsweep::sweep_capsule_capsule(moving, motion, obstacle, hit), capsweep::Status::ok);
      if (hit.hit) ++hits;
      const double largest = capsweep::max_abs_component(origin) + 2 * (len_a + len_b + speed + 10);
      const std::string why = oracle::judge(hit, moving, motion, double(moving.radius) + double(obstacle.radius),
                                            oracle::segment_obstacle(obstacle.a, obstacle.b),
                                            oracle::tolerance(largest), obstacle.radius);
      if (!why.empty()) {
        ++failures;
        std::lock_guard lock(report_mutex);
        if (reports.size() < 10) reports.push_back("case " + std::to_string(i) + ": " + why);
      }
    }
  });
  for (const auto& r : reports) ADD_FAILURE() << r;
  EXPECT_EQ(failures.load(), 0);
  EXPECT_GT(hits.load(), total / 4);
}

}  // namespace
