// Layer masks of each query, agent and claim (SweepQuery::layers, SweepEllipsoidQuery::layers,
// Agent::layers, ClaimedMove::layers), within their batch's. A batch that mixes masks must give
// each query what a world of only the triangles it sees gives (the same bytes, triangle indices
// mapped back), on every path, thread count and order, however the pooled narrow phase mixes
// the lanes of its queries; each agent walks through what it does not see while its neighbour is
// stopped; a mask that sees no layer is refused; and a neighbour a sweep does not see makes no
// seam.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <thread>

#include <capsweep/world.h>
#include "world/world_arrays.h"
#include "world/solver_queries.h"
#include "world/sweeps.h"
#include "core/random.h"
#include "tests/support/layered_world.h"
#include "tests/support/same_answers.h"
#include "tests/support/scene_list.h"
#include "tests/support/scene_queries.h"
#include "tools/arena.h"
#include "tools/crowd.h"
#include "tools/workloads.h"

namespace {

using namespace capsweep;
using layered::mapped;
using layered::visible;

// Walls, floors, scattered triangles, several layers, every layer, and a layer no triangle is on.
const std::uint32_t kQueryMasks[] = {1u, 2u, 4u, 8u, 2u | 4u, 1u | 2u | 4u | 8u, kAllLayers, 16u};

int cores() { return int(std::max(1u, std::thread::hardware_concurrency())); }

// What each query of a batch with mask `batch` must answer: brute force on the world of the
// layers it sees (its mask and the batch's), or a refusal when they share none.
template <class Query>
void expected_answers(std::span<const Triangle> tris, std::span<const std::uint32_t> layers, std::span<const Query> q,
                      std::uint32_t batch, std::vector<SweepHit>& hits, std::vector<Status>& status) {
  hits.assign(q.size(), SweepHit{});
  status.assign(q.size(), Status::ok);
  std::map<std::uint32_t, std::vector<std::size_t>> by_mask;
  for (std::size_t i = 0; i < q.size(); ++i) by_mask[q[i].layers & batch].push_back(i);
  for (const auto& [mask, members] : by_mask) {
    if (mask == 0) {
      for (std::size_t i : members) status[i] = Status::bad_layers;
      continue;
    }
    const layered::Visible v = visible(tris, layers, mask);
    if (!v.world) continue;  // sees no triangle: every answer a miss
    std::vector<Query> part;
    for (std::size_t i : members) {
      part.push_back(q[i]);
      part.back().layers = kAllLayers;
    }
    std::vector<SweepHit> got(part.size());
    std::vector<Status> why(part.size());
    if constexpr (std::is_same_v<Query, SweepQuery>) {
      v.world->sweep(part, got, on_path(SweepPath::brute), why);
    } else {
      v.world->sweep_ellipsoid(part, got, on_path(SweepPath::brute), why);
    }
    for (std::size_t k = 0; k < members.size(); ++k) {
      hits[members[k]] = mapped(got[k], v);
      status[members[k]] = why[k];
    }
  }
}

template <class Query>
void with_random_masks(std::vector<Query>& q, std::uint64_t seed) {
  Random rng(seed);
  for (Query& x : q) x.layers = kQueryMasks[rng.below(std::size(kQueryMasks))];
}

class SceneQueryLayers : public testing::TestWithParam<std::string> {};

TEST_P(SceneQueryLayers, EachQueryOfAMixedBatchAnswersAsTheWorldOfItsOwnLayers) {
  const std::vector<Triangle> tris = scenes::load(GetParam());
  const std::vector<std::uint32_t> layers = layered::layers_for(tris);
  const World world(tris, layers);
  std::vector<SweepQuery> q;
  for (Workload wl : {Workload::tick, Workload::validate, Workload::long_range, Workload::ray}) {
    const auto part = make_workload(world, wl, 1000, 81 + std::uint64_t(wl));
    q.insert(q.end(), part.begin(), part.end());
  }
  const auto hard = cases::adversarial_scene_queries(tris, 1000, 85);
  q.insert(q.end(), hard.begin(), hard.end());
  with_random_masks(q, 86);
  std::vector<SweepEllipsoidQuery> e = make_ellipsoid_workload(world, Workload::long_range, 1000, 87);
  const auto ticks = make_ellipsoid_workload(world, Workload::tick, 500, 88);
  e.insert(e.end(), ticks.begin(), ticks.end());
  with_random_masks(e, 89);
  std::size_t hits = 0, refused = 0;
  // The batch's own mask combines with each query's: 1 | 2 leaves masks 4, 8 and 16 nothing.
  for (std::uint32_t batch : {kAllLayers, 1u | 2u}) {
    SCOPED_TRACE("batch layers " + std::to_string(batch));
    std::vector<SweepHit> expected, expected_e;
    std::vector<Status> expected_status, expected_status_e;
    expected_answers<SweepQuery>(tris, layers, q, batch, expected, expected_status);
    expected_answers<SweepEllipsoidQuery>(tris, layers, e, batch, expected_e, expected_status_e);
    for (SweepPath path : {SweepPath::simd, SweepPath::scalar, SweepPath::brute}) {
      for (int threads : {1, cores()}) {
        SweepOptions o = on_path(path, threads);
        o.layers = batch;
        std::vector<SweepHit> got(q.size()), got_e(e.size());
        std::vector<Status> status(q.size()), status_e(e.size());
        world.sweep(q, got, o, status);
        world.sweep_ellipsoid(e, got_e, o, status_e);
        for (std::size_t i = 0; i < q.size(); ++i) {
          ASSERT_EQ(status[i], expected_status[i]) << name(path) << " query " << i;
          ASSERT_TRUE(identical(got[i], expected[i]))
              << name(path) << " on " << threads << " threads, query " << i << " (layers " << q[i].layers << "): t "
              << got[i].t << " triangle " << got[i].triangle << ", expected t " << expected[i].t << " triangle "
              << expected[i].triangle;
          hits += got[i].hit;
          refused += status[i] != Status::ok;
        }
        for (std::size_t i = 0; i < e.size(); ++i) {
          ASSERT_EQ(status_e[i], expected_status_e[i]) << name(path) << " ellipsoid " << i;
          ASSERT_TRUE(identical(got_e[i], expected_e[i])) << name(path) << " ellipsoid " << i;
        }
      }
    }
    // In reverse order, each query keeps its answer.
    SweepOptions o;
    o.layers = batch;
    const std::vector<SweepQuery> reversed(q.rbegin(), q.rend());
    std::vector<SweepHit> back(q.size());
    world.sweep(reversed, back, o);
    for (std::size_t i = 0; i < q.size(); ++i) ASSERT_TRUE(identical(back[q.size() - 1 - i], expected[i])) << i;
  }
  EXPECT_GT(hits, q.size()) << "the masked batches hardly touch the scene";
  EXPECT_GT(refused, 0u) << "no query was left without a layer by the batch's mask";
}

// The pooled narrow phase puts lanes of different queries side by side in one kernel call:
// chunks that mix masks must still give each query the answer it gets alone.
TEST_P(SceneQueryLayers, PooledChunksMixingMasksGiveEachQueryItsOwnAnswer) {
  const std::vector<Triangle> tris = scenes::load(GetParam());
  const World world(tris, layered::layers_for(tris));
  std::vector<SweepQuery> q;
  for (Workload wl : {Workload::tick, Workload::validate}) {
    const auto part = make_workload(world, wl, 3000, 91 + std::uint64_t(wl));
    q.insert(q.end(), part.begin(), part.end());
  }
  const auto hard = cases::adversarial_scene_queries(tris, 2000, 93);
  q.insert(q.end(), hard.begin(), hard.end());
  with_random_masks(q, 94);
  Random rng(95);
  std::vector<SweepHit> chunked(q.size());
  std::vector<Status> chunked_status(q.size());
  PoolCounts pooled;
  std::size_t mixed_chunks = 0;
  for (std::size_t first = 0; first < q.size();) {
    const std::size_t n = std::min(q.size() - first, std::size_t(1 + rng.below(kSweepChunk)));
    const PoolCounts c = sweep_chunk(world, std::span(q).subspan(first, n), std::span(chunked).subspan(first, n),
                                     std::span(chunked_status).subspan(first, n), SweepPath::simd, true, 1u | 2u | 4u);
    pooled.lanes += c.lanes;
    std::set<std::uint32_t> masks;
    for (std::size_t i = first; i < first + n; ++i) masks.insert(q[i].layers);
    mixed_chunks += masks.size() > 1;
    first += n;
  }
  EXPECT_GT(pooled.lanes, q.size() / 50) << "hardly any lane was pooled";
  EXPECT_GT(mixed_chunks, 10u);
  for (std::size_t i = 0; i < q.size(); ++i) {
    SweepHit alone;
    const Status s = world.sweep_one(q[i], alone, SweepPath::simd, 1u | 2u | 4u);
    ASSERT_EQ(chunked_status[i], s) << "query " << i;
    ASSERT_TRUE(identical(chunked[i], alone)) << "query " << i << " (layers " << q[i].layers << ")";
  }
}

INSTANTIATE_TEST_SUITE_P(EveryScene, SceneQueryLayers,
                         testing::ValuesIn(scenes::readable({"@arena", "recast_dungeon.obj", "oa_am_thornish.obj"})),
                         [](const auto& info) { return scenes::test_name(info.param); });

TEST(QueryLayers, AMaskThatSeesNoLayerIsRefusedWithAMiss) {
  const std::vector<Triangle> tris = make_arena();
  const World world(tris, layered::floors_and_walls(tris));
  // A sphere falling onto the floor: a hit for any mask that sees layer 1.
  SweepQuery fall{{{0, 1, 0}, {0, 1, 0}, 0.3f}, {0, -2, 0}};
  SweepEllipsoidQuery fall_e{{{0, 1, 0}, {0.3f, 0.5f, 0.3f}}, {0, -2, 0}};
  std::vector<SweepHit> hits(3);
  std::vector<Status> status(3);
  const std::vector<SweepQuery> q = {fall, {fall.capsule, fall.motion, 0u}, {fall.capsule, fall.motion, 2u}};
  SweepOptions floors;
  floors.layers = 1u;
  EXPECT_EQ(world.sweep(q, hits, floors, status), 2u);
  EXPECT_EQ(status[0], Status::ok);
  EXPECT_TRUE(hits[0].hit);
  for (int i : {1, 2}) {
    EXPECT_EQ(status[i], Status::bad_layers) << i;
    EXPECT_FALSE(hits[i].hit) << i;
  }
  const std::vector<SweepEllipsoidQuery> e = {fall_e, {fall_e.ellipsoid, fall_e.motion, 0u},
                                              {fall_e.ellipsoid, fall_e.motion, 2u}};
  EXPECT_EQ(world.sweep_ellipsoid(e, hits, floors, status), 2u);
  EXPECT_TRUE(hits[0].hit);
  EXPECT_EQ(status[1], Status::bad_layers);
  EXPECT_EQ(status[2], Status::bad_layers);
  SweepHit h;
  EXPECT_EQ(world.sweep_one({fall.capsule, fall.motion, 0u}, h), Status::bad_layers);
  EXPECT_FALSE(h.hit);
  // A mask that names layers the world does not use is no mistake: it sees nothing, unrefused.
  EXPECT_EQ(world.sweep_one({fall.capsule, fall.motion, 16u}, h), Status::ok);
  EXPECT_FALSE(h.hit);
  EXPECT_NE(std::string(describe(Status::bad_layers)).find("layer mask"), std::string::npos);
}

// Walls on layer 2, floors on layer 1, one batch: an agent that sees only floors walks through
// the arena's wall, its neighbour that sees both is stopped, one that sees only walls falls, and
// one whose mask sees nothing stays put, refused. Each answer is the one it gets alone in a batch
// filtered to its layers.
TEST(AgentLayers, EachAgentWalksThroughWhatItDoesNotSee) {
  const std::vector<Triangle> tris = make_arena();
  const World world(tris, layered::floors_and_walls(tris));
  auto walker = [](float z, std::uint32_t layers) {
    return Agent{{{18.9f, 0.37f, z}, {18.9f, 1.47f, z}, 0.35f}, {1.f, 0.f, 0.f}, 0.f, std::uint32_t(z + 100), layers};
  };
  const std::vector<Agent> agents = {walker(-10, 1u), walker(-8, 1u | 2u), walker(-6, 2u), walker(-4, 0u),
                                     walker(-2, kAllLayers)};
  std::vector<MoveResult> r(agents.size());
  std::vector<Status> status(agents.size());
  EXPECT_EQ(world.move(agents, MoveSettings{}, r, {}, {}, status), 1u);
  EXPECT_NEAR(r[0].capsule.a.x, 18.9f + 1.f, 1e-3f) << "walked through the wall it does not see";
  EXPECT_TRUE(r[0].grounded);
  EXPECT_LT(r[1].capsule.a.x, 20.f - 0.35f) << "stopped by the wall it sees";
  EXPECT_TRUE(r[1].grounded);
  EXPECT_FALSE(r[2].grounded) << "no floor on layer 2";
  EXPECT_EQ(status[3], Status::bad_layers);
  EXPECT_EQ(r[3].capsule.a.x, 18.9f);
  EXPECT_LT(r[4].capsule.a.x, 20.f - 0.35f);
  for (std::size_t i = 0; i < agents.size(); ++i) {
    if (agents[i].layers == 0) continue;
    Agent alone = agents[i];
    alone.layers = kAllLayers;
    BatchOptions o;
    o.layers = agents[i].layers;
    MoveResult a;
    world.move(std::span(&alone, 1), MoveSettings{}, std::span(&a, 1), o);
    EXPECT_TRUE(answers::same(a, r[i])) << "agent " << i;
  }
  // The batch's mask combines with each agent's: with floors only, the wall-only agent is refused.
  BatchOptions floors;
  floors.layers = 1u;
  world.move(agents, MoveSettings{}, r, floors, {}, status);
  EXPECT_EQ(status[2], Status::bad_layers);
  EXPECT_NEAR(r[1].capsule.a.x, 18.9f + 1.f, 1e-3f) << "the batch hides the wall from every agent";

  // Validation judges each claim against its agent's layers.
  std::vector<ClaimedMove> claims;
  for (const Agent& a : agents) claims.push_back({a.capsule, a.displacement, 1.f / 60, 0.f, true, a.layers});
  std::vector<Verdict> v(claims.size());
  ValidateSettings unlimited;  // 1 m walks in a tick: no speed limit, by name
  unlimited.max_speed = kNoSpeedLimit;
  unlimited.movement.agents_collide = false;  // each claim judged as alone (compared below)
  world.validate(claims, unlimited, v);
  EXPECT_EQ(v[0].kind, VerdictKind::ok);
  EXPECT_EQ(v[1].kind, VerdictKind::blocked);
  EXPECT_EQ(v[3].kind, VerdictKind::refused);
  EXPECT_EQ(v[3].status, Status::bad_layers);
  EXPECT_EQ(v[4].kind, VerdictKind::blocked);
  for (std::size_t i = 0; i < claims.size(); ++i) {
    if (claims[i].layers == 0) continue;
    ClaimedMove alone = claims[i];
    alone.layers = kAllLayers;
    BatchOptions o;
    o.layers = claims[i].layers;
    Verdict a;
    world.validate(std::span(&alone, 1), unlimited, std::span(&a, 1), o);
    EXPECT_TRUE(answers::same(a, v[i])) << "claim " << i;
  }
}

// A crowd whose agents see different layers (every layer; floors only, walking through walls and
// off the arena; floors and walls) moves bit-identically on every thread count and agent order,
// and keeps each agent out of what it sees.
TEST(AgentLayers, ACrowdOfMixedMasksIsDeterministicAndKeepsItsInvariants) {
  const std::vector<Triangle> tris = make_arena();
  const World world(tris, layered::floors_and_walls(tris));
  CrowdSettings cs;
  cs.agents = 1200;
  cs.seed = 17;
  cs.agent_layers = {kAllLayers, 1u, 1u | 2u};
  Crowd crowd(world, cs);
  std::size_t inside_walls = 0;  // floors-only agents overlapping walls they do not see
  for (int i = 0; i < 40; ++i) {
    crowd.tick();
    const CrowdViolations v = crowd.check();
    ASSERT_EQ(v.penetrating, 0u) << "tick " << i;
    ASSERT_EQ(v.overlapping, 0u) << "tick " << i;
    for (std::size_t k = 1; k < crowd.agents().size(); k += 3) inside_walls += !world.is_clear(crowd.agents()[k].capsule, 0.f);
  }
  EXPECT_GT(inside_walls, 0u) << "no floors-only agent ever stood inside a wall";
  EXPECT_TRUE(crowd.masked());
  const std::vector<Agent> agents = crowd.agents();
  for (std::size_t i = 0; i < agents.size(); ++i) ASSERT_EQ(agents[i].layers, cs.agent_layers[i % 3]);
  BatchOptions one;
  one.threads = 1;
  std::vector<MoveResult> reference(agents.size());
  world.move(agents, MoveSettings{}, reference, one);
  for (int threads = 2; threads <= std::max(2, cores()); ++threads) {
    BatchOptions o;
    o.threads = threads;
    std::vector<MoveResult> r(agents.size());
    world.move(agents, MoveSettings{}, r, o);
    for (std::size_t i = 0; i < agents.size(); ++i) ASSERT_TRUE(answers::same(r[i], reference[i])) << "agent " << i;
  }
  const std::vector<Agent> reversed(agents.rbegin(), agents.rend());
  std::vector<MoveResult> r(agents.size());
  world.move(reversed, MoveSettings{}, r, one);
  for (std::size_t i = 0; i < agents.size(); ++i) {
    ASSERT_TRUE(answers::same(r[agents.size() - 1 - i], reference[i])) << "agent " << i;
  }
}

// Two coplanar floor triangles meet along x = 0; the one at x > 0 is on layer 2. A sphere coming
// down just beside the seam touches the edge of the visible triangle: seen with its neighbour that
// edge is a seam (face normal); with the neighbour hidden it is an open rim and keeps its normal.
TEST(QueryLayers, AHiddenNeighbourMakesNoSeam) {
  const std::vector<Triangle> floor = {{{{-2, 0, -2}, {-2, 0, 2}, {0, 0, 2}}}, {{{-2, 0, -2}, {0, 0, 2}, {0, 0, -2}}},
                                       {{{0, 0, -2}, {0, 0, 2}, {2, 0, 2}}}, {{{0, 0, -2}, {2, 0, 2}, {2, 0, -2}}}};
  const World world(floor, {1u, 1u, 2u, 2u});
  const SweepQuery down{{{0.003f, 0.5f, 0.2f}, {0.003f, 0.5f, 0.2f}, 0.35f}, {0, -0.3f, 0}};
  SweepHit h;
  ASSERT_EQ(sweep_approaching(world, down, h, SweepPath::simd, 1u), Status::ok);
  ASSERT_TRUE(h.hit);
  ASSERT_EQ(h.feature, Feature::edge);
  ASSERT_LT(h.triangle, 2u);
  EXPECT_GT(h.normal.x, 0.005f) << "the rim's own normal, not the face's";
  SweepHit seen_neighbour = h;
  seam_normal(world, seen_neighbour, 0.35f);
  EXPECT_EQ(seen_neighbour.normal, (Vec3{0, 1, 0})) << "with the neighbour seen, the edge is a seam";

  // A flat vertex: six triangles around the origin, four of them hidden.
  Vec3 rim[6];
  for (int k = 0; k < 6; ++k) rim[k] = {2 * std::cos(float(k) * 1.0471976f), 0, 2 * std::sin(float(k) * 1.0471976f)};
  std::vector<Triangle> fan;
  std::vector<std::uint32_t> layers;
  for (int k = 0; k < 6; ++k) {
    fan.push_back({{{0, 0, 0}, rim[(k + 1) % 6], rim[k]}});
    layers.push_back(k == 0 || k == 5 ? 1u : 2u);  // the wedge around +x is seen
  }
  const World fan_world(fan, layers);
  // Above the hidden side (toward -x), just off the vertex: the nearest point it sees is the vertex.
  const SweepQuery near_vertex{{{-0.003f, 0.5f, -0.0005f}, {-0.003f, 0.5f, -0.0005f}, 0.35f}, {0, -0.3f, 0}};
  ASSERT_EQ(sweep_approaching(fan_world, near_vertex, h, SweepPath::simd, 1u), Status::ok);
  ASSERT_TRUE(h.hit);
  ASSERT_EQ(h.feature, Feature::vertex);
  EXPECT_LT(h.normal.x, -0.005f) << "the vertex's own normal";
  seen_neighbour = h;
  seam_normal(fan_world, seen_neighbour, 0.35f);
  EXPECT_EQ(seen_neighbour.normal, (Vec3{0, 1, 0})) << "with the whole fan seen, the vertex is flat";
}

}  // namespace
