// Generated heightfields for the terrain tests: rolling hills, exact planes and ramps, flat
// plateaus (seams everywhere), cliffs a person cannot climb, faint bends under the seam angle,
// holes. Each comes with the mesh of the same terrain, so a heightfield world can be held to the
// mesh world's answers.
#pragma once

#include <cstdint>
#include <vector>

#include <capsweep/world.h>

namespace terrains {

struct Options {
  std::uint32_t columns = 65, rows = 49;
  float cell = 1.f;
  capsweep::Vec3 origin{-20.f, 0.f, -13.f};
  bool samples16 = false;  // 16-bit samples with a height scale instead of float heights
  bool holes = false;      // a few rectangles of holes, and scattered single ones
  std::uint64_t seed = 1;
};

capsweep::Heightfield generate(const Options& options);

// The heightfield's terrain as a mesh world (heightfield_mesh), with `buildings` first: the
// world a heightfield world built from (terrain, buildings) must answer exactly like, once a
// terrain triangle's index is mapped (to_heightfield_index).
struct MeshTwin {
  std::vector<capsweep::Triangle> triangles;     // buildings, then the terrain's triangles
  std::vector<std::uint32_t> terrain_index;      // for each terrain triangle of `triangles`
  std::size_t buildings = 0;
};
MeshTwin mesh_twin(const capsweep::Heightfield& terrain, const std::vector<capsweep::Triangle>& buildings);

// A mesh triangle index of the twin as the heightfield world names it.
std::uint32_t to_heightfield_index(const MeshTwin& twin, std::uint32_t mesh_index);

// Boxes (houses, walls, a staircase) standing on the generated terrain, clear of its vertices.
std::vector<capsweep::Triangle> buildings_on(const capsweep::Heightfield& terrain, std::uint64_t seed);

}  // namespace terrains
