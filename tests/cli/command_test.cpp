// The capsweep command end to end: every scene's answers pass the oracle, thread count
// changes no byte of the result file, and bad input gets its promised message and exit code.
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <capsweep/files.h>
#include <capsweep/version.h>

#include "simd/block_sweep.h"
#include "tools/builtin_scene.h"
#include "tests/support/test_files.h"
#include "tests/support/scene_oracle.h"
#include "tests/support/scene_queries.h"
#include "tests/support/test_meshes.h"
#include "io/query_format.h"

namespace {

using namespace capsweep;

const std::string kScenes = CAPSWEEP_SCENES_DIR;

using Command = ScratchDir;

TEST_F(Command, SweepOnEverySharedObjSceneIsAcceptedByTheOracle) {
  for (const char* scene : {"recast_dungeon.obj", "recast_nav_test.obj", "recast_undulating.obj", "oa_am_thornish.obj"}) {
    SCOPED_TRACE(scene);
    const std::string scene_path = kScenes + "/" + scene;
    const std::vector<Triangle> tris = load_scene(scene_path);
    std::vector<SweepQuery> queries;
    for (const auto& [workload, count] :
         {std::pair{"tick", 300}, std::pair{"validate", 300}, std::pair{"long", 150}, std::pair{"ray", 150}}) {
      const CommandRun gen = capsweep_cmd("queries --scene " + scene_path + " --workload " + workload + " --count " +
                                   std::to_string(count) + " --seed 5 --out " + path("w.cwsq"));
      ASSERT_EQ(gen.code, 0) << gen.output;
      const auto part = read_queries(path("w.cwsq"));
      queries.insert(queries.end(), part.begin(), part.end());
    }
    const auto adversarial = cases::adversarial_scene_queries(tris, 300, 17);
    queries.insert(queries.end(), adversarial.begin(), adversarial.end());
    const auto rays = cases::adversarial_scene_queries(tris, 150, 18, true);
    queries.insert(queries.end(), rays.begin(), rays.end());
    write_queries(path("q.cwsq"), queries);

    const CommandRun one = capsweep_cmd("sweep --scene " + scene_path + " --queries " + path("q.cwsq") + " --out " +
                                 path("r1.cwsr") + " --threads 1");
    ASSERT_EQ(one.code, 0) << one.output;
    EXPECT_NE(one.output.find(std::to_string(queries.size()) + " queries"), std::string::npos) << one.output;
    const CommandRun two = capsweep_cmd("sweep --scene " + scene_path + " --queries " + path("q.cwsq") + " --out " +
                                 path("r2.cwsr") + " --threads 2 --path brute");
    ASSERT_EQ(two.code, 0) << two.output;
    EXPECT_EQ(read(path("r1.cwsr")), read(path("r2.cwsr"))) << "thread count changed the result file";

    const auto hits = read_results(path("r1.cwsr"));
    ASSERT_EQ(hits.size(), queries.size());
    std::size_t n_hits = 0;
    for (std::size_t i = 0; i < queries.size(); ++i) {
      n_hits += hits[i].hit;
      ASSERT_EQ(oracle::judge_scene(hits[i], queries[i], tris), "") << "query " << i;
    }
    EXPECT_GT(n_hits, queries.size() / 4);
  }
}

TEST_F(Command, BadQueryFileIsRefusedNamingTheQuery) {
  std::vector<SweepQuery> q(3, SweepQuery{{{0, 1, 0}, {0, 2, 0}, 0.3f}, {1, 0, 0}});
  q[1].capsule.radius = -0.3f;  // (radius 0 is a ray or a segment: accepted, below)
  write_queries(path("q.cwsq"), q);
  const CommandRun run = capsweep_cmd("sweep --scene @arena --queries " + path("q.cwsq") + " --out " + path("r.cwsr"));
  EXPECT_EQ(run.code, 1);
  EXPECT_NE(run.output.find("query 1: capsule radius must be positive"), std::string::npos) << run.output;
  EXPECT_FALSE(std::filesystem::exists(path("r.cwsr")));
  q[1].capsule.radius = 0;
  write_queries(path("q.cwsq"), q);
  const CommandRun rays = capsweep_cmd("sweep --scene @arena --queries " + path("q.cwsq") + " --out " + path("r.cwsr"));
  EXPECT_EQ(rays.code, 0) << rays.output;
  EXPECT_EQ(read_results(path("r.cwsr")).size(), 3u);
}

TEST_F(Command, BrokenSceneIsRefusedNamingTheFile) {
  write_queries(path("q.cwsq"), {SweepQuery{{{0, 1, 0}, {0, 2, 0}, 0.3f}, {1, 0, 0}}});
  const std::string broken = write("broken.obj", "v 1 2\nf 1 2 3\n");
  const CommandRun run = capsweep_cmd("sweep --scene " + broken + " --queries " + path("q.cwsq") + " --out " + path("r.cwsr"));
  EXPECT_EQ(run.code, 1);
  EXPECT_NE(run.output.find(broken), std::string::npos) << run.output;
  const std::string nan = write("nan.obj", "v 0 0 0\nv 1 0 0\nv 0 0 1\nv nan 0 0\nf 1 2 3\nf 1 4 2\n");
  const CommandRun nan_run = capsweep_cmd("sweep --scene " + nan + " --queries " + path("q.cwsq") + " --out " + path("r.cwsr"));
  EXPECT_EQ(nan_run.code, 1);
  EXPECT_NE(nan_run.output.find("triangle 1"), std::string::npos) << nan_run.output;
}

TEST_F(Command, UsageErrorsExitWithCode2) {
  EXPECT_EQ(capsweep_cmd("").code, 2);
  EXPECT_EQ(capsweep_cmd("frobnicate").code, 2);
  const CommandRun missing = capsweep_cmd("sweep --scene @arena");
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.output.find("is required"), std::string::npos) << missing.output;
  EXPECT_EQ(capsweep_cmd("sweep --scene @arena --queries x --out y --path warp").code, 2);
  EXPECT_EQ(capsweep_cmd("queries --scene @arena --workload run --count 5 --out x").code, 2);
  EXPECT_EQ(capsweep_cmd("demo --threads -3").code, 2);
  EXPECT_EQ(capsweep_cmd("crowd --scene @arena --ticks 5").code, 2);  // --agents is required
  EXPECT_EQ(capsweep_cmd("validate --scene @arena --moves x --out y --tolerance 5").code, 2);
  EXPECT_EQ(capsweep_cmd("help").code, 0);
}

