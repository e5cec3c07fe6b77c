#include "tools/arena.h"

#include <cmath>
#include <numbers>

#include "tools/mesh_builder.h"

namespace capsweep {

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
