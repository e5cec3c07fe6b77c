// glTF scenes with dynamic nodes (load_instanced_scene, open_world): dynamic nodes (by extras or by
// name prefix) become instances whose ids are the nodes' indices and whose poses are the nodes'
// transforms; children move with their node; nodes placing the same mesh share a prototype; the
// world answers sweeps bit for bit as the world with the instances' placed triangles baked in;
// every other node is baked as before, and a scene without dynamic nodes loads exactly as before.
#include <gtest/gtest.h>
#include <zlib.h>

#include <cmath>
#include <cstring>

#include <capsweep/files.h>
#include <capsweep/instances.h>

#include "core/random.h"
#include "tests/support/gltf_writer.h"
#include "tests/support/test_files.h"

namespace {

using namespace capsweep;

using InstancedScenes = ScratchDir;

// The triangles of the baked scene (load_layered_scene: node order Floor 2, Door 12, Handle 12,
// Lift_A 12, Lift_B 12, Pillar 12, Cap 12) that each part holds.
constexpr std::size_t kDoor = 2, kLiftA = 26, kLiftB = 38, kPillar = 50, kAll = 74;

bool same_bytes(const std::vector<Triangle>& a, const std::vector<Triangle>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(Triangle)) == 0;
}

std::vector<Triangle> slice(const std::vector<Triangle>& t, std::size_t from, std::size_t to) {
  return {t.begin() + std::ptrdiff_t(from), t.begin() + std::ptrdiff_t(to)};
}

SceneOptions with_prefix(const std::string& prefix) {
  SceneOptions o;
  o.dynamic_prefix = prefix;
  return o;
}

// The static part with every instance's placed triangles after it, on the instances' layers: the
// oracle the world with instances must match bit for bit.
World baked(const InstancedScene& s) {
  std::vector<Triangle> tris = s.static_part.triangles;
  std::vector<std::uint32_t> layers = s.static_part.layers;
  for (const Instance& in : s.instances) {
    for (const Triangle& t : s.prototypes[in.prototype]) {
      tris.push_back(placed(in.pose, t));
      layers.push_back(in.layers);
    }
  }
  return World(std::move(tris), std::move(layers));
}

void expect_near(const std::vector<Triangle>& a, const std::vector<Triangle>& b, float tolerance) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    for (int k = 0; k < 3; ++k) EXPECT_LE(max_abs_component(a[i].v[k] - b[i].v[k]), tolerance) << "triangle " << i;
  }
}

TEST_F(InstancedScenes, DynamicNodesBecomeInstancesWithTheirNodeIndices) {
  const std::string file = write("level.gltf", gltf::moving_level().json());
  const InstancedScene s = load_instanced_scene(file, with_prefix("Lift_"));
  ASSERT_EQ(s.instances.size(), 3u);
  EXPECT_EQ(s.instances[0].id, 1u);  // Door, by extras
  EXPECT_EQ(s.instances[1].id, 2u);  // Lift_A, by the prefix
  EXPECT_EQ(s.instances[2].id, 3u);  // Lift_B
  ASSERT_EQ(s.prototypes.size(), 2u) << "Lift_A and Lift_B place one mesh: one prototype";
  EXPECT_EQ(s.instances[0].prototype, 0u);
  EXPECT_EQ(s.instances[1].prototype, 1u);
  EXPECT_EQ(s.instances[2].prototype, 1u);
  EXPECT_EQ(s.prototypes[0].size(), 24u) << "the door and its handle";
  EXPECT_EQ(s.prototypes[1].size(), 12u);
  for (const Instance& in : s.instances) EXPECT_EQ(in.layers, kDefaultLayers);
  // The static part: the other nodes' triangles as the baked scene holds them, in its order.
  const LayeredScene all = load_layered_scene(file);
  ASSERT_EQ(all.triangles.size(), kAll);
  std::vector<Triangle> rest = slice(all.triangles, 0, kDoor);
  for (const Triangle& t : slice(all.triangles, kPillar, kAll)) rest.push_back(t);
  EXPECT_TRUE(same_bytes(s.static_part.triangles, rest));
  EXPECT_EQ(s.static_part.layers, std::vector<std::uint32_t>(rest.size(), kDefaultLayers));
  // Without the prefix only the door (marked in its extras) is dynamic.
  const InstancedScene door_only = load_instanced_scene(file);
  ASSERT_EQ(door_only.instances.size(), 1u);
  EXPECT_EQ(door_only.instances[0].id, 1u);
  EXPECT_EQ(door_only.static_part.triangles.size(), kAll - 24);
}

