// One swept capsule against a block of eight triangles, across SIMD lanes.
//
// The kernel is one template (block_sweep_kernel.h) compiled for several ISAs, picked at run
// time for the CPU at hand, and once more in plain double one lane at a time: the scalar twin
// the wide versions are tested against lane by lane.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <capsweep/values.h>
#include "simd/triangle_block.h"

namespace capsweep {

// A query in the kernels' frame: double precision, relative to the capsule's endpoint a (the
// frame of the scalar core, so both see the same numbers).
struct BlockQuery {
  Vec3d origin;                // capsule.a, in world coordinates
  Vec3d e;                     // capsule.b - capsule.a
  Vec3d d;                     // the motion
  double r = 0;                // the radius
  // The rejection stage looks only this far along the motion: d_live = d * (a bit over the
  // best t found so far), and the box of everything the capsule may touch until then.
  Vec3d d_live;
  Vec3d reach_min, reach_max;  // relative to origin
  // The same box in world coordinates, in float (widened beyond the double sums' rounding): the
  // float stage's box test.
  float box_min[3] = {}, box_max[3] = {};
  double scale = 0;            // |e| + |d| + r (max norms): for the float stage's margins
  // Whether the float stage also tries the sweep's own separating axes (compact_live_mask): they pay
  // when the live motion is long next to the radius (long sweeps), not on walking steps.
  bool sweep_axes = false;
};
BlockQuery make_block_query(const Capsule& capsule, const Vec3& motion);
// Narrows the rejection stage to entries no later than t (a contact at t itself stays live).
void limit_block_query(BlockQuery& query, double t);

// Eight lanes, each with a query of its own: the pooled narrow phase, where the live lanes that
// several sweeps have left over share one call of the full kernel. A lane's values are its
// BlockQuery's (limited as that sweep's rejection stage left it); every query has an axis
// (a != b): a sphere's leftover lanes are swept on their own.
struct alignas(64) LaneQueries {
  double ox[kBlockLanes], oy[kBlockLanes], oz[kBlockLanes];  // origin
  double ex[kBlockLanes], ey[kBlockLanes], ez[kBlockLanes];
  double dx[kBlockLanes], dy[kBlockLanes], dz[kBlockLanes];
  double live_x[kBlockLanes], live_y[kBlockLanes], live_z[kBlockLanes];  // d_live
  double r[kBlockLanes];
  double reach_min_x[kBlockLanes], reach_min_y[kBlockLanes], reach_min_z[kBlockLanes];
  double reach_max_x[kBlockLanes], reach_max_y[kBlockLanes], reach_max_z[kBlockLanes];
};
static_assert(sizeof(LaneQueries) == 19 * 64, "19 x 8 doubles");

// Whether the capsule has an axis (e != 0), as every kernel decides it; only such queries may go
// to the pooled kernel.
inline bool has_axis(const BlockQuery& q) { return q.e.x * q.e.x + q.e.y * q.e.y + q.e.z * q.e.z > 0; }
// Lane `lane` of `out` takes the query.
void set_lane_query(LaneQueries& out, int lane, const BlockQuery& query);
// Lanes [used, kBlockLanes) become copies of lane 0 (their triangles are closed by close_lanes).
void close_lane_queries(LaneQueries& out, int used);

// The 20 parts of the rounded prism (see core/sweep.h), in the order the scalar core tries them.
enum class PrismPart : std::uint8_t {
  face_at_a = 0, face_at_b = 1,
  edge_slab0 = 2,            // 2..4: edge i swept along the axis
  edge_cylinder_at_a0 = 5,   // 5, 7, 9: edge i at a;  6, 8, 10: edge i at b
  axis_cylinder0 = 11,       // 11..13: vertex i swept along the axis
  sphere_at_a0 = 14,         // 14, 16, 18: vertex i at a;  15, 17, 19: vertex i at b
};

// What the kernel reports per lane.
struct alignas(64) BlockHits {  // aligned: the kernels store whole batches into it
  double t[kBlockLanes];            // first entry in [0, 1]; +inf: not touched (or unused lane)
  std::uint8_t part[kBlockLanes];   // PrismPart entered first (lane_hit derives the normal)
  // The start may already be within reach. The kernel leaves such lanes (rare: a query that
  // starts touching) to the scalar core, which computes depth and push-out; t is +inf there.
  bool near_start[kBlockLanes];
};

// The full kernel: fills `hits` for every lane; returns whether any lane has a finite t or
// near_start.
using BlockSweepFn = bool (*)(const KernelBlock& block, const BlockQuery& query, BlockHits& hits);

// The rejection stage, over a compact block in float: bit i set when lane i is used and may be
// touched (the cheap exact rejections failed to rule it out). A caller gathers live lanes of
// several blocks into one KernelBlock before running the full kernel, so that fewer lanes idle.
using BlockLiveFn = std::uint32_t (*)(const TriangleBlock& block, const BlockQuery& query);

// The full kernel over a pooled block: lane i sweeps query i of `queries`, with the same bits as
// BlockSweepFn gives that lane with that query alone.
using PooledSweepFn = bool (*)(const KernelBlock& block, const LaneQueries& queries, BlockHits& hits);

// The exact normals of every lane of a kernel block whose vertices are set, as
// complete_normals_scalar gives them (classify_triangle's bits): run on each gathered block
// before the full kernel (fn or pooled), which reads them, as lane_hit does.
using CompleteNormalsFn = void (*)(KernelBlock& block);

struct BlockSweepVariant {
  const char* isa;
  BlockSweepFn fn;
  BlockLiveFn live;
  PooledSweepFn pooled;
  CompleteNormalsFn complete;
  // Lanes the full kernel sweeps as cheaply as one (a group of unused lanes is skipped): a walk
  // runs it as soon as it has gathered this many, so that a contact found narrows the rest.
  int group;
};
// The variant in use (chosen once, on first use; simd/kernel_choice.h): CAPSWEEP_ISA's if the
// CPU runs it, else the widest up to AVX2, or AVX-512 where it is timed faster than AVX2.
const BlockSweepVariant& best_block_sweep();
// Why the CAPSWEEP_ISA environment variable cannot be honoured ("" when it is unset or names a
// variant this CPU runs): best_block_sweep() then ignores it, so tools should refuse it up front
// (with the choice, in kernel_choice.cpp).
std::string isa_request_problem();
// Every variant this CPU runs, the one picked first (for tests and benchmarks).
std::vector<BlockSweepVariant> block_sweep_variants();

// The scalar twins: the same kernels in plain double (or float), one lane at a time.
bool block_sweep_scalar(const KernelBlock& block, const BlockQuery& query, BlockHits& hits);
std::uint32_t block_live_scalar(const TriangleBlock& block, const BlockQuery& query);
bool block_sweep_pooled_scalar(const KernelBlock& block, const LaneQueries& queries, BlockHits& hits);
void complete_normals_wide_scalar(KernelBlock& block);  // the template on plain double

// The full answer for a lane the kernel reports entered (finite t): t rounded down to float,
// and the normal, contact point and feature of the part entered, computed as the scalar core
// computes them (so the two paths agree bit for bit on the same t and part).
SweepHit lane_hit(const KernelBlock& block, int lane, const BlockQuery& query, const BlockHits& hits);

}  // namespace capsweep
