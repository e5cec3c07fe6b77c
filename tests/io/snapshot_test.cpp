// Snapshots: a loaded snapshot holds the same arrays and gives the same answers as the world
// it was saved from, for every request kind; truncated, corrupted, wrong-version and foreign
// files are refused with a message, never loaded.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>

#include <capsweep/files.h>
#include <capsweep/tiles.h>
#include "world/world_arrays.h"
#include "core/random.h"
#include "tests/support/batches.h"
#include "tests/support/layered_world.h"
#include "tests/support/same_answers.h"
#include "tests/support/scene_list.h"
#include "tests/support/terrains.h"
#include "tests/support/test_meshes.h"
#include "tools/arena.h"
#include "tools/workloads.h"

namespace {

using namespace capsweep;

// ctest runs tests in parallel processes: each file name carries the process id.
std::string temp_path(const std::string& name) {
  return ::testing::TempDir() + "capsweep_snapshot_" + std::to_string(getpid()) + "_" + name;
}

std::vector<unsigned char> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const std::string& path, const std::vector<unsigned char>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

template <class T>
bool same_array(std::span<const T> a, std::span<const T> b) {
  // Compared as bytes (floats that are NaN or -0 count too); an empty span has no data to compare.
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size_bytes()) == 0);
}

template <class T, class Run>
void expect_same_answers(const char* what, std::size_t n, Run&& run) {
  std::vector<T> built(n), loaded(n);
  run(0, built);
  run(1, loaded);
  for (std::size_t i = 0; i < n; ++i) ASSERT_TRUE(answers::same(built[i], loaded[i])) << what << " " << i;
}

class SnapshotScenes : public ::testing::TestWithParam<std::string> {};

TEST_P(SnapshotScenes, LoadedWorldAnswersLikeTheBuiltOne) {
  const World built(scenes::load(GetParam()));
  const std::string path = temp_path("scene.cwsw");
  save_snapshot(built, GetParam(), path);
  const Snapshot snap = load_snapshot(path);
  EXPECT_EQ(snap.source, GetParam());
  const World& loaded = snap.world;
  const WorldArrays a = built.arrays(), b = loaded.arrays();
  EXPECT_TRUE(same_array(a.lanes.words, b.lanes.words) && a.lanes.width == b.lanes.width);
  EXPECT_TRUE(same_array(a.layers, b.layers));
  EXPECT_EQ(a.mesh_layers, b.mesh_layers);
  EXPECT_TRUE(same_array(a.bvh.child_layers, b.bvh.child_layers));
  EXPECT_TRUE(same_array(a.bvh.nodes, b.bvh.nodes));
  EXPECT_TRUE(same_array(a.bvh.blocks, b.bvh.blocks));
  EXPECT_TRUE(same_array(a.links.values.words, b.links.values.words) && a.links.index_bits() == b.links.index_bits());
  EXPECT_EQ(a.bvh.depth, b.bvh.depth);
  EXPECT_TRUE(answers::bits(a.bounds, b.bounds));

  const batches::Batches q = batches::make(built, 2000, 11);
  const World* worlds[2] = {&built, &loaded};
  for (SweepPath path_kind : {SweepPath::simd, SweepPath::scalar}) {
    BatchOptions o;
    o.path = path_kind;
    expect_same_answers<SweepHit>("sweep", q.sweeps.size(), [&](int w, std::vector<SweepHit>& r) {
      worlds[w]->sweep(q.sweeps, r, o);
    });
    expect_same_answers<MoveResult>("move", q.agents.size(), [&](int w, std::vector<MoveResult>& r) {
      worlds[w]->move(q.agents, MoveSettings{}, r, o);
    });
    expect_same_answers<Verdict>("validate", q.claims.size(), [&](int w, std::vector<Verdict>& r) {
      worlds[w]->validate(q.claims, ValidateSettings{}, r, o);
    });
  }
  expect_same_answers<OverlapResult>("overlap", q.capsules.size(), [&](int w, std::vector<OverlapResult>& r) {
    worlds[w]->overlap(q.capsules, 0.05f, r);
  });
  std::remove(path.c_str());
}

INSTANTIATE_TEST_SUITE_P(Scenes, SnapshotScenes, ::testing::ValuesIn(scenes::names()),
                         [](const auto& info) { return scenes::test_name(info.param); });

World small_world() { return World(testmesh::Mesh().floor(-5, -5, 5, 5, 1).box({1, 0, 1}, {2, 1, 2}).triangles()); }

TEST(Snapshot, SavingTwiceGivesTheSameBytes) {
  const World w = small_world();
  save_snapshot(w, "small", temp_path("a.cwsw"));
  save_snapshot(small_world(), "small", temp_path("b.cwsw"));
  EXPECT_EQ(read_bytes(temp_path("a.cwsw")), read_bytes(temp_path("b.cwsw")));
}

