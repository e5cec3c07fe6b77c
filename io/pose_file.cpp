// Poses of instances from CSV (docs/FORMATS.md, "Poses (CSV)").
#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include <capsweep/files.h>

#include "io/csv_fields.h"

namespace capsweep {

namespace {

constexpr const char* kColumns[8] = {"id", "tx", "ty", "tz", "qx", "qy", "qz", "qw"};

}  // namespace

PoseFile read_poses(const std::string& path) {
  PoseFile out;
  std::unordered_map<std::uint32_t, std::uint32_t> line_of;  // id -> the line that posed it
  csv::for_each_row(path, kColumns, 8, [&](const std::vector<std::string>& fields, std::uint32_t line) {
    auto refuse = [&](const std::string& why) { throw FormatError(path + ":" + std::to_string(line) + ": " + why); };
    if (fields.size() != 8) {
      refuse("expected 8 fields `id,tx,ty,tz,qx,qy,qz,qw`, found " + std::to_string(fields.size()));
    }
    InstancePose p;
    double v[7];
    if (std::string why = csv::whole_number(fields[0], p.id); !why.empty()) refuse(why);
    for (int k = 0; k < 7; ++k) {
      if (std::string why = csv::number(fields[std::size_t(k + 1)], kColumns[k + 1], v[k]); !why.empty()) refuse(why);
    }
    p.pose = Pose{Vec3d(v[0], v[1], v[2]), Quat{v[3], v[4], v[5], v[6]}};
    if (std::string why = check_pose(p.pose); !why.empty()) refuse("instance " + std::to_string(p.id) + ": " + why);
    if (const auto [seen, added] = line_of.emplace(p.id, line); !added) {
      refuse("instance " + std::to_string(p.id) + " is posed twice (first on line " + std::to_string(seen->second) + ")");
    }
    out.poses.push_back(p);
    out.lines.push_back(line);
  });
  return out;
}

World posed_from_file(const World& world, const std::string& path) {
  const PoseFile file = read_poses(path);
  if (world.instances().empty()) {
    throw FormatError(path + ": the world has no instances to pose (a glTF scene's dynamic nodes are its instances)");
  }
  std::unordered_set<std::uint32_t> ids;
  for (const Instance& in : world.instances()) ids.insert(in.id);
  for (std::size_t row = 0; row < file.poses.size(); ++row) {
    if (!ids.count(file.poses[row].id)) {
      throw FormatError(path + ":" + std::to_string(file.lines[row]) + ": the world has no instance " +
                        std::to_string(file.poses[row].id));
    }
  }
  try {
    // posed() remembers the motion from the frame it was called on; posing that frame again at
    // the same poses moves nothing, so the frame returned is still.
    const World moved = world.posed(file.poses);
    return moved.posed(file.poses);
  } catch (const WorldError& e) {
    // "pose ROW (instance ID): reason" (World::posed): the row as the file's line.
    const std::string what = e.what();
    std::size_t row = 0;
    const auto [end, ec] = std::from_chars(what.data() + std::min<std::size_t>(5, what.size()), what.data() + what.size(), row);
    const std::size_t close = what.find("): ");
    if (what.rfind("pose ", 0) != 0 || ec != std::errc() || row >= file.lines.size() || close == std::string::npos) {
      throw FormatError(path + ": " + what);
    }
    throw FormatError(path + ":" + std::to_string(file.lines[row]) + ": instance " +
                      std::to_string(file.poses[row].id) + ": " + what.substr(close + 3));
  }
}

}  // namespace capsweep