TEST_F(Command, QueriesAreReproducibleFromTheSeed) {
  for (int k = 0; k < 2; ++k) {
    ASSERT_EQ(capsweep_cmd("queries --scene @arena --workload validate --count 50 --seed 9 --out " +
                           path("q" + std::to_string(k) + ".cwsq")).code, 0);
  }
  EXPECT_EQ(read(path("q0.cwsq")), read(path("q1.cwsq")));
  const auto q = read_queries(path("q0.cwsq"));
  for (const SweepQuery& s : q) {
    EXPECT_FLOAT_EQ(s.capsule.radius, 0.35f);
    EXPECT_NEAR(s.capsule.b.y - s.capsule.a.y, 1.1f, 1e-5f);
    EXPECT_EQ(s.motion.y, 0.f);
    const float len = std::hypot(s.motion.x, s.motion.z);
    EXPECT_GE(len, 0.5f - 1e-5f);
    EXPECT_LE(len, 2.f + 1e-5f);
  }
}

TEST_F(Command, ThroughputSweepsTheArena) {
  const CommandRun run = capsweep_cmd("throughput --count 2000");
  ASSERT_EQ(run.code, 0) << run.output;
  for (const char* w : {"tick", "validate", "long", "sweeps/s/core", "answers identical"}) {
    EXPECT_NE(run.output.find(w), std::string::npos) << run.output;
  }
}

