#include <capsweep/values.h>

#include "core/height_grid.h"

#include <algorithm>
#include <cmath>


namespace capsweep {

namespace {

std::string at(std::uint32_t row, std::uint32_t column) {
  return "(row " + std::to_string(row) + ", column " + std::to_string(column) + ")";
}

bool positive_finite(float v) { return std::isfinite(v) && v > 0.f; }

}  // namespace

double heightfield_height(const Heightfield& t, std::uint32_t row, std::uint32_t column) {
  const std::size_t i = std::size_t(row) * t.columns + column;
  return t.samples.empty() ? double(t.heights[i]) : double(t.height_scale) * double(t.samples[i]);
}

Vec3 heightfield_vertex(const Heightfield& t, std::uint32_t row, std::uint32_t column) {
  return {float(double(t.origin.x) + double(t.cell_x) * double(column)),
          float(double(t.origin.y) + heightfield_height(t, row, column)),
          float(double(t.origin.z) + double(t.cell_z) * double(row))};
}

Triangle heightfield_triangle(const Heightfield& t, std::uint32_t row, std::uint32_t column, int half) {
  if (half == 0) {
    return {{heightfield_vertex(t, row, column), heightfield_vertex(t, row + 1, column),
             heightfield_vertex(t, row, column + 1)}};
  }
  return {{heightfield_vertex(t, row, column + 1), heightfield_vertex(t, row + 1, column),
           heightfield_vertex(t, row + 1, column + 1)}};
}

std::string check_height_grid(const HeightGrid& t) {
  const std::string where = "heightfield: ";
  if (t.columns < 2 || t.rows < 2) {
    return where + "needs at least 2 x 2 samples, got " + std::to_string(t.columns) + " x " + std::to_string(t.rows);
  }
  const std::uint64_t samples = std::uint64_t(t.columns) * t.rows;
  const std::uint64_t cells = std::uint64_t(t.columns - 1) * (t.rows - 1);
  // Two triangles a cell, each with an index below kNoTriangle.
  if (2 * cells >= std::uint64_t(kNoTriangle)) {
    return where + std::to_string(t.columns) + " x " + std::to_string(t.rows) +
           " samples make more than 2^32 - 2 triangles";
  }
  if (t.heights.empty() == t.samples.empty()) {
    return where + "give the heights either as floats or as 16-bit samples (exactly one of the two)";
  }
  const std::size_t given = t.heights.empty() ? t.samples.size() : t.heights.size();
  if (given != samples) {
    return where + std::to_string(given) + " heights for " + std::to_string(t.columns) + " x " +
           std::to_string(t.rows) + " samples";
  }
  if (!positive_finite(t.cell_x) || !positive_finite(t.cell_z)) {
    return where + "the cell size must be finite and > 0, got " + std::to_string(t.cell_x) + " x " +
           std::to_string(t.cell_z);
  }
  if (!t.samples.empty() && !positive_finite(t.height_scale)) {
    return where + "the height scale must be finite and > 0, got " + std::to_string(t.height_scale);
  }
  if (!is_finite(t.origin) || max_abs_component(t.origin) > kMaxCoordinate) {
    return where + "the origin must be finite and within 1e6 m";
  }
  if (t.layers == 0) return where + "its layer mask is 0 (on no layer)";
  auto x_at = [&](std::uint32_t column) { return float(double(t.origin.x) + double(t.cell_x) * double(column)); };
  auto z_at = [&](std::uint32_t row) { return float(double(t.origin.z) + double(t.cell_z) * double(row)); };
  // The coordinates grow monotonically with row and column: the far corner bounds x and z.
  if (!(std::fabs(x_at(t.columns - 1)) <= kMaxCoordinate && std::fabs(z_at(t.rows - 1)) <= kMaxCoordinate)) {
    return where + "the grid reaches beyond 1e6 m";
  }
  // Neighbouring samples must stay apart in float, or cells would collapse to slivers: float's
  // spacing grows with magnitude, so the closest pairs are at the ends of each axis.
  if (!(x_at(0) < x_at(1)) || !(x_at(t.columns - 2) < x_at(t.columns - 1)) || !(z_at(0) < z_at(1)) ||
      !(z_at(t.rows - 2) < z_at(t.rows - 1))) {
    return where + "cells this small cannot be told apart at these coordinates in float";
  }
  // One pass that vectorises says whether every height is good; only a bad grid is searched
  // for its first bad sample (tens of millions of samples are checked at every load).
  const double oy = t.origin.y, scale = t.height_scale, limit = kMaxCoordinate;
  auto height = [&](std::size_t i) { return oy + (t.samples.empty() ? double(t.heights[i]) : scale * double(t.samples[i])); };
  bool good = true;
  if (t.samples.empty()) {
    for (const float h : t.heights) good &= (oy + double(h) >= -limit) & (oy + double(h) <= limit);  // false for NaN
  } else {
    std::uint16_t lo = 0xFFFF, hi = 0;
    for (const std::uint16_t s : t.samples) lo = s < lo ? s : lo, hi = s > hi ? s : hi;
    good = std::fabs(oy + scale * double(lo)) <= limit && std::fabs(oy + scale * double(hi)) <= limit;
  }
  if (good) return "";
  for (std::uint32_t row = 0; row < t.rows; ++row) {
    for (std::uint32_t column = 0; column < t.columns; ++column) {
      const double h = height(std::size_t(row) * t.columns + column);
      if (!std::isfinite(h)) return where + "sample " + at(row, column) + " is not finite";
      if (std::fabs(h) > limit) return where + "sample " + at(row, column) + " lies beyond 1e6 m";
    }
  }
  return "";
}

std::string check_heightfield(const Heightfield& t) {
  HeightGrid g;
  g.columns = t.columns;
  g.rows = t.rows;
  g.cell_x = t.cell_x;
  g.cell_z = t.cell_z;
  g.origin = t.origin;
  g.height_scale = t.height_scale;
  g.heights = t.heights;
  g.samples = t.samples;
  g.layers = t.layers;
  // The holes first: the grid's own words come after (a wrong count names the cells).
  if (t.columns >= 2 && t.rows >= 2 && !t.holes.empty() && t.holes.size() != heightfield_cells(t)) {
    return "heightfield: " + std::to_string(t.holes.size()) + " hole flags for " +
           std::to_string(heightfield_cells(t)) + " cells";
  }
  return check_height_grid(g);
}

std::vector<Triangle> heightfield_mesh(const Heightfield& t, std::vector<std::uint32_t>* index) {
  std::vector<Triangle> out;
  if (index) index->clear();
  if (t.columns < 2 || t.rows < 2) return out;
  for (std::uint32_t row = 0; row + 1 < t.rows; ++row) {
    for (std::uint32_t column = 0; column + 1 < t.columns; ++column) {
      const std::uint64_t cell = std::uint64_t(row) * (t.columns - 1) + column;
      if (!t.holes.empty() && t.holes[cell] != 0) continue;
      for (int half = 0; half < 2; ++half) {
        out.push_back(heightfield_triangle(t, row, column, half));
        if (index) index->push_back(std::uint32_t(2 * cell + std::uint64_t(half)));
      }
    }
  }
  return out;
}

}  // namespace capsweep