void expect_refused(const std::string& path, const std::string& words) {
  try {
    load_snapshot(path);
    ADD_FAILURE() << "loaded " << path << " (expected: " << words << ")";
  } catch (const SnapshotError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(path), std::string::npos) << message;
    EXPECT_NE(message.find(words), std::string::npos) << message;
  }
}

TEST(Snapshot, EveryTruncationIsRefused) {
  const std::string good = temp_path("good.cwsw"), bad = temp_path("cut.cwsw");
  save_snapshot(small_world(), "small", good);
  const std::vector<unsigned char> bytes = read_bytes(good);
  for (std::size_t length = 0; length < bytes.size(); length += (length < 256 ? 1 : 97)) {
    write_bytes(bad, std::vector<unsigned char>(bytes.begin(), bytes.begin() + std::ptrdiff_t(length)));
    expect_refused(bad, length < 8 ? "no CWSW magic" : "truncated");
  }
  std::vector<unsigned char> longer = bytes;
  longer.push_back(0);
  write_bytes(bad, longer);
  expect_refused(bad, "beyond what the header describes");
}

TEST(Snapshot, EveryCorruptedByteIsRefused) {
  const std::string good = temp_path("good.cwsw"), bad = temp_path("flipped.cwsw");
  save_snapshot(small_world(), "small", good);
  const std::vector<unsigned char> bytes = read_bytes(good);
  Random rng(5);
  // Every header byte, and random bytes and bits of the rest.
  for (std::size_t k = 0; k < 128 + 400; ++k) {
    std::vector<unsigned char> b = bytes;
    const std::size_t at = k < 128 ? k : 128 + rng.below(bytes.size() - 128);
    b[at] ^= k % 2 ? 0xFF : std::uint8_t(1u << rng.below(8));
    write_bytes(bad, b);
    EXPECT_THROW(load_snapshot(bad), SnapshotError) << "byte " << at;
  }
}

TEST(Snapshot, AnotherVersionIsRefusedByName) {
  const std::string good = temp_path("good.cwsw"), bad = temp_path("v2.cwsw");
  save_snapshot(small_world(), "small", good);
  std::vector<unsigned char> b = read_bytes(good);
  const std::uint32_t v2 = kInstancedSnapshotVersion + 1;  // (10 is a world with instances)
  std::memcpy(&b[8], &v2, 4);  // the version follows the 8-byte magic (docs/FORMATS.md)
  write_bytes(bad, b);
  expect_refused(bad, "snapshot version " + std::to_string(v2) + ", this build reads version " +
                          std::to_string(kSnapshotVersion));
}

TEST(Snapshot, AVersionOneFileIsToldToRebuild) {
  const std::string good = temp_path("good.cwsw"), old = temp_path("v1.cwsw");
  save_snapshot(small_world(), "small", good);
  std::vector<unsigned char> b = read_bytes(good);
  const std::uint32_t v1 = 1;
  std::memcpy(&b[8], &v1, 4);
  write_bytes(old, b);
  expect_refused(old, "CWSW version 1 is no longer read (its checksum is not XXH3); rebuild it with `capsweep build`");
}

TEST(Snapshot, ForeignAndMissingFilesAreRefused) {
  const std::string obj = temp_path("mesh.obj");
  write_bytes(obj, {'v', ' ', '0', ' ', '0', ' ', '0', '\n', 'v', ' ', '1', ' ', '0', ' ', '0', '\n'});
  expect_refused(obj, "no CWSW magic");
  EXPECT_FALSE(looks_like_snapshot(obj));
  expect_refused(temp_path("does_not_exist.cwsw"), "cannot open");
  expect_refused(::testing::TempDir(), "not a regular file");
}

TEST(Snapshot, AFailedSaveLeavesNothingBehind) {
  const std::string path = ::testing::TempDir() + "no_such_dir/world.cwsw";
  EXPECT_THROW(save_snapshot(small_world(), "small", path), SnapshotError);
  EXPECT_FALSE(std::ifstream(path).good());
  EXPECT_FALSE(std::ifstream(path + ".partial").good());
}

// A world with instances: the static part's image, each prototype's, and the poses (version 10).
World instanced_world() {
  std::vector<World> prototypes{World(testmesh::Mesh().box({-1, 0, -1}, {1, 1, 1}).triangles()),
                                World(testmesh::Mesh().ramp(0, 0, 2, 20, 1, 1).triangles())};
  std::vector<Instance> instances;
  for (std::uint32_t k = 0; k < 12; ++k) {
    const double a = 0.4 * k;
    instances.push_back({900 + k, k % 2, Pose{Vec3d(-4 + 0.7 * k, 0.1 * (k % 3), 3 - 0.5 * k), Quat{0, std::sin(a), 0, std::cos(a)}},
                         k % 3 == 0 ? 2u : 1u});
  }
  return World(small_world(), std::move(prototypes), std::move(instances));
}