TEST_F(InstancedScenes, BinaryAndGzippedGltfGiveTheSameInstances) {
  const gltf::Scene level = gltf::moving_level();
  const InstancedScene text = load_instanced_scene(write("level.gltf", level.json()), with_prefix("Lift_"));
  const std::string glb = write("level.glb", level.glb());
  EXPECT_TRUE(same_bytes(load_scene(glb), load_scene(path("level.gltf"))));
  const std::string bytes = read(glb);
  gzFile gz = gzopen(path("level.glb.gz").c_str(), "wb");
  gzwrite(gz, bytes.data(), unsigned(bytes.size()));
  gzclose(gz);
  for (const std::string& file : {glb, path("level.glb.gz")}) {
    const InstancedScene s = load_instanced_scene(file, with_prefix("Lift_"));
    ASSERT_EQ(s.instances.size(), text.instances.size()) << file;
    for (std::size_t k = 0; k < s.instances.size(); ++k) {
      const Instance &a = s.instances[k], &b = text.instances[k];
      EXPECT_TRUE(a.id == b.id && a.prototype == b.prototype && a.layers == b.layers &&
                  std::memcmp(&a.pose, &b.pose, sizeof(Pose)) == 0)
          << file << " instance " << k;
    }
    ASSERT_EQ(s.prototypes.size(), text.prototypes.size()) << file;
    for (std::size_t k = 0; k < s.prototypes.size(); ++k) EXPECT_TRUE(same_bytes(s.prototypes[k], text.prototypes[k])) << file;
    EXPECT_TRUE(same_bytes(s.static_part.triangles, text.static_part.triangles)) << file;
  }
}

TEST_F(InstancedScenes, PosesAreTheNodesTransformsAndChildrenMoveWithTheirNode) {
  const std::string file = write("level.gltf", gltf::moving_level().json());
  const InstancedScene s = load_instanced_scene(file, with_prefix("Lift_"));
  ASSERT_EQ(s.instances.size(), 3u);
  auto expect_pose = [](const Pose& p, Vec3d position, Quat q) {
    EXPECT_EQ(p.position.x, position.x);
    EXPECT_EQ(p.position.y, position.y);
    EXPECT_EQ(p.position.z, position.z);
    const double n = std::sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
    EXPECT_NEAR(p.rotation.x, q.x / n, 1e-12);
    EXPECT_NEAR(p.rotation.y, q.y / n, 1e-12);
    EXPECT_NEAR(p.rotation.z, q.z / n, 1e-12);
    EXPECT_NEAR(p.rotation.w, q.w / n, 1e-12);
  };
  expect_pose(s.instances[0].pose, {0, 0, 5}, {0, 0, 0, 1});
  expect_pose(s.instances[1].pose, {-4, 0.5, 0}, {0, std::sin(M_PI / 12), 0, std::cos(M_PI / 12)});
  const double a = std::sin(0.6) / std::sqrt(14.0);
  expect_pose(s.instances[2].pose, {4, 0.5, -3}, {a, 2 * a, 3 * a, std::cos(0.6)});
  // Placed, each instance's triangles are where Assimp's float transforms put the nodes (and the
  // door's handle where its own transform under the door puts it).
  const std::vector<Triangle> all = load_scene(file);
  const std::size_t from[3] = {kDoor, kLiftA, kLiftB}, to[3] = {kLiftA, kLiftB, kPillar};
  for (std::size_t k = 0; k < 3; ++k) {
    std::vector<Triangle> placed_tris;
    for (const Triangle& t : s.prototypes[s.instances[k].prototype]) placed_tris.push_back(placed(s.instances[k].pose, t));
    expect_near(placed_tris, slice(all, from[k], to[k]), 2e-6f);
  }
}

