// Layered worlds for the layer-filter tests: a scene's triangles put on layers by kind (floors,
// walls, scattered triangles), and the world of only the triangles a mask sees, whose answers a
// filtered query must give bit for bit (triangle indices mapped back).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include <capsweep/world.h>

namespace layered {

// Floors (normal.y > 0.7) on layer 1, walls and ceilings on layer 2; one triangle in ten on layer
// 4 instead, and one in seven on layers 1 and 8 as well.
std::vector<std::uint32_t> layers_for(std::span<const capsweep::Triangle> tris);

// Floors on layer 1, everything else on layer 2: what movement tests hide walls with.
std::vector<std::uint32_t> floors_and_walls(std::span<const capsweep::Triangle> tris);

// The world of the triangles a mask sees, and where each of them came from.
struct Visible {
  std::vector<std::uint32_t> original;  // sub-world index -> world index
  std::optional<capsweep::World> world;  // none when the mask sees no triangle
};
Visible visible(std::span<const capsweep::Triangle> tris, std::span<const std::uint32_t> layers, std::uint32_t mask);

// A hit of the visible world, naming the triangle of the whole world.
capsweep::SweepHit mapped(capsweep::SweepHit h, const Visible& v);

}  // namespace layered
