// Static pieces of an open world, streamed in and out at run time (World::streamed).
#pragma once

#include <cstdint>
#include <vector>

#include <capsweep/values.h>
#include <capsweep/world.h>

namespace capsweep {

// A tile: a mesh whose coordinates are relative to `origin`, placed there without rotation. Its
// triangles stand where origin + vertex (in double, rounded once) puts them, so a tile 1,000 km
// from the world's origin answers as it would at the origin, within the tolerance there.
// Build the mesh anywhere, on any thread, while batches run (World's constructor is the costly
// part); World::streamed only publishes it.
struct Tile {
  std::uint32_t id = 0;                   // the caller's name for it: unique among a world's tiles
  Vec3d origin;                           // where the mesh's (0, 0, 0) stands
  std::uint32_t layers = kDefaultLayers;  // every triangle of the tile is on these (never 0)
  World mesh;                             // a world of a mesh alone (no heightfield, no instances)
};

// A tile of `local` triangles (relative to `origin`), its mesh built on `threads` workers (0 to
// kMaxThreads; 0: every core). Streaming beside batches, 1 keeps the build to one core and off
// the batches' others. Throws WorldError as World's constructor does.
Tile build_tile(std::uint32_t id, const Vec3d& origin, std::vector<Triangle> local,
                std::uint32_t layers = kDefaultLayers, int threads = 0);

// A tile of a heightfield (its samples relative to `origin`: set the heightfield's own origin in
// the tile's frame): its cells as a mesh, two triangles a cell, a hole's left out, in the
// heightfield's triangle order, built as build_tile builds. Throws WorldError as
// World(Heightfield) does.
Tile heightfield_tile(std::uint32_t id, const Vec3d& origin, Heightfield terrain,
                      std::uint32_t layers = kDefaultLayers, int threads = 0);

}  // namespace capsweep
