// CWSR versions 1 and 2: a world without instances and tiles is written as version 1, the same
// bytes as without the world; a world with them as version 2, each record naming the instance or
// tile its hit is on (World::instance_of, World::tile_of), read back as written; every truncation
// and every bad field of a version 2 file is refused naming the file and the record.
#include <capsweep/files.h>
#include <capsweep/tiles.h>
#include <capsweep/world.h>

#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <stdexcept>

#include "io/query_format.h"
#include "tests/support/test_files.h"
#include "tests/support/test_meshes.h"

namespace {

using namespace capsweep;

using ResultFiles = ScratchDir;

std::vector<Triangle> floor_mesh() { return testmesh::Mesh().floor(-30, -30, 30, 30, 10).triangles(); }
std::vector<Triangle> box_mesh(float height) { return testmesh::Mesh().box({-1, 0, -1}, {1, height, 1}).triangles(); }

// A capsule standing above (x, z), dropped 10 m: it lands on whatever is there.
SweepQuery drop(float x, float z) { return {{{x, 5, z}, {x, 6, z}, 0.3f}, {0, -10, 0}}; }

// Drops onto the floor (static), two instances (ids 7 and 42), two tiles (ids 3 and 9), and a
// capsule rising into nothing (a miss).
std::vector<SweepQuery> queries() {
  return {drop(20, 20), drop(-10, 0), drop(10, 0), drop(0, 10), drop(0, -10), {{{0, 10, 0}, {0, 11, 0}, 0.3f}, {0, 5, 0}},
          drop(-20, 5), drop(10.5f, 0.5f)};
}

World with_instances() {
  std::vector<World> prototypes;
  prototypes.emplace_back(box_mesh(2));
  std::vector<Instance> instances{{7, 0, Pose{{-10, 0, 0}, Quat{}}}, {42, 0, Pose{{10, 0, 0}, Quat{}}}};
  return World(World(floor_mesh()), std::move(prototypes), std::move(instances));
}

std::vector<Tile> two_tiles() {
  std::vector<Tile> tiles;
  tiles.push_back(build_tile(3, {0, 0, 10}, box_mesh(3), kDefaultLayers, 1));
  tiles.push_back(build_tile(9, {0, 0, -10}, box_mesh(3), kDefaultLayers, 1));
  return tiles;
}

std::vector<SweepHit> answers(const World& world) {
  const std::vector<SweepQuery> q = queries();
  std::vector<SweepHit> hits(q.size());
  world.sweep(q, hits);
  return hits;
}

// What the world says each hit is on.
HitPart expected_part(const World& world, const SweepHit& hit) {
  if (!hit.hit) return {PartKind::none, kNoPart};
  if (const Instance* i = world.instance_of(hit.triangle)) return {PartKind::instance, i->id};
  if (const Tile* t = world.tile_of(hit.triangle)) return {PartKind::tile, t->id};
  return {PartKind::static_part, kNoPart};
}

void expect_refused(const std::string& file, const std::string& fragment) {
  try {
    read_result_file(file);
    FAIL() << "accepted " << file;
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(file), std::string::npos) << "message must name the file: " << e.what();
  }
}

std::uint32_t version_of(const std::string& bytes) {
  std::uint32_t v = 0;
  std::memcpy(&v, bytes.data() + 4, 4);
  return v;
}

TEST_F(ResultFiles, AStaticWorldIsWrittenAsVersionOneByteForByte) {
  const World world(floor_mesh());
  const std::vector<SweepHit> hits = answers(world);
  write_results(path("plain.cwsr"), hits);
  write_results(path("world.cwsr"), hits, world);
  const std::string bytes = read(path("world.cwsr"));
  EXPECT_EQ(bytes, read(path("plain.cwsr")));
  EXPECT_EQ(bytes.size(), kHeaderBytes + hits.size() * kResultBytes);
  EXPECT_EQ(version_of(bytes), 1u);
  const ResultFile file = read_result_file(path("world.cwsr"));
  EXPECT_EQ(file.version, 1u);
  EXPECT_TRUE(file.parts.empty()) << "version 1 does not say";
  ASSERT_EQ(file.hits.size(), hits.size());
  for (std::size_t i = 0; i < hits.size(); ++i) EXPECT_TRUE(identical(file.hits[i], hits[i])) << i;
  // A frame whose tiles were all removed again has none: version 1 too.
  const World emptied = world.streamed(two_tiles()).streamed({}, std::vector<std::uint32_t>{3, 9});
  write_results(path("emptied.cwsr"), answers(emptied), emptied);
  EXPECT_EQ(read(path("emptied.cwsr")), bytes);
}

