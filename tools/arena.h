// The built-in default scene, generated in code: a 40 m x 40 m walled arena with a floor of
// many coplanar triangles, a staircase up to a platform, a ramp down from it, pillars, crates
// and a low-ceiling passage. Metres, Y up, outward-facing triangles (floors counter-clockwise
// seen from above).
#pragma once

#include <vector>

#include <capsweep/values.h>

namespace capsweep {

std::vector<Triangle> make_arena();

}  // namespace capsweep
