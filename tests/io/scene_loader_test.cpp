// Scenes: the real meshes load with the documented triangle counts; other formats, gzip,
// unit conversion and broken files behave as promised.
#include <capsweep/files.h>

#include <zlib.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

#include "tools/builtin_scene.h"
#include "tools/arena.h"
#include "tools/obj_file.h"
#include "tests/support/test_files.h"

namespace {

using namespace capsweep;

using SceneLoader = ScratchDir;

const std::string kScenes = CAPSWEEP_SCENES_DIR;

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

// Refusals of files Assimp would load wrongly: one test each, the message asserted. (Assimp 5.2
// pads a short PLY face with zeros and replaces an OFF index out of range.)
class MeshRefusals : public ScratchDir {
 protected:
  // The message load_scene refuses the file with ("" when it loads).
  std::string refusal(const std::string& file) {
    try {
      load_scene(file);
      return "";
    } catch (const SceneError& e) {
      return e.what();
    }
  }
  static std::string ply_header(int vertices, int faces, const char* format = "ascii") {
    return "ply\nformat " + std::string(format) + " 1.0\nelement vertex " + std::to_string(vertices) +
           "\nproperty float x\nproperty float y\nproperty float z\nelement face " + std::to_string(faces) +
           "\nproperty list uchar int vertex_indices\nend_header\n";
  }
};

TEST_F(MeshRefusals, PlyFaceNamingAVertexThatDoesNotExist) {
  const std::string file = write("idx.ply", ply_header(3, 1) + "0 0 0\n1 0 0\n0 0 1\n3 0 1 99\n");
  EXPECT_EQ(refusal(file), file + ": face 0 names vertex 99 of 3");
}

TEST_F(MeshRefusals, PlyFaceClaimingMoreIndicesThanItCarries) {
  const std::string file = write("short.ply", ply_header(3, 1) + "0 0 0\n1 0 0\n0 0 1\n4 0 1 2\n");
  EXPECT_EQ(refusal(file), file + ": face 0 claims 4 indices but its line holds 3");
}

TEST_F(MeshRefusals, PlyFaceBorrowingTheNextFacesIndices) {
  // Face 0 is one index short; read as a stream of numbers it would take face 1's count.
  const std::string file = write("borrow.ply", ply_header(4, 2) + "0 0 0\n1 0 0\n0 0 1\n1 0 1\n4 0 1 2\n3 1 3 2\n");
  EXPECT_EQ(refusal(file), file + ": face 0 claims 4 indices but its line holds 3");
  const std::string extra = write("extra.ply", ply_header(3, 1) + "0 0 0\n1 0 0\n0 0 1\n3 0 1 2 7\n");
  EXPECT_EQ(refusal(extra), extra + ": face 0: its line holds more values than its properties");
}

// Assimp 5.2 aborts the whole process when it triangulates a face of no vertices.
TEST_F(MeshRefusals, AFaceOfNoVerticesIsRefusedBeforeAssimpSeesIt) {
  const std::string ply = write("empty_face.ply", ply_header(3, 2) + "0 0 0\n1 0 0\n0 0 1\n3 0 1 2\n0\n");
  EXPECT_EQ(refusal(ply), ply + ": face 1 has no vertices");
  const std::string off = write("empty_face.off", "OFF\n3 2 0\n0 0 0\n1 0 0\n0 0 1\n3 0 1 2\n0\n");
  EXPECT_EQ(refusal(off), off + ": face 1 has no vertices");
}

TEST_F(MeshRefusals, PlyWithFewerVerticesThanDeclared) {
  const std::string file = write("few.ply", ply_header(4, 1) + "0 0 0\n1 0 0\n0 0 1\n");
  EXPECT_EQ(refusal(file), file + ": the file ends inside vertex 3 (it declares 4)");
}

TEST_F(MeshRefusals, BinaryPlyFaceNamingAVertexThatDoesNotExistOrCutShort) {
  std::string body;
  auto put = [&](auto v) { body.append(reinterpret_cast<const char*>(&v), sizeof v); };
  for (float f : {0.f, 0.f, 0.f, 1.f, 0.f, 0.f, 0.f, 0.f, 1.f}) put(f);
  put(std::uint8_t(3));
  for (int i : {0, 1, 5}) put(i);
  const std::string file = write("idx_bin.ply", ply_header(3, 1, "binary_little_endian") + body);
  EXPECT_EQ(refusal(file), file + ": face 0 names vertex 5 of 3");
  const std::string cut = write("cut_bin.ply", ply_header(3, 1, "binary_little_endian") + body.substr(0, body.size() - 6));
  EXPECT_EQ(refusal(cut), cut + ": face 0 claims 3 indices but the file ends");
  // The same file with a good index loads its one triangle.
  body.replace(body.size() - 4, 4, std::string("\x02\0\0\0", 4));
  EXPECT_EQ(load_scene(write("good_bin.ply", ply_header(3, 1, "binary_little_endian") + body)).size(), 1u);
}

// Numbers no index or count can be (found by fuzz_scene_checks: 8.9e24 as a list length was cast
// to long long, which is undefined behaviour): each is refused by name, never cast.
TEST_F(MeshRefusals, PlyListLengthsAndIndicesThatAreNotWholeNumbersInRange) {
  const std::string vertices = "0 0 0\n1 0 0\n0 0 1\n";
  const std::pair<const char*, const char*> lengths[] = {
      {"8888888888888888888888880 0 1 2", "8888888888888888888888880"}, {"nan 0 1 2", "nan"}, {"inf 0 1 2", "inf"},
      {"-1 0 1 2", "-1"}, {"2.5 0 1 2", "2.5"}, {"1e300 0 1 2", "1e300"}};
  for (const auto& [face, word] : lengths) {
    const std::string file = write("length.ply", ply_header(3, 1) + vertices + face + "\n");
    EXPECT_EQ(refusal(file), file + ": face 0: bad list length '" + word + "'") << face;
  }
  const std::pair<const char*, const char*> indices[] = {
      {"3 0 1 1e30", "1e+30"}, {"3 0 1 nan", "nan"}, {"3 0 1 -inf", "-inf"}, {"3 0 1 1.5", "1.5"}, {"3 0 1 -0.5", "-0.5"}};
  for (const auto& [face, shown] : indices) {
    const std::string file = write("index.ply", ply_header(3, 1) + vertices + face + "\n");
    EXPECT_EQ(refusal(file), file + ": face 0 names vertex " + shown + " of 3") << face;
  }
  // Binary: a float list length of infinity, of 2.5 or of 1e30, and a double index of 1e30.
  std::string floats;
  auto put = [](std::string& out, auto v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); };
  for (float f : {0.f, 0.f, 0.f, 1.f, 0.f, 0.f, 0.f, 0.f, 1.f}) put(floats, f);
  const std::string float_lengths = "ply\nformat binary_little_endian 1.0\nelement vertex 3\nproperty float x\n"
                                    "property float y\nproperty float z\nelement face 1\n"
                                    "property list float int vertex_indices\nend_header\n";
  const std::pair<float, const char*> counts[] = {
      {INFINITY, ": face 0: bad list length inf"}, {2.5f, ": face 0: bad list length 2.5"},
      {1e30f, ": face 0 claims 1.0000000150474662e+30 indices but the file ends"}};
  for (const auto& [count, why] : counts) {
    std::string body = floats;
    put(body, count);
    for (int i : {0, 1, 2}) put(body, i);
    const std::string file = write("count_bin.ply", float_lengths + body);
    EXPECT_EQ(refusal(file), file + why) << count;
  }
  std::string body = floats;
  put(body, std::uint8_t(3));
  for (double index : {0.0, 1.0, 1e30}) put(body, index);
  std::string double_indices = float_lengths;
  double_indices.replace(double_indices.find("list float int"), 14, "list uchar double");
  const std::string file = write("index_bin.ply", double_indices + body);
  EXPECT_EQ(refusal(file), file + ": face 0 names vertex 1e+30 of 3");
}