// The moving arena, the main job before issue 39, is still there as demo-arena.
TEST_F(Command, DemoArenaRunsTheMovingArena) {
  const CommandRun run = capsweep_cmd("demo-arena --agents 300 --ticks 60 --png " + path("demo.png"));
  ASSERT_EQ(run.code, 0) << run.output;
  // On the arena whose door, lift and gate move: what they carried and crushed, and their paths named on the picture.
  for (const char* w : {"agent-ticks/s", "per core", "sweeps per agent-tick", "identical on 1 and", "a 10000-agent tick (",
                        "invariants: 0 agent-ticks inside the skin, 0 overlapping", "with a door and a lift",
                        "moving parts: ", "(door orange, lift cyan, lift gate lime)"}) {
    EXPECT_NE(run.output.find(w), std::string::npos) << run.output;
  }
  EXPECT_EQ(read(path("demo.png")).substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
}

TEST_F(Command, CrowdTraceIsFreeOfTheMeshAndEveryTracedMoveValidates) {
  const CommandRun run = capsweep_cmd("crowd --scene @arena --agents 200 --ticks 40 --seed 3 --trace " + path("t.cwsq"));
  ASSERT_EQ(run.code, 0) << run.output;
  const std::vector<SweepQuery> trace = read_queries(path("t.cwsq"));
  ASSERT_GT(trace.size(), 4000u);
  EXPECT_NE(run.output.find("trace: " + std::to_string(trace.size()) + " segments"), std::string::npos) << run.output;
  // Any tool can check the trace: here, the brute-force sweep finds no contact on any segment.
  ASSERT_EQ(capsweep_cmd("sweep --scene @arena --path brute --queries " + path("t.cwsq") + " --out " + path("r.cwsr")).code, 0);
  for (const SweepHit& h : read_results(path("r.cwsr"))) ASSERT_FALSE(h.hit);
  // And every segment is a legal move (each a straight piece of a tick: --rule straight_segment).
  const CommandRun v = capsweep_cmd("validate --scene @arena --moves " + path("t.cwsq") + " --out " + path("v.csv") +
                                    " --rule straight_segment");
  ASSERT_EQ(v.code, 0) << v.output;
  EXPECT_NE(v.output.find(std::to_string(trace.size()) + " ok"), std::string::npos) << v.output;
  EXPECT_NE(read(path("v.csv")).find("move,verdict,legal_fraction"), std::string::npos);
}

// Ellipsoid agents end to end: a crowd of ellipsoids, and one of capsules and ellipsoids, keeps
// its invariants; its trace (CWSQ version 7) validates, every move ok (the validator sees only the
// world, so agents pass through each other here); the brute-force sweep of every path an
// ellipsoid travelled finds no contact.
TEST_F(Command, EllipsoidCrowdsTraceValidateAndSweepClean) {
  for (const std::string shape : {"ellipsoid", "mixed"}) {
    SCOPED_TRACE(shape);
    const CommandRun run = capsweep_cmd("crowd --scene @arena --agents 200 --ticks 60 --seed 3 --shape " + shape +
                                        " --no-agent-collisions --trace " + path("t.cwsq"));
    ASSERT_EQ(run.code, 0) << run.output;
    EXPECT_NE(run.output.find(shape == "ellipsoid" ? "(ellipsoids)" : "(capsules and ellipsoids)"), std::string::npos)
        << run.output;
    EXPECT_EQ(query_file_version(path("t.cwsq")), kShapedClaimedMoveVersion);
    const std::vector<ClaimedMove> trace = read_claimed_moves(path("t.cwsq"));
    ASSERT_GT(trace.size(), 5000u);
    const auto ellipsoids = std::count_if(trace.begin(), trace.end(), [](const ClaimedMove& m) { return m.shape == AgentShape::ellipsoid; });
    EXPECT_EQ(ellipsoids == std::ptrdiff_t(trace.size()), shape == "ellipsoid");
    EXPECT_GT(ellipsoids, std::ptrdiff_t(trace.size() / 3));
    const CommandRun v = capsweep_cmd("validate --scene @arena --moves " + path("t.cwsq") + " --out " + path("v.csv") +
                                      " --max-speed 2 --rule straight_segment");
    ASSERT_EQ(v.code, 0) << v.output;
    EXPECT_NE(v.output.find(std::to_string(trace.size()) + " ok"), std::string::npos) << v.output;
    const CommandRun sweep =
        capsweep_cmd("sweep --scene @arena --path brute --queries " + path("t.cwsq") + " --out " + path("r.cwsr"));
    if (shape == "ellipsoid") {
      ASSERT_EQ(sweep.code, 0) << sweep.output;
      EXPECT_NE(sweep.output.find(" ellipsoids, 0 hits"), std::string::npos) << sweep.output;
    } else {
      EXPECT_EQ(sweep.code, 1);
      EXPECT_NE(sweep.output.find("is an ellipsoid agent's, not a capsule sweep"), std::string::npos) << sweep.output;
    }
  }
  // With collisions on, a crowd of ellipsoids keeps the invariants too (the command exits 1 if not).
  const CommandRun collide = capsweep_cmd("crowd --scene @arena --agents 400 --ticks 60 --seed 4 --shape ellipsoid");
  ASSERT_EQ(collide.code, 0) << collide.output;
  EXPECT_NE(collide.output.find("invariants: 0 agent-ticks inside the skin, 0 overlapping"), std::string::npos)
      << collide.output;
}

// Falls off the world are explained: on a floor with a square hole in it, every agent that walks
// into the hole fell through a hole of the level, none through a crack between triangles.
TEST_F(Command, CrowdSaysItsFallsOffTheWorldWereThroughHoles) {
  std::string obj;
  int vertices = 0;
  const std::vector<Triangle> floor = testmesh::Mesh()
                                          .floor(-10, -10, 10, -2, 1)
                                          .floor(-10, 2, 10, 10, 1)
                                          .floor(-10, -2, -2, 2, 1)
                                          .floor(2, -2, 10, 2, 1)
                                          .triangles();
  char line[96];
  for (const Triangle& t : floor) {
    for (const Vec3& v : t.v) {
      std::snprintf(line, sizeof line, "v %g %g %g\n", double(v.x), double(v.y), double(v.z));
      obj += line;
    }
    std::snprintf(line, sizeof line, "f %d %d %d\n", vertices + 1, vertices + 2, vertices + 3);
    obj += line;
    vertices += 3;
  }
  const CommandRun run =
      capsweep_cmd("crowd --scene " + write("holed.obj", obj) + " --agents 60 --ticks 900 --seed 3 --threads 2");
  ASSERT_EQ(run.code, 0) << run.output;
  const std::string said = "respawned after falling off the world: ";
  const std::size_t at = run.output.find(said);
  ASSERT_NE(at, std::string::npos) << run.output;
  const unsigned long fell = std::stoul(run.output.substr(at + said.size()));
  EXPECT_GT(fell, 0u) << run.output;
  EXPECT_NE(run.output.find(said + std::to_string(fell) + " (" + std::to_string(fell) +
                            " through holes of the level, 0 through cracks between triangles)"),
            std::string::npos)
      << run.output;
  EXPECT_NE(run.output.find(", wedged 0\n"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("overlapping agent pairs, 0 falls through cracks between triangles"), std::string::npos)
      << run.output;
}

TEST_F(Command, ValidateFlagsAMoveThroughAWall) {
  // From the middle of the arena 30 m east: through the pillar at (6, 0) and into the wall.
  write_queries(path("m.cwsq"), {{{{0, 0.37f, 0}, {0, 1.47f, 0}, 0.35f}, {30, 0, 0}},
                                 {{{0, 0.37f, 0}, {0, 1.47f, 0}, 0.35f}, {0, 0, 1}}});
  const CommandRun v = capsweep_cmd("validate --scene @arena --moves " + path("m.cwsq") + " --out " + path("v.csv"));
  ASSERT_EQ(v.code, 0) << v.output;
  const std::string csv = read(path("v.csv"));
  EXPECT_NE(csv.find("\n0,blocked,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\n1,ok,1,"), std::string::npos) << csv;
  const CommandRun missing = capsweep_cmd("validate --scene @arena --moves " + path("none.cwsq") + " --out " + path("w.csv"));
  EXPECT_EQ(missing.code, 1);
  EXPECT_NE(missing.output.find("none.cwsq"), std::string::npos) << missing.output;
  EXPECT_FALSE(std::filesystem::exists(path("w.csv")));
}

TEST_F(Command, EveryPathWritesTheSameAnswersAndAnUnknownPathIsAUsageError) {
  const CommandRun gen = capsweep_cmd("queries --scene @arena --workload long --count 3000 --out " + path("q.cwsq"));
  ASSERT_EQ(gen.code, 0) << gen.output;
  for (const char* p : {"simd", "scalar", "brute"}) {
    const CommandRun run = capsweep_cmd("sweep --scene @arena --queries " + path("q.cwsq") + " --out " +
                                        path(std::string(p) + ".cwsr") + " --path " + p);
    ASSERT_EQ(run.code, 0) << run.output;
    EXPECT_NE(run.output.find(std::string("path ") + p), std::string::npos) << run.output;
  }
  EXPECT_EQ(read(path("simd.cwsr")), read(path("brute.cwsr")));
  EXPECT_EQ(read(path("scalar.cwsr")), read(path("brute.cwsr")));
  const CommandRun bad = capsweep_cmd("sweep --scene @arena --queries " + path("q.cwsq") + " --out " +
                                      path("x.cwsr") + " --path fast");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.output.find("--path must be simd, scalar or brute"), std::string::npos) << bad.output;
  EXPECT_FALSE(std::filesystem::exists(path("x.cwsr")));
}

TEST_F(Command, ArenaIsWrittenAsObj) {
  const CommandRun run = capsweep_cmd("arena --out " + path("arena.obj"));
  ASSERT_EQ(run.code, 0) << run.output;
  EXPECT_EQ(load_scene(path("arena.obj")).size(), load_scene_or_builtin("@arena").size());
}

// The command line on CLI11: every command explains itself, and what used to be silently
// ignored or altered is a usage error (exit code 2) with a message naming the option.
TEST_F(Command, EveryCommandHasHelpWithItsDefaults) {
  for (const char* command : {"demo", "crowd", "validate", "throughput", "sweep", "queries", "build", "serve", "client",
                              "bench-service", "arena"}) {
    const CommandRun help = capsweep_cmd(std::string(command) + " --help");
    EXPECT_EQ(help.code, 0) << command;
    EXPECT_NE(help.output.find("Usage: capsweep " + std::string(command)), std::string::npos) << help.output;
  }
  EXPECT_NE(capsweep_cmd("sweep --help").output.find("--path TEXT=simd"), std::string::npos);
  EXPECT_NE(capsweep_cmd("demo --help").output.find("=capsweep_demo.png"), std::string::npos);
  EXPECT_NE(capsweep_cmd("serve --help").output.find("--drain-seconds FLOAT:FLOAT in [0 - 3600]=10"), std::string::npos)
      << capsweep_cmd("serve --help").output;
}

TEST_F(Command, TheVersionIsThePackagesVersion) {
  const CommandRun v = capsweep_cmd("--version");
  EXPECT_EQ(v.code, 0);
  EXPECT_EQ(v.output, "capsweep " CAPSWEEP_VERSION_STRING "\n");
}

TEST_F(Command, SceneOptionsGivenWithASnapshotAreAUsageError) {
  ASSERT_EQ(capsweep_cmd("build --scene @arena --out " + path("a.cwsw")).code, 0);
  for (const char* option : {"--scale 2", "--z-up"}) {
    const CommandRun run = capsweep_cmd("sweep --scene " + path("a.cwsw") + " " + option + " --queries x --out y");
    EXPECT_EQ(run.code, 2) << option;
    EXPECT_NE(run.output.find("--scale and --z-up do not apply to a snapshot (" + path("a.cwsw") + ")"), std::string::npos)
        << run.output;
  }
  const CommandRun serve = capsweep_cmd("serve --listen 127.0.0.1:0 --world w=" + path("a.cwsw") + " --scale 2");
  EXPECT_EQ(serve.code, 2);
  EXPECT_NE(serve.output.find("do not apply to a snapshot"), std::string::npos) << serve.output;
}

TEST_F(Command, MaxSpeedWithoutDtIsAUsageError) {
  const CommandRun run = capsweep_cmd("validate --scene @arena --moves x --out y --max-speed 7");
  EXPECT_EQ(run.code, 2);
  EXPECT_NE(run.output.find("--max-speed requires --dt"), std::string::npos) << run.output;
}

// The default limit (7 m/s) refuses a 30 m/s claim with nothing set, as the library does: the
// CSV's reason, claimed, limit and next state are the C++ verdict's; none lifts the limit, 0 is
// refused naming --max-speed; a version 1 file without --dt (unknown dt) checks no speed.
TEST_F(Command, ValidateDefaultsRefuseASpeedHackAsTheLibraryDoes) {
  const World arena(load_scene_or_builtin(kArenaName));
  std::vector<ClaimedMove> claims(2);
  claims[0] = {{{0, 30, 0}, {0, 31, 0}, 0.35f}, {3, 0, 0}, 0.1f};  // 30 m/s, in the air
  claims[1] = {{{0, 30, 0}, {0, 31, 0}, 0.35f}, {0.3f, 0, 0}, 0.1f};
  claims[1].ground_triangle = 7;  // a hint the validator checks: carried in a version 8 file
  QueryWriter w(path("c.cwsq"), {}, QueryRecords::grounded_claimed_moves);
  for (const ClaimedMove& m : claims) w.add(m);
  w.finish();
  EXPECT_EQ(query_file_version(path("c.cwsq")), kGroundedClaimedMoveVersion);
  ASSERT_EQ(read_claimed_moves(path("c.cwsq"))[1].ground_triangle, 7u);
  const CommandRun v = capsweep_cmd("validate --scene @arena --moves " + path("c.cwsq") + " --out " + path("v.csv"));
  ASSERT_EQ(v.code, 0) << v.output;
  std::vector<Verdict> want(claims.size());
  arena.validate(claims, ValidateSettings{}, want);
  ASSERT_EQ(want[0].kind, VerdictKind::too_fast);
  const std::string csv = read(path("v.csv"));
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "move,verdict,legal_fraction,triangle,normal_x,normal_y,normal_z,point_x,point_y,point_z,furthest_x,"
            "furthest_y,furthest_z,corrected_x,corrected_y,corrected_z,grounded,in_skin,allowed_horizontal,allowed_down,"
            "allowed_up,reason,claimed,limit,next_vertical_speed,next_grounded,next_ground_triangle,detail");
  std::istringstream lines(csv);
  std::string line;
  std::getline(lines, line);
  for (std::size_t i = 0; i < claims.size(); ++i) {
    ASSERT_TRUE(std::getline(lines, line));
    std::vector<std::string> cells;
    std::istringstream row(line);
    for (std::string cell; std::getline(row, cell, ',');) cells.push_back(cell);
    ASSERT_GE(cells.size(), 27u) << line;
    EXPECT_EQ(cells[1], name(want[i].kind)) << line;
    EXPECT_EQ(cells[21], name(want[i].reason)) << line;
    EXPECT_FLOAT_EQ(std::stof(cells[22]), want[i].claimed) << line;
    EXPECT_FLOAT_EQ(std::stof(cells[23]), want[i].limit) << line;
    EXPECT_FLOAT_EQ(std::stof(cells[24]), want[i].next.vertical_speed) << line;
    EXPECT_EQ(cells[25], want[i].next.grounded ? "1" : "0") << line;
    EXPECT_EQ(cells[26], want[i].next.ground_triangle == kNoTriangle ? "" : std::to_string(want[i].next.ground_triangle));
  }
  EXPECT_TRUE(csv.find("\n0,too_fast,") != std::string::npos && (csv.find(",speed,") != std::string::npos ||
                                                                  csv.find(",teleport,") != std::string::npos))
      << csv;
  const CommandRun free = capsweep_cmd("validate --scene @arena --moves " + path("c.cwsq") + " --out " + path("w.csv") +
                                       " --max-speed none");
  ASSERT_EQ(free.code, 0) << free.output;
  EXPECT_EQ(read(path("w.csv")).find(",speed,"), std::string::npos);
  const CommandRun zero = capsweep_cmd("validate --scene @arena --moves " + path("c.cwsq") + " --out " + path("z.csv") +
                                       " --max-speed 0");
  EXPECT_EQ(zero.code, 2);
  EXPECT_NE(zero.output.find("--max-speed 0: a speed limit must be within (0, 1e6] m/s; use --max-speed none"),
            std::string::npos)
      << zero.output;
  EXPECT_FALSE(std::filesystem::exists(path("z.csv")));
  EXPECT_EQ(capsweep_cmd("validate --scene @arena --moves " + path("c.cwsq") + " --out " + path("z.csv") +
                         " --rule sideways").code, 2);
  write_queries(path("q.cwsq"), {{{{0, 30, 0}, {0, 31, 0}, 0.35f}, {3, 0, 0}}});
  const CommandRun unknown_dt = capsweep_cmd("validate --scene @arena --moves " + path("q.cwsq") + " --out " + path("u.csv"));
  ASSERT_EQ(unknown_dt.code, 0) << unknown_dt.output;
  EXPECT_NE(unknown_dt.output.find("0 too_fast"), std::string::npos) << unknown_dt.output;
}

