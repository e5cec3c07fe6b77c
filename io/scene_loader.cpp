#include <capsweep/files.h>

#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <zlib.h>

#include <assimp/Importer.hpp>
#include <cmath>
#include <filesystem>
#include <algorithm>
#include <cctype>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>


#include "io/mesh_checks.h"
#include "io/scene_import.h"

namespace capsweep {

namespace {

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

std::string lower_extension(const std::string& path) {
  std::string e = std::filesystem::path(path).extension().string();
  for (char& c : e) c = char(std::tolower(static_cast<unsigned char>(c)));
  return e;
}

}  // namespace

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw SceneError(path + ": cannot open");
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  if (in.bad()) throw SceneError(path + ": read failed");
  return bytes;
}

const std::uint32_t* LayerTable::find(const std::string& name) {
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (!name.empty() && entries[i].first == name) {
      used[i] = true;
      return &entries[i].second;
    }
  }
  return nullptr;
}

std::uint32_t parse_layer_list(const std::string& list) {
  std::uint32_t mask = 0;
  std::istringstream items(list);
  for (std::string item; std::getline(items, item, ',');) {
    char* end = nullptr;
    const long layer = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || layer < 1 || layer > 32) {
      throw std::invalid_argument("layer '" + item + "' is not a number from 1 to 32");
    }
    mask |= 1u << (layer - 1);
  }
  if (mask == 0) throw std::invalid_argument("name at least one layer");
  return mask;
}

LayerTable read_layer_table(const std::string& path) {
  LayerTable table;
  table.path = path;
  std::ifstream in(path);
  if (!in) throw SceneError(path + ": cannot open the layer table");
  std::string text;
  for (int number = 1; std::getline(in, text); ++number) {
    const std::string where = path + ":" + std::to_string(number) + ": ";
    text = text.substr(0, text.find('#'));
    std::istringstream words(text);
    std::string name, list, extra;
    if (!(words >> name)) continue;  // blank or comment
    if (!(words >> list) || (words >> extra)) throw SceneError(where + "expected `NAME LAYER[,LAYER...]`");
    std::uint32_t mask = 0;
    try {
      mask = parse_layer_list(list);
    } catch (const std::invalid_argument& e) {
      throw SceneError(where + e.what());
    }
    for (const auto& [seen_name, seen_mask] : table.entries) {
      if (seen_name == name) throw SceneError(where + "'" + name + "' is listed twice");
    }
    table.entries.push_back({name, mask});
    table.line.push_back(number);
  }
  table.used.assign(table.entries.size(), false);
  return table;
}

namespace {

// The layers of a mesh's triangles: its material's entry, else its own, else the nearest
// named node's on the way down (`inherited`), else layer 1.
std::uint32_t mesh_layers(const aiScene& scene, const aiMesh& mesh, LayerTable* table, const std::uint32_t* inherited) {
  if (!table) return kDefaultLayers;
  const std::uint32_t* found = nullptr;
  if (mesh.mMaterialIndex < scene.mNumMaterials && scene.mMaterials[mesh.mMaterialIndex]) {
    aiString material;
    if (scene.mMaterials[mesh.mMaterialIndex]->Get(AI_MATKEY_NAME, material) == AI_SUCCESS) {
      found = table->find(material.C_Str());
    }
  }
  if (const std::uint32_t* own = table->find(mesh.mName.C_Str()); !found) found = own;
  if (!found) found = inherited;
  return found ? *found : kDefaultLayers;
}

}  // namespace

const std::uint32_t* node_layers(const aiNode& node, LayerTable* table, const std::uint32_t* inherited) {
  if (table) {
    if (const std::uint32_t* own = table->find(node.mName.C_Str())) return own;
  }
  return inherited;
}

