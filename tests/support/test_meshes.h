// Small hand-built worlds for the movement tests: floors of many triangles, boxes (steps,
// walls, platforms), ramps and wedges. Metres, Y up, outward-facing triangles.
#pragma once

#include <vector>

#include <capsweep/values.h>

namespace testmesh {

using capsweep::Triangle;
using capsweep::Vec3;

class Mesh {
 public:
  // A floor at height y over [x0, x1] x [z0, z1], in cells of `cell` metres (2 triangles each).
  Mesh& floor(float x0, float z0, float x1, float z1, float cell, float y = 0);
  // A closed box (all six faces).
  Mesh& box(const Vec3& lo, const Vec3& hi);
  // A ramp rising along +x from (x0, y0) at `degrees`, `width` along z from z0, up to height
  // y0 + rise; its top continues as a flat platform `top_length` long.
  Mesh& ramp(float x0, float z0, float width, float degrees, float rise, float top_length, float y0 = 0);
  // A staircase going down along +x over [z0, z1]: `steps` boxes from x0, step s (0 the highest)
  // ending at x = s * tread with its top at (steps - s) * rise.
  Mesh& stairs_down(float x0, float z0, float z1, int steps, float rise, float tread);
  // A vertical wall: the quad over the segment (x0, z0)-(x1, z1), from y 0 to `height`, both faces.
  Mesh& wall(float x0, float z0, float x1, float z1, float height);
  std::vector<Triangle> triangles() const { return tris_; }

 private:
  void quad(Vec3 p0, Vec3 p1, Vec3 p2, Vec3 p3, const Vec3& outward);
  std::vector<Triangle> tris_;
};

}  // namespace testmesh