// A node given by its matrix (column-major, as glTF writes it) is posed as Assimp places it.
TEST_F(InstancedScenes, ANodeGivenByAMatrixIsPosedWhereAssimpPlacesIt) {
  gltf::Scene level = gltf::moving_level();
  // 90 degrees about y, then moved to (1, 2, 5): columns (0, 0, -1), (0, 1, 0), (1, 0, 0), (1, 2, 5).
  level.nodes[1].transform = "\"matrix\":[0,0,-1,0, 0,1,0,0, 1,0,0,0, 1,2,5,1]";
  const std::string file = write("matrix.gltf", level.json());
  const InstancedScene s = load_instanced_scene(file);
  ASSERT_EQ(s.instances.size(), 1u);
  const Pose& p = s.instances[0].pose;
  EXPECT_EQ(p.position.x, 1.0);
  EXPECT_EQ(p.position.y, 2.0);
  EXPECT_EQ(p.position.z, 5.0);
  EXPECT_NEAR(p.rotation.y, std::sqrt(0.5), 1e-15);
  EXPECT_NEAR(p.rotation.w, std::sqrt(0.5), 1e-15);
  std::vector<Triangle> placed_tris;
  for (const Triangle& t : s.prototypes[0]) placed_tris.push_back(placed(p, t));
  expect_near(placed_tris, slice(load_scene(file), kDoor, kLiftA), 2e-6f);
}

TEST_F(InstancedScenes, TheWorldAnswersAsTheWorldWithTheInstancesBakedIn) {
  const std::string file = write("level.gltf", gltf::moving_level().json());
  const SceneOptions options = with_prefix("Lift_");
  const InstancedScene s = load_instanced_scene(file, options);
  const WorldFile opened = open_world(file, options);
  ASSERT_EQ(opened.world.instances().size(), 3u);
  for (std::size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(opened.world.instances()[k].id, s.instances[k].id);
    EXPECT_EQ(std::memcmp(&opened.world.instances()[k].pose, &s.instances[k].pose, sizeof(Pose)), 0);
  }
  EXPECT_EQ(opened.source, file + " (dynamic prefix Lift_)");
  const World oracle = baked(s);
  ASSERT_EQ(oracle.triangle_count(), opened.world.triangle_count());
  // Capsules and rays aimed through the instances from around them.
  Random rng(37);
  const Vec3 targets[3] = {{0, 1.1f, 5}, {-4, 0.5f, 0}, {4, 0.5f, -3}};
  std::vector<SweepQuery> queries;
  for (int i = 0; i < 600; ++i) {
    const Vec3 target = targets[i % 3] + Vec3(float(rng.uniform(-1, 1)), float(rng.uniform(-0.8, 0.8)), float(rng.uniform(-1, 1)));
    const Vec3 from(target.x + float(rng.uniform(-4, 4)), float(rng.uniform(0.1, 3)), target.z + float(rng.uniform(-4, 4)));
    const float radius = i % 4 == 0 ? 0.f : float(rng.uniform(0.05, 0.5));
    queries.push_back({{from, from + Vec3(0, float(rng.uniform(0, 1.2)), 0), radius}, (target - from) * 1.5f});
  }
  std::size_t instance_hits = 0;
  for (SweepPath path : {SweepPath::simd, SweepPath::brute}) {
    std::vector<SweepHit> got(queries.size()), want(queries.size());
    opened.world.sweep(queries, got, on_path(path));
    oracle.sweep(queries, want, on_path(path));
    for (std::size_t i = 0; i < queries.size(); ++i) {
      ASSERT_TRUE(identical(got[i], want[i])) << "query " << i << " on " << name(path);
      instance_hits += got[i].hit && opened.world.instance_of(got[i].triangle) != nullptr;
    }
  }
  EXPECT_GT(instance_hits, queries.size() / 2);
}

TEST_F(InstancedScenes, ASceneWithoutDynamicNodesLoadsExactlyAsBefore) {
  gltf::Scene level = gltf::moving_level();
  level.nodes[1].extras = R"({"capsweep":{"dynamic":false}})";  // read, and not dynamic
  const std::string file = write("still.gltf", level.json());
  for (const SceneOptions& options : {SceneOptions{}, with_prefix("Nothing"), SceneOptions{2.f, true, "", ""}}) {
    const LayeredScene before = load_layered_scene(file, options);
    const InstancedScene now = load_instanced_scene(file, options);
    EXPECT_TRUE(now.instances.empty());
    EXPECT_TRUE(same_bytes(now.static_part.triangles, before.triangles));
    EXPECT_EQ(now.static_part.layers, before.layers);
  }
  const WorldFile opened = open_world(file);
  EXPECT_TRUE(opened.world.instances().empty());
  save_snapshot(opened.world, opened.source, path("now.cwsw"));
  const LayeredScene before = load_layered_scene(file);
  save_snapshot(World(before.triangles, before.layers), describe_source(file, {}), path("before.cwsw"));
  EXPECT_EQ(read(path("now.cwsw")), read(path("before.cwsw")));
  // Other formats too.
  const std::string obj = write("tri.obj", "v 0 0 0\nv 0 0 1\nv 1 0 0\nf 1 2 3\n");
  EXPECT_TRUE(same_bytes(load_instanced_scene(obj).static_part.triangles, load_scene(obj)));
}