// Records of no properties take no bytes, so a binary file's count of them bounds no work (found
// by fuzz_scene_checks: 5.6e18 of them kept the checker busy for good).
TEST_F(MeshRefusals, PlyElementOfRecordsWithNoProperties) {
  std::string body;
  for (float f : {0.f, 0.f, 0.f, 1.f, 0.f, 0.f, 0.f, 0.f, 1.f}) body.append(reinterpret_cast<const char*>(&f), 4);
  body += '\x03';
  for (int i : {0, 1, 2}) body.append(reinterpret_cast<const char*>(&i), 4);
  std::string header = ply_header(3, 1, "binary_little_endian");
  header.insert(header.find("end_header"), "element nothing 5555555555555555555\n");
  const std::string file = write("empty_records.ply", header + body);
  EXPECT_EQ(refusal(file), file + ": PLY element 'nothing' declares 5555555555555555555 records of no properties");
  // None of them is fine, in either format.
  header.replace(header.find("5555555555555555555"), 19, "0");
  EXPECT_EQ(load_scene(write("no_records.ply", header + body)).size(), 1u);
  std::string ascii = ply_header(3, 1);
  ascii.insert(ascii.find("end_header"), "element nothing 2\n");
  const std::string text = write("empty_records_ascii.ply", ascii + "0 0 0\n1 0 0\n0 0 1\n3 0 1 2\n\n\n");
  EXPECT_EQ(refusal(text), text + ": PLY element 'nothing' declares 2 records of no properties");
}