TEST(Snapshot, AWorldWithInstancesLoadsAndAnswersLikeTheBuiltOne) {
  const std::string path = temp_path("instances.cwsw");
  const World built = instanced_world();
  save_snapshot(built, "instances", path);
  const Snapshot loaded = load_snapshot(path);
  EXPECT_EQ(loaded.source, "instances");
  ASSERT_EQ(loaded.world.triangle_count(), built.triangle_count());
  ASSERT_EQ(loaded.world.instances().size(), built.instances().size());
  for (std::size_t k = 0; k < built.instances().size(); ++k) {
    const Instance &a = built.instances()[k], &b = loaded.world.instances()[k];
    EXPECT_TRUE(a.id == b.id && a.prototype == b.prototype && a.layers == b.layers && answers::bits(a.pose, b.pose)) << k;
  }
  for (std::uint32_t i = 0; i < built.triangle_count(); ++i) {
    ASSERT_TRUE(answers::bits(built.triangle(i), loaded.world.triangle(i))) << "triangle " << i;
    ASSERT_EQ(built.layers_of(i), loaded.world.layers_of(i)) << "triangle " << i;
  }
  const batches::Batches b = batches::make(built, 1500, 21);
  expect_same_answers<SweepHit>("sweep", b.sweeps.size(), [&](int k, std::vector<SweepHit>& out) {
    (k == 0 ? built : loaded.world).sweep(b.sweeps, out);
  });
  expect_same_answers<MoveResult>("agent", b.agents.size(), [&](int k, std::vector<MoveResult>& out) {
    (k == 0 ? built : loaded.world).move(b.agents, MoveSettings{}, out);
  });
  // Saving the loaded world gives the same bytes; a frame of it poses as the built one's does.
  save_snapshot(loaded.world, "instances", temp_path("again.cwsw"));
  EXPECT_EQ(read_bytes(path), read_bytes(temp_path("again.cwsw")));
  const InstancePose p{905, Pose{Vec3d(1, 0.5, 1), Quat{}}};
  expect_same_answers<SweepHit>("posed sweep", b.sweeps.size(), [&](int k, std::vector<SweepHit>& out) {
    (k == 0 ? built : loaded.world).posed(std::span(&p, 1)).sweep(b.sweeps, out);
  });
}

TEST(Snapshot, EveryDamageToAWorldWithInstancesIsRefused) {
  const std::string good = temp_path("instances_good.cwsw"), bad = temp_path("instances_bad.cwsw");
  save_snapshot(instanced_world(), "instances", good);
  const std::vector<unsigned char> bytes = read_bytes(good);
  // Every truncation, and a byte more.
  for (std::size_t length : {std::size_t(0), std::size_t(7), std::size_t(20), std::size_t(127), std::size_t(128),
                             std::size_t(200), bytes.size() / 2, bytes.size() - 1}) {
    write_bytes(bad, std::vector<unsigned char>(bytes.begin(), bytes.begin() + std::ptrdiff_t(length)));
    EXPECT_THROW(load_snapshot(bad), SnapshotError) << length;
  }
  std::vector<unsigned char> longer = bytes;
  longer.push_back(0);
  write_bytes(bad, longer);
  expect_refused(bad, "beyond what the header describes");
  // A flipped bit anywhere: header, table, records, any image.
  Random rng(8);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<unsigned char> b = bytes;
    const std::size_t at = trial < 40 ? std::size_t(trial) * 37 % 1200 : std::size_t(rng.uniform(0, double(b.size())));
    b[at] ^= std::uint8_t(1u << (trial % 8));
    write_bytes(bad, b);
    EXPECT_THROW(load_snapshot(bad), SnapshotError) << "byte " << at;
  }
}

TEST(Snapshot, AnInstanceRecordTheWorldRefusesIsNamed) {
  // A record naming no prototype, with every checksum made good again: refused by the world's
  // own check, naming the file and the instance.
  const std::string good = temp_path("instances_rec.cwsw"), bad = temp_path("instances_rec_bad.cwsw");
  save_snapshot(instanced_world(), "instances", good);
  std::vector<unsigned char> b = read_bytes(good);
  std::uint32_t prototypes;
  std::uint64_t table;
  std::memcpy(&prototypes, b.data() + 20, 4);
  std::memcpy(&table, b.data() + 32, 8);
  const std::size_t record3 = 128 + (prototypes + 1) * 16 + 3 * 72;
  const std::uint32_t nine = 9;
  std::memcpy(b.data() + record3 + 4, &nine, 4);
  const std::uint64_t table_sum = snapshot_checksum(b.data() + 128, table);
  std::memcpy(b.data() + 40, &table_sum, 8);
  const std::uint64_t header_sum = snapshot_checksum(b.data(), 120);
  std::memcpy(b.data() + 120, &header_sum, 8);
  write_bytes(bad, b);
  expect_refused(bad, "instance 903: no prototype 9 (the world has 2)");
}