TEST_F(ResultFiles, VersionTwoNamesTheInstanceOrTileOfEveryHit) {
  const World world = with_instances().streamed(two_tiles());
  const std::vector<SweepHit> hits = answers(world);
  write_results(path("r.cwsr"), hits, world);
  const std::string bytes = read(path("r.cwsr"));
  ASSERT_EQ(bytes.size(), kHeaderBytes + hits.size() * kPartResultBytes);
  EXPECT_EQ(version_of(bytes), 2u);
  const ResultFile file = read_result_file(path("r.cwsr"));
  EXPECT_EQ(file.version, 2u);
  ASSERT_EQ(file.hits.size(), hits.size());
  ASSERT_EQ(file.parts.size(), hits.size());
  std::map<PartKind, int> kinds;
  for (std::size_t i = 0; i < hits.size(); ++i) {
    EXPECT_TRUE(identical(file.hits[i], hits[i])) << i;
    const HitPart want = expected_part(world, hits[i]);
    EXPECT_EQ(file.parts[i].kind, want.kind) << i;
    EXPECT_EQ(file.parts[i].id, want.id) << i;
    const HitPart given = part_of(world, hits[i]);
    EXPECT_EQ(given.kind, want.kind) << i;
    EXPECT_EQ(given.id, want.id) << i;
    // The first 40 bytes of each record are version 1's record of the hit.
    const std::string v1 = [&] {
      write_results(path("v1.cwsr"), {hits[i]});
      return read(path("v1.cwsr")).substr(kHeaderBytes);
    }();
    EXPECT_EQ(bytes.substr(kHeaderBytes + i * kPartResultBytes, kResultBytes), v1) << i;
    ++kinds[file.parts[i].kind];
  }
  // Each query landed where it was aimed: the floor, instances 7 and 42, tiles 3 and 9, nothing.
  const std::vector<std::pair<PartKind, std::uint32_t>> aimed{
      {PartKind::static_part, kNoPart}, {PartKind::instance, 7}, {PartKind::instance, 42}, {PartKind::tile, 3},
      {PartKind::tile, 9}, {PartKind::none, kNoPart}, {PartKind::static_part, kNoPart}, {PartKind::instance, 42}};
  for (std::size_t i = 0; i < aimed.size(); ++i) {
    EXPECT_EQ(file.parts[i].kind, aimed[i].first) << i;
    EXPECT_EQ(file.parts[i].id, aimed[i].second) << i;
  }
  // The documented bytes of the part: kind, three zero bytes, the id (little-endian).
  const char* second = bytes.data() + kHeaderBytes + kPartResultBytes + kResultBytes;
  EXPECT_EQ(second[0], 2);
  EXPECT_EQ(std::string(second + 1, 3), std::string(3, '\0'));
  std::uint32_t id;
  std::memcpy(&id, second + 4, 4);
  EXPECT_EQ(id, 7u);
  const char* miss = bytes.data() + kHeaderBytes + 5 * kPartResultBytes + kResultBytes;
  EXPECT_EQ(miss[0], 0);
  std::memcpy(&id, miss + 4, 4);
  EXPECT_EQ(id, kNoPart);
  // read_results reads version 2 as its hits.
  const std::vector<SweepHit> back = read_results(path("r.cwsr"));
  ASSERT_EQ(back.size(), hits.size());
  for (std::size_t i = 0; i < hits.size(); ++i) EXPECT_TRUE(identical(back[i], hits[i])) << i;
}

TEST_F(ResultFiles, InstancesAloneAndTilesAloneAreVersionTwo) {
  for (const World& world : {with_instances(), World(floor_mesh()).streamed(two_tiles())}) {
    const std::vector<SweepHit> hits = answers(world);
    write_results(path("r.cwsr"), hits, world);
    const ResultFile file = read_result_file(path("r.cwsr"));
    EXPECT_EQ(file.version, 2u);
    ASSERT_EQ(file.parts.size(), hits.size());
    for (std::size_t i = 0; i < hits.size(); ++i) {
      EXPECT_EQ(file.parts[i].kind, expected_part(world, hits[i]).kind) << i;
      EXPECT_EQ(file.parts[i].id, expected_part(world, hits[i]).id) << i;
    }
  }
}

