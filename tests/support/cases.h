// Random and adversarial capsule-sweep cases against one triangle, reproducible from a seed.
#pragma once

#include <cstdint>

#include "core/random.h"
#include <capsweep/values.h>

namespace cases {

enum class Kind {
  random,         // anything near the triangle
  at_vertex,      // aimed to pass a vertex at distance r + gap (gap 0, +-1e-5, or larger)
  at_edge,        // the same for a point on an edge
  at_face,        // the same for a point inside the face, along the face normal
  slide_on_face,  // moving parallel to the face at gaps 0 and 1e-5
  axis_in_plane,  // the capsule axis lies in the face plane, moving in that plane
  parallel_edge,  // axis and motion parallel to an edge
  start_contact,  // starting touching, slightly or deeply inside, or with the axis through the face
  count
};
const char* name(Kind k);

struct SweepCase {
  capsweep::Capsule capsule;
  capsweep::Vec3 motion;
  capsweep::Triangle triangle;
  Kind kind;
};

// What moves: a capsule, or (radius 0) a ray or a segment, placed the same way against the
// features (grazing an edge or vertex at gap 0 or 10 um, sliding in a face's plane, along an
// edge, starting on the face).
enum class Mover { capsule, ray, segment };

// Triangles vary too: ordinary, slivers, near-collinear and coinciding vertices; sizes 1 mm to
// 2 km, radii 1 mm to 10 m, motions up to 30 m, coordinates up to 5 km from the origin.
SweepCase make(capsweep::Random& rng, Kind kind, Mover mover = Mover::capsule);

// The largest coordinate magnitude a case involves (for the tolerance).
double largest_coordinate(const SweepCase& c);

}  // namespace cases
