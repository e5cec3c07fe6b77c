// capsweep demo (the navigating crowd), navmesh, and build --navmesh: the commands of
// cli/nav_commands.cpp and the navmesh a snapshot keeps.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include <capsweep/navigation.h>

#include "tests/support/test_files.h"

namespace {

using namespace capsweep;

using Command = ScratchDir;

// The main job (issue 39): a navigating crowd on Recast's test level, from the repository's scenes/
// whatever the working folder; goals reached, time to goal against the shortest path, blocked
// agent-ticks, the rates with planning, the 10,000-agent tick, determinism and the invariants.
TEST_F(Command, DemoRunsTheMainJob) {
  const CommandRun run = capsweep_cmd("demo --agents 300 --ticks 180 --png " + path("demo.png"));
  ASSERT_EQ(run.code, 0) << run.output;
  for (const char* w : {"recast_nav_test.obj", "navmesh: ", "reached per agent-minute",
                        "time to goal / shortest-path time at walking speed: median ", "blocked ",
                        "agent-ticks/s including planning: ", "per core", "World::move", "identical on 1 and",
                        "a 10000-agent tick (", "invariants: 0 agent-ticks inside the skin, 0 overlapping agent pairs, 0 of ",
                        "traced segments through geometry", "navmesh teal", "against Detour alone (",
                        "what exactness costs: "}) {
    EXPECT_NE(run.output.find(w), std::string::npos) << w << "\n" << run.output;
  }
  // Goals are reached, and none of the goals finished was given up.
  unsigned long reached = 0, given_up = 1;
  const std::size_t at = run.output.find("goals: ");
  ASSERT_NE(at, std::string::npos) << run.output;
  ASSERT_EQ(std::sscanf(run.output.c_str() + at, "goals: %lu reached, %lu given up", &reached, &given_up), 2);
  EXPECT_GT(reached, 20u);
  EXPECT_EQ(given_up, 0u);
  EXPECT_EQ(read(path("demo.png")).substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
}

// capsweep navmesh writes a CWNM file that demo --navmesh reads instead of building; a damaged
// one is refused by name, with the record and the reason, and nothing runs.
TEST_F(Command, NavmeshWritesAFileTheDemoReadsAndADamagedOneIsRefused) {
  const std::string scene = std::string(CAPSWEEP_SCENES_DIR) + "/recast_dungeon.obj";
  const CommandRun built = capsweep_cmd("navmesh --scene " + scene + " --out " + path("d.cwnm") + " --threads 2");
  ASSERT_EQ(built.code, 0) << built.output;
  EXPECT_NE(built.output.find("climb 0.35 m"), std::string::npos) << built.output;
  const CommandRun lower = capsweep_cmd("navmesh --scene " + scene + " --out " + path("low.cwnm") + " --step-height 0.2");
  ASSERT_EQ(lower.code, 0) << lower.output;
  EXPECT_NE(lower.output.find("climb 0.20 m"), std::string::npos) << lower.output;
  const CommandRun run = capsweep_cmd("demo --scene " + scene + " --navmesh " + path("d.cwnm") +
                                      " --agents 100 --ticks 30 --no-detour --no-big-tick --png " + path("d.png"));
  EXPECT_NE(run.output.find("read from " + path("d.cwnm")), std::string::npos) << run.output;
  std::string bytes = read(path("d.cwnm"));
  bytes[bytes.size() / 2] ^= 1;
  std::ofstream(path("bad.cwnm"), std::ios::binary) << bytes;
  const CommandRun bad =
      capsweep_cmd("demo --scene " + scene + " --navmesh " + path("bad.cwnm") + " --agents 10 --ticks 1 --no-big-tick");
  EXPECT_NE(bad.code, 0);
  EXPECT_NE(bad.output.find(path("bad.cwnm") + ": checksum: "), std::string::npos) << bad.output;
}

// capsweep build --navmesh keeps the navmesh in the snapshot (and --navmesh-from keeps a file of
// capsweep navmesh): the demo on that snapshot reads it instead of building one, and it is the
// navmesh capsweep navmesh builds, byte for byte.
TEST_F(Command, BuildKeepsTheNavmeshInTheSnapshotAndTheDemoReadsIt) {
  const std::string scene = std::string(CAPSWEEP_SCENES_DIR) + "/recast_dungeon.obj";
  const CommandRun built = capsweep_cmd("build --scene " + scene + " --navmesh --out " + path("nav.cwsw"));
  ASSERT_EQ(built.code, 0) << built.output;
  EXPECT_NE(built.output.find("navmesh: "), std::string::npos) << built.output;
  ASSERT_EQ(capsweep_cmd("navmesh --scene " + scene + " --out " + path("own.cwnm")).code, 0);
  EXPECT_EQ(NavMesh::read(path("nav.cwsw")).bytes(), read(path("own.cwnm")));
  const CommandRun run = capsweep_cmd("demo --scene " + path("nav.cwsw") + " --agents 60 --ticks 30 --no-detour --no-big-tick --png " +
                                      path("nav.png"));
  ASSERT_EQ(run.code, 0) << run.output;
  EXPECT_NE(run.output.find("read from the snapshot"), std::string::npos) << run.output;
  // Another body's navmesh, kept from its file; the demo's own --navmesh still comes first.
  ASSERT_EQ(capsweep_cmd("navmesh --scene " + scene + " --out " + path("low.cwnm") + " --step-height 0.2").code, 0);
  const CommandRun from = capsweep_cmd("build --scene " + scene + " --navmesh-from " + path("low.cwnm") + " --out " + path("low.cwsw"));
  ASSERT_EQ(from.code, 0) << from.output;
  EXPECT_EQ(NavMesh::read(path("low.cwsw")).bytes(), read(path("low.cwnm")));
  EXPECT_EQ(NavMesh::read(path("low.cwsw")).settings().climb, 0.2f);
  const CommandRun first = capsweep_cmd("demo --scene " + path("low.cwsw") + " --navmesh " + path("own.cwnm") +
                                        " --agents 20 --ticks 5 --no-detour --no-big-tick --png " + path("nav.png"));
  EXPECT_NE(first.output.find("read from " + path("own.cwnm")), std::string::npos) << first.output;
  // A damaged navmesh file is refused before anything is written; both options at once are a usage error.
  std::string bytes = read(path("low.cwnm"));
  bytes[bytes.size() / 2] ^= 1;
  std::ofstream(path("bad.cwnm"), std::ios::binary) << bytes;
  const CommandRun bad = capsweep_cmd("build --scene " + scene + " --navmesh-from " + path("bad.cwnm") + " --out " + path("bad.cwsw"));
  EXPECT_NE(bad.code, 0);
  EXPECT_NE(bad.output.find(path("bad.cwnm") + ": checksum: "), std::string::npos) << bad.output;
  EXPECT_FALSE(std::ifstream(path("bad.cwsw")).good());
  EXPECT_EQ(capsweep_cmd("build --scene " + scene + " --navmesh --navmesh-from " + path("low.cwnm") + " --out " + path("x.cwsw")).code, 2);
}

}  // namespace