TEST(Snapshot, AWorldWithTilesKeepsThemAndAnEmptyOneKeepsItsBytes) {
  // Tiles (World::streamed) after the instances: their meshes' images after the prototypes', their
  // records after the instances'; loaded, the same tiles answer the same; and a world with
  // instances but no tile saves the bytes it saved before tiles existed (header word 120 zero).
  const World built = instanced_world();
  const Tile tiles[] = {Tile{31, Vec3d(2e4, -3, 7.5), 2u, World(testmesh::Mesh().floor(0, 0, 8, 8, 2).triangles())},
                        Tile{4, Vec3d(-10, 0, -10), kDefaultLayers, World(testmesh::Mesh().box({0, 0, 0}, {2, 2, 2}).triangles())}};
  const World streamed = built.streamed(tiles);
  const std::string path = temp_path("tiles.cwsw");
  save_snapshot(streamed, "tiles", path);
  const Snapshot loaded = load_snapshot(path);
  ASSERT_EQ(loaded.world.tiles().size(), 2u);
  for (std::size_t k = 0; k < 2; ++k) {
    const Tile &a = streamed.tiles()[k], &b = loaded.world.tiles()[k];
    EXPECT_TRUE(a.id == b.id && a.layers == b.layers && answers::bits(a.origin, b.origin)) << k;
  }
  ASSERT_EQ(loaded.world.triangle_count(), streamed.triangle_count());
  for (std::uint32_t i = 0; i < streamed.triangle_count(); ++i) {
    ASSERT_TRUE(answers::bits(streamed.triangle(i), loaded.world.triangle(i))) << "triangle " << i;
    ASSERT_EQ(streamed.layers_of(i), loaded.world.layers_of(i)) << "triangle " << i;
  }
  const batches::Batches b = batches::make(streamed, 1000, 22);
  expect_same_answers<SweepHit>("sweep", b.sweeps.size(), [&](int k, std::vector<SweepHit>& out) {
    (k == 0 ? streamed : loaded.world).sweep(b.sweeps, out);
  });
  save_snapshot(loaded.world, "tiles", temp_path("tiles_again.cwsw"));
  EXPECT_EQ(read_bytes(path), read_bytes(temp_path("tiles_again.cwsw")));
  // Every damage refused: a flipped bit anywhere, a cut anywhere.
  const std::vector<unsigned char> bytes = read_bytes(path);
  const std::string bad = temp_path("tiles_bad.cwsw");
  Random rng(12);
  for (int trial = 0; trial < 80; ++trial) {
    std::vector<unsigned char> d = bytes;
    d[std::size_t(rng.uniform(0, double(d.size())))] ^= std::uint8_t(1u << (trial % 8));
    write_bytes(bad, d);
    EXPECT_THROW(load_snapshot(bad), SnapshotError) << trial;
    write_bytes(bad, std::vector<unsigned char>(bytes.begin(), bytes.begin() + std::ptrdiff_t(rng.uniform(0, double(bytes.size())))));
    EXPECT_THROW(load_snapshot(bad), SnapshotError) << trial;
  }
  // Without tiles, the file is as before: every streamed tile removed, the same bytes.
  const std::uint32_t both[] = {4, 31};
  save_snapshot(built, "instances", temp_path("no_tiles.cwsw"));
  save_snapshot(streamed.streamed({}, both), "instances", temp_path("tiles_removed.cwsw"));
  EXPECT_EQ(read_bytes(temp_path("no_tiles.cwsw")), read_bytes(temp_path("tiles_removed.cwsw")));
  // And the header says so as a file before tiles did: words 56 to 119 (tiles, then spare) zero.
  const std::vector<unsigned char> header = read_bytes(temp_path("no_tiles.cwsw"));
  ASSERT_GE(header.size(), 128u);
  EXPECT_TRUE(std::all_of(header.begin() + 56, header.begin() + 120, [](unsigned char c) { return c == 0; }));
  const std::vector<unsigned char> with_tiles = read_bytes(path);
  std::uint64_t tiles_word = 0;
  std::memcpy(&tiles_word, with_tiles.data() + 56, 8);
  EXPECT_EQ(tiles_word, 2u);
}

TEST(Snapshot, ChecksumSeesEveryBitAndIgnoresThreads) {
  std::vector<unsigned char> data(3 * (1 << 20) + 17);
  Random rng(9);
  for (auto& c : data) c = std::uint8_t(rng.below(256));
  const std::uint64_t h = snapshot_checksum(data.data(), data.size());
  EXPECT_EQ(h, snapshot_checksum(data.data(), data.size()));
  for (int k = 0; k < 200; ++k) {
    const std::size_t at = rng.below(data.size());
    data[at] ^= std::uint8_t(1u << rng.below(8));
    EXPECT_NE(snapshot_checksum(data.data(), data.size()), h) << at;
  }
  EXPECT_NE(snapshot_checksum(data.data(), data.size() - 1), snapshot_checksum(data.data(), data.size()));
}

}  // namespace

