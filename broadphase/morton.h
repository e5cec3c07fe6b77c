// Morton (Z-order) codes: nearby points get nearby codes, so a batch sorted by them walks the
// BVH in a cache-friendly order.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "parallel/executor.h"

#include <capsweep/values.h>

namespace capsweep {

// Spreads the low 21 bits of x to every third bit of a 64-bit word.
inline std::uint64_t spread_bits_3d(std::uint64_t x) {
  x &= 0x1FFFFF;
  x = (x | x << 32) & 0x1F00000000FFFFull;
  x = (x | x << 16) & 0x1F0000FF0000FFull;
  x = (x | x << 8) & 0x100F00F00F00F00Full;
  x = (x | x << 4) & 0x10C30C30C30C30C3ull;
  x = (x | x << 2) & 0x1249249249249249ull;
  return x;
}

// The code of p on a 2^21 grid over `box` (points outside are clamped to it; NaN goes to 0).
inline std::uint64_t morton_code(const Aabb& box, const Vec3& p) {
  std::uint64_t code = 0;
  for (int k = 0; k < 3; ++k) {
    const float extent = box.max[k] - box.min[k];
    float u = extent > 0 ? (p[k] - box.min[k]) / extent : 0.f;
    u = u > 0.f ? (u < 1.f ? u : 1.f) : 0.f;  // also maps NaN to 0
    code |= spread_bits_3d(std::uint64_t(u * 2097151.f)) << k;
  }
  return code;
}

// The order in which to walk `count` items of a batch: by the Morton code of centre(i) over
// `bounds`, ties by index, so the same on every run. Each pair is (code, item).
template <class Centre>
std::vector<std::pair<std::uint64_t, std::uint32_t>> morton_order(const Aabb& bounds, std::size_t count,
                                                                  const Centre& centre) {
  std::vector<std::pair<std::uint64_t, std::uint32_t>> order(count);
  parallel::for_ranges<std::size_t>(0, count, 1024, [&](const auto& range) {
    for (std::size_t i = range.begin(); i != range.end(); ++i) order[i] = {morton_code(bounds, centre(i)), std::uint32_t(i)};
  });
  parallel::sort(order.begin(), order.end());
  return order;
}

}  // namespace capsweep
