// AgentGrid: the per-tick grid of agents' boxes. Every query must meet exactly the boxes a scan
// of all of them meets, each once, whatever the agents are (people, giants, refused agents with
// infinite or NaN coordinates); and a few wide boxes must not widen the columns.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "broadphase/agent_grid.h"
#include "core/random.h"

namespace {

using namespace capsweep;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

Capsule person(float x, float y, float z) { return {{x, y + 0.37f, z}, {x, y + 1.47f, z}, 0.35f}; }

// n agents on a square of `side` metres: mostly people (some leaning, some smaller or larger,
// some lying down), `giants` giants, and every so often a refused agent (an infinite or NaN
// coordinate, a negative radius, a coordinate far out of range).
std::vector<Capsule> mixed_crowd(std::size_t n, float side, std::size_t giants, Random& rng) {
  std::vector<Capsule> agents;
  for (std::size_t i = 0; i < n; ++i) {
    // z, y, x: the order g++ evaluated person's arguments in (C++ leaves it open; clang's differs).
    const float z = float(rng.uniform(0, side)), y = float(rng.uniform(0, 3)), x = float(rng.uniform(0, side));
    Capsule c = person(x, y, z);
    c.radius *= float(rng.uniform(0.5, 1.5));
    if (i % 7 == 0) c.b.x += float(rng.uniform(-0.5, 0.5));
    if (i % 37 == 5 && giants > 0) c.radius = float(rng.uniform(3, 30)), --giants;
    switch (i % 41) {
      case 2: c.a.x = kInf; break;
      case 3: c.b.z = -kInf; break;
      case 4: c.b.y = kNaN; break;  // NaN in y only
      case 5: c = {{kNaN, kNaN, kNaN}, {kNaN, kNaN, kNaN}, kNaN}; break;
      case 6: c.radius = -0.3f; break;  // an inverted box
      case 7: c.a.x = 1e30f; break;
      case 8: c.b = c.a + Vec3{float(rng.uniform(-1.5, 1.5)), 0, float(rng.uniform(-1.5, 1.5))}; break;  // lying
      case 9: c.a.x = c.b.x = -kInf; break;  // a box from -inf to -inf on x
      case 10: c.a.z = 5e6f; break;  // out of range (beyond 4 x kMaxCoordinate), but a finite box
      default: break;
    }
    agents.push_back(c);
  }
  return agents;
}

std::vector<std::uint32_t> scanned(const std::vector<Capsule>& agents, const Aabb& box) {
  std::vector<std::uint32_t> out;
  for (std::uint32_t i = 0; i < agents.size(); ++i) {
    if (swept_bounds(agents[i], {}).overlaps(box)) out.push_back(i);
  }
  return out;
}

std::vector<std::uint32_t> found(const AgentGrid& grid, const Aabb& box) {
  std::vector<std::uint32_t> out;
  grid.for_each_overlapping(box, [&](std::uint32_t i) { out.push_back(i); });
  std::sort(out.begin(), out.end());
  return out;
}

TEST(AgentGrid, MeetsExactlyTheBoxesAScanMeets) {
  Random rng(5);
  std::size_t met = 0;
  for (int crowd = 0; crowd < 8; ++crowd) {
    // Dense and sparse; 5 agents; a few giants (kept aside: the columns stay person-wide) and
    // a crowd of giants (the columns fit them).
    const float side = crowd % 2 ? 8.f : 60.f;
    const std::size_t giants = crowd % 4 == 3 ? 20 : 6;
    const std::vector<Capsule> agents = mixed_crowd(crowd == 0 ? 5 : 900, side, giants, rng);
    AgentGrid grid;
    grid.build(agents);
    ASSERT_EQ(grid.size(), agents.size());
    // Everyone else is at most 2.6 m wide; the giants are 7.1 m or more.
    std::vector<std::uint32_t> wide;
    for (std::uint32_t i = 0; i < agents.size(); ++i) {
      const Aabb b = swept_bounds(agents[i], {});
      if (max_abs_component(b.max - b.min) > 3.f && max_abs_component(b.max) <= 4e6f && max_abs_component(b.min) <= 4e6f) {
        wide.push_back(i);
      }
    }
    ASSERT_EQ(wide.size() > AgentGrid::kAsideAtMost, giants > AgentGrid::kAsideAtMost) << "crowd " << crowd;
    if (wide.size() <= AgentGrid::kAsideAtMost) {
      EXPECT_LT(grid.column_width(), 3.f) << "crowd " << crowd;
      for (const std::uint32_t i : wide) {
        EXPECT_NE(std::find(grid.kept_aside().begin(), grid.kept_aside().end(), i), grid.kept_aside().end())
            << "crowd " << crowd << ": giant " << i << " is not kept aside";
      }
    } else {
      EXPECT_GT(grid.column_width(), 7.f) << "crowd " << crowd;
    }
    std::vector<Aabb> queries;
    for (const Capsule& c : agents) queries.push_back(swept_bounds(c, {}));
    for (int q = 0; q < 300; ++q) {
      const Vec3 p{float(rng.uniform(-5, side + 5)), float(rng.uniform(-2, 5)), float(rng.uniform(-5, side + 5))};
      const Vec3 e{float(rng.uniform(0, q % 10 == 0 ? 40 : 2)), float(rng.uniform(0, 3)), float(rng.uniform(0, 2))};
      queries.push_back({p, p + e});
    }
    queries.push_back({{-kInf, -kInf, -kInf}, {kInf, kInf, kInf}});
    queries.push_back({{0, 0, 0}, {kInf, 1, 1}});
    queries.push_back({{kNaN, 0, 0}, {1, 1, 1}});
    queries.push_back({{-kInf, -kInf, -kInf}, {-kInf, kInf, kInf}});
    for (std::size_t q = 0; q < queries.size(); ++q) {
      const std::vector<std::uint32_t> expected = scanned(agents, queries[q]);
      const std::vector<std::uint32_t> got = found(grid, queries[q]);
      ASSERT_EQ(got, expected) << "crowd " << crowd << ", query " << q;  // each box once, none missed
      met += got.size();
    }
  }
  EXPECT_GT(met, 20000u);  // the queries do meet boxes
}

TEST(AgentGrid, StopsWhenTheVisitSaysSoAndCountsUpToTheLimit) {
  std::vector<Capsule> agents;
  for (int i = 0; i < 100; ++i) agents.push_back(person(0.01f * float(i % 10), 0, 0.01f * float(i / 10)));
  agents.push_back({{0, 0, 0}, {0, 0, 0}, kInf});  // two infinite boxes, kept aside, overlap all
  agents.push_back({{0, 0, 0}, {0, 0, 0}, kInf});
  AgentGrid grid;
  grid.build(agents);
  int visits = 0;
  grid.for_each_overlapping(grid.box(0), [&](std::uint32_t) { return ++visits == 3; });
  EXPECT_EQ(visits, 3);
  // Those kept aside come last, and a stop there is a stop too.
  visits = 0;
  grid.for_each_overlapping(grid.box(0), [&](std::uint32_t i) { return ++visits, i >= 100; });
  EXPECT_EQ(visits, 101);
  EXPECT_EQ(grid.count_overlapping(0, 32), 33u);
  EXPECT_EQ(grid.count_overlapping(0, 1000), 101u);  // the 99 other people and the infinite two
}

// The pile-up test World::move asks of every agent: more than `limit` others overlap its box. It
// answers from the columns' sizes (and the list aside) when they hold too few agents, so crowds
// sparse, dense and piled on one spot, with giants, check it against a scan at several limits;
// refused agents (kept aside, and so counted for everyone) only in the last two crowds, where the
// sizes can never answer.
TEST(AgentGrid, TellsWhoIsInAPileAsAScanDoes) {
  Random rng(17);
  std::size_t piled = 0, answered = 0;
  for (int crowd = 0; crowd < 8; ++crowd) {
    const float side = crowd % 3 == 0 ? 60.f : crowd % 3 == 1 ? 8.f : 2.f;
    std::vector<Capsule> agents = mixed_crowd(crowd < 3 ? 900 : 300, side, crowd % 2 ? 20 : 4, rng);
    if (crowd < 6) {
      std::erase_if(agents, [](const Capsule& c) {
        const Aabb b = swept_bounds(c, {});
        return !(c.radius >= 0 && max_abs_component(b.min) <= 1e4f && max_abs_component(b.max) <= 1e4f);
      });
    }
    // Piles on one spot, of sizes on either side of the limits below, 20 m apart and 20 m off
    // the crowd's square.
    int pile = 0;
    for (const int size : {2, 3, 4, 9, 10, 33, 34, 60}) {
      for (int i = 0; i < size; ++i) agents.push_back(person(side / 2 + 20.f * float(pile), 0, -20.f));
      ++pile;
    }
    AgentGrid grid;
    grid.build(agents);
    for (const std::size_t limit : {std::size_t(0), std::size_t(1), std::size_t(3), std::size_t(8), std::size_t(32)}) {
      for (std::uint32_t i = 0; i < agents.size(); ++i) {
        const std::vector<std::uint32_t> others = scanned(agents, grid.box(i));
        const std::size_t n = others.size() - std::size_t(std::count(others.begin(), others.end(), i));
        ASSERT_EQ(grid.overlapped_by_more_than(i, limit), n > limit) << "crowd " << crowd << ", agent " << i << ", limit " << limit;
        piled += n > limit;
        ++answered;
      }
    }
  }
  // Both answers are given often.
  EXPECT_GT(piled, answered / 10);
  EXPECT_LT(piled, answered * 9 / 10);
}

// The columns are an array over the crowd's rectangle of columns when it is small, else a hash
// table: both must meet what a scan meets, and tell a pile as a scan does, whichever columns the
// rectangle's edges cut (crowds around the origin, far from it, with a straggler kilometres off).
// One grid is rebuilt for every crowd, from one layout to the other and back, and for crowds
// with nobody filed (empty, or only refused agents).
TEST(AgentGrid, AnArrayOfColumnsAndAHashTableMeetWhatAScanMeets) {
  Random rng(23);
  int arrays = 0, tables = 0;
  AgentGrid grid;
  for (int crowd = 0; crowd < 10; ++crowd) {
    if (crowd >= 8) {  // nobody to file: none at all, or only boxes infinite, NaN or far out
      std::vector<Capsule> refused;
      if (crowd == 9) {
        refused = {{{kInf, 0, 0}, {0, 1, 0}, 0.3f}, {{kNaN, kNaN, kNaN}, {kNaN, kNaN, kNaN}, kNaN}, person(5e6f, 0, 0)};
      }
      grid.build(refused);
      EXPECT_FALSE(grid.columns_are_an_array()) << "crowd " << crowd;
      for (const Aabb& q : {Aabb{{-1, -1, -1}, {1, 2, 1}}, Aabb{{-kInf, -kInf, -kInf}, {kInf, kInf, kInf}}}) {
        ASSERT_EQ(found(grid, q), scanned(refused, q)) << "crowd " << crowd;
      }
      for (std::uint32_t i = 0; i < refused.size(); ++i) {
        const std::vector<std::uint32_t> others = scanned(refused, grid.box(i));
        const std::size_t n = others.size() - std::size_t(std::count(others.begin(), others.end(), i));
        ASSERT_EQ(grid.overlapped_by_more_than(i, 0), n > 0) << "crowd " << crowd << ", agent " << i;
      }
      continue;
    }
    const bool thin = crowd % 2 == 1;  // 600 agents over 30 km: a table
    const float side = thin ? 30000.f : 40.f;
    const Vec3 corner = crowd < 4 ? Vec3{-side / 2, 0, -side / 2} : Vec3{float(rng.uniform(-9e5, 9e5)), 0, float(rng.uniform(-9e5, 9e5))};
    std::vector<Capsule> agents = mixed_crowd(600, side, crowd % 4 == 2 ? 20 : 3, rng);
    for (Capsule& c : agents) c = {c.a + corner, c.b + corner, c.radius};
    if (crowd == 6) agents.push_back(person(corner.x + 5000.f, 0, corner.z - 3000.f));  // a straggler: a table
    for (int i = 0; i < 40; ++i) agents.push_back(person(corner.x + 3.f, 0, corner.z + 3.f));  // a pile
    grid.build(agents);
    const bool array = grid.columns_are_an_array();
    EXPECT_EQ(array, !thin && crowd != 6) << "crowd " << crowd;
    (array ? arrays : tables) += 1;
    std::vector<Aabb> queries;
    for (std::uint32_t i = 0; i < agents.size(); ++i) queries.push_back(grid.box(i));
    for (int q = 0; q < 400; ++q) {
      // Around the crowd's rectangle, past its edges, and across all of it.
      const Vec3 p = corner + Vec3{float(rng.uniform(-8, side + 8)), float(rng.uniform(-2, 5)), float(rng.uniform(-8, side + 8))};
      const float reach = q % 20 == 0 ? side : 3.f;
      const Vec3 e{float(rng.uniform(0, reach)), float(rng.uniform(0, 3)), float(rng.uniform(0, reach))};
      queries.push_back({p, p + e});
    }
    for (std::size_t q = 0; q < queries.size(); ++q) {
      ASSERT_EQ(found(grid, queries[q]), scanned(agents, queries[q])) << "crowd " << crowd << ", query " << q;
    }
    for (const std::size_t limit : {std::size_t(0), std::size_t(2), std::size_t(8), std::size_t(39), std::size_t(40)}) {
      for (std::uint32_t i = 0; i < agents.size(); ++i) {
        const std::vector<std::uint32_t> others = scanned(agents, grid.box(i));
        const std::size_t n = others.size() - std::size_t(std::count(others.begin(), others.end(), i));
        ASSERT_EQ(grid.overlapped_by_more_than(i, limit), n > limit) << "crowd " << crowd << ", agent " << i << ", limit " << limit;
      }
    }
  }
  EXPECT_EQ(arrays, 3);
  EXPECT_EQ(tables, 5);
}

TEST(AgentGrid, AFewWideBoxesAreKeptAsideAndDoNotWidenTheColumns) {
  // 10,000 people, one refused agent with an infinite coordinate and a few giants: the columns
  // stay narrow (a person's box across, 0.7 m, or 1.9 m for a crowd this thin: PeopleGetColumnsAsWide...),
  // so that a person's query reads a few columns, not the whole crowd; the wide ones are read by
  // every query from a short list.
  Random rng(9);
  std::vector<Capsule> agents;
  for (int i = 0; i < 10000; ++i) {
    const float z = float(rng.uniform(0, 200)), x = float(rng.uniform(0, 200));  // g++'s order, as above
    agents.push_back(person(x, 0, z));
  }
  const std::vector<std::uint32_t> wide = {17, 4242, 5000, 9999};
  agents[17].a.x = kInf;
  agents[4242].radius = 40.f;
  agents[5000].radius = 1e6f;
  agents[9999].b = agents[9999].a + Vec3{30, 0, 0};
  agents[123].b.y = kNaN;  // overlaps nothing: neither filed nor kept aside
  AgentGrid grid;
  grid.build(agents);
  auto aside = [&] { return std::vector<std::uint32_t>(grid.kept_aside().begin(), grid.kept_aside().end()); };
  EXPECT_LT(grid.column_width(), 2.f);
  EXPECT_EQ(aside(), wide);
  for (std::uint32_t i : {0u, 17u, 123u, 4242u, 7777u}) {
    ASSERT_EQ(found(grid, grid.box(i)), scanned(agents, grid.box(i))) << "agent " << i;
  }

  // More wide agents than kAsideAtMost are a crowd of wide agents, and the columns fit them.
  // (At whole metres, so that the nine boxes are exactly as wide: none is wider by a rounding.)
  for (std::uint32_t i = 0; i <= AgentGrid::kAsideAtMost; ++i) {
    agents[100 + i] = person(float(10 + 20 * i), 0, 50.f);
    agents[100 + i].radius = 3.f;
  }
  grid.build(agents);
  EXPECT_GT(grid.column_width(), 6.f);  // the nine boxes 6 m across are filed
  EXPECT_LT(grid.column_width(), 6.1f);
  EXPECT_EQ(aside(), wide);  // the infinite one and the three wider than the nine 6 m boxes
  for (std::uint32_t i : {0u, 17u, 100u, 4242u}) {
    ASSERT_EQ(found(grid, grid.box(i)), scanned(agents, grid.box(i))) << "agent " << i;
  }
}

}  // namespace

