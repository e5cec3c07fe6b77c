// Worlds with instances and tiles through the C API: the same answers as the C++ API, frames, the
// instance or tile of a hit, and refusals naming the row, the instance or the tile.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include <capsweep/capsweep_c.h>
#include <capsweep/tiles.h>
#include <capsweep/world.h>

#include "capi/records.h"
#include "tests/capi/calls.h"
#include "tests/support/batches.h"
#include "tools/arena.h"

namespace {

using namespace capsweep;
using namespace capi_test;

std::vector<Triangle> testmesh_box() {
  // A 1 m crate: twelve triangles.
  std::vector<Triangle> t;
  const Vec3 lo(-0.5f, 0.f, -0.5f), hi(0.5f, 1.f, 0.5f);
  auto quad = [&](Vec3 a, Vec3 b, Vec3 c, Vec3 d) {
    t.push_back({{a, b, c}});
    t.push_back({{a, c, d}});
  };
  quad({lo.x, lo.y, lo.z}, {hi.x, lo.y, lo.z}, {hi.x, lo.y, hi.z}, {lo.x, lo.y, hi.z});
  quad({lo.x, hi.y, lo.z}, {lo.x, hi.y, hi.z}, {hi.x, hi.y, hi.z}, {hi.x, hi.y, lo.z});
  quad({lo.x, lo.y, lo.z}, {lo.x, hi.y, lo.z}, {hi.x, hi.y, lo.z}, {hi.x, lo.y, lo.z});
  quad({lo.x, lo.y, hi.z}, {hi.x, lo.y, hi.z}, {hi.x, hi.y, hi.z}, {lo.x, hi.y, hi.z});
  quad({lo.x, lo.y, lo.z}, {lo.x, lo.y, hi.z}, {lo.x, hi.y, hi.z}, {lo.x, hi.y, lo.z});
  quad({hi.x, lo.y, lo.z}, {hi.x, hi.y, lo.z}, {hi.x, hi.y, hi.z}, {hi.x, lo.y, hi.z});
  return t;
}

// A world from memory: the triangles as vertex and index arrays.
cs_world* world_of(const std::vector<Triangle>& tris) {
  std::vector<float> v;
  std::vector<std::uint32_t> idx;
  for (const Triangle& t : tris) {
    for (const Vec3& p : t.v) {
      idx.push_back(std::uint32_t(v.size() / 3));
      v.insert(v.end(), {p.x, p.y, p.z});
    }
  }
  const cs_world_desc desc{v.data(), v.size() / 3, idx.data(), tris.size(), nullptr, nullptr};
  cs_world* w = nullptr;
  EXPECT_EQ(cs_world_create(&desc, &w), CS_OK) << cs_last_error();
  return w;
}

TEST(CApi, InstancedWorldsAndTheirFramesAnswerAsTheCppApi) {
  const std::vector<Triangle> floor = make_arena();
  const std::vector<Triangle> crate = testmesh_box();
  WorldHandle stat, proto, instanced, next;
  stat.w = world_of(floor);
  proto.w = world_of(crate);
  std::vector<cs_instance> in;
  std::vector<Instance> cpp;
  for (std::uint32_t k = 0; k < 20; ++k) {
    const double a = 0.3 * k;
    cs_instance c{};
    c.id = 500 - k;
    c.prototype = 0;
    c.pose = {{-8.0 + k, 0.0, 1.5 * (k % 5)}, {0, std::sin(a / 2), 0, std::cos(a / 2)}};
    c.layers = 1;
    in.push_back(c);
    cpp.push_back({c.id, 0, Pose{Vec3d(c.pose.position[0], c.pose.position[1], c.pose.position[2]),
                               Quat{c.pose.rotation[0], c.pose.rotation[1], c.pose.rotation[2], c.pose.rotation[3]}}, 1});
  }
  const cs_world* protos[] = {proto.w};
  ASSERT_EQ(cs_world_create_instanced(stat.w, protos, 1, in.data(), in.size(), &instanced.w), CS_OK) << cs_last_error();
  cs_world_free(proto.w);  // the instanced world keeps its prototype
  proto.w = nullptr;
  const World world(World(floor), {World(crate)}, cpp);
  ASSERT_EQ(cs_world_triangle_count(instanced.w), world.triangle_count());
  const batches::Batches b = batches::make(world, 2000, 9);
  std::vector<cs_sweep_query> queries;
  for (const SweepQuery& q : b.sweeps) queries.push_back(records::record(q));
  auto same_as = [&](const cs_world* w, const World& expected_world) {
    std::vector<cs_sweep_hit> hits(queries.size());
    const cs_sweep_args args = sweep_args(queries.data(), queries.size(), hits.data());
    ASSERT_EQ(cs_sweep(w, &args), CS_OK) << cs_last_error();
    std::vector<SweepHit> expected(queries.size());
    expected_world.sweep(b.sweeps, expected);
    std::size_t on_instances = 0;
    for (std::size_t i = 0; i < queries.size(); ++i) {
      ASSERT_TRUE(identical(records::hit(hits[i]), expected[i])) << "query " << i;
      std::uint32_t id = 0;
      const int is = cs_world_instance_of(w, hits[i].triangle, &id);
      const Instance* cpp_in = expected[i].hit ? expected_world.instance_of(expected[i].triangle) : nullptr;
      ASSERT_EQ(is, cpp_in != nullptr) << "query " << i;
      if (cpp_in) {
        EXPECT_EQ(id, cpp_in->id);
      }
      on_instances += is;
    }
    EXPECT_GT(on_instances, 20u);
  };
  same_as(instanced.w, world);
  // A frame: every other instance raised and turned; the first world is unchanged.
  std::vector<cs_instance_pose> poses;
  std::vector<InstancePose> cpp_poses;
  for (std::size_t k = 0; k < in.size(); k += 2) {
    cs_instance_pose p{};
    p.id = in[k].id;
    p.pose = {{in[k].pose.position[0], 0.4, in[k].pose.position[2] + 0.5}, {0, 0, std::sin(0.2), std::cos(0.2)}};
    poses.push_back(p);
    cpp_poses.push_back({p.id, Pose{Vec3d(p.pose.position[0], 0.4, p.pose.position[2]), Quat{0, 0, std::sin(0.2), std::cos(0.2)}}});
  }
  ASSERT_EQ(cs_world_posed(instanced.w, poses.data(), poses.size(), &next.w), CS_OK) << cs_last_error();
  same_as(next.w, world.posed(cpp_poses));
  same_as(instanced.w, world);
  // Refusals name the row or the instance; *out stays NULL.
  cs_world* none = reinterpret_cast<cs_world*>(&poses);
  poses[1].id = 12345;
  EXPECT_EQ(cs_world_posed(instanced.w, poses.data(), poses.size(), &none), CS_ERROR_ARGUMENT);
  EXPECT_EQ(none, nullptr);
  EXPECT_NE(std::string(cs_last_error()).find("pose 1 (instance 12345): the world has no instance of that id"), std::string::npos)
      << cs_last_error();
  poses[1].id = in[2].id;
  poses[1].pose.rotation[3] = NAN;
  EXPECT_EQ(cs_world_posed(instanced.w, poses.data(), poses.size(), &none), CS_ERROR_ARGUMENT);
  EXPECT_NE(std::string(cs_last_error()).find("its rotation is not finite"), std::string::npos) << cs_last_error();
  in[3].id = in[4].id;
  const cs_world* again[] = {stat.w};
  EXPECT_EQ(cs_world_create_instanced(stat.w, again, 1, in.data(), in.size(), &none), CS_ERROR_MESH);
  EXPECT_NE(std::string(cs_last_error()).find("the id is used twice"), std::string::npos) << cs_last_error();
  EXPECT_EQ(cs_world_create_instanced(stat.w, nullptr, 1, in.data(), in.size(), &none), CS_ERROR_ARGUMENT);
  EXPECT_EQ(cs_world_instance_of(nullptr, 0, nullptr), 0);
}

TEST(CApi, StreamedTilesAnswerAsTheCppApi) {
  const std::vector<Triangle> floor = make_arena();
  const std::vector<Triangle> crate = testmesh_box();
  WorldHandle stat, mesh, streamed, emptied;
  stat.w = world_of(floor);
  mesh.w = world_of(crate);
  const World cpp_static(floor), cpp_mesh(crate);
  std::vector<cs_tile> tiles;
  std::vector<Tile> cpp;
  for (std::uint32_t k = 0; k < 12; ++k) {
    const cs_tile t{90 - k, k % 2 ? 1u : 2u, {-9.0 + 1.5 * k, 0.0, 2.0 * (k % 4) - 3.0}, mesh.w};
    tiles.push_back(t);
    cpp.push_back(Tile{t.id, Vec3d(t.origin[0], t.origin[1], t.origin[2]), t.layers, cpp_mesh});
  }
  ASSERT_EQ(cs_world_streamed(stat.w, tiles.data(), tiles.size(), nullptr, 0, &streamed.w), CS_OK) << cs_last_error();
  cs_world_free(mesh.w);  // the frame keeps the tiles' meshes
  mesh.w = nullptr;
  const World world = cpp_static.streamed(cpp);
  ASSERT_EQ(cs_world_triangle_count(streamed.w), world.triangle_count());
  const batches::Batches b = batches::make(world, 2000, 10);
  std::vector<cs_sweep_query> queries;
  for (const SweepQuery& q : b.sweeps) queries.push_back(records::record(q));
  std::vector<cs_sweep_hit> hits(queries.size());
  const cs_sweep_args args = sweep_args(queries.data(), queries.size(), hits.data());
  ASSERT_EQ(cs_sweep(streamed.w, &args), CS_OK) << cs_last_error();
  std::vector<SweepHit> expected(queries.size());
  world.sweep(b.sweeps, expected);
  std::size_t on_tiles = 0;
  for (std::size_t i = 0; i < queries.size(); ++i) {
    ASSERT_TRUE(identical(records::hit(hits[i]), expected[i])) << "query " << i;
    std::uint32_t id = 0;
    const int is = cs_world_tile_of(streamed.w, hits[i].triangle, &id);
    const Tile* cpp_tile = expected[i].hit ? world.tile_of(expected[i].triangle) : nullptr;
    ASSERT_EQ(is, cpp_tile != nullptr) << "query " << i;
    if (cpp_tile) {
      EXPECT_EQ(id, cpp_tile->id);
    }
    on_tiles += is;
  }
  EXPECT_GT(on_tiles, 20u);
  // Every tile removed: the static world's triangles again.
  std::vector<std::uint32_t> ids;
  for (const cs_tile& t : tiles) ids.push_back(t.id);
  ASSERT_EQ(cs_world_streamed(streamed.w, nullptr, 0, ids.data(), ids.size(), &emptied.w), CS_OK) << cs_last_error();
  EXPECT_EQ(cs_world_triangle_count(emptied.w), floor.size());
  // Refusals name the tile and row; *out stays NULL.
  cs_world* none = reinterpret_cast<cs_world*>(&tiles);
  const std::uint32_t missing[] = {7};
  EXPECT_EQ(cs_world_streamed(emptied.w, nullptr, 0, missing, 1, &none), CS_ERROR_ARGUMENT);
  EXPECT_EQ(none, nullptr);
  EXPECT_NE(std::string(cs_last_error()).find("removed tile 7 (row 0): the world has no tile of that id"), std::string::npos)
      << cs_last_error();
  tiles[0].mesh = nullptr;
  EXPECT_EQ(cs_world_streamed(stat.w, tiles.data(), 1, nullptr, 0, &none), CS_ERROR_ARGUMENT);
  EXPECT_NE(std::string(cs_last_error()).find("added tile 90 (row 0): mesh is NULL"), std::string::npos) << cs_last_error();
  tiles[0].mesh = streamed.w;  // a world with tiles is no tile's mesh
  EXPECT_EQ(cs_world_streamed(stat.w, tiles.data(), 1, nullptr, 0, &none), CS_ERROR_ARGUMENT);
  EXPECT_NE(std::string(cs_last_error()).find("its mesh is a world with instances or tiles"), std::string::npos) << cs_last_error();
  EXPECT_EQ(cs_world_streamed(nullptr, nullptr, 0, nullptr, 0, &none), CS_ERROR_ARGUMENT);
  EXPECT_EQ(cs_world_tile_of(nullptr, 0, nullptr), 0);
  EXPECT_EQ(cs_world_tile_of(stat.w, 0, nullptr), 0);
}

}  // namespace
