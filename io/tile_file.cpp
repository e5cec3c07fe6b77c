// Tiles from CSV (docs/FORMATS.md, "Tiles (CSV)").
#include <cmath>
#include <filesystem>
#include <fstream>
#include <unordered_map>
#include <utility>

#include <capsweep/files.h>

#include "io/csv_fields.h"

namespace capsweep {

namespace {

constexpr const char* kColumns[6] = {"id", "x", "y", "z", "mesh", "layers"};

}  // namespace

TileFile read_tiles(const std::string& path, int threads) {
  const std::filesystem::path folder = std::filesystem::path(path).parent_path();
  TileFile out;
  std::unordered_map<std::uint32_t, std::uint32_t> line_of;  // id -> the line that listed it
  csv::for_each_row(path, kColumns, 5, [&](const std::vector<std::string>& fields, std::uint32_t line) {
    auto refuse = [&](const std::string& why) { throw FormatError(path + ":" + std::to_string(line) + ": " + why); };
    if (fields.size() != 5 && fields.size() != 6) {
      refuse("expected 5 or 6 fields `id,x,y,z,mesh[,layers]`, found " + std::to_string(fields.size()));
    }
    std::uint32_t id = 0;
    double origin[3];
    if (std::string why = csv::whole_number(fields[0], id); !why.empty()) refuse(why);
    for (int k = 0; k < 3; ++k) {
      if (std::string why = csv::number(fields[std::size_t(k + 1)], kColumns[k + 1], origin[k]); !why.empty()) refuse(why);
      if (std::fabs(origin[k]) > double(kMaxCoordinate)) refuse(std::string(kColumns[k + 1]) + " is beyond 1e6 m of the origin");
    }
    std::uint32_t layers = kDefaultLayers;
    if (fields.size() == 6) {
      std::string list = fields[5];
      for (char& c : list) c = c == '|' ? ',' : c;
      try {
        layers = parse_layer_list(list);
      } catch (const std::invalid_argument& e) {
        refuse("layers '" + fields[5] + "': " + e.what());
      }
    }
    if (const auto [seen, added] = line_of.emplace(id, line); !added) {
      refuse("tile " + std::to_string(id) + " is listed twice (first on line " + std::to_string(seen->second) + ")");
    }
    if (fields[4].empty()) refuse("tile " + std::to_string(id) + ": no mesh file");
    const std::filesystem::path mesh(fields[4]);
    const std::string mesh_path = (mesh.is_absolute() || folder.empty() ? mesh : folder / mesh).string();
    try {
      out.tiles.push_back(build_tile(id, Vec3d(origin[0], origin[1], origin[2]), load_scene(mesh_path), layers, threads));
    } catch (const SceneError& e) {
      refuse("tile " + std::to_string(id) + ": " + e.what());
    } catch (const WorldError& e) {
      refuse("tile " + std::to_string(id) + ": " + mesh_path + ": " + e.what());
    }
    out.lines.push_back(line);
    out.meshes.push_back(mesh_path);
  });
  return out;
}

World streamed_from_file(const World& world, const std::string& path) {
  const TileFile file = read_tiles(path);
  // Each row alone against the world first, so that a refusal names its line.
  for (std::size_t row = 0; row < file.tiles.size(); ++row) {
    try {
      (void)world.streamed(std::span(&file.tiles[row], 1));
    } catch (const WorldError& e) {
      // "added tile ID (row 0): reason" or "tile ID: reason": the reason, named by line.
      const std::string what = e.what();
      const std::size_t reason = what.find(": ");
      throw FormatError(path + ":" + std::to_string(file.lines[row]) + ": tile " + std::to_string(file.tiles[row].id) +
                        ": " + (reason == std::string::npos ? what : what.substr(reason + 2)));
    }
  }
  try {
    return world.streamed(file.tiles);
  } catch (const WorldError& e) {
    throw FormatError(path + ": " + e.what());  // every row alone was accepted: only the sum is refused
  }
}

}  // namespace capsweep
