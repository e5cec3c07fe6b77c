// The command on scenes with instances: `build` keeps a glTF scene's dynamic nodes as instances in
// the snapshot; `--poses` moves them for sweep, crowd and validate (a door raised out of the way
// turns hits on it into misses and changes no other answer); sweep writes CWSR version 2, each hit
// naming its instance; a scene without dynamic nodes gives the bytes it gave before (version 1);
// every refusal names the file and its line or node, exit code 1 (2 for usage).
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

#include <capsweep/files.h>

#include "io/query_format.h"
#include "tests/support/gltf_writer.h"
#include "tests/support/test_files.h"

namespace {

using namespace capsweep;

class InstancesCommand : public ScratchDir {
 protected:
  void SetUp() override {
    ScratchDir::SetUp();
    level = write("level.gltf", gltf::moving_level().json());
  }
  // Capsules walking into the door (instance 1, at z = 5), then capsules falling onto the floor
  // and into the pillar, away from every instance.
  void write_door_queries(const std::string& file) {
    std::vector<SweepQuery> q;
    for (int i = 0; i < kDoorQueries; ++i) {
      const float x = -0.8f + 0.1f * float(i);
      q.push_back({{{x, 0.4f, 2}, {x, 1.4f, 2}, 0.3f}, {0, 0, 6}});
    }
    for (int i = 0; i < 20; ++i) {
      const float x = -9.f + 0.4f * float(i);
      q.push_back({{{x, 3, -8}, {x, 4, -8}, 0.3f}, {0, -5, 0}});
      q.push_back({{{6.f + 0.05f * float(i), 1, 2}, {6.f + 0.05f * float(i), 1.5f, 2}, 0.3f}, {0, 0, 6}});
    }
    write_queries(file, q);
  }
  static constexpr int kDoorQueries = 17;
  std::string level;
};

TEST_F(InstancesCommand, BuildKeepsTheInstancesInTheSnapshot) {
  const CommandRun build = capsweep_cmd("build --scene " + level + " --dynamic-prefix Lift_ --out " + path("w.cwsw"));
  ASSERT_EQ(build.code, 0) << build.output;
  EXPECT_NE(build.output.find("74 triangles (48 of them in 3 instances of 2 prototypes)"), std::string::npos) << build.output;
  const Snapshot snapshot = load_snapshot(path("w.cwsw"));
  EXPECT_EQ(snapshot.source, level + " (dynamic prefix Lift_)");
  SceneOptions options;
  options.dynamic_prefix = "Lift_";
  const WorldFile scene = open_world(level, options);
  ASSERT_EQ(snapshot.world.instances().size(), 3u);
  for (std::size_t k = 0; k < 3; ++k) {
    const Instance &a = snapshot.world.instances()[k], &b = scene.world.instances()[k];
    EXPECT_EQ(a.id, b.id);
    EXPECT_EQ(a.prototype, b.prototype);
    EXPECT_EQ(a.layers, b.layers);
    EXPECT_EQ(std::memcmp(&a.pose, &b.pose, sizeof(Pose)), 0);
  }
  // The snapshot and the scene answer with the same bytes, posed or not.
  write_door_queries(path("q.cwsq"));
  write("poses.csv", "1,0,5,5,0,0,0,1\n");
  for (const std::string& poses : {std::string(), " --poses " + path("poses.csv")}) {
    const CommandRun from_scene = capsweep_cmd("sweep --scene " + level + " --dynamic-prefix Lift_ --queries " +
                                               path("q.cwsq") + " --out " + path("a.cwsr") + poses);
    ASSERT_EQ(from_scene.code, 0) << from_scene.output;
    const CommandRun from_snapshot = capsweep_cmd("sweep --scene " + path("w.cwsw") + " --queries " + path("q.cwsq") +
                                                  " --out " + path("b.cwsr") + poses);
    ASSERT_EQ(from_snapshot.code, 0) << from_snapshot.output;
    EXPECT_EQ(read(path("a.cwsr")), read(path("b.cwsr"))) << poses;
  }
}

TEST_F(InstancesCommand, PosesMoveTheDoorAndNothingElse) {
  write_door_queries(path("q.cwsq"));
  const CommandRun before = capsweep_cmd("sweep --scene " + level + " --queries " + path("q.cwsq") + " --out " + path("before.cwsr"));
  ASSERT_EQ(before.code, 0) << before.output;
  write("poses.csv", "id,tx,ty,tz,qx,qy,qz,qw\n# the door, raised 5 m\n1,0,5,5,0,0,0,1\n");
  const CommandRun after = capsweep_cmd("sweep --scene " + level + " --poses " + path("poses.csv") + " --queries " +
                                        path("q.cwsq") + " --out " + path("after.cwsr"));
  ASSERT_EQ(after.code, 0) << after.output;
  const std::vector<SweepHit> a = read_results(path("before.cwsr")), b = read_results(path("after.cwsr"));
  ASSERT_EQ(a.size(), b.size());
  const World world = open_world(level).world;
  std::size_t other_hits = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (i < std::size_t(kDoorQueries)) {
      ASSERT_TRUE(a[i].hit) << i;
      const Instance* door = world.instance_of(a[i].triangle);
      ASSERT_NE(door, nullptr) << i;
      EXPECT_EQ(door->id, 1u);
      EXPECT_FALSE(b[i].hit) << i << ": the raised door is out of the way";
    } else {
      EXPECT_TRUE(identical(a[i], b[i])) << i;
      other_hits += a[i].hit;
    }
  }
  EXPECT_EQ(other_hits, a.size() - std::size_t(kDoorQueries));
  // Byte for byte: the files (CWSR version 2, the scene has instances) differ only in the door's
  // records.
  const std::string x = read(path("before.cwsr")), y = read(path("after.cwsr"));
  ASSERT_EQ(x.size(), y.size());
  ASSERT_EQ(x.size(), kHeaderBytes + a.size() * kPartResultBytes);
  const std::size_t header = kHeaderBytes;
  for (std::size_t k = 0; k < x.size(); ++k) {
    if (x[k] != y[k]) {
      ASSERT_GE(k, header) << "the header differs";
      EXPECT_LT((k - header) / kPartResultBytes, std::size_t(kDoorQueries)) << "byte " << k;
    }
  }
}

