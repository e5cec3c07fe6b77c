#include "simd/block_sweep.h"

#include <algorithm>
#include <cmath>

#include <xsimd/xsimd.hpp>

#include "core/closest_point.h"
#include <capsweep/sweep.h>
#include "simd/block_sweep_isa.h"
#include "simd/block_sweep_kernel.h"

namespace capsweep {

BlockQuery make_block_query(const Capsule& capsule, const Vec3& motion) {
  BlockQuery q;
  q.origin = to_double(capsule.a);
  q.e = to_double(capsule.b) - q.origin;
  q.d = to_double(motion);
  q.r = capsule.radius;
  limit_block_query(q, 1.0);
  return q;
}

void limit_block_query(BlockQuery& q, double t) {
  // The margin keeps a contact at exactly t (a tie with the best so far) live.
  const double scale = t >= 1.0 ? 1.0 : std::min(1.0, t * (1 + 1e-6) + 1e-9);
  q.d_live = q.d * scale;
  const Vec3d corners[4] = {{}, q.e, q.d_live, q.e + q.d_live};
  q.reach_min = q.reach_max = corners[0];
  for (const Vec3d& c : corners) {
    q.reach_min = min(q.reach_min, c);
    q.reach_max = max(q.reach_max, c);
  }
  const Vec3d r{q.r, q.r, q.r};
  q.reach_min -= r;
  q.reach_max += r;
  q.scale = max_abs_component(q.e) + max_abs_component(q.d) + q.r;
  // Rounding a bound to the nearest float never wrongs the test: the vertices are floats, and a
  // float beyond float(x) lies beyond x (rounding is monotone). Only the double sums' rounding
  // (about 1e-16 of the magnitudes) needs the widening, by far.
  const double widen = 1e-12 * (max_abs_component(q.origin) + q.scale);
  for (int k = 0; k < 3; ++k) {
    q.box_min[k] = float(q.origin[k] + q.reach_min[k] - widen);
    q.box_max[k] = float(q.origin[k] + q.reach_max[k] + widen);
  }
  // Measured (callgrind, recast_dungeon, 20k queries): -15 % instructions on long sweeps, +1 %
  // on validate (0.5-2 m), +2 % on tick: beside a short path the box is already tight.
  q.sweep_axes = max_abs_component(q.d_live) > 4 * q.r;
}

namespace {

const BlockSweepVariant kAvx512 = kernel::avx512f_variant();
const BlockSweepVariant kAvx2 = kernel::avx2_variant();
const BlockSweepVariant kSse42 = kernel::sse4_2_variant();
const BlockSweepVariant kSse2 = kernel::sse2_variant();

}  // namespace

std::vector<BlockSweepVariant> block_sweep_variants() {
  const auto cpu = xsimd::available_architectures();
  std::vector<BlockSweepVariant> out;
  if (cpu.avx2) out.push_back(kAvx2);
  if (cpu.avx512f) out.push_back(kAvx512);
  if (cpu.sse4_2) out.push_back(kSse42);
  out.push_back(kSse2);
  return out;
}

void set_lane_query(LaneQueries& o, int i, const BlockQuery& q) {
  o.ox[i] = q.origin.x, o.oy[i] = q.origin.y, o.oz[i] = q.origin.z;
  o.ex[i] = q.e.x, o.ey[i] = q.e.y, o.ez[i] = q.e.z;
  o.dx[i] = q.d.x, o.dy[i] = q.d.y, o.dz[i] = q.d.z;
  o.live_x[i] = q.d_live.x, o.live_y[i] = q.d_live.y, o.live_z[i] = q.d_live.z;
  o.r[i] = q.r;
  o.reach_min_x[i] = q.reach_min.x, o.reach_min_y[i] = q.reach_min.y, o.reach_min_z[i] = q.reach_min.z;
  o.reach_max_x[i] = q.reach_max.x, o.reach_max_y[i] = q.reach_max.y, o.reach_max_z[i] = q.reach_max.z;
}

void close_lane_queries(LaneQueries& o, int used) {
  double* arrays[] = {o.ox, o.oy, o.oz, o.ex, o.ey, o.ez, o.dx, o.dy, o.dz, o.live_x, o.live_y, o.live_z, o.r,
                      o.reach_min_x, o.reach_min_y, o.reach_min_z, o.reach_max_x, o.reach_max_y, o.reach_max_z};
  for (double* a : arrays) {
    for (int j = used; j < kBlockLanes; ++j) a[j] = a[0];
  }
}

bool block_sweep_pooled_scalar(const KernelBlock& block, const LaneQueries& queries, BlockHits& hits) {
  return kernel::sweep_pooled<double>(block, queries, hits);
}

bool block_sweep_scalar(const KernelBlock& block, const BlockQuery& query, BlockHits& hits) {
  return kernel::sweep_block<double>(block, query, hits);
}

std::uint32_t block_live_scalar(const TriangleBlock& block, const BlockQuery& query) {
  return kernel::live_lanes<float>(block, query);
}

void complete_normals_wide_scalar(KernelBlock& block) { kernel::complete_normals<double>(block); }

SweepHit lane_hit(const KernelBlock& b, int lane, const BlockQuery& q, const BlockHits& hits) {
  const Vec3d v[3] = {Vec3d{b.x0[lane], b.y0[lane], b.z0[lane]} - q.origin,
                      Vec3d{b.x1[lane], b.y1[lane], b.z1[lane]} - q.origin,
                      Vec3d{b.x2[lane], b.y2[lane], b.z2[lane]} - q.origin};
  const double t = hits.t[lane];
  const Vec3d x = q.d * t;  // where the axis start has moved
  const int part = hits.part[lane];
  // An offset face is entered against the motion: its outward normal has n.d < 0.
  auto facing = [&](const Vec3d& n) { return dot(n, q.d) < 0 ? n : -n; };
  // The radial direction from a cylinder's axis [p, p + u] to x (core/sweep.cpp, enter_cylinder).
  auto radial = [](const Vec3d& x, const Vec3d& p, const Vec3d& u) {
    const Vec3d r = x - (p + u * (dot(x - p, u) / length_sq(u)));
    return r / length(r);
  };
  SweepHit hit;
  hit.hit = true;
  hit.t = round_time_down(t);
  hit.triangle = b.triangle[lane];
  Vec3d n, point;
  if (part <= 1) {
    n = facing(Vec3d{b.nx[lane], b.ny[lane], b.nz[lane]});
    point = x - n * q.r + (part == 1 ? q.e : Vec3d{});
    hit.feature = Feature::face;
  } else if (part <= 4) {
    const int i = part - 2, j = (i + 1) % 3;
    n = facing(plane_normal(v[j] - v[i], q.e));
    point = closest_segment_segment(v[i], v[j], x, q.e + x).on_first;
    hit.feature = Feature::edge;
  } else if (part <= 10) {
    const int i = (part - 5) / 2, j = (i + 1) % 3;
    const bool at_b = (part - 5) % 2 == 1;
    const Vec3d shift = at_b ? q.e : Vec3d{};
    n = radial(x, v[i] - shift, (v[j] - shift) - (v[i] - shift));
    point = closest_point_segment(x + shift, v[i], v[j]).point;
    hit.feature = Feature::edge;
  } else if (part <= 13) {
    const int i = part - 11;
    n = radial(x, v[i], (v[i] - q.e) - v[i]);
    point = v[i];
    hit.feature = Feature::vertex;
  } else {
    const int i = (part - 14) / 2;
    const Vec3d center = (part - 14) % 2 == 1 ? v[i] - q.e : v[i];
    n = (x - center) / q.r;
    n = n / length(n);
    point = v[i];
    hit.feature = Feature::vertex;
  }
  hit.normal = to_float(n);
  hit.point = to_float(q.origin + point);
  return hit;
}

}  // namespace capsweep
