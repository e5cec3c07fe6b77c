// Scenes with parts that move: a glTF 2.0 scene's dynamic nodes as instances of their meshes
// (docs/INSTANCES.md, "Scenes with instances"), every other node baked as load_layered_scene
// bakes it.
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <unordered_map>

#include <capsweep/files.h>

#include "io/gltf_nodes.h"
#include "io/scene_import.h"

namespace capsweep {

namespace {

bool has_capsweep_extras(const aiNode& node) {
  if (const aiMetadata* m = node.mMetaData) {
    for (unsigned k = 0; k < m->mNumProperties; ++k) {
      if (std::string(m->mKeys[k].C_Str()) == "capsweep") return true;
    }
  }
  for (unsigned c = 0; c < node.mNumChildren; ++c) {
    if (has_capsweep_extras(*node.mChildren[c])) return true;
  }
  return false;
}

// The file's nodes beside Assimp's tree: Assimp 5.2 imports the scene's root nodes in order (under
// a node of its own when there are several) and each node's children in order, naming an unnamed
// node "nodes[i]". Anything else is refused rather than guessed at.
struct NodeMap {
  const std::string& path;
  const GltfNodes& file;
  std::unordered_map<const aiNode*, std::uint32_t> index_of;
  std::vector<Affine> world;  // each node's transform in the scene, in double

  void match(const aiNode& ai, std::uint32_t i, const Affine& parent) {
    const GltfNode& n = file.nodes[i];
    const std::string expected = n.name.empty() ? "nodes[" + std::to_string(i) + "]" : n.name;
    if (expected.compare(0, MAXLEN - 1, ai.mName.C_Str()) != 0 || ai.mNumChildren != n.children.size() ||
        !index_of.emplace(&ai, i).second) {
      throw SceneError(path + ": " + node_label(file, i) + ": Assimp's node tree does not follow the file's nodes here");
    }
    world[i] = parent * n.local;
    for (std::size_t c = 0; c < n.children.size(); ++c) match(*ai.mChildren[c], n.children[c], world[i]);
  }

  NodeMap(const std::string& p, const GltfNodes& f, const aiNode& root) : path(p), file(f), world(f.nodes.size()) {
    if (file.roots.size() == 1) {
      match(root, file.roots[0], Affine{});
      return;
    }
    if (root.mNumChildren != file.roots.size()) throw SceneError(path + ": Assimp's node tree does not follow the file's scene");
    for (std::size_t r = 0; r < file.roots.size(); ++r) match(*root.mChildren[r], file.roots[r], Affine{});
  }
};

class InstanceMaker {
 public:
  InstanceMaker(const std::string& path, const aiScene& scene, const SceneOptions& options, LayerTable* table,
                const GltfNodes& file, const NodeMap& map)
      : path_(path), scene_(scene), options_(options), table_(table), file_(file), map_(map) {}

  bool dynamic(std::uint32_t i) const {
    const GltfNode& n = file_.nodes[i];
    return n.marked || (!options_.dynamic_prefix.empty() && n.name.rfind(options_.dynamic_prefix, 0) == 0);
  }

  // The walk's TakeNode: a dynamic node becomes an instance, its children with it.
  bool take(const aiNode& node, const std::uint32_t* inherited, InstancedScene& out) {
    const auto found = map_.index_of.find(&node);
    if (found == map_.index_of.end() || !dynamic(found->second)) return false;
    const std::uint32_t index = found->second;
    const std::string where = path_ + ": " + node_label(file_, index);
    for (unsigned c = 0; c < node.mNumChildren; ++c) refuse_nested(*node.mChildren[c], index);
    Instance instance{index, 0, pose_of(index, where), kDefaultLayers};
    // Its triangles in its own frame: its meshes as they are, its children's by their transforms.
    LayeredScene own;
    inherited = node_layers(node, table_, inherited);
    collect_meshes(path_, scene_, node, aiMatrix4x4(), own, table_, inherited);
    for (unsigned c = 0; c < node.mNumChildren; ++c) {
      collect(path_, scene_, *node.mChildren[c], aiMatrix4x4(), own, table_, inherited);
    }
    if (own.triangles.empty()) throw SceneError(where + ": a dynamic node needs a mesh (neither it nor its children hold a triangle)");
    for (std::uint32_t mask : own.layers) {
      if (mask != own.layers[0]) {
        throw SceneError(where + ": its triangles are on different layers (masks " + std::to_string(own.layers[0]) +
                         " and " + std::to_string(mask) + "): an instance's triangles share one mask");
      }
    }
    instance.layers = own.layers[0];
    for (Triangle& t : own.triangles) {
      for (Vec3& v : t.v) v = v * options_.scale;  // as transform_scene scales; z-up is in the pose
    }
    const std::string key(reinterpret_cast<const char*>(own.triangles.data()), own.triangles.size() * sizeof(Triangle));
    const auto [shared, added] = prototype_of_.emplace(key, std::uint32_t(out.prototypes.size()));
    if (added) out.prototypes.push_back(std::move(own.triangles));
    instance.prototype = shared->second;
    out.instances.push_back(instance);
    return true;
  }