TEST_F(InstancesCommand, SweepWritesVersionTwoNamingTheInstanceOfEachHit) {
  // The door queries, then capsules dropped onto the two lifts (instances 2 and 3 with the prefix).
  write_door_queries(path("q.cwsq"));
  std::vector<SweepQuery> q = read_queries(path("q.cwsq"));
  for (const Vec3 at : {Vec3{-4, 3, 0}, Vec3{4, 3, -3}}) q.push_back({{at, {at.x, at.y + 1, at.z}, 0.3f}, {0, -5, 0}});
  write_queries(path("q.cwsq"), q);
  SceneOptions options;
  options.dynamic_prefix = "Lift_";
  const World world = open_world(level, options).world;
  // Hits on each instance, by id, after checking each record's part against the world's.
  auto expect_parts = [&](const std::string& out, const World& answered) -> std::map<std::uint32_t, int> {
    const ResultFile file = read_result_file(out);
    EXPECT_EQ(file.version, 2u);
    EXPECT_EQ(read(out).size(), kHeaderBytes + file.hits.size() * kPartResultBytes);
    std::map<std::uint32_t, int> instance_hits;
    if (file.parts.size() != file.hits.size()) {
      ADD_FAILURE() << out << ": " << file.parts.size() << " parts for " << file.hits.size() << " hits";
      return instance_hits;
    }
    for (std::size_t i = 0; i < file.hits.size(); ++i) {
      const SweepHit& h = file.hits[i];
      const Instance* instance = h.hit ? answered.instance_of(h.triangle) : nullptr;
      const PartKind kind = !h.hit ? PartKind::none : instance ? PartKind::instance : PartKind::static_part;
      EXPECT_EQ(file.parts[i].kind, kind) << out << " " << i;
      EXPECT_EQ(file.parts[i].id, instance ? instance->id : kNoPart) << out << " " << i;
      if (instance) ++instance_hits[instance->id];
    }
    return instance_hits;
  };
  CommandRun run = capsweep_cmd("sweep --scene " + level + " --dynamic-prefix Lift_ --queries " + path("q.cwsq") + " --out " +
                                path("r.cwsr"));
  ASSERT_EQ(run.code, 0) << run.output;
  std::map<std::uint32_t, int> hits = expect_parts(path("r.cwsr"), world);
  EXPECT_EQ(hits[1], kDoorQueries) << "every door query names the door, node 1";
  EXPECT_EQ(hits[2], 1) << "Lift_A, node 2";
  EXPECT_EQ(hits[3], 1) << "Lift_B, node 3";
  EXPECT_EQ(read_results(path("r.cwsr")).size(), q.size());
  // The door raised out of the way: its queries miss, and name no part.
  write("poses.csv", "1,0,5,5,0,0,0,1\n");
  run = capsweep_cmd("sweep --scene " + level + " --dynamic-prefix Lift_ --poses " + path("poses.csv") + " --queries " +
                     path("q.cwsq") + " --out " + path("raised.cwsr"));
  ASSERT_EQ(run.code, 0) << run.output;
  hits = expect_parts(path("raised.cwsr"), posed_from_file(world, path("poses.csv")));
  EXPECT_EQ(hits.count(1), 0u);
  EXPECT_EQ(hits[2], 1);
  // Ellipsoids walking into the door: the ellipsoid path writes version 2 as well.
  std::vector<SweepEllipsoidQuery> e;
  for (int i = 0; i < 5; ++i) e.push_back({{{-0.6f + 0.3f * float(i), 1, 2}, {0.3f, 0.9f, 0.3f}}, {0, 0, 6}});
  write_ellipsoid_queries(path("e.cwsq"), e);
  run = capsweep_cmd("sweep --scene " + level + " --queries " + path("e.cwsq") + " --out " + path("e.cwsr"));
  ASSERT_EQ(run.code, 0) << run.output;
  EXPECT_EQ(expect_parts(path("e.cwsr"), open_world(level).world)[1], 5);
  // A scene without dynamic nodes: version 1 (its bytes: ASceneWithoutDynamicNodesGivesTheBytesItGaveBefore).
  gltf::Scene still = gltf::moving_level();
  still.nodes[1].extras = "";
  run = capsweep_cmd("sweep --scene " + write("still.gltf", still.json()) + " --queries " + path("q.cwsq") + " --out " +
                     path("still.cwsr"));
  ASSERT_EQ(run.code, 0) << run.output;
  const ResultFile plain = read_result_file(path("still.cwsr"));
  EXPECT_EQ(plain.version, 1u);
  EXPECT_TRUE(plain.parts.empty());
  EXPECT_EQ(read(path("still.cwsr")).size(), kHeaderBytes + q.size() * kResultBytes);
}

