#include "viewer/mesh_buffer.h"

#include <cstring>
#include <unordered_map>
#include <vector>

namespace capsweep::viewer {

namespace {

template <class T>
void put(std::string& out, std::size_t& at, T v) {
  std::memcpy(out.data() + at, &v, sizeof v);
  at += sizeof v;
}

}  // namespace

std::string mesh_buffer(const World& world) {
  const WorldStats stats = world.stats();
  const std::uint32_t total = std::uint32_t(world.triangle_count());
  const std::uint32_t terrain_begin = std::uint32_t(stats.mesh_triangles);
  const std::uint32_t terrain_count = std::uint32_t(stats.heightfield_triangles);
  const std::uint32_t drawn = total - terrain_count;
  const std::uint32_t columns = stats.heightfield_columns, rows = stats.heightfield_rows;
  auto skip_terrain = [&](std::uint32_t k) { return k < terrain_begin ? k : k + terrain_count; };
  // Each distinct vertex once (by its float bits), in order of first use: a level's triangles
  // share their corners, so the page uploads and transforms about a sixth of the vertices.
  struct Key {
    std::uint32_t bits[3];
    bool operator==(const Key& o) const { return std::memcmp(bits, o.bits, sizeof bits) == 0; }
  };
  struct Hash {
    std::size_t operator()(const Key& k) const {
      std::uint64_t h = 1469598103934665603ull;
      for (std::uint32_t b : k.bits) h = (h ^ b) * 1099511628211ull;
      return std::size_t(h ^ (h >> 29));
    }
  };
  std::unordered_map<Key, std::uint32_t, Hash> index_of;
  index_of.reserve(std::size_t(drawn) * 3 / 4 + 16);
  std::vector<Vec3> vertices;
  std::vector<std::uint32_t> indices(std::size_t(drawn) * 3);
  for (std::uint32_t k = 0; k < drawn; ++k) {
    const Triangle t = world.triangle(skip_terrain(k));
    for (int j = 0; j < 3; ++j) {
      Key key;
      std::memcpy(key.bits, &t.v[j], sizeof key.bits);
      const auto [it, added] = index_of.try_emplace(key, std::uint32_t(vertices.size()));
      if (added) vertices.push_back(t.v[j]);
      indices[3 * std::size_t(k) + j] = it->second;
    }
  }
  const std::uint32_t vertex_count = std::uint32_t(vertices.size());
  const std::size_t cells = columns > 1 ? std::size_t(columns - 1) * (rows - 1) : 0;
  const std::size_t grid_bytes = columns > 1 ? 16 + 4 * std::size_t(columns) * rows + (cells + 3) / 4 * 4 : 0;
  std::string out(32 + std::size_t(vertex_count) * 12 + std::size_t(drawn) * 16 + grid_bytes, '\0');
  std::size_t at = 0;
  for (std::uint32_t v : {kMeshMagic, kMeshVersion, drawn, terrain_begin, terrain_count, columns, rows, vertex_count}) put(out, at, v);
  for (const Vec3& v : vertices) {
    put(out, at, v.x);
    put(out, at, v.y);
    put(out, at, v.z);
  }
  for (std::uint32_t i : indices) put(out, at, i);
  for (std::uint32_t k = 0; k < drawn; ++k) put(out, at, world.layers_of(skip_terrain(k)));
  if (columns > 1) {
    // Samples read back from the world's own triangles: half 0 of cell (r, c) starts at sample
    // (r, c), its second corner is (r + 1, c) and its third (r, c + 1), so the last row and
    // column come from the cells before them. The same floats the world answers from.
    auto cell_triangle = [&](std::uint32_t r, std::uint32_t c) {
      return world.triangle(terrain_begin + 2 * (r * (columns - 1) + c));
    };
    const Triangle first = cell_triangle(0, 0);
    put(out, at, first.v[0].x);
    put(out, at, first.v[0].z);
    put(out, at, first.v[2].x - first.v[0].x);
    put(out, at, first.v[1].z - first.v[0].z);
    for (std::uint32_t r = 0; r < rows; ++r) {
      for (std::uint32_t c = 0; c < columns; ++c) {
        const std::uint32_t cr = r < rows - 1 ? r : r - 1, cc = c < columns - 1 ? c : c - 1;
        const Triangle t = cell_triangle(cr, cc);
        const Vec3& v = r == cr ? (c == cc ? t.v[0] : t.v[2]) : (c == cc ? t.v[1] : world.triangle(terrain_begin + 2 * (cr * (columns - 1) + cc) + 1).v[2]);
        put(out, at, v.y);
      }
    }
    for (std::uint32_t r = 0; r + 1 < rows; ++r) {
      for (std::uint32_t c = 0; c + 1 < columns; ++c) {
        out[at++] = world.layers_of(terrain_begin + 2 * (r * (columns - 1) + c)) == 0 ? 1 : 0;
      }
    }
  }
  return out;
}

}  // namespace capsweep::viewer