 private:
  void refuse_nested(const aiNode& node, std::uint32_t owner) const {
    const auto found = map_.index_of.find(&node);
    if (found != map_.index_of.end() && dynamic(found->second)) {
      throw SceneError(path_ + ": " + node_label(file_, found->second) + " is dynamic inside dynamic " +
                       node_label(file_, owner) + ": an instance takes its children with it (mark one of the two)");
    }
    for (unsigned c = 0; c < node.mNumChildren; ++c) refuse_nested(*node.mChildren[c], owner);
  }

  // The node's transform in the scene as a pose, turned Y up and scaled as the static part is.
  Pose pose_of(std::uint32_t index, const std::string& where) const {
    Affine world = map_.world[index];
    if (options_.z_up) {
      Affine turn;  // (x, y, z) -> (x, z, -y): a rotation about x
      turn.m[1][1] = 0, turn.m[1][2] = 1, turn.m[2][1] = -1, turn.m[2][2] = 0;
      world = turn * world;
    }
    Pose pose;
    if (const std::string why = rigid_pose(world, pose); !why.empty()) {
      throw SceneError(where + ": its transform in the scene " + why + ": an instance is only rotated and moved");
    }
    pose.position = pose.position * double(options_.scale);
    return pose;
  }

  const std::string& path_;
  const aiScene& scene_;
  const SceneOptions& options_;
  LayerTable* table_;
  const GltfNodes& file_;
  const NodeMap& map_;
  std::map<std::string, std::uint32_t> prototype_of_;  // a prototype's triangles, as bytes
};

}  // namespace

InstancedScene load_instanced_scene(const std::string& path, const SceneOptions& options) {
  if (!(options.scale > 0.f) || !std::isfinite(options.scale)) throw SceneError(path + ": --scale must be positive");
  std::optional<LayerTable> table;
  if (!options.layers.empty()) table = read_layer_table(options.layers);
  const ImportedScene imported = import_scene(path);
  const bool gltf = imported.extension == ".gltf" || imported.extension == ".glb";
  if (!options.dynamic_prefix.empty() && !gltf) {
    throw SceneError(path + ": dynamic nodes (the prefix '" + options.dynamic_prefix + "') are read from glTF 2.0 scenes only");
  }
  InstancedScene out;
  const aiNode& root = *imported.scene->mRootNode;
  LayerTable* layers = table ? &*table : nullptr;
  // The JSON is read only when some node may be dynamic: any other scene loads as it always has.
  if (gltf && (!options.dynamic_prefix.empty() || has_capsweep_extras(root))) {
    const GltfNodes file = read_gltf_nodes(path, imported.bytes.empty() ? read_file(path) : imported.bytes);
    const NodeMap map(path, file, root);
    InstanceMaker maker(path, *imported.scene, options, layers, file, map);
    collect(path, *imported.scene, root, aiMatrix4x4(), out.static_part, layers, nullptr,
            [&](const aiNode& node, const std::uint32_t* inherited) { return maker.take(node, inherited, out); });
  } else {
    collect(path, *imported.scene, root, aiMatrix4x4(), out.static_part, layers, nullptr);
  }
  if (table) check_all_used(*table, path);
  if (!out.instances.empty() && out.static_part.triangles.empty()) {
    throw SceneError(path + ": every triangle is in a dynamic node; the static part needs one at least");
  }
  out.static_part.triangles = transform_scene(std::move(out.static_part.triangles), path, options);
  return out;
}

World place_instances(World static_part, InstancedScene scene, const std::string& path) {
  if (scene.instances.empty()) return static_part;
  std::vector<World> prototypes;
  for (std::size_t k = 0; k < scene.prototypes.size(); ++k) {
    try {
      prototypes.emplace_back(std::move(scene.prototypes[k]));
    } catch (const WorldError& e) {
      const auto first = std::find_if(scene.instances.begin(), scene.instances.end(),
                                      [&](const Instance& in) { return in.prototype == k; });
      throw SceneError(path + ": node " + std::to_string(first->id) + "'s meshes: " + e.what());
    }
  }
  try {
    return World(static_part, std::move(prototypes), std::move(scene.instances));
  } catch (const WorldError& e) {
    throw SceneError(path + ": " + e.what());
  }
}

}  // namespace capsweep
