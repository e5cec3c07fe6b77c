// Triangle adjacency, from vertices welded when the world is built: which triangle lies across
// each edge, and which edges and vertices are seams inside a flat surface. A sweep touching
// such a seam reports the face normal, so agents sliding over coplanar triangles are neither
// stopped nor deflected by the edges between them.
#pragma once

#include <cstdint>
#include <vector>

#include <capsweep/values.h>

#include "broadphase/packed_uints.h"

namespace capsweep {

// Two faces meeting at a smaller angle than this are one flat surface. A few degrees covers
// modelling noise and gently bent terrain; the sweep only trusts the face normal where doing
// so keeps the exactness tolerance (see World::sweep_approaching).
inline constexpr float kSeamDegrees = 2.f;

struct TriangleLinks {
  // The triangle across edge i (from vertex i to vertex i+1), or kNoTriangle on a border or
  // where more than two triangles share the edge.
  std::uint32_t across[3] = {kNoTriangle, kNoTriangle, kNoTriangle};
  std::uint8_t seam_edges = 0;     // bit i: edge i joins two coplanar triangles
  std::uint8_t flat_vertices = 0;  // bit i: vertex i is inside a flat surface (closed fan of seams)
  std::uint8_t spare[2] = {};      // zero: explicit padding, so snapshots are reproducible bytes
};
static_assert(sizeof(TriangleLinks) == 16);

// A mesh of kMaxPackedTriangles triangles or more cannot be packed (World refuses it): every
// index below it and the all-ones none fit in 30 bits, a link with its two bits in 32.
inline constexpr std::uint64_t kMaxPackedTriangles = (std::uint64_t(1) << 30) - 1;
// The bits an index across takes in the links of a mesh of `triangles` (< kMaxPackedTriangles):
// every index below it and the all-ones none.
constexpr std::uint32_t link_index_bits(std::uint64_t triangles) { return bits_for(triangles); }

// A mesh's links as a world keeps them (issue 38: 64 bytes a triangle): for edge k of triangle
// i, value 3i + k of packed values (packed_uints.h) holds the triangle across in its low
// `index_bits` bits (all ones: none), whether the edge is a seam in the next bit and whether
// vertex k is flat in the top one. A world's index_bits is link_index_bits(its triangles): 18
// bits an edge on a 61k-triangle mesh, 6.75 bytes a triangle where three u32 took 12.
struct LinksView {
  PackedUintsView values{{}, link_index_bits(0) + 2, 0};  // no triangles, as a snapshot holds them

  std::size_t size() const { return values.size() / 3; }  // triangles
  std::size_t size_bytes() const { return values.size_bytes(); }
  std::uint32_t index_bits() const { return values.width - 2; }
  std::uint32_t across(std::size_t i, int k) const {
    const std::uint32_t none = (std::uint32_t(1) << index_bits()) - 1;
    const std::uint32_t a = values[3 * i + std::size_t(k)] & none;
    return a == none ? kNoTriangle : a;
  }
  TriangleLinks unpack(std::size_t i) const {
    TriangleLinks l;
    const std::uint32_t b = index_bits(), none = (std::uint32_t(1) << b) - 1;
    for (int k = 0; k < 3; ++k) {
      const std::uint32_t v = values[3 * i + std::size_t(k)];
      l.across[k] = (v & none) == none ? kNoTriangle : v & none;
      l.seam_edges |= std::uint8_t((v >> b & 1u) << k);
      l.flat_vertices |= std::uint8_t((v >> (b + 1) & 1u) << k);
    }
    return l;
  }
};

// The owner of a LinksView's values.
class PackedLinks {
 public:
  PackedLinks() : values_(0, link_index_bits(0) + 2) {}
  // Room for the links of `count` triangles, their indices in `index_bits` bits (1 to 30), each
  // a border until set.
  PackedLinks(std::size_t count, std::uint32_t index_bits);
  // Triangle i's links (every index across below 2^index_bits - 1, or kNoTriangle).
  void set(std::size_t i, const TriangleLinks& links);
  LinksView view() const { return {values_.view()}; }

 private:
  PackedUints values_;
};

// `links` packed, in link_index_bits(links.size()) bits an index.
PackedLinks pack_links(const std::vector<TriangleLinks>& links);

// Vertices at the same position (equal floats; -0 equals +0) are welded into one.
std::vector<TriangleLinks> link_triangles(const std::vector<Triangle>& triangles);
// The same, packed, as a World keeps them.
PackedLinks link_triangles_packed(const std::vector<Triangle>& triangles);

// The unit normal of a proper triangle (winding order), or zero for a degenerate one.
Vec3 face_normal(const Triangle& t);
Vec3d face_normal_exact(const Triangle& t);  // the same in double, as the adjacency uses it

// Whether edge side_a of triangle a (from vertex side_a to the next), shared with edge side_b
// of b, is a seam: normals na, nb (face_normal_exact) (anti)parallel within kSeamDegrees, and
// the two triangles on opposite sides of the edge (one folded back onto the other is not a
// seam), judged with a's normal. link_triangles asks it with a the lower index of the two.
bool is_seam(const Triangle& a, const Vec3d& na, int side_a, const Triangle& b, const Vec3d& nb, int side_b);

}  // namespace capsweep
