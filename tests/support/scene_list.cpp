#include "tests/support/scene_list.h"

#include <cctype>

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include "tools/arena.h"
#if CAPSWEEP_TESTS_READ_FILES
#include <capsweep/files.h>
#endif

namespace scenes {

std::vector<std::string> names() {
  std::vector<std::string> names{"@arena"};
  if (!CAPSWEEP_TESTS_READ_FILES) return names;
  std::vector<std::string> files;
  std::error_code error;
  for (std::filesystem::directory_iterator it(CAPSWEEP_SCENES_DIR, error), end; !error && it != end;
       it.increment(error)) {
    const std::string f = it->path().filename().string();
    if (f.ends_with(".obj") || f.ends_with(".obj.gz")) files.push_back(f);
  }
  if (files.empty()) files.push_back("no scenes in " CAPSWEEP_SCENES_DIR);
  std::sort(files.begin(), files.end());
  names.insert(names.end(), files.begin(), files.end());
  return names;
}

std::vector<std::string> readable(std::vector<std::string> names) {
  if (!CAPSWEEP_TESTS_READ_FILES) std::erase_if(names, [](const std::string& n) { return n != "@arena"; });
  return names;
}

std::vector<capsweep::Triangle> load(const std::string& name) {
  if (name == "@arena") return capsweep::make_arena();
#if CAPSWEEP_TESTS_READ_FILES
  return capsweep::load_scene(std::string(CAPSWEEP_SCENES_DIR) + "/" + name);
#else
  throw std::invalid_argument("scene " + name + ": this build reads no files (CAPSWEEP_BUILD_IO=OFF)");
#endif
}

std::string test_name(const std::string& name) {
  std::string n;
  for (char c : name) n += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return n;
}

}  // namespace scenes