TEST_F(InstancedScenes, ScaleAndZUpApplyToInstancesAsToTheStaticPart) {
  const std::string file = write("level.gltf", gltf::moving_level().json());
  SceneOptions options = with_prefix("Lift_");
  options.scale = 2.f;
  options.z_up = true;
  const InstancedScene s = load_instanced_scene(file, options);
  const std::vector<Triangle> all = load_scene(file, options);
  const std::size_t from[3] = {kDoor, kLiftA, kLiftB}, to[3] = {kLiftA, kLiftB, kPillar};
  for (std::size_t k = 0; k < 3; ++k) {
    std::vector<Triangle> placed_tris;
    for (const Triangle& t : s.prototypes[s.instances[k].prototype]) placed_tris.push_back(placed(s.instances[k].pose, t));
    expect_near(placed_tris, slice(all, from[k], to[k]), 4e-6f);
  }
  EXPECT_EQ(s.instances[0].pose.position.y, 10.0) << "(0, 0, 5) turned Y up, (0, 5, 0), and doubled";
}

TEST_F(InstancedScenes, LayerTablesPutInstancesOnLayers) {
  const std::string file = write("level.gltf", gltf::moving_level().json());
  SceneOptions options = with_prefix("Lift_");
  options.layers = write("layers.txt", "Door 3\nLift_A 2\nfloor 4\n");
  const InstancedScene s = load_instanced_scene(file, options);
  ASSERT_EQ(s.instances.size(), 3u);
  EXPECT_EQ(s.instances[0].layers, 1u << 2);
  EXPECT_EQ(s.instances[1].layers, 1u << 1);
  EXPECT_EQ(s.instances[2].layers, kDefaultLayers);
  EXPECT_EQ(s.static_part.layers[0], 1u << 3);
  EXPECT_EQ(s.static_part.layers.back(), kDefaultLayers);
  EXPECT_EQ(open_world(file, options).world.instances()[0].layers, 1u << 2);
  // The handle's mesh on a layer of its own: the door's triangles on two masks.
  options.layers = write("mixed.txt", "handle 2\n");
  try {
    load_instanced_scene(file, options);
    FAIL() << "accepted a dynamic node on mixed layers";
  } catch (const SceneError& e) {
    EXPECT_EQ(std::string(e.what()), file + ": node 1 'Door': its triangles are on different layers (masks 1 and 2): "
                                            "an instance's triangles share one mask");
  }
}

// Each refusal names the file and the node.
class InstancedSceneRefusals : public ScratchDir {
 protected:
  void SetUp() override {
    ScratchDir::SetUp();
    file = path("bad.gltf");
  }
  std::string refusal(const gltf::Scene& scene, const std::string& prefix = "") {
    write("bad.gltf", scene.json());
    try {
      load_instanced_scene(file, with_prefix(prefix));
      return "accepted";
    } catch (const SceneError& e) {
      return e.what();
    }
  }
  std::string file;
};

TEST_F(InstancedSceneRefusals, ADynamicNodeWithoutAMesh) {
  gltf::Scene s = gltf::moving_level();
  s.nodes.push_back({"Empty", -1, {}, "", R"({"capsweep":{"dynamic":true}})"});
  s.nodes.push_back({"", -1, {}, "", R"({"capsweep":{"dynamic":true}})"});
  s.roots.push_back(7);
  EXPECT_EQ(refusal(s), file + ": node 7 'Empty': a dynamic node needs a mesh (neither it nor its children hold a triangle)");
  s.roots.back() = 8;
  EXPECT_EQ(refusal(s), file + ": node 8: a dynamic node needs a mesh (neither it nor its children hold a triangle)");
}