namespace {

// A heightfield (16-bit samples, holes) with buildings, and one of float heights alone.
World terrain_world(bool buildings) {
  if (!buildings) return World(terrains::generate({.columns = 45, .rows = 30, .seed = 81}));
  const Heightfield t = terrains::generate({.columns = 70, .rows = 51, .samples16 = true, .holes = true, .seed = 82});
  return World(t, terrains::buildings_on(t, 83));
}

// The header and payload checksums of a file edited in place (docs/FORMATS.md): what a crafted
// file would carry, so that the checks behind them are reached.
void reseal(std::vector<unsigned char>& b) {
  const std::uint64_t payload_bytes = b.size() - 128;
  std::memcpy(&b[96], &payload_bytes, 8);
  const std::uint64_t payload = snapshot_checksum(b.data() + 128, payload_bytes);
  std::memcpy(&b[104], &payload, 8);
  const std::uint64_t header = snapshot_checksum(b.data(), 120);
  std::memcpy(&b[120], &header, 8);
}

TEST(Snapshot, AHeightfieldWorldLoadsAndAnswersLikeTheBuiltOne) {
  for (bool buildings : {true, false}) {
    const World built = terrain_world(buildings);
    const std::string path = temp_path("terrain.cwsw");
    save_snapshot(built, "terrain", path);
    const Snapshot snap = load_snapshot(path);
    const World& loaded = snap.world;
    const TerrainView &a = built.arrays().terrain, &b = loaded.arrays().terrain;
    ASSERT_TRUE(b.present());
    EXPECT_EQ(a.columns, b.columns);
    EXPECT_EQ(a.rows, b.rows);
    EXPECT_TRUE(same_array(a.heights, b.heights));
    EXPECT_TRUE(same_array(a.samples, b.samples));
    EXPECT_TRUE(same_array(a.holes, b.holes));
    EXPECT_TRUE(same_array(a.pyramid, b.pyramid));
    EXPECT_TRUE(answers::bits(built.bounds(), loaded.bounds()));
    EXPECT_EQ(built.triangle_count(), loaded.triangle_count());
    EXPECT_EQ(built.memory_bytes(), loaded.memory_bytes());
    const batches::Batches q = batches::make(built, 1500, 12);
    const World* worlds[2] = {&built, &loaded};
    for (SweepPath path_kind : {SweepPath::simd, SweepPath::scalar, SweepPath::brute}) {
      BatchOptions o;
      o.path = path_kind;
      expect_same_answers<SweepHit>("sweep", q.sweeps.size(), [&](int w, std::vector<SweepHit>& r) {
        worlds[w]->sweep(q.sweeps, r, o);
      });
    }
    expect_same_answers<MoveResult>("move", q.agents.size(), [&](int w, std::vector<MoveResult>& r) {
      worlds[w]->move(q.agents, MoveSettings{}, r);
    });
    expect_same_answers<Verdict>("validate", q.claims.size(), [&](int w, std::vector<Verdict>& r) {
      worlds[w]->validate(q.claims, ValidateSettings{}, r);
    });
    expect_same_answers<OverlapResult>("overlap", q.capsules.size(), [&](int w, std::vector<OverlapResult>& r) {
      worlds[w]->overlap(q.capsules, 0.05f, r);
    });
    // The same world gives the same bytes.
    save_snapshot(loaded, "terrain", temp_path("again.cwsw"));
    EXPECT_EQ(read_bytes(path), read_bytes(temp_path("again.cwsw")));
    std::remove(path.c_str());
    std::remove(temp_path("again.cwsw").c_str());
  }
}

// A file whose checksums are right but whose heightfield section is not: refused naming why.
TEST(Snapshot, ABadHeightfieldSectionIsRefusedEvenWithGoodChecksums) {
  const std::string good = temp_path("good.cwsw"), bad = temp_path("bad.cwsw");
  save_snapshot(terrain_world(true), "terrain", good);
  const std::vector<unsigned char> bytes = read_bytes(good);
  std::uint32_t columns, rows, sample_kind;
  std::uint64_t hole_words, triangles;
  std::memcpy(&triangles, &bytes[40], 8);
  std::memcpy(&columns, &bytes[128], 4);
  std::memcpy(&rows, &bytes[132], 4);
  std::memcpy(&sample_kind, &bytes[160], 4);
  std::memcpy(&hole_words, &bytes[168], 8);
  ASSERT_EQ(columns, 70u);
  ASSERT_EQ(sample_kind, 2u);  // 16-bit samples
  ASSERT_EQ(hole_words, (69u * 50u + 63u) / 64u);
  auto refused = [&](const std::function<void(std::vector<unsigned char>&)>& edit, const std::string& words) {
    std::vector<unsigned char> b = bytes;
    edit(b);
    reseal(b);
    write_bytes(bad, b);
    expect_refused(bad, words);
  };
  auto put32 = [](std::vector<unsigned char>& b, std::size_t at, std::uint32_t v) { std::memcpy(&b[at], &v, 4); };
  refused([&](auto& b) { put32(b, 160, 7); }, "the heightfield section holds counts out of range");
  refused([&](auto& b) { put32(b, 128, 1); }, "the heightfield section holds counts out of range");
  refused([&](auto& b) { put32(b, 168, 3); }, "the heightfield section holds counts out of range");
  refused([&](auto& b) { put32(b, 164, 0); }, "heightfield: its layer mask is 0");
  refused([&](auto& b) { put32(b, 156, 0xFFFFFFFFu); }, "heightfield: the height scale must be finite and > 0");
  refused([&](auto& b) { put32(b, 136, 0); }, "heightfield: the cell size must be finite and > 0");
  // The sections after the mesh's: the samples, then the holes (docs/FORMATS.md); found from
  // the end of the file, which the source text closes.
  const std::size_t source = std::string("terrain").size();
  const std::size_t holes_at = bytes.size() - source - hole_words * 8;
  refused([&](auto& b) { b[holes_at + hole_words * 8 - 1] |= 0x80; }, "hole bits run past its last cell");
  // A sample beyond the range of coordinates: the 16-bit scale times 65535 stays small, so
  // give the origin a height that puts the highest sample past 1e6 m.
  refused([&](auto& b) {
    const float y = 999999.f;
    std::memcpy(&b[148], &y, 4);
  }, "lies beyond 1e6 m");
  // The world's bounds must hold the heightfield.
  refused([&](auto& b) {
    const float max_y = -100.f;
    std::memcpy(&b[88], &max_y, 4);
  }, "outside the world's bounds");
  std::remove(good.c_str());
  std::remove(bad.c_str());
}

// A current snapshot relabelled as an older version (header resealed) is refused with `why`,
// before its layout is looked at.
void expect_old_version_refused(std::uint32_t version, const std::string& why) {
  const std::string now = temp_path("current.cwsw"), old = temp_path("v" + std::to_string(version) + ".cwsw");
  save_snapshot(small_world(), "small", now);
  std::vector<unsigned char> b = read_bytes(now);
  std::memcpy(&b[8], &version, 4);
  reseal(b);
  write_bytes(old, b);
  expect_refused(old, why);
  std::remove(now.c_str());
  std::remove(old.c_str());
}

// Version 2 files (no layers) are told to rebuild.
TEST(Snapshot, AVersionTwoFileIsToldToRebuild) {
  expect_old_version_refused(2, "CWSW version 2 has no layers; rebuild it with `capsweep build` (this build reads "
                                "version 9)");
}

// Version 3 files (blocks with double normals, no heightfield section) are told to rebuild.
TEST(Snapshot, AVersionThreeFileIsToldToRebuild) {
  expect_old_version_refused(3, "CWSW version 3 holds blocks of an older layout (with double normals) and no heightfield "
                                "section; rebuild it with `capsweep build` (this build reads version 9)");
}

// Version 4 files (blocks of 416 bytes, with float normals) are told to rebuild.
TEST(Snapshot, AVersionFourFileIsToldToRebuild) {
  expect_old_version_refused(4, "CWSW version 4 holds blocks of an older layout (with float normals); rebuild it with "
                                "`capsweep build` (this build reads version 9)");
}

// Version 5 files (a BVH of 4-wide nodes, 128 bytes each) are told to rebuild.
TEST(Snapshot, AVersionFiveFileIsToldToRebuild) {
  expect_old_version_refused(5, "CWSW version 5 holds a BVH of an older layout (4-wide nodes); rebuild it with "
                                "`capsweep build` (this build reads version 9)");
}

// Version 6 files (a box and a layer mask per triangle) are told to rebuild.
TEST(Snapshot, AVersionSixFileIsToldToRebuild) {
  expect_old_version_refused(6, "CWSW version 6 holds a second copy of the triangles, a box per triangle and a layer "
                                "mask per triangle (issue 38: 64 bytes a triangle); rebuild it with `capsweep build` "
                                "(this build reads version 9)");
}

// Version 7 files (links in 12 bytes a triangle) are told to rebuild, and so are version 8 files
// (a world with instances made of version 7 images).
TEST(Snapshot, AVersionSevenOrEightFileIsToldToRebuild) {
  expect_old_version_refused(7, "CWSW version 7 holds links of 12 bytes a triangle (issue 38: 64 bytes a triangle); "
                                "rebuild it with `capsweep build` (this build reads version 9)");
  expect_old_version_refused(8, "CWSW version 8 is a world with instances made of version 7 images; rebuild it with "
                                "`capsweep build` (this build reads version 9)");
}

// A mesh all on one mask keeps the mask once (no array per triangle, none per BVH child): it
// survives the file, the file is smaller than a file with masks, and both worlds filter alike.
TEST(Snapshot, KeepsTheOneMaskOfAMeshAllOnIt) {
  const std::vector<Triangle> tris = make_arena();
  const World one_mask(tris, std::vector<std::uint32_t>(tris.size(), 4u));
  std::vector<std::uint32_t> two_masks(tris.size(), 4u);
  two_masks.back() = 4u | 8u;
  const World masks(tris, two_masks);
  EXPECT_LT(one_mask.memory_bytes() + tris.size() * 4, masks.memory_bytes());
  const std::string path = temp_path("one_mask.cwsw"), path_masks = temp_path("masks.cwsw");
  save_snapshot(one_mask, "@arena", path);
  save_snapshot(masks, "@arena", path_masks);
  EXPECT_LT(read_bytes(path).size() + tris.size() * 4, read_bytes(path_masks).size());
  const Snapshot s = load_snapshot(path);
  std::remove(path.c_str());
  std::remove(path_masks.c_str());
  for (std::uint32_t i = 0; i < tris.size(); ++i) ASSERT_EQ(s.world.layers_of(i), 4u) << "triangle " << i;
  const std::vector<SweepQuery> q = make_workload(one_mask, Workload::long_range, 2000, 9);
  std::size_t hits = 0;
  for (std::uint32_t mask : {1u, 4u, 2u | 4u, 8u, kAllLayers}) {
    SweepOptions o;
    o.layers = mask;
    std::vector<SweepHit> a(q.size()), b(q.size()), c(q.size());
    one_mask.sweep(q, a, o);
    s.world.sweep(q, b, o);
    World(tris).sweep(q, c);  // on layer 1: what every query sees when the mask sees layer 4
    for (std::size_t i = 0; i < q.size(); ++i) {
      ASSERT_TRUE(identical(a[i], b[i])) << "mask " << mask << ", query " << i;
      if ((mask & 4u) == 0) {
        ASSERT_FALSE(a[i].hit) << "mask " << mask << " sees nothing, query " << i;
      } else {
        ASSERT_TRUE(identical(a[i], c[i])) << "mask " << mask << ", query " << i;
        hits += a[i].hit;
      }
    }
  }
  EXPECT_GT(hits, q.size());  // the queries do hit the arena
}

// Each triangle's layers survive the file, and the loaded world filters as the built one does.
TEST(Snapshot, KeepsTheLayers) {
  const std::vector<Triangle> tris = make_arena();
  const std::vector<std::uint32_t> layers = layered::layers_for(tris);
  const World world(tris, layers);
  const std::string path = temp_path("layers.cwsw");
  save_snapshot(world, "@arena", path);
  const Snapshot s = load_snapshot(path);
  std::remove(path.c_str());
  for (std::uint32_t i = 0; i < layers.size(); ++i) ASSERT_EQ(s.world.layers_of(i), layers[i]) << "triangle " << i;
  const std::vector<SweepQuery> q = make_workload(world, Workload::long_range, 2000, 8);
  for (std::uint32_t mask : {1u, 2u, 4u, 8u, 2u | 4u, 1u | 2u | 4u | 8u, kAllLayers, 16u}) {
    SweepOptions o;
    o.layers = mask;
    std::vector<SweepHit> a(q.size()), b(q.size());
    world.sweep(q, a, o);
    s.world.sweep(q, b, o);
    for (std::size_t i = 0; i < q.size(); ++i) ASSERT_TRUE(identical(a[i], b[i])) << "mask " << mask << ", query " << i;
  }
}

// Sections after the world (the navmesh's, kept by capsweep build --navmesh): they come back as
// saved, in order, behind the same world, on both kinds of file; a file without them keeps the
// bytes it had before sections existed (every test above saves such files).
TEST(SnapshotSections, ComeBackAsSavedBehindTheSameWorld) {
  const std::vector<SnapshotSection> sections{{"navmesh", std::string("CWNM\0\x01 bytes of any kind", 23)},
                                              {"empty", ""},
                                              {"third.one", std::string(1000, '\x7f')}};
  for (int kind = 0; kind < 2; ++kind) {
    const World world = kind == 0 ? small_world() : instanced_world();
    const std::string bare = temp_path("bare.cwsw"), with = temp_path("with_sections.cwsw");
    save_snapshot(world, "s", bare);
    save_snapshot(world, "s", with, {}, sections);
    const Snapshot loaded = load_snapshot(with);
    ASSERT_EQ(loaded.sections.size(), sections.size()) << kind;
    for (std::size_t k = 0; k < sections.size(); ++k) {
      EXPECT_EQ(loaded.sections[k].name, sections[k].name);
      EXPECT_EQ(loaded.sections[k].bytes, sections[k].bytes);
    }
    ASSERT_NE(loaded.section("third.one"), nullptr);
    EXPECT_EQ(loaded.section("third.one")->bytes.size(), 1000u);
    EXPECT_EQ(loaded.section("nope"), nullptr);
    EXPECT_TRUE(load_snapshot(bare).sections.empty());
    // The same world: its answers, and the bytes it saves without sections.
    const batches::Batches b = batches::make(world, 500, 3);
    expect_same_answers<SweepHit>("sweep", b.sweeps.size(), [&](int k, std::vector<SweepHit>& out) {
      (k == 0 ? world : loaded.world).sweep(b.sweeps, out);
    });
    save_snapshot(loaded.world, "s", temp_path("again.cwsw"));
    EXPECT_EQ(read_bytes(bare), read_bytes(temp_path("again.cwsw"))) << kind;
    // The world's bytes come first, as they were: a reader of the world alone finds them unchanged
    // but for the header's count of sections (and so its checksum).
    const std::vector<unsigned char> a = read_bytes(bare), c = read_bytes(with);
    ASSERT_GT(c.size(), a.size());
    EXPECT_TRUE(std::equal(a.begin() + 128, a.end(), c.begin() + 128)) << kind;
    EXPECT_TRUE(open_world(with).sections.size() == sections.size());
  }
}

TEST(SnapshotSections, NamesOutOfTheRulesAreRefusedBeforeAnythingIsWritten) {
  const std::string path = temp_path("bad_names.cwsw");
  std::remove(path.c_str());
  const std::vector<std::vector<SnapshotSection>> bad{
      {{"", "x"}},
      {{"sixteen_letters_", "x"}},
      {{"has space", "x"}},
      {{"tab\there", "x"}},
      {{std::string("nul\0", 4), "x"}},
      {{"twice", "a"}, {"twice", "b"}},
      std::vector<SnapshotSection>(kMaxSnapshotSections + 1, SnapshotSection{"x", ""}),
  };
  for (const auto& sections : bad) {
    EXPECT_THROW(save_snapshot(small_world(), "s", path, {}, sections), std::invalid_argument) << sections[0].name;
    EXPECT_FALSE(std::ifstream(path).good());
  }
  std::vector<SnapshotSection> many;
  for (std::size_t k = 0; k < kMaxSnapshotSections; ++k) many.push_back({std::string("s") + std::to_string(k), std::string(k, 'a')});
  save_snapshot(small_world(), "s", path, {}, many);
  EXPECT_EQ(load_snapshot(path).sections.size(), kMaxSnapshotSections);
}

TEST(SnapshotSections, EveryDamageIsRefusedNamingTheSection) {
  const std::vector<SnapshotSection> sections{{"first", std::string(300, 'a')}, {"navmesh", std::string(77, 'b')}};
  for (int kind = 0; kind < 2; ++kind) {
    const std::string good = temp_path("sections_good.cwsw"), bad = temp_path("sections_bad.cwsw");
    const std::string bare = temp_path("sections_bare.cwsw");
    save_snapshot(kind == 0 ? small_world() : instanced_world(), "s", good, {}, sections);
    save_snapshot(kind == 0 ? small_world() : instanced_world(), "s", bare);
    const std::vector<unsigned char> bytes = read_bytes(good);
    const std::size_t world_end = read_bytes(bare).size();
    // Every truncation inside the sections, and a byte more.
    for (std::size_t length = world_end; length < bytes.size(); length += 7) {
      write_bytes(bad, std::vector<unsigned char>(bytes.begin(), bytes.begin() + std::ptrdiff_t(length)));
      const std::size_t first = (world_end + 63) / 64 * 64 + 64;  // the first section's bytes
      expect_refused(bad, length < first ? "section 0: truncated" : length < first + 300 ? "section 0 (first): truncated" : "section 1");
    }
    std::vector<unsigned char> longer = bytes;
    longer.push_back(0);
    write_bytes(bad, longer);
    expect_refused(bad, "beyond what the header describes");
    // Every byte of the sections flipped.
    for (std::size_t at = world_end; at < bytes.size(); ++at) {
      std::vector<unsigned char> b = bytes;
      b[at] ^= std::uint8_t(1u << (at % 8));
      write_bytes(bad, b);
      expect_refused(bad, "section");
    }
    // The world's file alone, its header saying sections follow (checksum made good): refused.
    std::vector<unsigned char> cut(bytes.begin(), bytes.begin() + std::ptrdiff_t(world_end));
    write_bytes(bad, cut);
    expect_refused(bad, "section 0: truncated");
  }
}

}  // namespace
