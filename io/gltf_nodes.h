// The `nodes` of a glTF 2.0 file as the file numbers them (internal to io/): Assimp 5.2 keeps a
// node's name (or "nodes[i]" for an unnamed one) but not its index, so the JSON is read here
// (nlohmann/json) for each node's index, name, children, transform (in double) and its
// `extras.capsweep` mark. Only the scene Assimp imports (`scene`, else scene 0) matters.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "io/node_transform.h"

namespace capsweep {

struct GltfNode {
  std::string name;  // "" when the file gives none
  std::vector<std::uint32_t> children;
  Affine local;         // relative to its parent
  bool marked = false;  // extras: {"capsweep": {"dynamic": true}}
};

struct GltfNodes {
  std::vector<GltfNode> nodes;        // the file's `nodes`, in its order
  std::vector<std::uint32_t> roots;   // the imported scene's
};

// `bytes` is the whole file (a .gltf's JSON or a .glb). Throws SceneError naming `path`, and the
// node where one is at fault ("node 3 'Door': ...").
GltfNodes read_gltf_nodes(const std::string& path, std::string_view bytes);

// "node 3 'Door'", or "node 3" for an unnamed one: how messages name a node.
std::string node_label(const GltfNodes& nodes, std::uint32_t index);

}  // namespace capsweep
