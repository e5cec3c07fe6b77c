// Triangle adjacency, from vertices welded when the world is built: which triangle lies across
// each edge, and which edges and vertices are seams inside a flat surface. A sweep touching
// such a seam reports the face normal, so agents sliding over coplanar triangles are neither
// stopped nor deflected by the edges between them.
#pragma once

#include <cstdint>
#include <vector>

#include <capsweep/values.h>

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

// A mesh triangle's links as a world keeps them, in 12 bytes (issue 38: 64 bytes a triangle):
// word i holds the triangle across edge i in its low 30 bits (kNone: none), whether edge i is a
// seam in bit 31 and whether vertex i is flat in bit 30. A mesh of kMaxPackedTriangles
// triangles or more cannot be packed (World refuses it).
struct PackedLinks {
  static constexpr std::uint32_t kNone = 0x3FFFFFFFu;
  std::uint32_t word[3] = {kNone, kNone, kNone};

  std::uint32_t across(int i) const { return (word[i] & kNone) == kNone ? kNoTriangle : word[i] & kNone; }
  TriangleLinks unpack() const {
    TriangleLinks l;
    for (int i = 0; i < 3; ++i) {
      l.across[i] = across(i);
      l.seam_edges |= std::uint8_t((word[i] >> 31) << i);
      l.flat_vertices |= std::uint8_t((word[i] >> 30 & 1u) << i);
    }
    return l;
  }
};
static_assert(sizeof(PackedLinks) == 12);
inline constexpr std::uint64_t kMaxPackedTriangles = PackedLinks::kNone;

// `links` packed (every index across below kMaxPackedTriangles, or kNoTriangle).
PackedLinks pack_links(const TriangleLinks& links);

// Vertices at the same position (equal floats; -0 equals +0) are welded into one.
std::vector<TriangleLinks> link_triangles(const std::vector<Triangle>& triangles);
// The same, packed, as a World keeps them.
std::vector<PackedLinks> link_triangles_packed(const std::vector<Triangle>& triangles);

// The unit normal of a proper triangle (winding order), or zero for a degenerate one.
Vec3 face_normal(const Triangle& t);
Vec3d face_normal_exact(const Triangle& t);  // the same in double, as the adjacency uses it

// Whether edge side_a of triangle a (from vertex side_a to the next), shared with edge side_b
// of b, is a seam: normals na, nb (face_normal_exact) (anti)parallel within kSeamDegrees, and
// the two triangles on opposite sides of the edge (one folded back onto the other is not a
// seam), judged with a's normal. link_triangles asks it with a the lower index of the two.
bool is_seam(const Triangle& a, const Vec3d& na, int side_a, const Triangle& b, const Vec3d& nb, int side_b);

}  // namespace capsweep
