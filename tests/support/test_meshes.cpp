#include "tests/support/test_meshes.h"

#include <cmath>
#include <numbers>
#include <utility>

namespace testmesh {

void Mesh::quad(Vec3 p0, Vec3 p1, Vec3 p2, Vec3 p3, const Vec3& outward) {
  if (dot(cross(p1 - p0, p2 - p0), outward) < 0) std::swap(p1, p3);
  tris_.push_back({{p0, p1, p2}});
  tris_.push_back({{p0, p2, p3}});
}

Mesh& Mesh::floor(float x0, float z0, float x1, float z1, float cell, float y) {
  for (float x = x0; x < x1 - 1e-4f; x += cell) {
    for (float z = z0; z < z1 - 1e-4f; z += cell) {
      const float xe = std::fmin(x + cell, x1), ze = std::fmin(z + cell, z1);
      quad({x, y, z}, {xe, y, z}, {xe, y, ze}, {x, y, ze}, {0, 1, 0});
    }
  }
  return *this;
}

Mesh& Mesh::box(const Vec3& lo, const Vec3& hi) {
  quad({lo.x, hi.y, lo.z}, {hi.x, hi.y, lo.z}, {hi.x, hi.y, hi.z}, {lo.x, hi.y, hi.z}, {0, 1, 0});
  quad({lo.x, lo.y, lo.z}, {hi.x, lo.y, lo.z}, {hi.x, lo.y, hi.z}, {lo.x, lo.y, hi.z}, {0, -1, 0});
  quad({lo.x, lo.y, lo.z}, {hi.x, lo.y, lo.z}, {hi.x, hi.y, lo.z}, {lo.x, hi.y, lo.z}, {0, 0, -1});
  quad({lo.x, lo.y, hi.z}, {hi.x, lo.y, hi.z}, {hi.x, hi.y, hi.z}, {lo.x, hi.y, hi.z}, {0, 0, 1});
  quad({lo.x, lo.y, lo.z}, {lo.x, lo.y, hi.z}, {lo.x, hi.y, hi.z}, {lo.x, hi.y, lo.z}, {-1, 0, 0});
  quad({hi.x, lo.y, lo.z}, {hi.x, lo.y, hi.z}, {hi.x, hi.y, hi.z}, {hi.x, hi.y, lo.z}, {1, 0, 0});
  return *this;
}

Mesh& Mesh::ramp(float x0, float z0, float width, float degrees, float rise, float top_length, float y0) {
  const float run = rise / std::tan(degrees * std::numbers::pi_v<float> / 180.f);
  const float x1 = x0 + run, z1 = z0 + width, y1 = y0 + rise;
  const Vec3 n{-std::sin(degrees * std::numbers::pi_v<float> / 180.f), std::cos(degrees * std::numbers::pi_v<float> / 180.f), 0};
  quad({x0, y0, z0}, {x1, y1, z0}, {x1, y1, z1}, {x0, y0, z1}, n);
  quad({x1, y1, z0}, {x1 + top_length, y1, z0}, {x1 + top_length, y1, z1}, {x1, y1, z1}, {0, 1, 0});
  return *this;
}

Mesh& Mesh::stairs_down(float x0, float z0, float z1, int steps, float rise, float tread) {
  for (int s = 0; s < steps; ++s) box({x0, 0, z0}, {tread * float(s), rise * float(steps - s), z1});
  return *this;
}

Mesh& Mesh::wall(float x0, float z0, float x1, float z1, float height) {
  const Vec3 side{z1 - z0, 0, x0 - x1};
  quad({x0, 0, z0}, {x1, 0, z1}, {x1, height, z1}, {x0, height, z0}, side);
  quad({x0, 0, z0}, {x1, 0, z1}, {x1, height, z1}, {x0, height, z0}, -side);
  return *this;
}

}  // namespace testmesh
