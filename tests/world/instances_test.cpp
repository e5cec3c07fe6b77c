// Instances (issue 37): prototypes placed by rigid poses answer every query kind, on every path,
// exactly as the world with their triangles baked in (placed() in double, rounded to float,
// after the static part's triangles, instance after instance) answers by brute force. Scenes
// rotate instances about every axis, overlap them with each other and with the static part,
// lay one flush on the floor, and stand 1 m, 20 km and 900 km from the origin. A new frame
// (World::posed) answers as its own baked world while the old frame keeps its answers; bad
// instances and poses are refused by name with nothing applied.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <memory>
#include <thread>

#include <capsweep/instances.h>
#include <capsweep/world.h>
#include "core/random.h"
#include "tests/support/baked_worlds.h"
#include "tests/support/same_answers.h"
#include "tests/support/scene_queries.h"
#include "tests/support/test_meshes.h"
#include "tools/crowd.h"
#include "tools/workloads.h"

namespace {

using namespace capsweep;

std::vector<std::vector<Triangle>> prototype_meshes(std::uint64_t seed) {
  std::vector<std::vector<Triangle>> p;
  p.push_back(testmesh::Mesh().box({-2, -0.2f, -2}, {2, 0, 2}).wall(-2, 1.9f, 2, 1.9f, 1.2f).triangles());  // platform
  p.push_back(testmesh::Mesh().box({-1, 0, -0.1f}, {1, 2.2f, 0.1f}).triangles());                        // door
  p.push_back(testmesh::Mesh().stairs_down(0, -1, 1, 5, 0.2f, 0.3f).ramp(-3, -1, 2, 25, 1, 1).triangles());
  // A soup of slivers, needles and ordinary triangles in a 3 m cube.
  Random rng(seed);
  std::vector<Triangle> soup;
  for (int i = 0; i < 150; ++i) {
    const Vec3 a = to_float(drawn_point(rng, -1.5, 1.5, 0, 3, -1.5, 1.5));
    const float s = float(rng.log_uniform(0.01, 1.5));
    auto within_s = [&] {  // float(uniform(-s, s)) three times, in drawn_point's order
      const float z = float(rng.uniform(-s, s)), y = float(rng.uniform(-s, s)), x = float(rng.uniform(-s, s));
      return Vec3(x, y, z);
    };
    Vec3 b = a + within_s();
    Vec3 c = i % 5 == 0 ? a + (b - a) * 0.5f + Vec3(0, 1e-4f, 0) : a + within_s();
    soup.push_back({{a, b, c}});
  }
  p.push_back(soup);
  return p;
}

// A static floor with boxes, the prototypes and their instances, and the same world baked.
struct Scene {
  std::vector<Triangle> static_part;
  std::vector<std::vector<Triangle>> prototypes;
  std::vector<Instance> instances;

