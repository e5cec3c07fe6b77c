#include "tests/support/layered_world.h"

namespace layered {

using namespace capsweep;

namespace {
bool is_floor(const Triangle& t) {
  const Vec3d v0 = to_double(t.v[0]);
  const Vec3d n = cross(to_double(t.v[1]) - v0, to_double(t.v[2]) - v0);
  const double len = length(n);
  return len > 0 && n.y / len > 0.7;
}
}  // namespace

std::vector<std::uint32_t> layers_for(std::span<const Triangle> tris) {
  std::vector<std::uint32_t> layers(tris.size());
  for (std::size_t i = 0; i < tris.size(); ++i) {
    layers[i] = is_floor(tris[i]) ? 1u : 2u;
    if (i % 10 == 3) layers[i] = 4u;
    if (i % 7 == 5) layers[i] |= 1u | 8u;
  }
  return layers;
}

std::vector<std::uint32_t> floors_and_walls(std::span<const Triangle> tris) {
  std::vector<std::uint32_t> layers(tris.size());
  for (std::size_t i = 0; i < tris.size(); ++i) layers[i] = is_floor(tris[i]) ? 1u : 2u;
  return layers;
}

Visible visible(std::span<const Triangle> tris, std::span<const std::uint32_t> layers, std::uint32_t mask) {
  Visible v;
  std::vector<Triangle> kept;
  for (std::size_t i = 0; i < tris.size(); ++i) {
    if (layers[i] & mask) {
      kept.push_back(tris[i]);
      v.original.push_back(std::uint32_t(i));
    }
  }
  if (!kept.empty()) v.world.emplace(std::move(kept));
  return v;
}

SweepHit mapped(SweepHit h, const Visible& v) {
  if (h.hit) h.triangle = v.original[h.triangle];
  return h;
}

}  // namespace layered
