// Tiles from CSV (read_tiles, streamed_from_file): rows with an optional header, comments and
// blank lines, mesh paths relative to the list's folder; the world streamed from the file answers
// as the same tiles streamed in code; every refusal names the file and the line.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include <capsweep/files.h>
#include <capsweep/tiles.h>

#include "tests/support/same_answers.h"
#include "tests/support/test_files.h"
#include "tests/support/test_meshes.h"
#include "tools/workloads.h"

namespace {

using namespace capsweep;

using TileFiles = ScratchDir;

std::string obj_of(const std::vector<Triangle>& tris) {
  std::ostringstream out;
  out.precision(9);
  for (const Triangle& t : tris) {
    for (const Vec3& v : t.v) out << "v " << v.x << ' ' << v.y << ' ' << v.z << '\n';
  }
  for (std::size_t i = 0; i < tris.size(); ++i) out << "f " << 3 * i + 1 << ' ' << 3 * i + 2 << ' ' << 3 * i + 3 << '\n';
  return out.str();
}

const std::vector<Triangle> kFloor = testmesh::Mesh().floor(0, 0, 16, 16, 4).box({5, 0, 5}, {7, 2, 8}).triangles();
const std::vector<Triangle> kRamp = testmesh::Mesh().ramp(0, 0, 4, 20, 2, 3).triangles();

TEST_F(TileFiles, ReadsRowsAndStreamsThemAsCodeWould) {
  std::filesystem::create_directories(path("meshes"));
  write("meshes/floor.obj", obj_of(kFloor));
  write("meshes/ramp.obj", obj_of(kRamp));
  const std::string list = write("tiles.csv",
                                 "# two floors and a ramp\n"
                                 "id,x,y,z,mesh,layers\n"
                                 "\n"
                                 "4, 800000.5, -2, 16, meshes/floor.obj\n"
                                 "2,800016.5,-2,16,meshes/floor.obj,2|3   # on layers 2 and 3\r\n"
                                 "9,800003,-2,20," + path("meshes/ramp.obj") + ",1\n");
  const TileFile file = read_tiles(list, 1);
  ASSERT_EQ(file.tiles.size(), 3u);
  EXPECT_EQ(file.lines, (std::vector<std::uint32_t>{4, 5, 6}));
  EXPECT_EQ(file.tiles[0].id, 4u);
  EXPECT_EQ(file.tiles[0].origin.x, 800000.5);
  EXPECT_EQ(file.tiles[1].layers, 6u);
  EXPECT_EQ(file.tiles[2].layers, 1u);
  EXPECT_EQ(file.meshes[0], path("meshes/floor.obj"));
  const World hub(testmesh::Mesh().box({799990, -2, 10}, {799992, 0, 12}).triangles());
  const World streamed = streamed_from_file(hub, list);
  const Tile in_code[] = {Tile{4, Vec3d(800000.5, -2, 16), kDefaultLayers, World(kFloor)},
                          Tile{2, Vec3d(800016.5, -2, 16), 6u, World(kFloor)}, Tile{9, Vec3d(800003, -2, 20), 1u, World(kRamp)}};
  const World expected = hub.streamed(in_code);
  ASSERT_EQ(streamed.triangle_count(), expected.triangle_count());
  for (std::uint32_t i = 0; i < expected.triangle_count(); ++i) {
    ASSERT_TRUE(answers::bits(streamed.triangle(i), expected.triangle(i))) << i;
    ASSERT_EQ(streamed.layers_of(i), expected.layers_of(i)) << i;
  }
  const std::vector<SweepQuery> q = make_workload(expected, Workload::validate, 500, 3);
  std::vector<SweepHit> a(q.size()), b(q.size());
  streamed.sweep(q, a);
  expected.sweep(q, b);
  for (std::size_t i = 0; i < q.size(); ++i) ASSERT_TRUE(identical(a[i], b[i])) << i;
  // No header is fine; so is no row at all.
  EXPECT_EQ(read_tiles(write("bare.csv", "1,0,0,0,meshes/ramp.obj\n")).tiles.size(), 1u);
  EXPECT_TRUE(read_tiles(write("none.csv", "# nothing streams\n")).tiles.empty());
}

TEST_F(TileFiles, EveryRefusalNamesTheFileAndTheLine) {
  write("ramp.obj", obj_of(kRamp));
  write("empty.obj", "# nothing\n");
  auto refusal = [&](const std::string& text) {
    const std::string file = write("bad.csv", text);
    try {
      read_tiles(file);
      return std::string("accepted");
    } catch (const FormatError& e) {
      return std::string(e.what()).substr(file.size());
    }
  };
  EXPECT_EQ(refusal("1,0,0,0\n"), ":1: expected 5 or 6 fields `id,x,y,z,mesh[,layers]`, found 4");
  EXPECT_EQ(refusal("# c\n1,0,0,0,ramp.obj,1,2\n"), ":2: expected 5 or 6 fields `id,x,y,z,mesh[,layers]`, found 7");
  EXPECT_EQ(refusal("-1,0,0,0,ramp.obj\n"), ":1: id '-1' is not a whole number from 0 to 4294967295");
  EXPECT_EQ(refusal("1,zero,0,0,ramp.obj\n"), ":1: x 'zero' is not a number");
  EXPECT_EQ(refusal("1,0,nan,0,ramp.obj\n"), ":1: y is not finite (nan)");
  EXPECT_EQ(refusal("1,0,0,2e6,ramp.obj\n"), ":1: z is beyond 1e6 m of the origin");
  EXPECT_EQ(refusal("1,0,0,0,ramp.obj,0\n"), ":1: layers '0': layer '0' is not a number from 1 to 32");
  EXPECT_EQ(refusal("1,0,0,0,ramp.obj\n1,5,0,0,ramp.obj\n"), ":2: tile 1 is listed twice (first on line 1)");
  EXPECT_EQ(refusal("1,0,0,0,\n"), ":1: tile 1: no mesh file");
  EXPECT_EQ(refusal("1,0,0,0,missing.obj\n"), ":1: tile 1: " + path("missing.obj") + ": no such file");
  EXPECT_NE(refusal("1,0,0,0,empty.obj\n").find(":1: tile 1: " + path("empty.obj") + ": "), std::string::npos);
  EXPECT_EQ(refusal("1,+-5,0,0,ramp.obj\n"), ":1: x '+-5' is not a number");
  EXPECT_EQ(refusal("1,0,0,0,ramp.obj\n").substr(0, 8), "accepted");
  // A # inside a file name is part of it; one after a blank starts a comment.
  write("ramp#2.obj", obj_of(kRamp));
  EXPECT_EQ(refusal("2,0,0,0,ramp#2.obj   # the second ramp\n").substr(0, 8), "accepted");
  // What the world refuses, by line: an id it holds, a tile placed beyond 1e6 m.
  const std::string held = write("held.csv", "1,0,0,0,ramp.obj\n");
  const World with_one = streamed_from_file(World(kFloor), held);
  try {
    (void)streamed_from_file(with_one, write("again.csv", "# again\n1,5,0,0,ramp.obj\n"));
    ADD_FAILURE() << "accepted a tile id in use";
  } catch (const FormatError& e) {
    EXPECT_EQ(std::string(e.what()), path("again.csv") + ":2: tile 1: the id is in use (remove that tile in the same call to replace it)");
  }
  try {
    (void)streamed_from_file(World(kFloor), write("far.csv", "7,999999,0,0,ramp.obj\n"));
    ADD_FAILURE() << "accepted a tile beyond 1e6 m";
  } catch (const FormatError& e) {
    EXPECT_EQ(std::string(e.what()), path("far.csv") + ":1: tile 7: placed, its triangles reach beyond 1e6 m of the origin");
  }
  EXPECT_THROW(read_tiles(path("no_such.csv")), FormatError);
}

}  // namespace