TEST_F(MeshRefusals, OffIndexOutOfRange) {
  const std::string file = write("idx.off", "OFF\n3 1 0\n0 0 0\n1 0 0\n0 0 1\n3 0 1 7\n");
  EXPECT_EQ(refusal(file), file + ": face 0 names vertex 7 of 3");
}

TEST_F(MeshRefusals, OffFaceShortOfIndices) {
  const std::string file = write("short.off", "OFF\n3 1 0\n0 0 0\n1 0 0\n0 0 1\n3 0 1\n");
  EXPECT_EQ(refusal(file), file + ": face 0 claims 3 indices but its line holds 2");
  // A good OFF (with a comment and a face colour) loads.
  EXPECT_EQ(load_scene(write("good.off", "OFF # a triangle\n3 1 0\n0 0 0\n1 0 0\n0 0 1\n3 0 1 2 255 0 0\n")).size(), 1u);
}

TEST_F(MeshRefusals, GzipCutShortAtAnyLengthIsRefusedNeverLoadedInPart) {
  std::ifstream in(kScenes + "/recast_dungeon.obj", std::ios::binary);
  const std::string obj((std::istreambuf_iterator<char>(in)), {});
  gzFile gz = gzopen(path("dungeon.obj.gz").c_str(), "wb");
  gzwrite(gz, obj.data(), unsigned(obj.size()));
  gzclose(gz);
  const std::string whole = read(path("dungeon.obj.gz"));
  EXPECT_EQ(load_scene(path("dungeon.obj.gz")).size(), 10133u);
  for (std::size_t cut : {std::size_t(10), whole.size() / 4, whole.size() / 2, whole.size() - 9, whole.size() - 1}) {
    const std::string file = write("cut.obj.gz", whole.substr(0, cut));
    EXPECT_EQ(refusal(file), file + ": truncated gzip stream (the file is cut short)") << cut;
  }
}

TEST_F(MeshRefusals, GzipOfTwoMembersLoadsBoth) {
  // Concatenated members are one stream (RFC 1952): both halves of the file count.
  const std::string halves[2] = {"v 0 0 0\nv 0 0 1\nv 1 0 0\n", "v 0 1 0\nf 1 2 3\nf 1 3 4\n"};
  std::string both;
  for (const std::string& h : halves) {
    gzFile gz = gzopen(path("part.gz").c_str(), "wb");
    gzwrite(gz, h.data(), unsigned(h.size()));
    gzclose(gz);
    both += read(path("part.gz"));
  }
  EXPECT_EQ(load_scene(write("two.obj.gz", both)).size(), 2u);
}