TEST_F(Command, AnIsaTheCpuDoesNotRunIsRefused) {
  const CommandRun run = capsweep_cmd("throughput --count 10", "CAPSWEEP_ISA=bogus");
  EXPECT_EQ(run.code, 2);
  EXPECT_NE(run.output.find("CAPSWEEP_ISA=bogus is not an instruction set this CPU runs (it runs "), std::string::npos)
      << run.output;
  EXPECT_EQ(capsweep_cmd("throughput --count 10", "CAPSWEEP_ISA=sse2").code, 0);
}

// Each kernel variant sweeps its own number of lanes at once, and a walk hands the kernel its
// live lanes that many at a time, so that a contact found lowers the limit for the rest (2 on
// SSE, 4 on AVX2, 8 on AVX-512). Neither the width nor the flushes may move a byte: batches of
// sweeps and a crowd's trace are the same whichever variant runs them.
TEST_F(Command, EveryKernelVariantGivesTheSameBytes) {
  const std::string scene = kScenes + "/recast_dungeon.obj";
  const std::vector<Triangle> tris = load_scene(scene);
  std::vector<SweepQuery> queries;
  for (const char* workload : {"tick", "validate", "long"}) {
    const CommandRun gen = capsweep_cmd("queries --scene " + scene + " --workload " + workload +
                                        " --count 3000 --seed 9 --out " + path("w.cwsq"));
    ASSERT_EQ(gen.code, 0) << gen.output;
    const auto part = read_queries(path("w.cwsq"));
    queries.insert(queries.end(), part.begin(), part.end());
  }
  const auto adversarial = cases::adversarial_scene_queries(tris, 3000, 23);
  queries.insert(queries.end(), adversarial.begin(), adversarial.end());
  const std::size_t capsules = queries.size();
  for (std::size_t i = 0; i < capsules; i += 4) {  // spheres (no axis: never pooled)
    SweepQuery sphere = queries[i];
    sphere.capsule.b = sphere.capsule.a;
    queries.push_back(sphere);
  }
  write_queries(path("q.cwsq"), queries);
  // A heightfield's blocks are made as a walk reaches them, and walked with the BVH's limit.
  ASSERT_EQ(capsweep_cmd("heightmap --size 129 --seed 4 --out " + path("h.png")).code, 0);
  ASSERT_EQ(capsweep_cmd("build --heightmap " + path("h.png") + " --cell 1 --height-scale 0.001 --out " +
                         path("h.cwsw")).code, 0);
  for (const char* workload : {"tick", "long"}) {
    const CommandRun gen = capsweep_cmd("queries --scene " + path("h.cwsw") + " --workload " + workload +
                                        " --count 3000 --seed 8 --out " + path(std::string("h_") + workload + ".cwsq"));
    ASSERT_EQ(gen.code, 0) << gen.output;
  }

  const std::vector<BlockSweepVariant> variants = block_sweep_variants();
  ASSERT_GE(variants.size(), 1u);
  struct Outputs {
    std::string answers, terrain_tick, terrain_long, trace;
  };
  std::vector<Outputs> outputs;
  for (const BlockSweepVariant& v : variants) {
    SCOPED_TRACE(v.isa);
    const std::string isa = std::string("CAPSWEEP_ISA=") + v.isa;
    auto sweep = [&](const std::string& world, const std::string& queries_file) {
      std::filesystem::remove(path("r.cwsr"));  // a run that writes nothing must not pass on the last file
      const CommandRun run = capsweep_cmd("sweep --scene " + world + " --queries " + path(queries_file) + " --out " +
                                          path("r.cwsr") + " --threads 2", isa);
      EXPECT_EQ(run.code, 0) << run.output;
      return read(path("r.cwsr"));
    };
    Outputs out;
    out.answers = sweep(scene, "q.cwsq");
    out.terrain_tick = sweep(path("h.cwsw"), "h_tick.cwsq");
    out.terrain_long = sweep(path("h.cwsw"), "h_long.cwsq");
    std::filesystem::remove(path("t.bin"));
    const CommandRun crowd = capsweep_cmd("crowd --scene " + scene + " --agents 400 --ticks 40 --seed 3 --threads 2 --trace " +
                                          path("t.bin"), isa);
    ASSERT_EQ(crowd.code, 0) << crowd.output;
    EXPECT_NE(crowd.output.find(std::string(v.isa) + " kernel"), std::string::npos) << crowd.output;
    out.trace = read(path("t.bin"));
    ASSERT_FALSE(out.answers.empty() || out.terrain_tick.empty() || out.terrain_long.empty() || out.trace.empty());
    outputs.push_back(out);
  }
  std::size_t hits = 0;
  std::filesystem::remove(path("r.cwsr"));
  ASSERT_EQ(capsweep_cmd("sweep --scene " + scene + " --queries " + path("q.cwsq") + " --out " + path("r.cwsr")).code, 0);
  for (const SweepHit& h : read_results(path("r.cwsr"))) hits += h.hit;
  EXPECT_GT(hits, queries.size() / 10) << "the queries hardly touch the scene";
  for (std::size_t k = 1; k < outputs.size(); ++k) {
    SCOPED_TRACE(variants[k].isa);
    EXPECT_TRUE(outputs[k].answers == outputs[0].answers) << "the answers differ from " << variants[0].isa << "'s";
    EXPECT_TRUE(outputs[k].terrain_tick == outputs[0].terrain_tick) << "a heightfield's tick answers differ";
    EXPECT_TRUE(outputs[k].terrain_long == outputs[0].terrain_long) << "a heightfield's long answers differ";
    EXPECT_TRUE(outputs[k].trace == outputs[0].trace) << "the crowd's trace differs from " << variants[0].isa << "'s";
  }
}

