// One check per settings struct, used by World, the C API and the service alike: every field out
// of its range is named with its range and value; World::move and World::validate refuse such
// settings before any agent moves.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>

#include <capsweep/move.h>
#include <capsweep/validate.h>
#include <capsweep/world.h>

namespace {

using namespace capsweep;

TEST(SettingsCheck, TheDefaultsPass) {
  EXPECT_EQ(check_settings(MoveSettings{}), "");
  EXPECT_EQ(check_settings(ValidateSettings{}), "");
}

TEST(SettingsCheck, EachMoveSettingOutOfRangeIsNamed) {
  const struct {
    const char* field;
    std::function<void(MoveSettings&)> set;
    const char* range;
  } cases[] = {
      {"skin", [](MoveSettings& m) { m.skin = 5; }, "[0.000000, 1.000000], got 5.000000"},
      {"backoff", [](MoveSettings& m) { m.backoff = -1; }, "[0.000000, 1.000000], got -1.000000"},
      {"max_iterations", [](MoveSettings& m) { m.max_iterations = 0; }, "[1.000000, 16.000000], got 0.000000"},
      {"min_distance", [](MoveSettings& m) { m.min_distance = 0; }, "[0.000000, 1.000000], got 0.000000"},
      {"max_depenetration_iterations", [](MoveSettings& m) { m.max_depenetration_iterations = 1000; },
       "[0.000000, 16.000000], got 1000.000000"},
      {"max_slope_degrees", [](MoveSettings& m) { m.max_slope_degrees = 91; }, "[0.000000, 90.000000], got 91.000000"},
      {"step_height", [](MoveSettings& m) { m.step_height = NAN; }, "[0.000000, 100.000000], got nan"},
      {"snap_distance", [](MoveSettings& m) { m.snap_distance = INFINITY; }, "[0.000000, 100.000000], got inf"},
      {"ground_distance", [](MoveSettings& m) { m.ground_distance = 2; }, "[0.000000, 1.000000], got 2.000000"},
      {"gravity", [](MoveSettings& m) { m.gravity = -9.81f; }, "[0.000000, 1000.000000], got -9.810000"},
      {"max_fall_speed", [](MoveSettings& m) { m.max_fall_speed = 1e9f; }, "[0.000000, 10000.000000], got 1000000000.000000"},
      {"dt", [](MoveSettings& m) { m.dt = 0; }, "[0.000001, 10.000000], got 0.000000"},
  };
  for (const auto& c : cases) {
    MoveSettings m;
    c.set(m);
    EXPECT_EQ(check_settings(m), std::string("settings: ") + c.field + " must be within " + c.range) << c.field;
    ValidateSettings v;
    v.movement = m;
    EXPECT_EQ(check_settings(v), check_settings(m)) << "validation checks its movement settings too";
  }
}

TEST(SettingsCheck, ValidateSettingsOutOfRangeAreNamed) {
  ValidateSettings v;
  v.tolerance = -0.01f;
  EXPECT_EQ(check_settings(v), "settings: tolerance must be within [0.000000, 1.000000], got -0.010000");
  v = {};
  v.max_speed = NAN;
  EXPECT_EQ(check_settings(v), "settings: max_speed must be within (0, 1e6] m/s, or kNoSpeedLimit (infinity) for no limit, got nan");
  v = {};
  v.jump_speed = -1;
  EXPECT_EQ(check_settings(v), "settings: jump_speed must be within [0.000000, 1000000.000000], got -1.000000");
}

TEST(SettingsCheck, WorldRefusesBadSettingsBeforeMovingAnyone) {
  const World world(std::vector<Triangle>{{{{-5, 0, -5}, {-5, 0, 5}, {5, 0, 5}}}});
  const std::vector<Agent> agents{{{{0, 0.4f, 0}, {0, 1.5f, 0}, 0.35f}, {0.1f, 0, 0}, 0, 1}};
  std::vector<MoveResult> results(1);
  MoveSettings m;
  m.max_iterations = 100;
  try {
    world.move(agents, m, results);
    FAIL() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "World::move: settings: max_iterations must be within [1.000000, 16.000000], got 100.000000");
  }
  const std::vector<ClaimedMove> moves{{agents[0].capsule, {1, 0, 0}, 0.1f}};
  std::vector<Verdict> verdicts(1);
  ValidateSettings v;
  v.tolerance = 2;
  EXPECT_THROW(world.validate(moves, v, verdicts), std::invalid_argument);
}

}  // namespace