TEST_F(ResultFiles, AnEmptyVersionTwoFileIsValid) {
  const World world = with_instances();
  write_results(path("r.cwsr"), {}, world);
  const ResultFile file = read_result_file(path("r.cwsr"));
  EXPECT_EQ(file.version, 2u);
  EXPECT_TRUE(file.hits.empty());
  EXPECT_TRUE(file.parts.empty());
}

TEST_F(ResultFiles, RefusesAHitOnATriangleTheWorldDoesNotHave) {
  const World world = with_instances();
  std::vector<SweepHit> hits = answers(world);
  hits[1].triangle = std::uint32_t(world.triangle_count());
  try {
    write_results(path("r.cwsr"), hits, world);
    FAIL() << "wrote a hit on no triangle of the world";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find(path("r.cwsr") + ": result 1: triangle "), std::string::npos) << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(path("r.cwsr")));
  EXPECT_THROW(part_of(world, hits[1]), std::out_of_range);
}

TEST_F(ResultFiles, RefusesEveryTruncationOfAVersionTwoFile) {
  const World world = with_instances().streamed(two_tiles());
  write_results(path("r.cwsr"), answers(world), world);
  const std::string good = read(path("r.cwsr"));
  for (std::size_t n = 0; n < good.size(); ++n) {
    const std::string file = write("cut.cwsr", good.substr(0, n));
    expect_refused(file, n < kHeaderBytes ? "too short for a CWSR header" : "(truncated)");
  }
  expect_refused(write("long.cwsr", good + "x"), "bytes after the header");
  // A version 1 body under a version 2 header, and the reverse, are the wrong length.
  std::string relabelled = good;
  relabelled[4] = 1;
  expect_refused(write("relabelled.cwsr", relabelled), "records but the file holds");
  std::string bad = good;
  bad[4] = 3;
  expect_refused(write("v3.cwsr", bad), "CWSR version 3 is not supported (expected 1 or 2)");
}

TEST_F(ResultFiles, RefusesEveryBadFieldOfAVersionTwoRecordNamingIt) {
  const World world = with_instances().streamed(two_tiles());
  write_results(path("r.cwsr"), answers(world), world);
  const std::string good = read(path("r.cwsr"));
  // Record 1 hits instance 7; record 5 is a miss; record 0 hits the static floor.
  const std::size_t hit = kHeaderBytes + 1 * kPartResultBytes, miss = kHeaderBytes + 5 * kPartResultBytes,
                    floor = kHeaderBytes;
  auto with = [&](std::size_t offset, char byte) {
    std::string b = good;
    b[offset] = byte;
    return b;
  };
  expect_refused(write("kind.cwsr", with(hit + 40, 4)), "result 1: part kind must be 0 to 3");
  expect_refused(write("kind0.cwsr", with(hit + 40, 0)), "result 1: a hit names its part (kind 1, 2 or 3)");
  for (int k = 41; k < 44; ++k) {
    expect_refused(write("reserved.cwsr", with(hit + std::size_t(k), 1)), "result 1: reserved bytes must be 0");
  }
  expect_refused(write("misskind.cwsr", with(miss + 40, 2)), "result 5: a miss is on no part (kind 0)");
  expect_refused(write("missid.cwsr", with(miss + 44, 0)), "result 5: a miss and the static part have the id 0xFFFFFFFF");
  expect_refused(write("staticid.cwsr", with(floor + 44, 0)), "result 0: a miss and the static part have the id 0xFFFFFFFF");
  // The version 1 part of a record is checked as version 1 checks it.
  expect_refused(write("code.cwsr", with(hit, 7)), "result 1: hit code must be 0, 1 or 2");
  expect_refused(write("feature.cwsr", with(hit + 1, 9)), "result 1: feature must be 0 to 3");
  expect_refused(write("code2.cwsr", with(hit, 2)), "result 1: hit code 2 must go with t = 0");
  std::string nan = good;
  const float not_a_number = std::numeric_limits<float>::quiet_NaN();
  std::memcpy(nan.data() + hit + 8, &not_a_number, 4);
  expect_refused(write("nan.cwsr", nan), "result 1: non-finite number");
  // Any id of an instance or tile is read as it is: ids are the caller's names.
  std::string other = good;
  const std::uint32_t any = 0xFFFFFFFE;
  std::memcpy(other.data() + hit + 44, &any, 4);
  EXPECT_EQ(read_result_file(write("other.cwsr", other)).parts[1].id, any);
}

}  // namespace
