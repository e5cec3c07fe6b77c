// The navmesh: its parameters follow MoveSettings, its build is the same on any thread count,
// its layers are the agents', and its file round-trips and refuses damage by name.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>

#include <capsweep/navigation.h>
#include <capsweep/files.h>
#include <recastnavigation/DetourNavMesh.h>

#include "nav/navmesh_file.h"
#include "tools/workloads.h"

namespace capsweep {
namespace {

const Capsule kPerson{{0, kPersonRadius, 0}, {0, kPersonRadius + kPersonAxis, 0}, kPersonRadius};

void quad(std::vector<Triangle>& out, Vec3 a, Vec3 b, Vec3 c, Vec3 d) {
  out.push_back({{a, b, c}});
  out.push_back({{a, c, d}});
}

// A 20 x 10 m floor at y = 0 whose far half (x > 10) is a platform `step` high, with its riser.
std::vector<Triangle> floor_with_step(float step) {
  std::vector<Triangle> t;
  quad(t, {0, 0, 0}, {0, 0, 10}, {10, 0, 10}, {10, 0, 0});
  quad(t, {10, step, 0}, {10, step, 10}, {20, step, 10}, {20, step, 0});
  quad(t, {10, 0, 0}, {10, 0, 10}, {10, step, 10}, {10, step, 0});
  return t;
}

std::string bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size()));
}
std::string scratch(const char* name) { return ::testing::TempDir() + "nav_" + name; }

TEST(NavMeshSettings, FollowTheBodyAndMoveSettings) {
  MoveSettings move;
  const NavMeshSettings s = navmesh_settings(move, kPerson);
  EXPECT_FLOAT_EQ(s.agent_radius, kPersonRadius + move.skin);
  EXPECT_FLOAT_EQ(s.agent_height, kPersonAxis + 2 * kPersonRadius + move.skin);
  EXPECT_FLOAT_EQ(s.climb, move.step_height);
  EXPECT_FLOAT_EQ(s.max_slope_degrees, move.max_slope_degrees);
  EXPECT_EQ(check_navmesh_settings(s), "");
  move.step_height = 0.2f;
  move.max_slope_degrees = 30.f;
  const NavMeshSettings lower = navmesh_settings(move, kPerson);
  EXPECT_FLOAT_EQ(lower.climb, 0.2f);
  EXPECT_FLOAT_EQ(lower.max_slope_degrees, 30.f);
  // The climb loses at most a seventh of itself to whole cell heights.
  EXPECT_LE(lower.cell_height, 0.2f / 7 + 1e-6f);
  NavMeshSettings bad = s;
  bad.cell_size = 0;
  EXPECT_NE(check_navmesh_settings(bad).find("cell_size"), std::string::npos);
  EXPECT_THROW(NavMesh::build(World(floor_with_step(0.3f)), bad), std::invalid_argument);
}

// What the navmesh connects is what the solver climbs: a 0.3 m step joins the two halves for a
// 0.35 m step height, and parts them for 0.2 m.
TEST(NavMeshSettings, TheClimbFollowsTheStepHeight) {
  const World world(floor_with_step(0.3f));
  MoveSettings move;
  const NavPath up = NavMesh::build(world, navmesh_settings(move, kPerson), 1).path({3, 0, 5}, {17, 0.3f, 5});
  EXPECT_TRUE(up.complete);
  EXPECT_NEAR(up.length, 14.f, 0.5f);
  move.step_height = 0.2f;
  const NavPath parted = NavMesh::build(world, navmesh_settings(move, kPerson), 1).path({3, 0, 5}, {17, 0.3f, 5});
  EXPECT_FALSE(parted.complete);
}

// Only the layers agents collide with: a wall on layer 2 across the floor parts it for agents
// that see every layer, and is not there for agents that see layer 1 alone.
TEST(NavMesh, HonoursTheLayerMask) {
  std::vector<Triangle> t;
  quad(t, {0, 0, 0}, {0, 0, 10}, {20, 0, 10}, {20, 0, 0});
  quad(t, {10, 0, -1}, {10, 0, 11}, {10, 3, 11}, {10, 3, -1});
  const World world(t, {1, 1, 2, 2});
  MoveSettings move;
  EXPECT_FALSE(NavMesh::build(world, navmesh_settings(move, kPerson), 1).path({3, 0, 5}, {17, 0, 5}).complete);
  EXPECT_TRUE(NavMesh::build(world, navmesh_settings(move, kPerson, 1u), 1).path({3, 0, 5}, {17, 0, 5}).complete);
}

