// The public surface: every header under include/capsweep/ includes only the standard library
// and other public headers (never xsimd, oneTBB, Assimp, gRPC or capsweep's internal folders),
// and the layouts the C API promises hold. That each header also compiles on its own, with
// only include/ on the path, is checked by the public_headers_alone target (tests/CMakeLists.txt).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>

namespace {

namespace fs = std::filesystem;
const fs::path kPublic = fs::path(CAPSWEEP_SOURCE_DIR) / "include" / "capsweep";

// The C and C++ standard headers a public header may use.
const std::set<std::string> kStandard = {
    "cmath", "cstddef", "cstdint", "cstring", "fstream", "functional", "memory", "optional", "span", "stdexcept", "string",
    "vector",
    "math.h", "stddef.h", "stdint.h"};

TEST(PublicHeaders, IncludeOnlyTheStandardLibraryAndEachOther) {
  int headers = 0;
  for (const fs::directory_entry& e : fs::directory_iterator(kPublic)) {
    const std::string name = e.path().filename().string();
    if (e.path().extension() != ".h" && name != "version.h.in") continue;
    ++headers;
    std::ifstream in(e.path());
    std::string line;
    int number = 0;
    const std::regex include(R"(^\s*#\s*include\s*([<"])([^>"]+)[>"])");
    while (std::getline(in, line)) {
      ++number;
      std::smatch m;
      if (!std::regex_search(line, m, include)) continue;
      const std::string where = name + ":" + std::to_string(number) + ": " + line;
      EXPECT_EQ(m[1], "<") << where << " (a quoted include reaches into the repository)";
      const std::string target = m[2];
      if (target.rfind("capsweep/", 0) == 0) {
        const std::string file = target.substr(9);
        EXPECT_TRUE(fs::exists(kPublic / file) || fs::exists(kPublic / (file + ".in"))) << where << " (not public)";
      } else {
        EXPECT_TRUE(kStandard.count(target)) << where << " (not a standard header on the list)";
      }
    }
  }
  EXPECT_GE(headers, 11);
}

// One header per concept (values, kernels, movement, validation, instances, world, tiles, files, client,
// navigation, the two C libraries, version) and the one that includes them all: a user finds a type by what it is.
TEST(PublicHeaders, AreOnePerConcept) {
  std::set<std::string> names;
  for (const fs::directory_entry& e : fs::directory_iterator(kPublic)) names.insert(e.path().filename().string());
  const std::set<std::string> expected = {"capsweep.h", "values.h", "sweep.h", "move.h", "validate.h", "instances.h", "world.h",
                                          "tiles.h", "files.h", "client.h", "navigation.h", "capsweep_c.h", "capsweep_c_io.h",
                                          "version.h.in"};
  EXPECT_EQ(names, expected);
}

TEST(PublicHeaders, NoInternalHeaderIsInTheTree) {
  // Internal layouts live in core/, simd/, broadphase/; nothing there is copied under include/.
  for (const char* folder : {"core", "simd", "broadphase", "io", "capi"}) {
    for (const fs::directory_entry& e : fs::directory_iterator(fs::path(CAPSWEEP_SOURCE_DIR) / folder)) {
      if (e.path().extension() != ".h") continue;
      EXPECT_FALSE(fs::exists(kPublic / e.path().filename()) &&
                   e.path().filename() != "move.h" && e.path().filename() != "world_arrays.h")
          << e.path() << " is both internal and public";
    }
  }
}

// The version is configured in one place (project(VERSION) into version.h): a number written in
// a header's text goes stale with the next release (capsweep_c.h once said 0.4.0 in 0.5.0).
TEST(PublicHeaders, NameNoVersionButTheConfiguredOne) {
  const std::regex version(R"(\b\d+\.\d+\.\d+\b)");
  for (const fs::directory_entry& e : fs::directory_iterator(kPublic)) {
    std::ifstream in(e.path());
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
      EXPECT_FALSE(std::regex_search(line, version)) << e.path().filename().string() << ":" << number << ": " << line;
    }
  }
}

// Each C function that returns a pointer says who owns it and for how long it is valid: in the
// comment just above its declaration.
TEST(PublicHeaders, TheCApiSaysWhoOwnsEachPointerItReturns) {
  std::ifstream in(kPublic / "capsweep_c.h");
  const std::regex returns_pointer(R"(^CS_API\s+[^(]*\*\s*(\w+)\()");
  std::string line, comment;
  int pointers = 0;
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_search(line, m, returns_pointer)) {
      ++pointers;
      EXPECT_NE(comment.find("owned by the library"), std::string::npos) << m[1] << ": " << comment;
      EXPECT_NE(comment.find("valid"), std::string::npos) << m[1] << ": " << comment;
    }
    if (line.rfind("/*", 0) == 0) comment.clear();
    if (line.rfind("CS_API", 0) == 0) comment.clear();
    else comment += line + "\n";
  }
  EXPECT_EQ(pointers, 2);  // cs_version, cs_last_error
}

}  // namespace