namespace {

TEST(AgentGrid, TinyAgentsAtTheEdgesOfRangeMeetWhatAScanMeets) {
  // Agents at most 2 cm across (far out, float spacing rounds them to points), packed tight
  // enough for the array of columns, make the narrowest columns (2 x kMaxCoordinate / 2^25,
  // 6 cm). At the world's edges (+-1e6 m) column numbers are about 2^24; around +-2.002e6 m the
  // crowd straddles 2^25, where column numbers (26 bits) clamp to the outermost column; at
  // +-3.9e6 m (boxes still in range) all of it is clamped. Every query still meets exactly what
  // a scan meets.
  Random rng(31);
  for (const float centre : {0.f, 1e6f, -1e6f, 2.002e6f, -2.002e6f, 3.9e6f, -3.9e6f}) {
    std::vector<Capsule> agents;
    for (int i = 0; i < 400; ++i) {
      const float x = centre + float(rng.uniform(-1, 1)), z = -centre + float(rng.uniform(-1, 1));
      agents.push_back({{x, 0.5f, z}, {x, 1.5f, z}, 0.01f});
    }
    AgentGrid grid;
    grid.build(agents);
    EXPECT_LT(grid.column_width(), 0.1f) << "centre " << centre;
    EXPECT_TRUE(grid.columns_are_an_array()) << "centre " << centre;
    for (int q = 0; q < 300; ++q) {
      const Aabb query = q < 100 ? grid.box(std::uint32_t(q))
                                 : Aabb{agents[q].a - Vec3{float(rng.uniform(0, 5)), 1, float(rng.uniform(0, 5))},
                                        agents[q].b + Vec3{float(rng.uniform(0, 5)), 1, float(rng.uniform(0, 5))}};
      ASSERT_EQ(found(grid, query), scanned(agents, query)) << "centre " << centre << ", query " << q;
    }
  }
}

}  // namespace

