// Scenes: the real meshes load with the documented triangle counts; other formats, gzip,
// unit conversion and broken files behave as promised.
#include <capsweep/scene.h>

#include <zlib.h>

#include <sstream>

#include "tools/builtin_scene.h"
#include "tools/arena.h"
#include "tests/cli/test_files.h"

namespace {

using namespace capsweep;

using SceneLoader = ScratchDir;

const std::string kScenes = CAPSWEEP_SHARED_SCENES;

TEST(SharedScenes, LoadWithTheirDocumentedTriangleCounts) {
  const std::pair<const char*, std::size_t> scenes[] = {{"recast_dungeon.obj", 10133},
                                                        {"recast_nav_test.obj", 1612},
                                                        {"recast_undulating.obj", 5202},
                                                        {"oa_am_thornish.obj", 61490},
                                                        {"0ad_corinthian_isthmus_4p.obj.gz", 946688}};
  for (const auto& [file, count] : scenes) {
    const auto tris = load_scene(kScenes + "/" + file);
    EXPECT_EQ(tris.size(), count) << file;
  }
}

TEST(SharedScenes, TriangleOrderFollowsTheFile) {
  // The first face of the dungeon, read by hand from the file.
  std::ifstream in(kScenes + "/recast_dungeon.obj");
  std::vector<Vec3> v;
  std::string tag;
  int face[3] = {0, 0, 0};
  for (std::string line; std::getline(in, line);) {
    std::istringstream s(line);
    s >> tag;
    if (tag == "v") {
      Vec3 p;
      s >> p.x >> p.y >> p.z;
      v.push_back(p);
    } else if (tag == "f") {
      s >> face[0] >> face[1] >> face[2];
      break;
    }
  }
  const auto tris = load_scene(kScenes + "/recast_dungeon.obj");
  for (int k = 0; k < 3; ++k) EXPECT_EQ(tris[0].v[k], v[face[k] - 1]);
}

TEST_F(SceneLoader, ArenaRoundTripsThroughObj) {
  const auto arena = make_arena();
  write_obj(path("arena.obj"), arena);
  const auto back = load_scene(path("arena.obj"));
  ASSERT_EQ(back.size(), arena.size());
  // Assimp's number parser is not correctly rounded: allow an ulp or so.
  for (std::size_t i = 0; i < arena.size(); ++i) {
    for (int k = 0; k < 3; ++k) EXPECT_LE(max_abs_component(back[i].v[k] - arena[i].v[k]), 1e-6f) << i;
  }
  EXPECT_EQ(load_scene_or_builtin("@arena").size(), arena.size());
}

TEST_F(SceneLoader, ReadsGzipAndOtherFormats) {
  const std::string obj = "v 0 0 0\nv 0 0 1\nv 1 0 0\nv 0 1 0\nf 1 2 3 4\n";  // a quad: two triangles
  gzFile gz = gzopen(path("quad.obj.gz").c_str(), "wb");
  gzwrite(gz, obj.data(), unsigned(obj.size()));
  gzclose(gz);
  EXPECT_EQ(load_scene(path("quad.obj.gz")).size(), 2u);
  write("tri.stl",
        "solid t\nfacet normal 0 1 0\nouter loop\nvertex 0 0 0\nvertex 0 0 1\nvertex 1 0 0\nendloop\nendfacet\nendsolid t\n");
  const auto stl = load_scene(path("tri.stl"));
  ASSERT_EQ(stl.size(), 1u);
  EXPECT_EQ(stl[0].v[2], (Vec3{1, 0, 0}));
  write("tri.ply", "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
                   "element face 1\nproperty list uchar int vertex_indices\nend_header\n0 0 0\n0 0 1\n1 0 0\n3 0 1 2\n");
  EXPECT_EQ(load_scene(path("tri.ply")).size(), 1u);
}

TEST_F(SceneLoader, ReadsGltfApplyingNodeTransforms) {
  // One triangle (0,0,0) (0,0,1) (1,0,0) in an embedded buffer, under a node moved up 2 m.
  write("tri.gltf", R"({"asset":{"version":"2.0"},"scene":0,"scenes":[{"nodes":[0]}],)"
                    R"("nodes":[{"mesh":0,"translation":[0,2,0]}],"meshes":[{"primitives":[{"attributes":{"POSITION":0}}]}],)"
                    R"("buffers":[{"byteLength":36,"uri":"data:application/octet-stream;base64,)"
                    R"(AAAAAAAAAAAAAAAAAAAAAAAAAAAAAIA/AACAPwAAAAAAAAAA"}],)"
                    R"("bufferViews":[{"buffer":0,"byteOffset":0,"byteLength":36}],)"
                    R"("accessors":[{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","min":[0,0,0],"max":[1,0,1]}]})");
  const auto tris = load_scene(path("tri.gltf"));
  ASSERT_EQ(tris.size(), 1u);
  EXPECT_EQ(tris[0].v[0], (Vec3{0, 2, 0}));
  EXPECT_EQ(tris[0].v[2], (Vec3{1, 2, 0}));
}

TEST_F(SceneLoader, ScaleAndZUpConvert) {
  write("tri.obj", "v 0 0 0\nv 1 0 0\nv 0 1 2\nf 1 2 3\n");
  SceneOptions o;
  o.scale = 0.5f;
  o.z_up = true;
  const auto tris = load_scene(path("tri.obj"), o);
  ASSERT_EQ(tris.size(), 1u);
  EXPECT_EQ(tris[0].v[2], (Vec3{0, 1, -0.5f}));  // (x, y, z) -> (x, z, -y), then x 0.5
  o.scale = -1;
  EXPECT_THROW(load_scene(path("tri.obj"), o), SceneError);
}

TEST_F(SceneLoader, BrokenOrEmptyFilesAreClearErrorsNamingTheFile) {
  auto expect_error = [&](const std::string& file) {
    try {
      load_scene(file);
      FAIL() << "accepted " << file;
    } catch (const SceneError& e) {
      EXPECT_NE(std::string(e.what()).find(file), std::string::npos) << e.what();
    }
  };
  expect_error(path("missing.obj"));
  expect_error(write("empty.obj", ""));
  expect_error(write("points.obj", "v 0 0 0\nv 1 0 0\n"));
  expect_error(write("garbage.glb", std::string("\x01\x02\x03garbage\xff", 11)));
  expect_error(write("broken.obj.gz", "this is not gzip data at all"));
  std::filesystem::create_directory(path("dir.obj"));
  expect_error(path("dir.obj"));
}

}  // namespace