TEST_F(Command, APortOutOfRangeIsAUsageError) {
  const CommandRun run = capsweep_cmd("serve --listen 127.0.0.1:99999 --world a=@arena");
  EXPECT_EQ(run.code, 2);
  EXPECT_NE(run.output.find("--listen: port must be a number from 0 to 65535, got '99999'"), std::string::npos)
      << run.output;
  EXPECT_EQ(capsweep_cmd("serve --listen 127.0.0.1:0 --world a=@arena --metrics localhost").code, 2);
}

// --threads takes 0 .. kMaxThreads on every command (past 65,536 oneTBB crashed the process).
TEST_F(Command, ThreadsBeyondTheLimitAreAUsageError) {
  for (const std::string command : {"demo", "serve --world a=@arena", "crowd --scene @arena --agents 4 --ticks 1"}) {
    const CommandRun run = capsweep_cmd(command + " --threads " + std::to_string(kMaxThreads + 1));
    EXPECT_EQ(run.code, 2) << command;
    EXPECT_NE(run.output.find("--threads"), std::string::npos) << run.output;
    EXPECT_NE(run.output.find(std::to_string(kMaxThreads)), std::string::npos) << run.output;
  }
  ASSERT_EQ(capsweep_cmd("queries --scene @arena --workload tick --count 50 --seed 1 --out " + path("q.cwsq")).code, 0);
  const CommandRun most = capsweep_cmd("sweep --scene @arena --queries " + path("q.cwsq") + " --out " + path("r.cwsr") +
                                       " --threads " + std::to_string(kMaxThreads));
  EXPECT_EQ(most.code, 0) << most.output;
}