TEST(NavMesh, BuildsTheSameBytesOnOneAndTwoThreadsAndReadsBack) {
  const World world(load_scene(std::string(CAPSWEEP_SCENES_DIR) + "/recast_dungeon.obj"));
  const NavMeshSettings s = navmesh_settings(MoveSettings{}, kPerson);
  const NavMesh one = NavMesh::build(world, s, 1);
  const NavMesh two = NavMesh::build(world, s, 2);
  one.write(scratch("one.cwnm"));
  two.write(scratch("two.cwnm"));
  const std::string bytes = bytes_of(scratch("one.cwnm"));
  ASSERT_GT(one.stats().polygons, 100u);
  EXPECT_GT(one.stats().tiles, 1u);
  EXPECT_EQ(bytes, bytes_of(scratch("two.cwnm")));
  const NavMesh back = NavMesh::read(scratch("one.cwnm"));
  EXPECT_EQ(back.stats().polygons, one.stats().polygons);
  back.write(scratch("back.cwnm"));
  EXPECT_EQ(bytes_of(scratch("back.cwnm")), bytes);
  const NavPath a = one.path({-18.33f, 5.01f, -10.80f}, {-17.32f, 7.03f, -15.27f});
  const NavPath b = back.path({-18.33f, 5.01f, -10.80f}, {-17.32f, 7.03f, -15.27f});
  ASSERT_TRUE(a.complete);
  ASSERT_EQ(a.corners.size(), b.corners.size());
  EXPECT_EQ(0, std::memcmp(a.corners.data(), b.corners.data(), a.corners.size() * sizeof(Vec3)));
}

// A world that fits in one tile: the build gives its polygons all 22 bits of a reference
// (maxPolys = 1 << 22), which the reader once refused as out of range.
TEST(NavMesh, OneTileWorldWritesAndReadsBack) {
  std::vector<Triangle> t;
  quad(t, {0, 0, 0}, {0, 0, 5}, {5, 0, 5}, {5, 0, 0});
  const NavMesh one = NavMesh::build(World(t), navmesh_settings(MoveSettings{}, kPerson), 1);
  ASSERT_EQ(one.stats().tiles, 1u);
  one.write(scratch("small.cwnm"));
  const NavMesh back = NavMesh::read(scratch("small.cwnm"));
  back.write(scratch("small_back.cwnm"));
  EXPECT_EQ(bytes_of(scratch("small_back.cwnm")), bytes_of(scratch("small.cwnm")));
  const NavPath a = one.path({1, 0, 1}, {4, 0, 4});
  const NavPath b = back.path({1, 0, 1}, {4, 0, 4});
  ASSERT_TRUE(a.complete);
  ASSERT_EQ(a.corners.size(), b.corners.size());
  EXPECT_EQ(0, std::memcmp(a.corners.data(), b.corners.data(), a.corners.size() * sizeof(Vec3)));
}

// Recast's spans hold 13 bits of height: a world taller than 8,191 cells of cell_height is
// refused by name rather than built with its upper floors clamped flat.
TEST(NavMesh, RefusesAWorldTallerThanRecastsSpans) {
  std::vector<Triangle> t;
  quad(t, {0, 0, 0}, {0, 0, 5}, {5, 0, 5}, {5, 0, 0});
  const NavMeshSettings s = navmesh_settings(MoveSettings{}, kPerson);
  const float top = 8200 * s.cell_height;
  quad(t, {0, top, 0}, {0, top, 5}, {5, top, 5}, {5, top, 0});
  try {
    NavMesh::build(World(t), s, 1);
    ADD_FAILURE() << "built";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("cells of cell_height, more than Recast's 8191: raise cell_height"),
              std::string::npos)
        << e.what();
  }
  NavMeshSettings coarse = s;
  coarse.cell_height *= 2;  // half the cells: it builds, both floors walkable
  coarse.climb = std::max(coarse.climb, coarse.cell_height);
  const NavMesh mesh = NavMesh::build(World(t), coarse, 1);
  Vec3 p;
  EXPECT_TRUE(mesh.nearest({2, top, 2}, {1, 1, 1}, p));
  EXPECT_TRUE(mesh.nearest({2, 0, 2}, {1, 1, 1}, p));
}

