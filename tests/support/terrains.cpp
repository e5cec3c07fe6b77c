#include "tests/support/terrains.h"

#include <cmath>
#include <stdexcept>

#include "core/random.h"
#include "tests/support/test_meshes.h"

namespace terrains {

using namespace capsweep;

namespace {

// Heights in metres over the unit square of the grid (u, v in [0, 1]): every kind of ground a
// heightfield holds, side by side (x, z: metres from the first sample).
double ground(double u, double v, double x, double z, Random& rng) {
  if (u < 0.3) return 2.0 * std::sin(0.31 * x) * std::cos(0.23 * z) + 0.05 * rng.uniform();  // hills, rough
  if (u < 0.45) return 1.0;                                                                     // a plateau: seams
  if (u < 0.55) return 1.0 + 0.4 * (x - 0.45 * 64.0);                                           // a ramp (a plane)
  if (u < 0.6) return v < 0.5 ? 5.0 : 7.5;                                                      // a cliff
  if (u < 0.75) return 3.0 + 0.004 * std::fabs(z - 10.0);                                       // faint bends
  // A bowl: neighbouring faces bend by less than the seam angle, faces across a vertex by more.
  if (u < 0.85) return 3.0 + 0.026 * ((x - 0.8 * 64.0) * (x - 0.8 * 64.0) + (z - 20.0) * (z - 20.0));
  return 3.0 + 0.8 * std::sin(0.9 * x + 0.2 * z) + (rng.chance(0.05) ? 1.5 * rng.uniform() : 0.0);  // spikes
}

}  // namespace

Heightfield generate(const Options& o) {
  Heightfield t;
  t.columns = o.columns;
  t.rows = o.rows;
  t.cell_x = o.cell;
  t.cell_z = o.cell * 1.25f;  // non-square cells
  t.origin = o.origin;
  Random rng(o.seed);
  const std::size_t n = std::size_t(o.columns) * o.rows;
  if (o.samples16) {
    t.height_scale = 1.f / 512.f;
    t.samples.resize(n);
  } else {
    t.heights.resize(n);
  }
  for (std::uint32_t r = 0; r < o.rows; ++r) {
    for (std::uint32_t c = 0; c < o.columns; ++c) {
      const double u = double(c) / (o.columns - 1), v = double(r) / (o.rows - 1);
      const double h = ground(u, v, c * double(o.cell), r * double(o.cell) * 1.25, rng) + 4.0;
      const std::size_t i = std::size_t(r) * o.columns + c;
      if (o.samples16) {
        t.samples[i] = std::uint16_t(std::lround(std::clamp(h / t.height_scale, 0.0, 65535.0)));
      } else {
        t.heights[i] = float(h);
      }
    }
  }
  if (o.holes) {
    const std::uint32_t cx = o.columns - 1, cz = o.rows - 1;
    t.holes.assign(std::size_t(cx) * cz, 0);
    for (std::uint32_t r = cz / 3; r < cz / 3 + 4 && r < cz; ++r) {
      for (std::uint32_t c = cx / 5; c < cx / 5 + 6 && c < cx; ++c) t.holes[std::size_t(r) * cx + c] = 1;
    }
    for (int k = 0; k < 12; ++k) t.holes[rng.below(t.holes.size())] = 255;
  }
  return t;
}

MeshTwin mesh_twin(const Heightfield& terrain, const std::vector<Triangle>& buildings) {
  MeshTwin twin;
  twin.triangles = buildings;
  twin.buildings = buildings.size();
  const std::vector<Triangle> ground = heightfield_mesh(terrain, &twin.terrain_index);
  twin.triangles.insert(twin.triangles.end(), ground.begin(), ground.end());
  return twin;
}

std::uint32_t to_heightfield_index(const MeshTwin& twin, std::uint32_t m) {
  if (m == kNoTriangle || m < twin.buildings) return m;
  return std::uint32_t(twin.buildings) + twin.terrain_index.at(m - twin.buildings);
}

std::vector<Triangle> buildings_on(const Heightfield& terrain, std::uint64_t seed) {
  Random rng(seed);
  testmesh::Mesh mesh;
  const double width = terrain.cell_x * (terrain.columns - 1), depth = terrain.cell_z * (terrain.rows - 1);
  for (int k = 0; k < 6; ++k) {
    // Off the grid's vertices by a fraction of a cell, so no corner welds with the terrain.
    const double x = terrain.origin.x + rng.uniform(0.1, 0.85) * width + 0.37 * terrain.cell_x;
    const double z = terrain.origin.z + rng.uniform(0.1, 0.85) * depth + 0.41 * terrain.cell_z;
    const double w = rng.uniform(1.5, 5.0), d = rng.uniform(1.5, 5.0), h = rng.uniform(0.25, 4.0);
    mesh.box(Vec3(float(x), terrain.origin.y - 1.f, float(z)), Vec3(float(x + w), terrain.origin.y + 10.f + float(h), float(z + d)));
  }
  // A staircase of 0.2 m risers on the plateau (heights 5 m above the origin there).
  const float sx = terrain.origin.x + float(0.37 * width) + 0.13f, sz = terrain.origin.z + float(0.3 * depth) + 0.29f;
  for (int step = 0; step < 6; ++step) {
    mesh.box(Vec3(sx + 0.3f * float(step), terrain.origin.y + 4.5f, sz),
             Vec3(sx + 2.5f, terrain.origin.y + 5.2f + 0.2f * float(step), sz + 1.5f));
  }
  return mesh.triangles();
}

}  // namespace terrains