TEST_F(Command, ASingleOptionGivenTwiceIsAUsageError) {
  const CommandRun run = capsweep_cmd("sweep --scene @arena --scene other.obj --queries x --out y");
  EXPECT_EQ(run.code, 2);
  EXPECT_NE(run.output.find("--scene"), std::string::npos) << run.output;
}

TEST_F(Command, AToleranceNotBelowTheRadiusNamesTheMove) {
  ASSERT_EQ(capsweep_cmd("queries --scene @arena --workload tick --count 5 --out " + path("m.cwsq")).code, 0);
  const CommandRun run =
      capsweep_cmd("validate --scene @arena --moves " + path("m.cwsq") + " --out " + path("v.csv") + " --tolerance 0.5");
  EXPECT_EQ(run.code, 2);
  EXPECT_NE(run.output.find("--tolerance (0.500000 m) must be smaller than the capsule radius (0.350000 m) of move 0"),
            std::string::npos)
      << run.output;
  EXPECT_FALSE(std::filesystem::exists(path("v.csv")));
}

TEST_F(Command, ADirectoryAsTheOutputIsRefusedAndNothingLeftBehind) {
  ASSERT_EQ(capsweep_cmd("queries --scene @arena --workload tick --count 5 --out " + path("m.cwsq")).code, 0);
  std::filesystem::create_directory(path("out"));
  const CommandRun run = capsweep_cmd("validate --scene @arena --moves " + path("m.cwsq") + " --out " + path("out"));
  EXPECT_EQ(run.code, 1);
  EXPECT_NE(run.output.find(path("out") + ": is a directory; refusing to replace it"), std::string::npos) << run.output;
  std::size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(path(""))) files += e.is_regular_file();
  EXPECT_EQ(files, 1u) << "only m.cwsq";
}