// A search box past a kilometre is refused by name: Detour walks every tile cell it covers.
TEST(NavMesh, NearestRefusesAReachBeyondAKilometre) {
  std::vector<Triangle> t;
  quad(t, {0, 0, 0}, {0, 0, 5}, {5, 0, 5}, {5, 0, 0});
  const NavMesh mesh = NavMesh::build(World(t), navmesh_settings(MoveSettings{}, kPerson), 1);
  Vec3 p;
  EXPECT_TRUE(mesh.nearest({2, 3, 2}, {1, kMaxNavReach, 1}, p));
  for (const Vec3 reach : {Vec3{1e30f, 1, 1}, Vec3{1, 1, 1001}, Vec3{-1, 1, 1}}) {
    try {
      mesh.nearest({2, 0, 2}, reach, p);
      ADD_FAILURE() << "accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_STREQ(e.what(), "nearest: reach: each half extent must be 0 to 1000 m");
    }
  }
  NavCrowdSettings far;
  far.return_reach = 1e30f;
  try {
    NavCrowd crowd(World(t), mesh, far);
    ADD_FAILURE() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("return_reach 0 to 1000 m"), std::string::npos) << e.what();
  }
}

// A damaged file is refused with its name, the record and why; never half read.
TEST(NavMesh, RefusesADamagedFileByName) {
  const World world(floor_with_step(0.3f));
  const std::string good_path = scratch("good.cwnm"), bad = scratch("bad.cwnm");
  NavMesh::build(world, navmesh_settings(MoveSettings{}, kPerson), 1).write(good_path);
  const std::string good = bytes_of(good_path);
  auto refusal = [&](const std::string& bytes) -> std::string {
    write_bytes(bad, bytes);
    try {
      NavMesh::read(bad);
    } catch (const NavMeshError& e) {
      return e.what();
    }
    return "accepted";
  };
  auto resealed = [](std::string bytes) {  // the checksum made right again, so deeper checks are reached
    const std::uint64_t sum = navmesh_checksum(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size() - 8);
    std::memcpy(bytes.data() + bytes.size() - 8, &sum, 8);
    return bytes;
  };
  std::string flipped = good;
  flipped[good.size() / 2] ^= 0x10;
  EXPECT_EQ(refusal(flipped), bad + ": checksum: the bytes do not match their checksum (damaged or cut short)");
  EXPECT_NE(refusal(good.substr(0, good.size() - 100)).find(bad + ": checksum"), std::string::npos);
  EXPECT_NE(refusal(good.substr(0, 20)).find(bad + ": header: the file is 20 bytes"), std::string::npos);
  std::string magic = good;
  magic[0] = 'X';
  EXPECT_NE(refusal(magic).find(bad + ": header: not a CWNM"), std::string::npos);
  std::string version = good;
  version[4] = 9;
  EXPECT_NE(refusal(resealed(version)).find(bad + ": header: version 9"), std::string::npos);
  std::string radius = good;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::memcpy(radius.data() + 12, &nan, 4);
  EXPECT_NE(refusal(resealed(radius)).find(bad + ": settings: navmesh settings: agent_radius"), std::string::npos);
  // The first tile's first polygon's first vertex index (header 100 bytes, tile record 12, Detour's
  // tile header, then its vertices) set past the tile's vertices.
  const std::size_t tile = 4 + 4 + 4 + 56 + 28 + 4 + 12;
  std::int32_t vert_count;
  std::memcpy(&vert_count, good.data() + tile + 7 * 4, 4);  // dtMeshHeader::vertCount
  std::string index = good;
  const std::size_t poly = tile + 100 + 12 * std::size_t(vert_count);  // header (100 bytes, aligned), vertices
  const std::uint16_t far = 0x7fff;
  std::memcpy(index.data() + poly + 4, &far, 2);  // dtPoly::verts[0], after firstLink
  EXPECT_NE(refusal(resealed(index)).find(bad + ": tile 0: polygon 0: a vertex index past the tile's vertices"),
            std::string::npos);
  // Each tile's header: a polygon and a link at least (Detour writes links[maxLinkCount - 1]).
  auto header_int = [&](std::size_t field, std::int32_t v) {
    std::string b = good;
    std::memcpy(b.data() + tile + field, &v, 4);
    return resealed(b);
  };
  EXPECT_NE(refusal(header_int(offsetof(dtMeshHeader, polyCount), 0)).find(bad + ": tile 0: no polygon"),
            std::string::npos);
  EXPECT_NE(refusal(header_int(offsetof(dtMeshHeader, maxLinkCount), 0)).find(bad + ": tile 0: no link"),
            std::string::npos);
  // A place far from the grid, in the record and the tile's header alike.
  std::string far_place = good;
  const std::int32_t far_x = 1 << 20;
  std::memcpy(far_place.data() + tile - 12, &far_x, 4);
  std::memcpy(far_place.data() + tile + offsetof(dtMeshHeader, x), &far_x, 4);
  EXPECT_NE(refusal(resealed(far_place)).find(bad + ": tile 0: its place (x, y) is out of range"), std::string::npos);
  // A vertex far out (finite, but its squared distances are not): Detour's closest point on a
  // polygon once read through a null pointer there (found by fuzz_navmesh).
  std::string distant = good;
  const float huge = 1e34f;
  std::memcpy(distant.data() + tile + 100 + 4, &huge, 4);  // vertex 0's y
  EXPECT_NE(refusal(resealed(distant)).find(bad + ": tile 0: vertex 0 is not finite within 1e7 m"), std::string::npos);
  // A portal to the next tile whose side is not one Detour's builder makes (0, 2, 4, 6).
  std::int32_t poly_count;
  std::memcpy(&poly_count, good.data() + tile + offsetof(dtMeshHeader, polyCount), 4);
  std::size_t portal = 0;
  int portal_poly = -1;
  for (int i = 0; i < poly_count && portal_poly < 0; ++i) {
    for (int k = 0; k < DT_VERTS_PER_POLYGON; ++k) {
      const std::size_t at = poly + sizeof(dtPoly) * std::size_t(i) + offsetof(dtPoly, neis) + 2 * std::size_t(k);
      std::uint16_t nei;
      std::memcpy(&nei, good.data() + at, 2);
      if (nei & DT_EXT_LINK) {
        portal = at;
        portal_poly = i;
        break;
      }
    }
  }
  ASSERT_GE(portal_poly, 0) << "tile 0 of a 20 m floor has a portal to tile 1";
  for (std::uint16_t side : {std::uint16_t(DT_EXT_LINK | 1), std::uint16_t(DT_EXT_LINK | 0x100)}) {
    std::string b = good;
    std::memcpy(b.data() + portal, &side, 2);
    EXPECT_NE(refusal(resealed(b)).find(bad + ": tile 0: polygon " + std::to_string(portal_poly) +
                                        ": a portal side other than 0, 2, 4 or 6"),
              std::string::npos)
        << side;
  }
  EXPECT_NE(refusal(good + "x").find(bad + ": checksum"), std::string::npos);
  EXPECT_NE(refusal(resealed(good + std::string(8, 'x'))).find(bad + ": end: 8 bytes after the last tile"), std::string::npos);
  EXPECT_THROW(NavMesh::read(scratch("no_such_file.cwnm")), NavMeshError);
  EXPECT_EQ(refusal(good), "accepted");
}

