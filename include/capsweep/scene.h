// Reads a triangle soup from a mesh file: anything Assimp reads (OBJ, glTF, PLY, STL, FBX, ...),
// and the same gzip-compressed (FILE.obj.gz).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <capsweep/shapes.h>

namespace capsweep {

struct SceneOptions {
  float scale = 1.0f;  // multiply every coordinate (e.g. 0.0254 for inch-based levels)
  bool z_up = false;   // the file is Z up: turn it to Y up, (x, y, z) -> (x, z, -y)
  // A layer table (empty: every triangle on layer 1). Each line `NAME LAYER[,LAYER...]` puts the
  // triangles of the material, mesh or node (an OBJ group or object, a glTF mesh or node)
  // called NAME on those layers, numbered 1 to 32; a material's entry wins over its mesh's, a
  // mesh's over its nodes' (the nearest node first). `#` starts a comment. Unnamed triangles
  // stay on layer 1. A malformed line, a layer out of range, or a name the scene does not hold
  // is refused, naming the table and the line.
  std::string layers;
};

// A file that cannot be read, parsed or holds no triangles: the message names the file.
class SceneError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Triangles in the file's order: Assimp's node hierarchy depth first, each node's meshes in
// order, each mesh's faces in order (for a plain OBJ, the order of its `f` lines), with node
// transforms applied. Polygons are fan-triangulated by Assimp; points and lines are ignored.
std::vector<Triangle> load_scene(const std::string& path, const SceneOptions& options = {});

// A list of layers, "1,3", as a mask (bit k = layer k + 1). Throws std::invalid_argument naming
// an item that is not a number from 1 to 32: the layer tables' lists and the commands' --mask.
std::uint32_t parse_layer_list(const std::string& list);

// The same with each triangle's layer mask, from options.layers.
struct LayeredScene {
  std::vector<Triangle> triangles;
  std::vector<std::uint32_t> layers;  // one mask per triangle (kDefaultLayers where unnamed)
};
LayeredScene load_layered_scene(const std::string& path, const SceneOptions& options = {});

// What load_scene does to the triangles it read: refuses an empty soup and applies the options.
// For soups made in code that should be treated like a file (`path` names it in errors).
std::vector<Triangle> transform_scene(std::vector<Triangle> triangles, const std::string& path,
                                      const SceneOptions& options = {});

}  // namespace capsweep
