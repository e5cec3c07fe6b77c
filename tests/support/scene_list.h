// The scenes every per-scene test runs on: the built-in arena and each mesh in the repository's
// scenes folder.
#pragma once

#include <string>
#include <vector>

#include <capsweep/values.h>

namespace scenes {

// "@arena" first, then scenes/'s .obj and .obj.gz files, sorted (only "@arena" when the build
// has no io to read them). Runs while the tests
// are listed (at build time), so it never throws: a missing folder yields one name that says
// so, and the test instantiated with it fails loading it.
std::vector<std::string> names();
// Those of `names` this build can load: all of them, or only "@arena" when it has no io.
std::vector<std::string> readable(std::vector<std::string> names);

std::vector<capsweep::Triangle> load(const std::string& name);
// The name as a gtest parameter name: letters and digits, '_' for the rest.
std::string test_name(const std::string& name);

}  // namespace scenes
