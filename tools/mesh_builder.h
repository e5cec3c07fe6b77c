// Builds the built-in scenes (tools/arena.h, tools/moving_arena.h) from planar pieces: quads,
// triangles, boxes and pillars, each face turned to face the way it is told (outward-facing
// triangles, floors counter-clockwise seen from above).
#pragma once

#include <cmath>
#include <numbers>
#include <utility>
#include <vector>

#include <capsweep/values.h>

namespace capsweep {

class MeshBuilder {
 public:
  // A planar quad given by its corners in order around it, facing `outward`.
  void quad(Vec3 p0, Vec3 p1, Vec3 p2, Vec3 p3, const Vec3& outward) {
    if (dot(cross(p1 - p0, p2 - p0), outward) < 0) std::swap(p1, p3);
    tris_.push_back({{p0, p1, p2}});
    tris_.push_back({{p0, p2, p3}});
  }
  void triangle(Vec3 p0, Vec3 p1, Vec3 p2, const Vec3& outward) {
    if (dot(cross(p1 - p0, p2 - p0), outward) < 0) std::swap(p1, p2);
    tris_.push_back({{p0, p1, p2}});
  }
  // A box standing on something: five faces, no bottom.
  void box(const Vec3& lo, const Vec3& hi, bool bottom = false) {
    quad({lo.x, hi.y, lo.z}, {hi.x, hi.y, lo.z}, {hi.x, hi.y, hi.z}, {lo.x, hi.y, hi.z}, {0, 1, 0});
    if (bottom) quad({lo.x, lo.y, lo.z}, {hi.x, lo.y, lo.z}, {hi.x, lo.y, hi.z}, {lo.x, lo.y, hi.z}, {0, -1, 0});
    quad({lo.x, lo.y, lo.z}, {hi.x, lo.y, lo.z}, {hi.x, hi.y, lo.z}, {lo.x, hi.y, lo.z}, {0, 0, -1});
    quad({lo.x, lo.y, hi.z}, {hi.x, lo.y, hi.z}, {hi.x, hi.y, hi.z}, {lo.x, hi.y, hi.z}, {0, 0, 1});
    quad({lo.x, lo.y, lo.z}, {lo.x, lo.y, hi.z}, {lo.x, hi.y, hi.z}, {lo.x, hi.y, lo.z}, {-1, 0, 0});
    quad({hi.x, lo.y, lo.z}, {hi.x, lo.y, hi.z}, {hi.x, hi.y, hi.z}, {hi.x, hi.y, lo.z}, {1, 0, 0});
  }
  // A box standing on something with a ridge along its longer side instead of a flat top, its
  // slopes 60 degrees steep: nowhere to stand on it (normal.y 0.5, below walkable's 0.7), so a
  // railing holds nobody on top, spawned there or walking.
  void ridged_box(const Vec3& lo, const Vec3& hi, bool bottom = false) {
    if (bottom) quad({lo.x, lo.y, lo.z}, {hi.x, lo.y, lo.z}, {hi.x, lo.y, hi.z}, {lo.x, lo.y, hi.z}, {0, -1, 0});
    quad({lo.x, lo.y, lo.z}, {hi.x, lo.y, lo.z}, {hi.x, hi.y, lo.z}, {lo.x, hi.y, lo.z}, {0, 0, -1});
    quad({lo.x, lo.y, hi.z}, {hi.x, lo.y, hi.z}, {hi.x, hi.y, hi.z}, {lo.x, hi.y, hi.z}, {0, 0, 1});
    quad({lo.x, lo.y, lo.z}, {lo.x, lo.y, hi.z}, {lo.x, hi.y, hi.z}, {lo.x, hi.y, lo.z}, {-1, 0, 0});
    quad({hi.x, lo.y, lo.z}, {hi.x, lo.y, hi.z}, {hi.x, hi.y, hi.z}, {hi.x, hi.y, lo.z}, {1, 0, 0});
    const bool along_z = hi.z - lo.z >= hi.x - lo.x;
    const float width = along_z ? hi.x - lo.x : hi.z - lo.z;
    const float top = hi.y + 0.5f * width * std::sqrt(3.f);  // tan 60 degrees
    if (along_z) {
      const float mid = 0.5f * (lo.x + hi.x);
      quad({lo.x, hi.y, lo.z}, {mid, top, lo.z}, {mid, top, hi.z}, {lo.x, hi.y, hi.z}, {-1, 0.5f, 0});
      quad({hi.x, hi.y, lo.z}, {mid, top, lo.z}, {mid, top, hi.z}, {hi.x, hi.y, hi.z}, {1, 0.5f, 0});
      triangle({lo.x, hi.y, lo.z}, {hi.x, hi.y, lo.z}, {mid, top, lo.z}, {0, 0, -1});
      triangle({lo.x, hi.y, hi.z}, {hi.x, hi.y, hi.z}, {mid, top, hi.z}, {0, 0, 1});
    } else {
      const float mid = 0.5f * (lo.z + hi.z);
      quad({lo.x, hi.y, lo.z}, {lo.x, top, mid}, {hi.x, top, mid}, {hi.x, hi.y, lo.z}, {0, 0.5f, -1});
      quad({lo.x, hi.y, hi.z}, {lo.x, top, mid}, {hi.x, top, mid}, {hi.x, hi.y, hi.z}, {0, 0.5f, 1});
      triangle({lo.x, hi.y, lo.z}, {lo.x, hi.y, hi.z}, {lo.x, top, mid}, {-1, 0, 0});
      triangle({hi.x, hi.y, lo.z}, {hi.x, hi.y, hi.z}, {hi.x, top, mid}, {1, 0, 0});
    }
  }
  // A vertical prism over a regular polygon (a pillar), standing on the floor.
  void pillar(float x, float z, float radius, float height, int sides) {
    for (int i = 0; i < sides; ++i) {
      const float a0 = 2 * std::numbers::pi_v<float> * float(i) / float(sides);
      const float a1 = 2 * std::numbers::pi_v<float> * float(i + 1) / float(sides);
      const Vec3 p0{x + radius * std::cos(a0), 0, z + radius * std::sin(a0)};
      const Vec3 p1{x + radius * std::cos(a1), 0, z + radius * std::sin(a1)};
      const Vec3 mid = (p0 + p1) * 0.5f - Vec3{x, 0, z};
      quad(p0, p1, p1 + Vec3{0, height, 0}, p0 + Vec3{0, height, 0}, mid);
      triangle({x, height, z}, p0 + Vec3{0, height, 0}, p1 + Vec3{0, height, 0}, {0, 1, 0});
    }
  }
  std::vector<Triangle> take() { return std::move(tris_); }

 private:
  std::vector<Triangle> tris_;
};


}  // namespace capsweep