void collect_meshes(const std::string& path, const aiScene& scene, const aiNode& node, const aiMatrix4x4& transform,
                    LayeredScene& out, LayerTable* table, const std::uint32_t* inherited) {
  for (unsigned m = 0; m < node.mNumMeshes; ++m) {
    const aiMesh& mesh = *scene.mMeshes[node.mMeshes[m]];
    const std::uint32_t layers = mesh_layers(scene, mesh, table, inherited);
    for (unsigned f = 0; f < mesh.mNumFaces; ++f) {
      const aiFace& face = mesh.mFaces[f];
      if (face.mNumIndices < 3) continue;  // points and lines: no triangle
      // Assimp is not trusted to have checked: every index must name a vertex of the mesh.
      if (face.mNumIndices != 3 || !face.mIndices || !mesh.mVertices) {
        throw SceneError(path + ": mesh " + std::to_string(node.mMeshes[m]) + " face " + std::to_string(f) +
                         " was not triangulated (" + std::to_string(face.mNumIndices) + " indices)");
      }
      Triangle t;
      for (int k = 0; k < 3; ++k) {
        if (face.mIndices[k] >= mesh.mNumVertices) {
          throw SceneError(path + ": mesh " + std::to_string(node.mMeshes[m]) + " face " + std::to_string(f) +
                           " names vertex " + std::to_string(face.mIndices[k]) + " of " +
                           std::to_string(mesh.mNumVertices));
        }
        const aiVector3D v = transform * mesh.mVertices[face.mIndices[k]];
        t.v[k] = {v.x, v.y, v.z};
      }
      out.triangles.push_back(t);
      out.layers.push_back(layers);
    }
  }
}

void collect(const std::string& path, const aiScene& scene, const aiNode& node, const aiMatrix4x4& parent,
             LayeredScene& out, LayerTable* table, const std::uint32_t* inherited, const TakeNode& take) {
  if (take && take(node, inherited)) return;
  const aiMatrix4x4 transform = parent * node.mTransformation;
  inherited = node_layers(node, table, inherited);
  collect_meshes(path, scene, node, transform, out, table, inherited);
  for (unsigned c = 0; c < node.mNumChildren; ++c) {
    collect(path, scene, *node.mChildren[c], transform, out, table, inherited, take);
  }
}

void check_all_used(const LayerTable& table, const std::string& path) {
  for (std::size_t i = 0; i < table.entries.size(); ++i) {
    if (!table.used[i]) {
      throw SceneError(table.path + ":" + std::to_string(table.line[i]) + ": '" + table.entries[i].first +
                       "' names no material, mesh or node of " + path);
    }
  }
}

ImportedScene import_scene(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw SceneError(path + ": no such file");
  ImportedScene out;
  out.importer = std::make_unique<Assimp::Importer>();
  // Triangulate only: no welding, no reordering, no removal of degenerate triangles, so that
  // triangle indices follow the file.
  const unsigned flags = aiProcess_Triangulate;
  if (ends_with(path, ".gz")) {
    out.bytes = inflate_gzip(path, read_file(path));
    out.extension = lower_extension(path.substr(0, path.size() - 3));
    check_mesh_bytes(path, out.bytes, out.extension);
    out.scene = out.importer->ReadFileFromMemory(out.bytes.data(), out.bytes.size(), flags,
                                                 out.extension.empty() ? "" : out.extension.c_str() + 1);
  } else {
    out.extension = lower_extension(path);
    if (out.extension == ".ply" || out.extension == ".off") {
      out.bytes = read_file(path);
      check_mesh_bytes(path, out.bytes, out.extension);
    }
    out.scene = out.importer->ReadFile(path, flags);
  }
  if (!out.scene || !out.scene->mRootNode) {
    throw SceneError(path + ": cannot read the mesh (" + std::string(out.importer->GetErrorString()) + ")");
  }
  return out;
}

std::vector<Triangle> load_scene(const std::string& path, const SceneOptions& options) {
  return load_layered_scene(path, options).triangles;
}

LayeredScene load_layered_scene(const std::string& path, const SceneOptions& options) {
  if (!(options.scale > 0.f) || !std::isfinite(options.scale)) throw SceneError(path + ": --scale must be positive");
  std::optional<LayerTable> table;
  if (!options.layers.empty()) table = read_layer_table(options.layers);
  const ImportedScene imported = import_scene(path);
  LayeredScene out;
  collect(path, *imported.scene, *imported.scene->mRootNode, aiMatrix4x4(), out, table ? &*table : nullptr, nullptr);
  if (table) check_all_used(*table, path);
  out.triangles = transform_scene(std::move(out.triangles), path, options);
  return out;
}

std::vector<Triangle> transform_scene(std::vector<Triangle> triangles, const std::string& path,
                                      const SceneOptions& options) {
  if (!(options.scale > 0.f) || !std::isfinite(options.scale)) throw SceneError(path + ": --scale must be positive");
  if (triangles.empty()) throw SceneError(path + ": the file holds no triangles");
  for (Triangle& t : triangles) {
    for (Vec3& v : t.v) {
      if (options.z_up) v = {v.x, v.z, -v.y};
      v = v * options.scale;
    }
  }
  return triangles;
}

}  // namespace capsweep
