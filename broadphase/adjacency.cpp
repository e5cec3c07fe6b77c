#include "broadphase/adjacency.h"

#include <cmath>
#include <cstring>
#include <numbers>
#include <tuple>

#include "core/assert.h"
#include "parallel/executor.h"

namespace capsweep {

namespace {

std::uint32_t bits(float f) {
  if (f == 0.f) f = 0.f;  // -0 welds with +0
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

// Welded vertex ids: equal positions share the id of their first occurrence.
std::vector<std::uint32_t> weld(const std::vector<Triangle>& triangles) {
  struct Key {
    std::uint32_t x, y, z, index;
    bool operator<(const Key& o) const { return std::tie(x, y, z, index) < std::tie(o.x, o.y, o.z, o.index); }
  };
  const std::size_t n = triangles.size() * 3;
  std::vector<Key> keys(n);
  for (std::size_t i = 0; i < n; ++i) {
    const Vec3& p = triangles[i / 3].v[i % 3];
    keys[i] = {bits(p.x), bits(p.y), bits(p.z), std::uint32_t(i)};
  }
  parallel::sort(keys.begin(), keys.end());
  std::vector<std::uint32_t> id(n);
  for (std::size_t i = 0, first = 0; i < n; ++i) {
    if (i > 0 && (keys[i].x != keys[i - 1].x || keys[i].y != keys[i - 1].y || keys[i].z != keys[i - 1].z)) first = i;
    id[keys[i].index] = keys[first].index;
  }
  return id;
}

}  // namespace

Vec3d face_normal_exact(const Triangle& t) {
  const Vec3d a = to_double(t.v[0]), b = to_double(t.v[1]), c = to_double(t.v[2]);
  const Vec3d n = cross(b - a, c - a);
  const double len = length(n);
  return len > 0 ? n / len : Vec3d{};
}

Vec3 face_normal(const Triangle& t) { return to_float(face_normal_exact(t)); }

bool is_seam(const Triangle& a, const Vec3d& na, int side_a, const Triangle& b, const Vec3d& nb, int side_b) {
  static const double cos_seam = std::cos(double(kSeamDegrees) * std::numbers::pi / 180.0);
  if (!(length_sq(na) > 0 && length_sq(nb) > 0 && std::fabs(dot(na, nb)) >= cos_seam)) return false;
  const Vec3d p = to_double(a.v[side_a]), dir = to_double(a.v[(side_a + 1) % 3]) - p;
  const double on_a = dot(cross(dir, to_double(a.v[(side_a + 2) % 3]) - p), na);
  const double on_b = dot(cross(dir, to_double(b.v[(side_b + 2) % 3]) - p), na);
  return (on_a > 0 && on_b < 0) || (on_a < 0 && on_b > 0);
}

std::vector<TriangleLinks> link_triangles(const std::vector<Triangle>& triangles) {
  const std::vector<std::uint32_t> vertex = weld(triangles);
  const std::size_t count = triangles.size();
  std::vector<Vec3d> normal(count);
  for (std::size_t i = 0; i < count; ++i) normal[i] = face_normal_exact(triangles[i]);

  // Edges sorted by their welded end points: runs of equal keys are the triangles sharing one.
  struct Edge {
    std::uint32_t lo, hi, triangle, side;
    bool operator<(const Edge& o) const {
      return std::tie(lo, hi, triangle, side) < std::tie(o.lo, o.hi, o.triangle, o.side);
    }
  };
  std::vector<Edge> edges;
  edges.reserve(count * 3);
  for (std::uint32_t t = 0; t < count; ++t) {
    for (std::uint32_t s = 0; s < 3; ++s) {
      const std::uint32_t p = vertex[3 * t + s], q = vertex[3 * t + (s + 1) % 3];
      if (p != q) edges.push_back({std::min(p, q), std::max(p, q), t, s});
    }
  }
  parallel::sort(edges.begin(), edges.end());

  const double cos_seam = std::cos(double(kSeamDegrees) * std::numbers::pi / 180.0);
  std::vector<TriangleLinks> links(count);
  for (std::size_t i = 0; i < edges.size();) {
    std::size_t j = i + 1;
    while (j < edges.size() && edges[j].lo == edges[i].lo && edges[j].hi == edges[i].hi) ++j;
    if (j - i == 2 && edges[i].triangle != edges[i + 1].triangle) {
      const Edge& e = edges[i];
      const Edge& f = edges[i + 1];
      links[e.triangle].across[e.side] = f.triangle;
      links[f.triangle].across[f.side] = e.triangle;
      if (is_seam(triangles[e.triangle], normal[e.triangle], int(e.side), triangles[f.triangle], normal[f.triangle],
                  int(f.side))) {
        links[e.triangle].seam_edges |= std::uint8_t(1u << e.side);
        links[f.triangle].seam_edges |= std::uint8_t(1u << f.side);
      }
    }
    i = j;
  }

  // A vertex is flat when the fan around it closes through seams only, every face of it
  // coplanar with the first (so small bends cannot add up around the fan).
  for (std::uint32_t t = 0; t < count; ++t) {
    for (int s = 0; s < 3; ++s) {
      const std::uint32_t v = vertex[3 * t + s];
      std::uint32_t current = t;
      int out_edge = s;  // edge from v to the next vertex
      bool flat = false;
      for (int step = 0; step < 64; ++step) {
        if (!(links[current].seam_edges >> out_edge & 1)) break;
        const std::uint32_t next = links[current].across[out_edge];
        if (std::fabs(dot(normal[next], normal[t])) < cos_seam) break;
        if (next == t) {
          flat = true;
          break;
        }
        // In `next`, leave v by its other edge.
        int at = 0;
        while (at < 3 && vertex[3 * next + at] != v) ++at;
        if (at == 3) break;
        const int e_in = links[next].across[at] == current ? at : (at + 2) % 3;
        out_edge = e_in == at ? (at + 2) % 3 : at;
        current = next;
      }
      if (flat) links[t].flat_vertices |= std::uint8_t(1u << s);
    }
  }
  return links;
}

// Every value a border: the index all ones, no seam, no flat vertex.
PackedLinks::PackedLinks(std::size_t count, std::uint32_t index_bits)
    : values_(3 * count, index_bits + 2, (std::uint32_t(1) << index_bits) - 1) {
  CAPSWEEP_ASSERT(index_bits >= 1 && index_bits <= 30, "an index packs in 1 to 30 bits");
}

void PackedLinks::set(std::size_t i, const TriangleLinks& links) {
  const std::uint32_t b = values_.view().width - 2, none = (std::uint32_t(1) << b) - 1;
  for (int k = 0; k < 3; ++k) {
    const std::uint32_t across = links.across[k];
    CAPSWEEP_ASSERT(across == kNoTriangle || across < none, "a triangle index packs in the links' index bits");
    values_.set(3 * i + std::size_t(k), (across == kNoTriangle ? none : across) |
                                            std::uint32_t(links.seam_edges >> k & 1) << b |
                                            std::uint32_t(links.flat_vertices >> k & 1) << (b + 1));
  }
}

PackedLinks pack_links(const std::vector<TriangleLinks>& links) {
  PackedLinks packed(links.size(), link_index_bits(links.size()));
  for (std::size_t i = 0; i < links.size(); ++i) packed.set(i, links[i]);
  return packed;
}

PackedLinks link_triangles_packed(const std::vector<Triangle>& triangles) { return pack_links(link_triangles(triangles)); }

}  // namespace capsweep
