// A uniform grid over a triangle soup, for the tests' oracle: which triangles a box may touch.
// Deliberately simple and independent of the BVH it helps to check.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <capsweep/values.h>

namespace oracle {

class TriangleGrid {
 public:
  explicit TriangleGrid(std::span<const capsweep::Triangle> triangles);
  // Every triangle whose box overlaps `box`, in increasing index order.
  std::vector<std::size_t> near(const capsweep::Aabb& box) const;

 private:
  void cell_range(const capsweep::Aabb& box, int lo[3], int hi[3]) const;

  std::span<const capsweep::Triangle> triangles_;
  std::vector<capsweep::Aabb> boxes_;
  capsweep::Aabb bounds_;
  int dims_[3];
  double cell_[3];
  std::vector<std::uint32_t> start_;  // CSR: cell c holds items_[start_[c] .. start_[c + 1])
  std::vector<std::uint32_t> items_;
};

}  // namespace oracle