namespace {

// Columns as wide as a person is across (0.7 m: its 1.8 m height does not count, columns being
// vertical) where the crowd is dense enough for the array; 1.9 m where it is spread so thin that
// its columns are a hash table (fewer lookups per query); as wide as people lying along z are
// long (z counts as x does). All meet what a scan meets.
TEST(AgentGrid, PeopleGetColumnsAsWideAsTheyAreAcrossOrWiderWhereSpreadThin) {
  Random rng(37);
  for (const int kind : {0, 1, 2}) {  // standing on 30 m, standing on 3 km, lying along z on 30 m
    const float side = kind == 1 ? 3000.f : 30.f;
    std::vector<Capsule> agents;
    for (int i = 0; i < 1000; ++i) {
      const float z = float(rng.uniform(0, side)), x = float(rng.uniform(0, side));  // g++'s order, as above
      Capsule c = person(x, 0, z);
      if (kind == 2) c.b = c.a + Vec3{0, 0, 0.5f};  // 1.2 m long along z, 0.7 m across x and up
      agents.push_back(c);
    }
    AgentGrid grid;
    grid.build(agents);
    EXPECT_EQ(grid.columns_are_an_array(), kind != 1) << "kind " << kind;
    if (kind == 1) {
      EXPECT_EQ(grid.column_width(), AgentGrid::kSparseColumn);
    } else {
      const float across = kind == 2 ? 1.2f : 0.7f;
      EXPECT_GT(grid.column_width(), across) << "kind " << kind;
      EXPECT_LT(grid.column_width(), across + 0.01f) << "kind " << kind;
    }
    for (int q = 0; q < 1300; ++q) {
      const Aabb query = q < 1000 ? grid.box(std::uint32_t(q))
                                  : Aabb{agents[q - 1000].a - Vec3{float(rng.uniform(0, 4)), 1, float(rng.uniform(0, 4))},
                                         agents[q - 1000].b + Vec3{float(rng.uniform(0, 4)), 1, float(rng.uniform(0, 4))}};
      ASSERT_EQ(found(grid, query), scanned(agents, query)) << "kind " << kind << ", query " << q;
    }
  }
}

}  // namespace
