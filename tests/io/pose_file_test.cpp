// Poses from CSV (read_poses, posed_from_file): rows with an optional header, comments and blank
// lines; every refusal names the file and the line; the posed world is a still frame at the
// file's poses.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include <capsweep/files.h>
#include <capsweep/instances.h>

#include "tests/support/test_files.h"
#include "tests/support/test_meshes.h"
#include "world/world_arrays.h"

namespace {

using namespace capsweep;

using PoseFiles = ScratchDir;

// A floor with two doors, instances 1 and 7.
World two_doors() {
  const World floor(testmesh::Mesh().floor(-10, -10, 10, 10, 5).triangles());
  std::vector<World> prototypes;
  prototypes.emplace_back(testmesh::Mesh().box({-1, 0, -0.1f}, {1, 2.2f, 0.1f}).triangles());
  return World(floor, std::move(prototypes),
               {Instance{1, 0, Pose{Vec3d(0, 0, 5), {}}, kDefaultLayers}, Instance{7, 0, Pose{Vec3d(3, 0, -5), {}}, kDefaultLayers}});
}

TEST_F(PoseFiles, ReadsRowsWithAHeaderCommentsAndBlankLines) {
  const std::string file = write("poses.csv",
                                 "# the doors, opened\n"
                                 "id,tx,ty,tz,qx,qy,qz,qw\n"
                                 "\n"
                                 "1, 0, 2.5, 5, 0, 0.7071067811865476, 0, 0.7071067811865476   # swung\n"
                                 "  7,+3,0,-5e0,0,0,0,1\r\n");
  const PoseFile p = read_poses(file);
  ASSERT_EQ(p.poses.size(), 2u);
  EXPECT_EQ(p.lines, (std::vector<std::uint32_t>{4, 5}));
  EXPECT_EQ(p.poses[0].id, 1u);
  EXPECT_EQ(p.poses[0].pose.position.y, 2.5);
  EXPECT_EQ(p.poses[0].pose.rotation.y, 0.7071067811865476);
  EXPECT_EQ(p.poses[1].id, 7u);
  EXPECT_EQ(p.poses[1].pose.position.x, 3.0);
  EXPECT_EQ(p.poses[1].pose.position.z, -5.0);
  // No header is fine; so is no row at all.
  EXPECT_EQ(read_poses(write("bare.csv", "7,3,0,-5,0,0,0,1\n")).poses.size(), 1u);
  EXPECT_TRUE(read_poses(write("none.csv", "# nothing moves\n")).poses.empty());
}

TEST_F(PoseFiles, EveryRefusalNamesTheFileAndTheLine) {
  auto refusal = [&](const std::string& text) {
    const std::string file = write("bad.csv", text);
    try {
      read_poses(file);
      return std::string("accepted");
    } catch (const FormatError& e) {
      return std::string(e.what()).substr(file.size());
    }
  };
  const std::string ok = "1,0,0,5,0,0,0,1\n";
  EXPECT_EQ(refusal(ok + "7,0,0,5,0,0,1\n"), ":2: expected 8 fields `id,tx,ty,tz,qx,qy,qz,qw`, found 7");
  EXPECT_EQ(refusal(ok + "7,0,0,5,0,0,0,1,2\n"), ":2: expected 8 fields `id,tx,ty,tz,qx,qy,qz,qw`, found 9");
  EXPECT_EQ(refusal("door,0,0,5,0,0,0,1\n"), ":1: id 'door' is not a whole number from 0 to 4294967295");
  EXPECT_EQ(refusal("-1,0,0,5,0,0,0,1\n"), ":1: id '-1' is not a whole number from 0 to 4294967295");
  EXPECT_EQ(refusal("4294967296,0,0,5,0,0,0,1\n"), ":1: id '4294967296' is not a whole number from 0 to 4294967295");
  EXPECT_EQ(refusal("1,0,abc,5,0,0,0,1\n"), ":1: ty 'abc' is not a number");
  EXPECT_EQ(refusal("1,0,,5,0,0,0,1\n"), ":1: ty '' is not a number");
  EXPECT_EQ(refusal("1,0,0,nan,0,0,0,1\n"), ":1: tz is not finite (nan)");
  EXPECT_EQ(refusal("1,0,0,5,0,0,0,inf\n"), ":1: qw is not finite (inf)");
  EXPECT_EQ(refusal("1,0,0,5,0,0,0,1e999\n"), ":1: qw '1e999' is not a number");
  EXPECT_EQ(refusal(ok + "\n# again\n1,0,0,6,0,0,0,1\n"), ":4: instance 1 is posed twice (first on line 1)");
  EXPECT_EQ(refusal("1,0,0,5,0,0,0.5,1\n"), ":1: instance 1: " + check_pose(Pose{Vec3d(0, 0, 5), Quat{0, 0, 0.5, 1}}));
  EXPECT_EQ(refusal("1,0,2e6,5,0,0,0,1\n"), ":1: instance 1: its position is beyond 1e6 m of the origin");
  EXPECT_EQ(refusal(ok + "id,tx,ty,tz,qx,qy,qz,qw\n"), ":2: id 'id' is not a whole number from 0 to 4294967295")
      << "a header is the first row or none";
  try {
    read_poses(path("missing.csv"));
    ADD_FAILURE() << "read a missing file";
  } catch (const FormatError& e) {
    EXPECT_EQ(std::string(e.what()), path("missing.csv") + ": cannot open");
  }
}

TEST_F(PoseFiles, TheWorldTakesThePosesAsAStillFrame) {
  const World world = two_doors();
  const std::string file = write("poses.csv", "id,tx,ty,tz,qx,qy,qz,qw\n7,3,0,-2,0,0.6,0,0.8\n");
  const World posed = posed_from_file(world, file);
  ASSERT_EQ(posed.instances().size(), 2u);
  EXPECT_EQ(std::memcmp(&posed.instances()[0].pose, &world.instances()[0].pose, sizeof(Pose)), 0) << "no row: kept";
  EXPECT_EQ(posed.instances()[1].pose.position.z, -2.0);
  EXPECT_EQ(posed.instances()[1].pose.rotation.y, 0.6);
  // No motion remembered: World::move on it carries no agent by the jump from the file's pose.
  EXPECT_TRUE(posed.arrays().instances->moved.empty());
  EXPECT_FALSE(world.posed(read_poses(file).poses).arrays().instances->moved.empty()) << "(what one posed() keeps)";
  // It answers as a world built at those poses.
  const World built(World(testmesh::Mesh().floor(-10, -10, 10, 10, 5).triangles()),
                    {World(testmesh::Mesh().box({-1, 0, -0.1f}, {1, 2.2f, 0.1f}).triangles())},
                    {world.instances()[0], Instance{7, 0, Pose{Vec3d(3, 0, -2), Quat{0, 0.6, 0, 0.8}}, kDefaultLayers}});
  std::vector<SweepQuery> q;
  for (int i = 0; i < 40; ++i) q.push_back({{{-5.f + 0.25f * float(i), 1, -8}, {-5.f + 0.25f * float(i), 1.5f, -8}, 0.3f}, {0, 0, 16}});
  std::vector<SweepHit> a(q.size()), b(q.size());
  posed.sweep(q, a);
  built.sweep(q, b);
  for (std::size_t i = 0; i < q.size(); ++i) EXPECT_TRUE(identical(a[i], b[i])) << i;
}

TEST_F(PoseFiles, RowsTheWorldRefusesAreNamedByLine) {
  const World world = two_doors();
  auto refusal = [&](const World& w, const std::string& text) {
    const std::string file = write("p.csv", text);
    try {
      posed_from_file(w, file);
      return std::string("accepted");
    } catch (const FormatError& e) {
      return std::string(e.what()).substr(file.size());
    }
  };
  EXPECT_EQ(refusal(world, "1,0,0,5,0,0,0,1\n# next\n9,0,0,5,0,0,0,1\n"), ":3: the world has no instance 9");
  EXPECT_EQ(refusal(world, "1,0,0,5,0,0,0,1\n7,999999.5,0,0,0,0,0,1\n"),
            ":2: instance 7: placed, its triangles reach beyond 1e6 m of the origin");
  const World still(testmesh::Mesh().floor(-10, -10, 10, 10, 5).triangles());
  EXPECT_EQ(refusal(still, "1,0,0,5,0,0,0,1\n"),
            ": the world has no instances to pose (a glTF scene's dynamic nodes are its instances)");
  EXPECT_EQ(refusal(still, "# nothing\n"), ": the world has no instances to pose (a glTF scene's dynamic nodes are its instances)");
}

}  // namespace
