// What the scene loaders share (internal to io/): Assimp's import of a file, the layer table, and
// the walk that bakes a node tree's triangles (scene_loader.cpp). load_layered_scene bakes every
// node; load_instanced_scene (instanced_scene.cpp) bakes all but the dynamic nodes' subtrees.
#pragma once

#include <assimp/scene.h>

#include <assimp/Importer.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <capsweep/files.h>

namespace capsweep {

// A layer table (SceneOptions::layers): name -> mask, and which names the scene used.
struct LayerTable {
  std::string path;
  std::vector<std::pair<std::string, std::uint32_t>> entries;
  std::vector<int> line;  // of each entry
  std::vector<bool> used;

  const std::uint32_t* find(const std::string& name);
};

// Throws SceneError naming the table and the line.
LayerTable read_layer_table(const std::string& path);
// Throws SceneError naming the first entry the scene `path` never used.
void check_all_used(const LayerTable& table, const std::string& path);

// A file read by Assimp (triangulated only: triangle indices follow the file).
struct ImportedScene {
  std::unique_ptr<Assimp::Importer> importer;  // owns `scene`
  const aiScene* scene = nullptr;
  std::string bytes;      // the file's bytes (inflated) when the loader read them itself, else empty
  std::string extension;  // lower case with the dot, of the file inside a .gz
};
// Throws SceneError naming the file.
ImportedScene import_scene(const std::string& path);
// The file's bytes (SceneError naming it when it cannot be read).
std::string read_file(const std::string& path);

// The layers a node's own name gives its subtree (the nearest named node wins): `inherited`, or
// the table's entry for the node.
const std::uint32_t* node_layers(const aiNode& node, LayerTable* table, const std::uint32_t* inherited);

// Appends the triangles of `node`'s own meshes, each vertex by `transform`, with their layers.
void collect_meshes(const std::string& path, const aiScene& scene, const aiNode& node, const aiMatrix4x4& transform,
                    LayeredScene& out, LayerTable* table, const std::uint32_t* inherited);

// Called for each node before the walk enters it, with the layers it inherits from above;
// returning true takes the node and its subtree out of the walk (the caller handles them).
using TakeNode = std::function<bool(const aiNode& node, const std::uint32_t* inherited)>;

// Bakes `node` and its subtree, depth first, each node's meshes in order (parent * the node's
// own transform), skipping the subtrees `take` claims.
void collect(const std::string& path, const aiScene& scene, const aiNode& node, const aiMatrix4x4& parent,
             LayeredScene& out, LayerTable* table, const std::uint32_t* inherited, const TakeNode& take = {});

}  // namespace capsweep
