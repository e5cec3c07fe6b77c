#include "tests/support/batches.h"

#include <algorithm>

#include "tools/crowd.h"
#include "tools/workloads.h"
#include "core/random.h"
#include "tests/support/scene_queries.h"

namespace batches {

using namespace capsweep;

Batches make(const World& world, std::size_t count, std::uint64_t seed) {
  Batches b;
  const std::size_t part = std::max<std::size_t>(1, count / 4);
  for (Workload w : {Workload::tick, Workload::validate, Workload::long_range}) {
    const std::vector<SweepQuery> q = make_workload(world, w, part, seed + std::uint64_t(w));
    b.sweeps.insert(b.sweeps.end(), q.begin(), q.end());
  }
  // Every triangle the world holds (a heightfield's too; a hole's are not there).
  std::vector<Triangle> soup;
  for (std::uint32_t i = 0; i < world.triangle_count(); ++i) {
    if (world.layers_of(i) != 0) soup.push_back(world.triangle(i));
  }
  const std::vector<SweepQuery> hard = cases::adversarial_scene_queries(soup, part, seed);
  b.sweeps.insert(b.sweeps.end(), hard.begin(), hard.end());

  CrowdSettings cs;
  cs.agents = count;
  cs.seed = seed;
  cs.up_to_capacity = true;
  Crowd crowd(world, cs);
  for (int i = 0; i < 5; ++i) crowd.tick();
  b.agents = crowd.agents();
  // As the C API, Python and the service pass agents (they cannot carry the ground yet), so that
  // every interface answers these batches alike; carried ground: carried_ground_test.cpp.
  for (Agent& a : b.agents) a.ground_triangle = kNoTriangle;

  Random rng(seed);
  for (const SweepQuery& q : b.sweeps) {
    b.claims.push_back({q.capsule, q.motion, 0.1f});
    Capsule c = q.capsule;
    const float f = float(rng.uniform());
    c.a = c.a + q.motion * f;
    c.b = c.b + q.motion * f;
    b.capsules.push_back(c);
  }
  // Rays and moving segments are sweeps only (claims and capsules above are solid).
  const std::vector<SweepQuery> rays = make_workload(world, Workload::ray, part / 2, seed + 11);
  b.sweeps.insert(b.sweeps.end(), rays.begin(), rays.end());
  const std::vector<SweepQuery> hard_rays = cases::adversarial_scene_queries(soup, part / 2, seed + 12, true);
  b.sweeps.insert(b.sweeps.end(), hard_rays.begin(), hard_rays.end());
  return b;
}

}  // namespace batches
