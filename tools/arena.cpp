#include "tools/arena.h"

#include <cmath>
#include <fstream>
#include <numbers>
#include <stdexcept>

namespace capsweep {

namespace {

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

}  // namespace

std::vector<Triangle> make_arena() {
  MeshBuilder m;
  // Floor: 2 m cells, so that agents cross many seams between coplanar triangles.
  for (int i = -10; i < 10; ++i) {
    for (int k = -10; k < 10; ++k) {
      const float x0 = 2.f * float(i), z0 = 2.f * float(k);
      m.quad({x0, 0, z0}, {x0 + 2, 0, z0}, {x0 + 2, 0, z0 + 2}, {x0, 0, z0 + 2}, {0, 1, 0});
    }
  }
  // Perimeter walls, 3 m high.
  m.box({-20.5f, 0, -20.5f}, {20.5f, 3, -20});
  m.box({-20.5f, 0, 20}, {20.5f, 3, 20.5f});
  m.box({-20.5f, 0, -20}, {-20, 3, 20});
  m.box({20, 0, -20}, {20.5f, 3, 20});
  // Staircase: ten 0.2 m steps with 0.35 m treads, up to a 2 m platform.
  for (int s = 0; s < 10; ++s) {
    const float x0 = -5.f + 0.35f * float(s);
    m.box({x0, 0, -18}, {x0 + 0.35f, 0.2f * float(s + 1), -15});
  }
  m.box({-1.5f, 0, -18}, {3, 2, -15});
  // Ramp from the platform down to the floor, about 20 degrees.
  const float ramp_end = 3 + 2 / std::tan(20 * std::numbers::pi_v<float> / 180);
  m.quad({3, 2, -18}, {3, 2, -15}, {ramp_end, 0, -15}, {ramp_end, 0, -18}, {1, 3, 0});
  m.triangle({3, 0, -18}, {3, 2, -18}, {ramp_end, 0, -18}, {0, 0, -1});
  m.triangle({3, 0, -15}, {3, 2, -15}, {ramp_end, 0, -15}, {0, 0, 1});
  // Pillars.
  for (const auto& [x, z] : {std::pair{-12.f, -6.f}, {-12.f, 6.f}, {-6.f, 0.f}, {6.f, 0.f}, {12.f, -6.f}, {12.f, 6.f}}) {
    m.pillar(x, z, 0.5f, 3.f, 12);
  }
  // Crates.
  m.box({-16, 0, 12}, {-15, 1, 13});
  m.box({-14.5f, 0, 12.2f}, {-13.7f, 0.8f, 13});
  m.box({-3, 0, 8}, {-1, 0.5f, 10});
  // A low passage: two walls and a ceiling at 2.1 m (a 1.8 m person fits, barely).
  m.box({10, 0, 5}, {18, 2.6f, 5.5f});
  m.box({10, 0, 8}, {18, 2.6f, 8.5f});
  m.box({10, 2.1f, 5.5f}, {18, 2.4f, 8}, /*bottom=*/true);
  return m.take();
}

}  // namespace capsweep
