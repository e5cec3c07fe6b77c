#include "tests/support/scene_list.h"

#include <cctype>

#include <algorithm>
#include <filesystem>

#include "tools/arena.h"
#include <capsweep/scene.h>

namespace scenes {

std::vector<std::string> names() {
  std::vector<std::string> names{"@arena"};
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

std::vector<capsweep::Triangle> load(const std::string& name) {
  return name == "@arena" ? capsweep::make_arena()
                          : capsweep::load_scene(std::string(CAPSWEEP_SCENES_DIR) + "/" + name);
}

std::string test_name(const std::string& name) {
  std::string n;
  for (char c : name) n += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return n;
}

}  // namespace scenes
