// The built-in default scene, generated in code: a 40 m x 40 m walled arena with a floor of
// many coplanar triangles, a staircase up to a platform, a ramp down from it, pillars, crates
// and a low-ceiling passage. Metres, Y up, outward-facing triangles (floors counter-clockwise
// seen from above).
#pragma once

#include <span>
#include <string>
#include <vector>

#include <capsweep/shapes.h>

namespace capsweep {

std::vector<Triangle> make_arena();

// Writes triangles as a Wavefront OBJ (v and f lines only), e.g. to look at the arena; atomic.
void write_obj(const std::string& path, const std::vector<Triangle>& triangles, std::span<const std::string> inputs = {});

}  // namespace capsweep