TEST_F(InstancesCommand, TilesStreamInFromAListAndStayInTheSnapshot) {
  // Two tiles of the level's own floor far out east, from a list: sweep with --tiles answers as
  // the snapshot built with them, each hit on a tile named in CWSR version 2.
  const std::string floor = write("floor.obj", "v 0 0 0\nv 0 0 8\nv 8 0 8\nv 8 0 0\nf 1 2 3\nf 1 3 4\n");
  const std::string list = write("tiles.csv", "id,x,y,z,mesh\n20,40,0,-4,floor.obj\n21,48,0.5,-4," + floor + ",1|2\n");
  std::vector<SweepQuery> q;
  for (int i = 0; i < 30; ++i) {
    const float x = 40.5f + 0.5f * float(i);
    q.push_back({{{x, 2, 0}, {x, 3, 0}, 0.3f}, {0, -5, 0}});
  }
  write_queries(path("down.cwsq"), q);
  const CommandRun build = capsweep_cmd("build --scene " + level + " --tiles " + list + " --out " + path("t.cwsw"));
  ASSERT_EQ(build.code, 0) << build.output;
  EXPECT_NE(build.output.find("(4 of them in 2 tiles)"), std::string::npos) << build.output;
  const CommandRun listed = capsweep_cmd("sweep --scene " + level + " --tiles " + list + " --queries " + path("down.cwsq") +
                                         " --out " + path("listed.cwsr"));
  ASSERT_EQ(listed.code, 0) << listed.output;
  const CommandRun built = capsweep_cmd("sweep --scene " + path("t.cwsw") + " --queries " + path("down.cwsq") + " --out " +
                                        path("built.cwsr"));
  ASSERT_EQ(built.code, 0) << built.output;
  EXPECT_EQ(read(path("listed.cwsr")), read(path("built.cwsr")));
  const ResultFile r = read_result_file(path("listed.cwsr"));
  ASSERT_EQ(r.version, 2u);
  std::size_t on_tiles = 0;
  for (std::size_t i = 0; i < q.size(); ++i) {
    ASSERT_TRUE(r.hits[i].hit) << i;
    EXPECT_EQ(r.parts[i].kind, PartKind::tile) << i;
    EXPECT_EQ(r.parts[i].id, q[i].capsule.a.x < 48 ? 20u : 21u) << i;
    on_tiles += r.parts[i].kind == PartKind::tile;
  }
  EXPECT_EQ(on_tiles, q.size());
  // A refused row: exit 1, named by line, nothing written.
  const std::string bad = write("bad.csv", "20,40,0,-4,floor.obj\n20,48,0,-4,floor.obj\n");
  const CommandRun refused = capsweep_cmd("sweep --scene " + level + " --tiles " + bad + " --queries " + path("down.cwsq") +
                                          " --out " + path("none.cwsr"));
  EXPECT_EQ(refused.code, 1) << refused.output;
  EXPECT_NE(refused.output.find(bad + ":2: tile 20 is listed twice (first on line 1)"), std::string::npos) << refused.output;
  EXPECT_FALSE(std::filesystem::exists(path("none.cwsr")));
}

