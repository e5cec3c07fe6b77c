// Adversarial sweeps against a real scene: capsules placed to graze, barely touch or barely miss
// vertices, edges and faces of its triangles, sliding along faces, or starting in contact.
#pragma once

#include <cstdint>
#include <vector>

#include <capsweep/world.h>

namespace cases {

// rays: radius 0 instead, half of them rays (a = b) and half moving segments, placed the same way.
std::vector<capsweep::SweepQuery> adversarial_scene_queries(const std::vector<capsweep::Triangle>& triangles,
                                                            std::size_t count, std::uint64_t seed, bool rays = false);

}  // namespace cases
