#include "bench/scenes.h"

#include <map>
#include <memory>

#include "tools/arena.h"
#include <capsweep/files.h>

namespace capsweep::bench {

const std::vector<std::string>& scene_names() {
  static const std::vector<std::string> names{"arena", "recast_dungeon.obj", "recast_nav_test.obj",
                                              "oa_am_thornish.obj", "0ad_corinthian_isthmus_4p.obj.gz"};
  return names;
}

const World& world_for(const std::string& scene) {
  static std::map<std::string, std::unique_ptr<World>> cache;
  auto& w = cache[scene];
  if (!w) {
    w = std::make_unique<World>(scene == "arena" ? make_arena()
                                                 : load_scene(std::string(CAPSWEEP_SCENES_DIR) + "/" + scene));
  }
  return *w;
}

const std::vector<SweepQuery>& queries_for(const std::string& scene, Workload workload) {
  static std::map<std::pair<std::string, Workload>, std::vector<SweepQuery>> cache;
  auto& q = cache[{scene, workload}];
  if (q.empty()) q = make_workload(world_for(scene), workload, 8192, 2026);
  return q;
}

}  // namespace capsweep::bench