// A snapshot keeps the navmesh as a section (capsweep build --navmesh): read back from it, it
// is the navmesh saved, byte for byte; a snapshot without one, or whose section is damaged, is
// refused by name.
TEST(NavMesh, ASnapshotKeepsItAsASection) {
  const World world(floor_with_step(0.2f));
  const NavMesh built = NavMesh::build(world, navmesh_settings(MoveSettings{}, kPerson), 1);
  const std::string with = scratch("with_navmesh.cwsw"), without = scratch("without_navmesh.cwsw");
  const std::vector<SnapshotSection> sections{{kNavMeshSection, built.bytes()}};
  save_snapshot(world, "floor", with, {}, sections);
  save_snapshot(world, "floor", without);
  EXPECT_EQ(NavMesh::read(with).bytes(), built.bytes());
  const Snapshot loaded = load_snapshot(with);
  ASSERT_TRUE(NavMesh::from_snapshot(loaded.sections, with).has_value());
  EXPECT_EQ(NavMesh::from_snapshot(loaded.sections, with)->bytes(), built.bytes());
  EXPECT_FALSE(NavMesh::from_snapshot(load_snapshot(without).sections, without).has_value());
  built.write(scratch("floor.cwnm"));
  EXPECT_EQ(bytes_of(scratch("floor.cwnm")), built.bytes());
  auto refusal = [](const std::string& path) {
    try {
      NavMesh::read(path);
      return std::string("accepted");
    } catch (const NavMeshError& e) {
      return std::string(e.what());
    }
  };
  EXPECT_NE(refusal(without).find(without + ": the snapshot holds no navmesh"), std::string::npos) << refusal(without);
  // A section that is not a navmesh, with a good checksum: the navmesh reader names it.
  const std::string other = scratch("not_a_navmesh.cwsw");
  save_snapshot(world, "floor", other, {}, std::vector<SnapshotSection>{{kNavMeshSection, "CWSW, not a navmesh"}});
  EXPECT_NE(refusal(other).find(other + ": section navmesh: header"), std::string::npos) << refusal(other);
  // Its bytes damaged: the snapshot's checksum refuses it first.
  std::string damaged = bytes_of(with);
  damaged[damaged.size() - 100] ^= 1;
  write_bytes(scratch("damaged.cwsw"), damaged);
  EXPECT_NE(refusal(scratch("damaged.cwsw")).find("section 0 (navmesh): the contents are corrupt"), std::string::npos)
      << refusal(scratch("damaged.cwsw"));
}

}  // namespace
}  // namespace capsweep