TEST_F(InstancedSceneRefusals, ATransformThatIsNotARotationAndATranslation) {
  const std::string tail = ": an instance is only rotated and moved";
  gltf::Scene s = gltf::moving_level();
  s.nodes[2].transform += ",\"scale\":[1,2,1]";
  EXPECT_EQ(refusal(s, "Lift_"), file + ": node 2 'Lift_A': its transform in the scene scales by (1, 2, 1)" + tail);
  s = gltf::moving_level();
  s.nodes[1].transform += ",\"scale\":[-1,1,1]";
  EXPECT_EQ(refusal(s), file + ": node 1 'Door': its transform in the scene mirrors (a negative scale)" + tail);
  s = gltf::moving_level();
  s.nodes[1].transform = "\"matrix\":[1,0,0,0, 0.6,0.8,0,0, 0,0,1,0, 0,0,5,1]";
  EXPECT_EQ(refusal(s), file + ": node 1 'Door': its transform in the scene shears (its axes are not perpendicular)" + tail);
  // Scaled by a static parent: the transform in the scene is what counts.
  s = gltf::moving_level();
  s.nodes.push_back({"Group", -1, {1}, "\"scale\":[2,2,2]", ""});
  s.roots = {0, 7, 2, 3, 5};
  EXPECT_EQ(refusal(s), file + ": node 1 'Door': its transform in the scene scales by (2, 2, 2)" + tail);
  // A rigid matrix is accepted.
  s = gltf::moving_level();
  s.nodes[1].transform = "\"matrix\":[0,0,-1,0, 0,1,0,0, 1,0,0,0, 0,0,5,1]";
  EXPECT_EQ(refusal(s), "accepted");
}

TEST_F(InstancedSceneRefusals, ADynamicNodeInsideAnother) {
  gltf::Scene s = gltf::moving_level();
  s.nodes[4].extras = R"({"capsweep":{"dynamic":true}})";
  EXPECT_EQ(refusal(s), file + ": node 4 'Handle' is dynamic inside dynamic node 1 'Door': an instance takes its "
                               "children with it (mark one of the two)");
}

TEST_F(InstancedSceneRefusals, AMarkThatIsNotTrueOrFalse) {
  gltf::Scene s = gltf::moving_level();
  s.nodes[1].extras = R"({"capsweep":{"dynamic":"yes"}})";
  EXPECT_EQ(refusal(s), file + ": node 1 'Door': extras.capsweep.dynamic must be true or false");
  s.nodes[1].extras = R"({"capsweep":{"dynamc":true}})";
  EXPECT_EQ(refusal(s), file + ": node 1 'Door': extras.capsweep holds 'dynamc' (capsweep knows only 'dynamic')");
}

// Assimp reads a name that is not UTF-8; the JSON reader that numbers the nodes does not. Read
// only when some node may be dynamic, it refuses the file then, and only then.
TEST_F(InstancedSceneRefusals, AFileWhoseJsonIsNotStrictUtf8WhenNodesMayBeDynamic) {
  gltf::Scene s = gltf::moving_level();
  s.nodes[0].name = "Fl\xff" "oor";
  s.nodes[1].extras = "";
  EXPECT_EQ(refusal(s), "accepted");
  EXPECT_EQ(refusal(s, "Lift_").rfind(file + ": cannot read the glTF JSON ([json.exception.parse_error.101]", 0), 0u)
      << refusal(s, "Lift_");
}

TEST_F(InstancedSceneRefusals, EveryTriangleDynamicOrAPrefixOnAnotherFormat) {
  gltf::Scene s = gltf::moving_level();
  s.roots = {1};
  EXPECT_EQ(refusal(s), file + ": every triangle is in a dynamic node; the static part needs one at least");
  const std::string obj = write("tri.obj", "v 0 0 0\nv 0 0 1\nv 1 0 0\nf 1 2 3\n");
  try {
    load_instanced_scene(obj, with_prefix("Door"));
    FAIL() << "accepted a prefix on an OBJ";
  } catch (const SceneError& e) {
    EXPECT_EQ(std::string(e.what()), obj + ": dynamic nodes (the prefix 'Door') are read from glTF 2.0 scenes only");
  }
}

}  // namespace