TEST_F(InstancesCommand, CrowdAndValidateTakePoses) {
  write("poses.csv", "1,0,5,5,0,0,0,1\n3,4,0.6,-3,0,0,0,1\n");
  const CommandRun crowd = capsweep_cmd("crowd --scene " + level + " --dynamic-prefix Lift_ --poses " + path("poses.csv") +
                                        " --agents 40 --ticks 30 --threads 2");
  ASSERT_EQ(crowd.code, 0) << crowd.output;
  EXPECT_NE(crowd.output.find("invariants: 0 agent-ticks inside the skin, 0 overlapping"), std::string::npos) << crowd.output;
  // The door queries as claimed moves: blocked by the door where it stands, clear once raised.
  write_door_queries(path("q.cwsq"));
  for (const std::string& poses : {std::string(), " --poses " + path("poses.csv")}) {
    const CommandRun run = capsweep_cmd("validate --scene " + level + " --dynamic-prefix Lift_ --moves " + path("q.cwsq") + " --out " +
                                        path("v.csv") + poses);
    ASSERT_EQ(run.code, 0) << run.output;
    std::ifstream in(path("v.csv"));
    std::string header, first;
    std::getline(in, header);
    std::getline(in, first);
    EXPECT_EQ(first.substr(0, first.find(',', 2)), poses.empty() ? "0,blocked" : "0,ok") << poses;
  }
}