TEST_F(MeshRefusals, AFileNamedGzThatIsNotGzip) {
  const std::string file = write("plain.obj.gz", "v 0 0 0\nv 0 0 1\nv 1 0 0\nf 1 2 3\n");
  EXPECT_EQ(refusal(file), file + ": not gzip data (the file is named .gz)");
}

}  // namespace

namespace {

// A floor (group `floor`, material `stone`), a wall (group `wall`, material `stone`) and a pool
// (group `pool`, material `water`); the material wins over the group.
constexpr const char* kLayeredObj =
    "mtllib layered.mtl\n"
    "v 0 0 0\nv 4 0 0\nv 4 0 4\nv 0 0 4\nv 0 3 0\nv 4 3 0\nv 1 -1 1\nv 2 -1 1\nv 2 -1 2\n"
    "g floor\nusemtl stone\nf 1 3 2\nf 1 4 3\n"
    "g wall\nusemtl stone\nf 1 2 6\nf 1 6 5\n"
    "g pool\nusemtl water\nf 7 8 9\n";
constexpr const char* kLayeredMtl = "newmtl stone\nKd 0.5 0.5 0.5\nnewmtl water\nKd 0 0 1\n";

TEST_F(SceneLoader, ALayerTablePutsMaterialsAndGroupsOnLayers) {
  const std::string obj = write("layered.obj", kLayeredObj);
  write("layered.mtl", kLayeredMtl);
  // No table: every triangle on layer 1.
  const LayeredScene plain = load_layered_scene(obj);
  ASSERT_EQ(plain.triangles.size(), 5u);
  for (std::uint32_t m : plain.layers) EXPECT_EQ(m, kDefaultLayers);
  SceneOptions o;
  o.layers = write("layers.txt", "# what agents see\nwall 2   # walls\nwater 3,5\n");
  const LayeredScene s = load_layered_scene(obj, o);
  ASSERT_EQ(s.triangles.size(), 5u);
  EXPECT_EQ(std::memcmp(s.triangles.data(), plain.triangles.data(), 5 * sizeof(Triangle)), 0)
      << "the table changes layers, never triangles";
  EXPECT_EQ(s.layers, (std::vector<std::uint32_t>{1, 1, 2, 2, 4 | 16}));
  // A material's entry wins over its group's.
  o.layers = write("stone.txt", "stone 6\nfloor 7\n");
  EXPECT_EQ(load_layered_scene(obj, o).layers, (std::vector<std::uint32_t>{32, 32, 32, 32, 1}));
}

TEST_F(SceneLoader, ABadLayerTableIsRefusedNamingTheLine) {
  const std::string obj = write("layered.obj", kLayeredObj);
  write("layered.mtl", kLayeredMtl);
  auto refusal = [&](const std::string& table) {
    SceneOptions o;
    o.layers = write("t.txt", table);
    try {
      load_layered_scene(obj, o);
      return std::string("accepted");
    } catch (const SceneError& e) {
      return std::string(e.what());
    }
  };
  const std::string t = path("t.txt");
  EXPECT_EQ(refusal("wall 2\nwall\n"), t + ":2: expected `NAME LAYER[,LAYER...]`");
  EXPECT_EQ(refusal("wall 33\n"), t + ":1: layer '33' is not a number from 1 to 32");
  EXPECT_EQ(refusal("wall 2,x\n"), t + ":1: layer 'x' is not a number from 1 to 32");
  EXPECT_EQ(refusal("wall 2\nwall 3\n"), t + ":2: 'wall' is listed twice");
  EXPECT_EQ(refusal("\nwal 2\n"), t + ":2: 'wal' names no material, mesh or node of " + obj);
  SceneOptions o;
  o.layers = path("missing.txt");
  EXPECT_THROW(load_layered_scene(obj, o), SceneError);
  o.layers = write("ok.txt", "wall 2\n");
  EXPECT_THROW(load_scene_or_builtin("@arena", o), SceneError);
}

}  // namespace
