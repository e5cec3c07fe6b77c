// Heightmap files: 16- and 8-bit grayscale PNGs and raw float32 grids become the heightfield
// they hold (samples, size, cell, scale, origin, holes, layers), and every file that is not one
// is refused naming the file and what is wrong. Then the command: capsweep heightmap and
// capsweep build --heightmap, alone and with a mesh on the terrain.
#include <sys/wait.h>
#include <zlib.h>

#include <cmath>
#include <cstring>

#include <capsweep/files.h>
#include <capsweep/world.h>

#include "core/random.h"
#include "tests/support/test_files.h"
#include "tests/support/scene_oracle.h"
#include "tools/arena.h"
#include "tools/heightmaps.h"
#include "tools/picture.h"
#include "tools/workloads.h"

namespace {

using namespace capsweep;

std::string raw_floats(const std::vector<float>& values) {
  return std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float));
}

using Heightmap = ScratchDir;

void expect_refused(const std::string& path, const HeightmapOptions& o, const std::string& words) {
  try {
    load_heightmap(path, o);
    ADD_FAILURE() << path << " was accepted; expected: " << words;
  } catch (const HeightmapError& e) {
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

TEST_F(Heightmap, A16BitPngGivesItsSamplesWithTheOptions) {
  Random rng(3);
  std::vector<std::uint16_t> values(37 * 21);
  for (auto& v : values) v = std::uint16_t(rng.below(65536));
  values[5] = 0, values[6] = 65535;
  write_gray_png(path("h.png"), 37, 21, values, 16);
  HeightmapOptions o;
  o.cell_x = 2.f, o.cell_z = 0.5f, o.height_scale = 0.01f, o.origin = {10.f, -3.f, 7.f}, o.layers = 6u;
  const Heightfield t = load_heightmap(path("h.png"), o);
  EXPECT_EQ(t.columns, 37u);
  EXPECT_EQ(t.rows, 21u);
  EXPECT_EQ(t.samples, values);
  EXPECT_TRUE(t.heights.empty());
  EXPECT_EQ(t.cell_x, 2.f);
  EXPECT_EQ(t.cell_z, 0.5f);
  EXPECT_EQ(t.height_scale, 0.01f);
  EXPECT_EQ(t.layers, 6u);
  EXPECT_TRUE(t.holes.empty());
  // Sample (row 1, column 3): x along columns, z along image rows, y = origin.y + scale * sample.
  const Vec3 p = heightfield_vertex(t, 1, 3);
  EXPECT_EQ(p.x, 16.f);
  EXPECT_EQ(p.z, 7.5f);
  EXPECT_EQ(p.y, float(-3.0 + double(0.01f) * values[37 + 3]));
}

TEST_F(Heightmap, An8BitPngIsWidenedAndAHoleMaskMarksCells) {
  std::vector<std::uint16_t> values(5 * 4), holes(4 * 3, 0);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = std::uint16_t(i * 13 % 256);
  holes[0] = 255, holes[7] = 1;
  write_gray_png(path("h8.png"), 5, 4, values, 8);
  write_gray_png(path("holes.png"), 4, 3, holes, 8);
  HeightmapOptions o;
  o.holes = path("holes.png");
  const Heightfield t = load_heightmap(path("h8.png"), o);
  EXPECT_EQ(t.samples, values);
  ASSERT_EQ(t.holes.size(), 12u);
  for (std::size_t i = 0; i < 12; ++i) EXPECT_EQ(t.holes[i] != 0, i == 0 || i == 7) << "cell " << i;
  const World w(t);
  EXPECT_EQ(w.layers_of(0), 0u);   // cell 0 is a hole
  EXPECT_EQ(w.layers_of(14), 0u);  // cell 7, half 0
  EXPECT_EQ(w.layers_of(2), kDefaultLayers);
}

TEST_F(Heightmap, RawFloatsNeedTheirSizeAndExactlyTheirBytes) {
  std::vector<float> values(6 * 3);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = 0.25f * float(i) - 1.f;
  write("h.r32", raw_floats(values));
  HeightmapOptions o;
  o.columns = 6, o.rows = 3, o.height_scale = 2.f;
  const Heightfield t = load_heightmap(path("h.r32"), o);
  ASSERT_EQ(t.heights.size(), values.size());
  for (std::size_t i = 0; i < values.size(); ++i) EXPECT_EQ(t.heights[i], 2.f * values[i]);
  o.height_scale = 1.f;
  EXPECT_EQ(load_heightmap(path("h.r32"), o).heights, values);

  HeightmapOptions unsized;
  expect_refused(path("h.r32"), unsized, "a raw float32 heightmap needs its size");
  o.rows = 4;
  expect_refused(path("h.r32"), o, "72 bytes, 6 x 4 float32 samples need 96");
  o.rows = 2;
  expect_refused(path("h.r32"), o, "longer than 6 x 2 float32 samples (48 bytes)");
  values[9] = NAN;
  write("nan.r32", raw_floats(values));
  o.rows = 3;
  expect_refused(path("nan.r32"), o, "nan.r32: heightfield: sample (row 1, column 3) is not finite");
}

TEST_F(Heightmap, FilesThatAreNotHeightmapsAreRefusedByName) {
  HeightmapOptions o;
  expect_refused(path("missing.png"), o, "missing.png: cannot open");
  TopDownPicture(World(make_arena()), 64).write_png(path("rgb.png"));
  expect_refused(path("rgb.png"), o, "rgb.png: a heightmap is a grayscale PNG, this one is RGB");
  write_gray_png(path("g.png"), 4, 4, std::vector<std::uint16_t>(16, 7), 16);
  const std::string bytes = read(path("g.png"));
  write("cut.png", bytes.substr(0, bytes.size() / 2));
  expect_refused(path("cut.png"), o, "cut.png: not a readable PNG");
  std::string corrupt = bytes;
  corrupt[25] ^= 0x40;  // inside IHDR: its CRC no longer matches
  write("corrupt.png", corrupt);
  expect_refused(path("corrupt.png"), o, "corrupt.png: not a readable PNG");
  // A header claiming more pixels than deflate can pack into the file (46,000 x 46,000 16-bit
  // pixels would be 4.2 GB; the 1032:1 limit lets 100-odd bytes hold 100 KB) is refused before a
  // byte of them is allocated. The CRC is resealed, so libpng itself would accept the header.
  std::string huge = bytes;
  for (int at : {16, 20}) {
    for (int k = 0; k < 4; ++k) huge[std::size_t(at + k)] = char((46000u >> (24 - 8 * k)) & 0xFFu);
  }
  const std::uint32_t crc = std::uint32_t(crc32(0, reinterpret_cast<const Bytef*>(huge.data() + 12), 17));
  for (int k = 0; k < 4; ++k) huge[std::size_t(29 + k)] = char((crc >> (24 - 8 * k)) & 0xFFu);
  write("huge.png", huge);
  expect_refused(path("huge.png"), o, "huge.png: its header claims 46000 x 46000 pixels of 16 bits, more than its " +
                                          std::to_string(huge.size()) + " bytes can hold");
  // A size given for a PNG must be its own.
  o.columns = 5;
  expect_refused(path("g.png"), o, "the image is 4 x 4, not 5 x 0");
  // A hole mask of the wrong size, or in colour.
  HeightmapOptions h;
  write_gray_png(path("holes.png"), 4, 4, std::vector<std::uint16_t>(16, 0), 8);
  h.holes = path("holes.png");
  expect_refused(path("g.png"), h, "holes.png: a hole mask has a pixel per cell: 3 x 3 for");
  h.holes = path("rgb.png");
  expect_refused(path("g.png"), h, "rgb.png: a hole mask is a grayscale PNG, this one is RGB");
  // Numbers check_heightfield refuses.
  HeightmapOptions bad;
  bad.cell_x = 0.f;
  expect_refused(path("g.png"), bad, "g.png: heightfield: the cell size must be finite and > 0");
  write_gray_png(path("line.png"), 1, 4, std::vector<std::uint16_t>(4, 0), 16);
  expect_refused(path("line.png"), HeightmapOptions{}, "needs at least 2 x 2 samples, got 1 x 4");
}

// capsweep heightmap writes hills; capsweep build turns them into a snapshot alone or under a
// mesh; the sweeps answered from it are the oracle's; usage errors say what is missing.
TEST_F(Heightmap, TheCommandBuildsAHeightmapIntoASnapshot) {
  const CommandRun hills = capsweep_cmd("heightmap --size 129 --seed 4 --out " + path("hills.png"));
  ASSERT_EQ(hills.code, 0) << hills.output;
  const CommandRun build = capsweep_cmd("build --heightmap " + path("hills.png") +
                                        " --cell 0.5,0.75 --height-scale 0.0002 --origin -30,-2,-40 --scene @arena --out " +
                                        path("w.cwsw"));
  ASSERT_EQ(build.code, 0) << build.output;
  EXPECT_NE(build.output.find("heightfield 129 x 129 samples, 32768 triangles"), std::string::npos) << build.output;
  HeightmapOptions o;
  o.cell_x = 0.5f, o.cell_z = 0.75f, o.height_scale = 0.0002f, o.origin = {-30.f, -2.f, -40.f};
  const Heightfield terrain = load_heightmap(path("hills.png"), o);
  const std::vector<Triangle> arena = make_arena();
  const Snapshot snap = load_snapshot(path("w.cwsw"));
  EXPECT_NE(snap.source.find("hills.png (cell 0.5 x 0.75 m, height scale 0.0002"), std::string::npos) << snap.source;
  EXPECT_NE(snap.source.find("+ @arena"), std::string::npos) << snap.source;
  ASSERT_EQ(snap.world.triangle_count(), arena.size() + 2 * heightfield_cells(terrain));
  // The snapshot's terrain is the file's, after the arena's triangles.
  for (std::uint32_t i = 0; i < 2 * heightfield_cells(terrain); i += 97) {
    const Triangle a = snap.world.triangle(std::uint32_t(arena.size()) + i);
    const Triangle b = heightfield_triangle(terrain, (i / 2) / 128, (i / 2) % 128, int(i % 2));
    for (int v = 0; v < 3; ++v) ASSERT_TRUE(a.v[v] == b.v[v]) << "triangle " << i;
  }
  // Sweeps through the command, judged by the oracle on the same triangles as a mesh.
  std::vector<Triangle> all = arena;
  const std::vector<Triangle> ground = heightfield_mesh(terrain);
  all.insert(all.end(), ground.begin(), ground.end());
  const CommandRun gen = capsweep_cmd("queries --scene " + path("w.cwsw") + " --workload long --count 400 --out " + path("q.cwsq"));
  ASSERT_EQ(gen.code, 0) << gen.output;
  const CommandRun run = capsweep_cmd("sweep --scene " + path("w.cwsw") + " --queries " + path("q.cwsq") + " --out " + path("r.cwsr"));
  ASSERT_EQ(run.code, 0) << run.output;
  const auto queries = read_queries(path("q.cwsq"));
  const auto hits = read_results(path("r.cwsr"));
  std::size_t terrain_hits = 0;
  for (std::size_t i = 0; i < queries.size(); ++i) {
    SweepHit h = hits[i];
    if (h.hit && h.triangle >= arena.size()) {  // no holes: the terrain's triangles are the mesh's, in order
      ++terrain_hits;
    }
    ASSERT_EQ(oracle::judge_scene(h, queries[i], all), "") << "query " << i;
  }
  EXPECT_GT(terrain_hits, 20u);

  const CommandRun neither = capsweep_cmd("build --out " + path("x.cwsw"));
  EXPECT_EQ(neither.code, 2);
  EXPECT_NE(neither.output.find("build needs --scene, --heightmap or both"), std::string::npos) << neither.output;
  const CommandRun stray = capsweep_cmd("build --scene @arena --cell 2 --out " + path("x.cwsw"));
  EXPECT_EQ(stray.code, 2);
  EXPECT_NE(stray.output.find("--cell describes a --heightmap, and none is given"), std::string::npos) << stray.output;
  const CommandRun bad = capsweep_cmd("build --heightmap " + path("w.cwsw") + " --out " + path("x.cwsw"));
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.output.find("a raw float32 heightmap needs its size"), std::string::npos) << bad.output;
  EXPECT_FALSE(std::filesystem::exists(path("x.cwsw")));
}

}  // namespace