TEST_F(Command, AnOutputThatIsAnInputIsRefused) {
  ASSERT_EQ(capsweep_cmd("queries --scene @arena --workload tick --count 5 --out " + path("m.cwsq")).code, 0);
  const std::string before = read(path("m.cwsq"));
  const CommandRun run = capsweep_cmd("sweep --scene @arena --queries " + path("m.cwsq") + " --out " + path("m.cwsq"));
  EXPECT_EQ(run.code, 1);
  EXPECT_NE(run.output.find("is also an input"), std::string::npos) << run.output;
  EXPECT_EQ(read(path("m.cwsq")), before);
}

}  // namespace

namespace {

// Layers from the command line: a table when the scene is read (or built into a snapshot), a
// mask when it is queried. Walls on layer 2: rays through them pass with --mask 1.
TEST_F(Command, LayerTablesAndMasksFromTheCommandLine) {
  const std::string obj = write("room.obj",
                                "v -5 0 -5\nv 5 0 -5\nv 5 0 5\nv -5 0 5\nv 2 0 -5\nv 2 3 -5\nv 2 3 5\nv 2 0 5\n"
                                "g floor\nf 1 3 2\nf 1 4 3\ng wall\nf 5 6 7\nf 5 7 8\n");
  const std::string table = write("layers.txt", "wall 2\n");
  // Rays from x = 0 toward +x at 1 m height: the wall at x = 2 stops them unless it is hidden.
  std::vector<SweepQuery> q;
  for (int i = 0; i < 20; ++i) q.push_back({{{0, 1, float(i) * 0.4f - 4}, {0, 1, float(i) * 0.4f - 4}, 0.f}, {4, 0, 0}});
  write_queries(path("rays.cwsq"), q);
  auto sweep = [&](const std::string& scene, const std::string& extra, const std::string& out) {
    const CommandRun run = capsweep_cmd("sweep --scene " + scene + " --queries " + path("rays.cwsq") + " --out " +
                                        path(out) + " " + extra);
    EXPECT_EQ(run.code, 0) << run.output;
    return read_results(path(out));
  };
  const auto seen = sweep(obj, "--layers " + table, "seen.cwsr");
  const auto hidden = sweep(obj, "--layers " + table + " --mask 1", "hidden.cwsr");
  const auto both = sweep(obj, "--layers " + table + " --mask 1,2", "both.cwsr");
  for (std::size_t i = 0; i < q.size(); ++i) {
    EXPECT_TRUE(seen[i].hit) << i;
    EXPECT_NEAR(seen[i].t, 0.5f, 1e-4f) << i;
    EXPECT_FALSE(hidden[i].hit) << i;
    EXPECT_TRUE(identical(seen[i], both[i])) << i;
  }
  // Built into a snapshot, the layers stay; --layers on a snapshot is a usage error.
  const CommandRun build = capsweep_cmd("build --scene " + obj + " --layers " + table + " --out " + path("room.cwsw"));
  ASSERT_EQ(build.code, 0) << build.output;
  const auto from_snapshot = sweep(path("room.cwsw"), "--mask 1", "snap.cwsr");
  for (std::size_t i = 0; i < q.size(); ++i) EXPECT_TRUE(identical(from_snapshot[i], hidden[i])) << i;
  const CommandRun on_snapshot = capsweep_cmd("sweep --scene " + path("room.cwsw") + " --layers " + table +
                                              " --queries " + path("rays.cwsq") + " --out " + path("x.cwsr"));
  EXPECT_EQ(on_snapshot.code, 2);
  EXPECT_NE(on_snapshot.output.find("--layers does not apply to a snapshot (" + path("room.cwsw") +
                                    "): its layers were set when it was built"),
            std::string::npos)
      << on_snapshot.output;
  const CommandRun ellipsoid_rays =
      capsweep_cmd("queries --scene @arena --workload ray --shape ellipsoid --count 5 --out " + path("e.cwsq"));
  EXPECT_EQ(ellipsoid_rays.code, 2);
  EXPECT_NE(ellipsoid_rays.output.find("--shape ellipsoid has no ray workload"), std::string::npos)
      << ellipsoid_rays.output;
  EXPECT_EQ(capsweep_cmd("sweep --scene " + obj + " --mask 0 --queries " + path("rays.cwsq") + " --out " + path("x.cwsr")).code,
            2);
  // Each query's own mask: `queries --mask` writes it into every record (version 4, or 6 for
  // ellipsoids), and the answers are those of the same queries in a batch with that mask.
  for (const char* shape : {"capsule", "ellipsoid"}) {
    SCOPED_TRACE(shape);
    const std::string common = std::string("queries --scene ") + obj + " --layers " + table +
                               " --workload validate --count 300 --seed 4 --shape " + shape + " --out ";
    ASSERT_EQ(capsweep_cmd(common + path("plain.cwsq")).code, 0);
    const CommandRun masked = capsweep_cmd(common + path("masked.cwsq") + " --mask 1");
    ASSERT_EQ(masked.code, 0) << masked.output;
    EXPECT_EQ(query_file_version(path("plain.cwsq")), std::string(shape) == "capsule" ? 1u : 3u);
    EXPECT_EQ(query_file_version(path("masked.cwsq")), std::string(shape) == "capsule" ? 4u : 6u);
    auto answer = [&](const std::string& queries, const std::string& extra, const std::string& out) {
      const CommandRun run = capsweep_cmd("sweep --scene " + obj + " --layers " + table + " --queries " + path(queries) +
                                          " --out " + path(out) + " " + extra);
      EXPECT_EQ(run.code, 0) << run.output;
      return read(path(out));
    };
    const std::string own = answer("masked.cwsq", "", "own.cwsr");
    EXPECT_TRUE(own == answer("plain.cwsq", "--mask 1", "batch.cwsr"));
    EXPECT_TRUE(own != answer("plain.cwsq", "", "all.cwsr")) << "the wall is never in the way";
    EXPECT_TRUE(own == answer("masked.cwsq", "--mask 1,2", "both.cwsr")) << "the batch's mask only narrows";
  }
  // A crowd whose agents see only the floor walks through the wall; its trace carries their
  // mask (version 5), and the validator, judging each claim against it, finds every move ok.
  const CommandRun crowd = capsweep_cmd("crowd --scene " + obj + " --layers " + table +
                                        " --agents 30 --ticks 120 --seed 2 --no-agent-collisions --mask 1 --trace " + path("masked_trace.cwsq"));
  ASSERT_EQ(crowd.code, 0) << crowd.output;
  EXPECT_EQ(query_file_version(path("masked_trace.cwsq")), 5u);
  const std::vector<ClaimedMove> claims = read_claimed_moves(path("masked_trace.cwsq"));
  ASSERT_GT(claims.size(), 1000u);
  for (const ClaimedMove& m : claims) ASSERT_EQ(m.layers, 1u);
  const CommandRun judged = capsweep_cmd("validate --scene " + obj + " --layers " + table + " --moves " +
                                         path("masked_trace.cwsq") + " --out " + path("v.csv") +
                                         " --max-speed 2 --rule straight_segment");
  ASSERT_EQ(judged.code, 0) << judged.output;
  EXPECT_NE(judged.output.find(std::to_string(claims.size()) + " ok"), std::string::npos) << judged.output;
  const CommandRun typo = capsweep_cmd("sweep --scene " + obj + " --layers " + write("typo.txt", "wal 2\n") +
                                       " --queries " + path("rays.cwsq") + " --out " + path("x.cwsr"));
  EXPECT_EQ(typo.code, 1);
  EXPECT_NE(typo.output.find("typo.txt:1: 'wal' names no material, mesh or node"), std::string::npos) << typo.output;
}

}  // namespace
