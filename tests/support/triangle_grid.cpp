#include "tests/support/triangle_grid.h"

#include <algorithm>
#include <cmath>

namespace oracle {

using namespace capsweep;

TriangleGrid::TriangleGrid(std::span<const Triangle> triangles) : triangles_(triangles) {
  for (const Triangle& t : triangles_) {
    boxes_.push_back(bounds(t));
    bounds_.grow(boxes_.back());
  }
  // About two triangles per cell, cells as cubic as the scene allows.
  const Vec3 size = bounds_.max - bounds_.min;
  const double volume = std::max(1e-9, double(size.x) * size.y * size.z);
  const double target = std::max(1.0, double(triangles_.size()) / 2);
  const double side = std::cbrt(volume / target);
  for (int k = 0; k < 3; ++k) {
    dims_[k] = std::clamp(int(std::ceil(size[k] / side)), 1, 512);
    cell_[k] = std::max(1e-9, double(size[k]) / dims_[k]);
  }
  const std::size_t cells = std::size_t(dims_[0]) * dims_[1] * dims_[2];
  std::vector<std::uint32_t> count(cells + 1, 0);
  auto each_cell = [&](const Aabb& box, auto&& f) {
    int lo[3], hi[3];
    cell_range(box, lo, hi);
    for (int z = lo[2]; z <= hi[2]; ++z)
      for (int y = lo[1]; y <= hi[1]; ++y)
        for (int x = lo[0]; x <= hi[0]; ++x) f((std::size_t(z) * dims_[1] + y) * dims_[0] + x);
  };
  for (const Aabb& b : boxes_) each_cell(b, [&](std::size_t c) { ++count[c + 1]; });
  for (std::size_t c = 0; c < cells; ++c) count[c + 1] += count[c];
  start_ = count;
  items_.resize(count[cells]);
  for (std::size_t i = 0; i < boxes_.size(); ++i) {
    each_cell(boxes_[i], [&](std::size_t c) { items_[count[c]++] = std::uint32_t(i); });
  }
}

void TriangleGrid::cell_range(const Aabb& box, int lo[3], int hi[3]) const {
  for (int k = 0; k < 3; ++k) {
    lo[k] = std::clamp(int(std::floor((double(box.min[k]) - bounds_.min[k]) / cell_[k])), 0, dims_[k] - 1);
    hi[k] = std::clamp(int(std::floor((double(box.max[k]) - bounds_.min[k]) / cell_[k])), 0, dims_[k] - 1);
  }
}

std::vector<std::size_t> TriangleGrid::near(const Aabb& box) const {
  std::vector<std::size_t> out;
  if (!box.overlaps(bounds_)) return out;
  int lo[3], hi[3];
  cell_range(box, lo, hi);
  for (int z = lo[2]; z <= hi[2]; ++z)
    for (int y = lo[1]; y <= hi[1]; ++y)
      for (int x = lo[0]; x <= hi[0]; ++x) {
        const std::size_t c = (std::size_t(z) * dims_[1] + y) * dims_[0] + x;
        for (std::uint32_t k = start_[c]; k < start_[c + 1]; ++k) {
          if (box.overlaps(boxes_[items_[k]])) out.push_back(items_[k]);
        }
      }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace oracle
