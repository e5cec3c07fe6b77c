// The README's library example, compiled and run; a second test holds the README to this text.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "tools/arena.h"
#include "tools/obj_file.h"

// README-EXAMPLE-BEGIN
#include <capsweep/capsweep.h>

int sweep_example(const std::string& level) {
  using namespace capsweep;
  const World world(load_scene(level));  // "level.obj": any Assimp format, or FILE.obj.gz

  // A 1.8 m person: radius 0.35 m around a vertical 1.1 m axis, 2 cm above the floor,
  // stepping 3 m toward a pillar at (-6, 0, 0).
  const Capsule person{{-9.f, 0.37f, 0.f}, {-9.f, 1.47f, 0.f}, 0.35f};
  const std::vector<SweepQuery> queries{{person, {3.f, 0.f, 0.f}}};
  std::vector<SweepHit> hits(queries.size());
  world.sweep(queries, hits);  // all cores; bit-identical on any thread count

  const SweepHit& hit = hits[0];
  if (!hit.hit) return 0;
  // hit.t: fraction of the motion before contact; hit.normal: from the pillar toward the
  // person; hit.point: on the pillar; hit.triangle: index in the scene's triangle order.
  const Vec3 stop = person.a + Vec3{3.f, 0.f, 0.f} * hit.t;
  return stop.x < -6.5f && hit.normal.x < 0 ? 1 : -1;
}
// README-EXAMPLE-END

TEST(ReadmeExample, StopsInFrontOfThePillar) {
  // The level is the built-in arena, written out as an OBJ file.
  const std::string level = ::testing::TempDir() + "readme_arena_" + std::to_string(::getpid()) + ".obj";
  capsweep::write_obj(level, capsweep::make_arena());
  EXPECT_EQ(sweep_example(level), 1);
  std::remove(level.c_str());
}

TEST(ReadmeExample, ReadmeShowsThisExactCode) {
  auto between = [](const std::string& text, const std::string& begin, const std::string& end) {
    const auto b = text.find(begin), e = text.find(end);
    return (b == std::string::npos || e == std::string::npos) ? std::string() : text.substr(b + begin.size(), e - b - begin.size());
  };
  auto slurp = [](const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  };
  const std::string source = between(slurp(CAPSWEEP_SOURCE_DIR "/tests/readme_example_test.cpp"), "// README-EXAMPLE-BEGIN\n",
                                     "// README-EXAMPLE-END");
  const std::string readme = between(slurp(CAPSWEEP_SOURCE_DIR "/README.md"), "<!-- example-begin -->\n```cpp\n",
                                     "```\n<!-- example-end -->");
  ASSERT_FALSE(source.empty());
  EXPECT_EQ(readme, source) << "README.md's example differs from tests/readme_example_test.cpp";
}

// Each "<!-- snippet: PATH -->" in the README or the manual page of the examples
// (docs/EMBEDDING.md) is followed by PATH's whole text, so the snippets are the examples the
// InstallAndConsume test builds and runs.
TEST(ReadmeExample, SnippetsAreTheExampleFiles) {
  auto slurp = [](const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  };
  const std::string readme = slurp(CAPSWEEP_SOURCE_DIR "/README.md") + slurp(CAPSWEEP_SOURCE_DIR "/docs/EMBEDDING.md");
  const std::string marker = "<!-- snippet: ";
  int snippets = 0;
  for (std::size_t at = readme.find(marker); at != std::string::npos; at = readme.find(marker, at + 1)) {
    const std::size_t name_end = readme.find(" -->\n", at);
    ASSERT_NE(name_end, std::string::npos);
    const std::string path = readme.substr(at + marker.size(), name_end - at - marker.size());
    const std::size_t fence = readme.find('\n', name_end + 5);  // the ```lang line
    const std::size_t close = readme.find("\n```\n", fence);
    ASSERT_NE(close, std::string::npos) << path;
    const std::string shown = readme.substr(fence + 1, close - fence);
    const std::string file = slurp(std::string(CAPSWEEP_SOURCE_DIR) + "/" + path);
    ASSERT_FALSE(file.empty()) << path << " does not exist";
    EXPECT_EQ(shown, file) << "README.md's snippet differs from " << path;
    ++snippets;
  }
  EXPECT_GE(snippets, 5);
}