TEST_F(InstancesCommand, RefusalsNameTheFileAndTheLineOrNode) {
  write_door_queries(path("q.cwsq"));
  auto sweep = [&](const std::string& scene, const std::string& extra) {
    return capsweep_cmd("sweep --scene " + scene + " --queries " + path("q.cwsq") + " --out " + path("r.cwsr") + extra);
  };
  const std::string poses = write("p.csv", "1,0,5,5,0,0,0,1\n9,0,0,0,0,0,0,1\n");
  CommandRun run = sweep(level, " --poses " + poses);
  EXPECT_EQ(run.code, 1);
  EXPECT_NE(run.output.find(poses + ":2: the world has no instance 9"), std::string::npos) << run.output;
  EXPECT_FALSE(std::filesystem::exists(path("r.cwsr")));
  write("p.csv", "1,0,5,5,0,0,0.5,1\n");
  run = sweep(level, " --poses " + poses);
  EXPECT_EQ(run.code, 1);
  EXPECT_NE(run.output.find(poses + ":1: instance 1: its rotation is not a unit quaternion"), std::string::npos) << run.output;
  write("p.csv", "1,0,5,5,0,0,0\n");
  run = sweep(level, " --poses " + poses);
  EXPECT_EQ(run.code, 1);
  EXPECT_NE(run.output.find(poses + ":1: expected 8 fields"), std::string::npos) << run.output;
  // A world without instances.
  const std::string obj = write("tri.obj", "v -5 0 -5\nv -5 0 5\nv 5 0 5\nf 1 2 3\n");
  write("p.csv", "1,0,5,5,0,0,0,1\n");
  run = sweep(obj, " --poses " + poses);
  EXPECT_EQ(run.code, 1);
  EXPECT_NE(run.output.find(poses + ": the world has no instances to pose"), std::string::npos) << run.output;
  run = sweep(obj, " --dynamic-prefix Door");
  EXPECT_EQ(run.code, 1);
  EXPECT_NE(run.output.find(obj + ": dynamic nodes (the prefix 'Door') are read from glTF 2.0 scenes only"), std::string::npos)
      << run.output;
  // A dynamic node that is scaled.
  gltf::Scene scaled = gltf::moving_level();
  scaled.nodes[1].transform += ",\"scale\":[1,1,3]";
  const std::string bad = write("scaled.gltf", scaled.json());
  run = sweep(bad, "");
  EXPECT_EQ(run.code, 1);
  EXPECT_NE(run.output.find(bad + ": node 1 'Door': its transform in the scene scales by (1, 1, 3)"), std::string::npos)
      << run.output;
  // The prefix given with a snapshot is a usage error.
  ASSERT_EQ(capsweep_cmd("build --scene " + level + " --out " + path("w.cwsw")).code, 0);
  run = sweep(path("w.cwsw"), " --dynamic-prefix Lift_");
  EXPECT_EQ(run.code, 2);
  EXPECT_NE(run.output.find("--dynamic-prefix does not apply to a snapshot"), std::string::npos) << run.output;
  EXPECT_FALSE(std::filesystem::exists(path("r.cwsr")));
}

TEST_F(InstancesCommand, ASceneWithoutDynamicNodesGivesTheBytesItGaveBefore) {
  gltf::Scene still = gltf::moving_level();
  still.nodes[1].extras = "";
  const std::string file = write("still.gltf", still.json());
  ASSERT_EQ(capsweep_cmd("build --scene " + file + " --out " + path("now.cwsw")).code, 0);
  // What open_world built before dynamic nodes existed: the baked triangles and their layers.
  const LayeredScene baked = load_layered_scene(file);
  const World before(baked.triangles, baked.layers);
  save_snapshot(before, describe_source(file, {}), path("before.cwsw"));
  EXPECT_EQ(read(path("now.cwsw")), read(path("before.cwsw")));
  write_door_queries(path("q.cwsq"));
  ASSERT_EQ(capsweep_cmd("sweep --scene " + file + " --queries " + path("q.cwsq") + " --out " + path("now.cwsr")).code, 0);
  const std::vector<SweepQuery> q = read_queries(path("q.cwsq"));
  std::vector<SweepHit> hits(q.size());
  before.sweep(q, hits);
  write_results(path("before.cwsr"), hits);
  EXPECT_EQ(read(path("now.cwsr")), read(path("before.cwsr")));
}

}  // namespace