  std::vector<World> prototype_worlds() const {
    std::vector<World> worlds;
    for (const auto& p : prototypes) worlds.emplace_back(p);
    return worlds;
  }
  World world() const { return World(World(static_part), prototype_worlds(), instances); }
  // The oracle's world: the instances' triangles placed and appended, on their layers.
  World baked() const {
    std::vector<Triangle> tris = static_part;
    std::vector<std::uint32_t> layers(tris.size(), kDefaultLayers);
    for (const Instance& in : instances) {
      for (const Triangle& t : prototypes[in.prototype]) {
        tris.push_back(placed(in.pose, t));
        layers.push_back(in.layers);
      }
    }
    return World(tris, layers);
  }
};

Scene make_scene(std::uint64_t seed, const Vec3d& offset, bool rotate = true) {
  Scene s;
  s.static_part = moved(testmesh::Mesh()
                            .floor(-20, -20, 20, 20, 2)
                            .box({4, 0, 4}, {6, 3, 6})
                            .wall(-10, 8, 10, 8, 3)
                            .triangles(),
                        offset);
  s.prototypes = prototype_meshes(seed);
  Random rng(seed * 7 + 1);
  for (std::uint32_t k = 0; k < 30; ++k) {
    Instance in;
    in.id = 1000 + 7 * ((k * 13) % 30);  // not in triangle order
    in.prototype = k % 4;
    in.layers = k % 3 == 0 ? 2u : (k % 3 == 1 ? 1u : 3u);
    in.pose.rotation = rotate ? random_rotation(rng) : about_y(k % 2 ? 0 : M_PI / 2);
    in.pose.position = offset + drawn_point(rng, -15, 15, 0, 3, -15, 15);
    if (k == 5) in.pose = s.instances[2].pose;  // two instances in the same place
    if (k == 7) in.pose = {offset + Vec3d(-7, 0, -7), Quat{}};  // the platform flush with the floor
    s.instances.push_back(in);
  }
  return s;
}

std::vector<SweepQuery> queries_for(const Scene&, const World& baked, bool workloads, std::uint64_t seed) {
  return baked_queries(baked, workloads, seed, 250, 1500);
}

class InstancesFar : public testing::TestWithParam<double> {};

TEST_P(InstancesFar, AnswerAsTheBakedWorldOnEveryPath) {
  const Vec3d offset(GetParam(), 0.5 * GetParam(), -GetParam());
  for (bool rotate : {true, false}) {
    SCOPED_TRACE(rotate ? "rotated about every axis" : "turned about y");
    const Scene s = make_scene(rotate ? 3 : 4, offset, rotate);
    const World world = s.world();
    const World baked = s.baked();
    ASSERT_EQ(world.triangle_count(), baked.triangle_count());
    for (std::uint32_t i = 0; i < baked.triangle_count(); i += 7) {
      ASSERT_TRUE(answers::bits(world.triangle(i), baked.triangle(i))) << "triangle " << i;
      ASSERT_EQ(world.layers_of(i), baked.layers_of(i)) << "triangle " << i;
    }
    // (A person cannot stand 2 cm clear 900 km out, where a float steps by 6 cm: cases only.)
    expect_answers_as_baked(world, baked, queries_for(s, baked, GetParam() < 1e5, 17));
  }
}

INSTANTIATE_TEST_SUITE_P(Offsets, InstancesFar, testing::Values(1.0, 2.0e4, 9.0e5));

TEST(Instances, NameTheirInstanceAndKeepTheStaticIndices) {
  const Scene s = make_scene(5, {});
  const World world = s.world();
  const std::uint32_t first = std::uint32_t(s.static_part.size());
  ASSERT_EQ(world.instances().size(), s.instances.size());
  EXPECT_EQ(world.instance_of(first - 1), nullptr);
  std::uint32_t at = first;
  for (const Instance& in : s.instances) {
    const Instance* got = world.instance_of(at);
    ASSERT_NE(got, nullptr);
    EXPECT_EQ(got->id, in.id);
    at += std::uint32_t(s.prototypes[in.prototype].size());
    EXPECT_EQ(world.instance_of(at - 1)->id, in.id);
  }
  EXPECT_EQ(at, world.triangle_count());
  EXPECT_THROW(world.triangle(at), std::out_of_range);
  const WorldStats st = world.stats();
  EXPECT_EQ(st.instances, 30u);
  EXPECT_EQ(st.prototypes, 4u);
  EXPECT_EQ(st.instance_triangles, at - first);
  // Each prototype's triangles are kept once, however often it is placed.
  std::size_t prototypes = 0;
  for (const auto& p : s.prototypes) prototypes += World(p).memory_bytes();
  EXPECT_LT(world.memory_bytes(), World(s.static_part).memory_bytes() + prototypes + 30 * 512);
  EXPECT_GT(s.baked().memory_bytes(), world.memory_bytes());
}

TEST(Instances, ANewFrameAnswersItsPosesAndTheOldFrameKeepsItsOwn) {
  Scene s = make_scene(6, {});
  const World first = s.world();
  const World first_baked = s.baked();
  const std::vector<SweepQuery> q = queries_for(s, first_baked, true, 23);
  Random rng(99);
  // Frame after frame (the top tree refit, then built again once refitting has spoilt it), each
  // moving every other instance anywhere in the scene.
  World second = first;
  for (int round = 0; round < 4; ++round) {
    std::vector<InstancePose> poses;
    for (std::size_t k = std::size_t(round % 2); k < s.instances.size(); k += 2) {
      const Pose p{drawn_point(rng, -15, 15, 0, 3, -15, 15), random_rotation(rng)};
      poses.push_back({s.instances[k].id, p});
    }
    std::reverse(poses.begin(), poses.end());  // rows in any order
    second = second.posed(poses);
    for (const InstancePose& p : poses) {
      for (Instance& in : s.instances) {
        if (in.id == p.id) in.pose = p.pose;
      }
    }
  }
  const World second_baked = s.baked();
  expect_answers_as_baked(second, second_baked, q);
  // The first frame is as it was.
  std::vector<SweepHit> a(q.size()), b(q.size());
  first.sweep(q, a);
  first_baked.sweep(q, b, on_path(SweepPath::brute));
  for (std::size_t i = 0; i < q.size(); ++i) ASSERT_TRUE(identical(a[i], b[i])) << "query " << i;
  // Unposed instances keep their poses; posing nothing gives the same answers.
  const World same_frame = second.posed({});
  std::vector<SweepHit> c(q.size()), d(q.size());
  second.sweep(q, c);
  same_frame.sweep(q, d);
  for (std::size_t i = 0; i < q.size(); ++i) ASSERT_TRUE(identical(c[i], d[i])) << "query " << i;
  for (std::size_t k = 0; k < s.instances.size(); ++k) {
    EXPECT_TRUE(answers::bits(second.instances()[k].pose, s.instances[k].pose)) << "instance " << k;
    EXPECT_TRUE(answers::bits(same_frame.instances()[k].pose, s.instances[k].pose)) << "instance " << k;
  }
}

TEST(Instances, BatchesOnFramesPublishedMeanwhileAnswerAgainstOneFrame) {
  // One thread publishes frames while two others answer batches on whichever frame was latest:
  // every batch equals the answers of exactly the frame it took (run under ThreadSanitizer by
  // tests/sanitize.sh).
  Scene s = make_scene(8, {});
  const World base = s.world();
  const std::vector<SweepQuery> q = queries_for(s, s.baked(), false, 31);
  constexpr int kFrames = 6;
  std::vector<World> frames{base};
  std::vector<std::vector<SweepHit>> expected;
  Random rng(5);
  for (int f = 1; f < kFrames; ++f) {
    std::vector<InstancePose> poses;
    for (const Instance& in : s.instances) {
      poses.push_back({in.id, {drawn_point(rng, -15, 15, 0, 3, -15, 15), random_rotation(rng)}});
    }
    frames.push_back(frames.back().posed(poses));
  }
  for (const World& f : frames) {
    expected.emplace_back(q.size());
    f.sweep(q, expected.back(), on_path(SweepPath::scalar, 1));
  }
  LatestFrame latest(base);
  std::atomic<int> published{0};
  std::atomic<bool> done{false};
  std::atomic<int> batches{0}, wrong{0};
  auto answer = [&] {
    while (!done.load()) {
      const std::shared_ptr<const World> frame = latest.load();
      int k = 0;
      while (k < kFrames && !answers::bits(frame->instances()[0].pose, frames[std::size_t(k)].instances()[0].pose)) ++k;
      if (k == kFrames) {
        ++wrong;  // a frame that is none of those published
        continue;
      }
      std::vector<SweepHit> got(q.size());
      frame->sweep(q, got, on_path(SweepPath::simd, 1));
      for (std::size_t i = 0; i < q.size(); ++i) wrong += !identical(got[i], expected[std::size_t(k)][i]);
      ++batches;
    }
  };
  std::thread a(answer), b(answer);
  // Frames published from the base anew while the batches run, until at least 15 are out and
  // the two threads have answered 6 batches between them (however slow a checking build is).
  for (int f = 1; published.load() < 15 || batches.load() < 6; f = f % (kFrames - 1) + 1) {
    std::vector<InstancePose> poses;
    for (const Instance& in : frames[std::size_t(f)].instances()) poses.push_back({in.id, in.pose});
    latest.store(base.posed(poses));
    ++published;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  done = true;
  a.join();
  b.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST(Instances, AgentsMoveOnInstancesAsOnTheBakedWorld) {
  // Platforms and stairs placed by translations the floats hold exactly, clear of the floor's
  // vertices: the baked world's adjacency is the prototypes', so a crowd moves byte for byte alike.
  Scene s;
  s.static_part = testmesh::Mesh().floor(-20, -20, 20, 20, 2).box({4, 0, 4}, {6, 3, 6}).triangles();
  s.prototypes = prototype_meshes(1);
  s.prototypes.resize(3);
  for (std::uint32_t k = 0; k < 12; ++k) {
    Instance in;
    in.id = k;
    in.prototype = k % 3;
    in.pose.position = Vec3d(-15.25 + 6.5 * (k % 4), k % 3 == 0 ? 0.5 : 0.0, -13.75 + 8.5 * (k / 4));
    s.instances.push_back(in);
  }
  const World world = s.world();
  const World baked = s.baked();
  CrowdSettings settings;
  settings.agents = 300;
  settings.seed = 4;
  settings.batch.threads = 2;
  Crowd on_instances(world, settings), on_baked(baked, settings);
  std::size_t on_an_instance = 0;
  for (int tick = 0; tick < 40; ++tick) {
    on_instances.tick();
    on_baked.tick();
    for (std::size_t i = 0; i < settings.agents; ++i) {
      const MoveResult& r = on_instances.results()[i];
      ASSERT_TRUE(answers::same(r, on_baked.results()[i])) << "tick " << tick << " agent " << i;
      on_an_instance += r.ground_triangle != kNoTriangle && world.instance_of(r.ground_triangle) != nullptr;
    }
    const CrowdViolations v = on_instances.check();
    ASSERT_EQ(v.penetrating, 0u) << "tick " << tick;
  }
  EXPECT_GT(on_an_instance, 200u) << "agent-ticks standing on a platform or the stairs";
  EXPECT_GT(on_instances.totals().stepped + on_instances.totals().blocked, 0u);
}

TEST(Instances, BadInstancesAreRefusedByName) {
  const Scene s = make_scene(9, {});
  const World floor(s.static_part);
  auto refused = [&](std::vector<World> prototypes, std::vector<Instance> instances, const std::string& says) {
    try {
      World w(floor, std::move(prototypes), std::move(instances));
      ADD_FAILURE() << "accepted; expected: " << says;
    } catch (const WorldError& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  const std::vector<World> prototypes = s.prototype_worlds();
  auto with = [&](auto change) {
    std::vector<Instance> in = s.instances;
    change(in);
    return in;
  };
  refused(prototypes, with([](auto& in) { in[4].id = in[9].id; }), "instance " + std::to_string(s.instances[9].id) + ": the id is used twice");
  refused(prototypes, with([](auto& in) { in[3].prototype = 4; }), "instance " + std::to_string(s.instances[3].id) + ": no prototype 4");
  refused(prototypes, with([](auto& in) { in[2].layers = 0; }), "its layer mask is 0");
  refused(prototypes, with([](auto& in) { in[1].pose.rotation.w = NAN; }), "its rotation is not finite");
  refused(prototypes, with([](auto& in) { in[1].pose.rotation = {0, 0, 0, 1.01}; }), "not a unit quaternion");
  refused(prototypes, with([](auto& in) { in[1].pose.position.y = INFINITY; }), "its position is not finite");
  refused(prototypes, with([](auto& in) { in[1].pose.position.x = 999999.5; }), "beyond 1e6 m");
  std::vector<World> with_terrain = prototypes;
  Heightfield h;
  h.columns = h.rows = 2;
  h.heights = {0, 0, 0, 0};
  with_terrain.push_back(World(h));
  refused(with_terrain, s.instances, "prototype 4: a prototype is a mesh alone (it has a heightfield)");
  const World posed_world(floor, prototypes, s.instances);
  try {
    World again(posed_world, prototypes, s.instances);
    ADD_FAILURE() << "a static part with instances was accepted";
  } catch (const WorldError& e) {
    EXPECT_NE(std::string(e.what()).find("the static part has instances"), std::string::npos) << e.what();
  }
}

TEST(Instances, BadPosesAreRefusedByRowWithNothingApplied) {
  const Scene s = make_scene(10, {});
  const World world = s.world();
  const std::vector<SweepQuery> q = queries_for(s, s.baked(), false, 41);
  std::vector<SweepHit> before(q.size());
  world.sweep(q, before);
  const Pose moved_pose{Vec3d(1, 2, 3), about_y(0.5)};
  auto refused = [&](std::vector<InstancePose> poses, const std::string& says) {
    try {
      (void)world.posed(poses);
      ADD_FAILURE() << "accepted; expected: " << says;
    } catch (const WorldError& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  const std::uint32_t id = s.instances[3].id;
  const std::string row1 = "pose 1 (instance ";
  refused({{id, moved_pose}, {424242, moved_pose}}, row1 + "424242): the world has no instance of that id");
  refused({{id, moved_pose}, {id, moved_pose}}, row1 + std::to_string(id) + "): posed twice, first in pose 0");
  refused({{id, moved_pose}, {s.instances[4].id, {Vec3d(0, NAN, 0), Quat{}}}}, "its position is not finite");
  refused({{id, moved_pose}, {s.instances[4].id, {Vec3d(), Quat{1, 1, 0, 0}}}}, "not a unit quaternion");
  refused({{id, moved_pose}, {s.instances[4].id, {Vec3d(), Quat{NAN, 0, 0, 1}}}}, "its rotation is not finite");
  refused({{id, {Vec3d(999999.9, 0, 0), Quat{}}}}, "beyond 1e6 m");
  EXPECT_THROW((void)World(s.static_part).posed(std::vector<InstancePose>{{0, moved_pose}}), WorldError);
  std::vector<SweepHit> after(q.size());
  world.sweep(q, after);
  for (std::size_t i = 0; i < q.size(); ++i) ASSERT_TRUE(identical(before[i], after[i])) << "query " << i;
  for (std::size_t k = 0; k < s.instances.size(); ++k) {
    EXPECT_TRUE(answers::bits(world.instances()[k].pose, s.instances[k].pose)) << "instance " << k;
  }
}

TEST(Instances, PlacedIsTheRotationThenThePositionRoundedOnce) {
  const Pose identity{};
  const Vec3 v(1.25f, -3.5f, 1e5f);
  EXPECT_TRUE(answers::bits(placed(identity, v), v));
  const Pose turn{Vec3d(1e5, 0, 0.25), about_y(M_PI / 2)};  // x -> -z, z -> x
  const Vec3 p = placed(turn, Vec3(1, 2, 3));
  EXPECT_NEAR(p.x, 1e5 + 3, 1e-2);
  EXPECT_NEAR(p.y, 2, 1e-6);
  EXPECT_NEAR(p.z, 0.25 - 1, 1e-6);
  EXPECT_EQ(check_pose(turn), "");
  EXPECT_NE(check_pose({Vec3d(), Quat{0, 0, 0, 0}}), "");
  EXPECT_EQ(check_pose({Vec3d(), Quat{0, 0, 0, 1.000001}}), "");  // within 1e-5 of unit: normalised
}

}  // namespace
