#include "simd/child_entry.h"

#include <string_view>

#include <xsimd/xsimd.hpp>

#include "simd/block_sweep.h"
#include "simd/box_entry_kernel.h"

namespace capsweep {

namespace {

// minps / maxps: the second operand unless the first is strictly less (greater).
float min_ps(float a, float b) { return a < b ? a : b; }
float max_ps(float a, float b) { return a > b ? a : b; }

}  // namespace

unsigned child_entry_scalar(const ChildEntryPlanes& p, const WideNode& n, float limit, float* near) {
  unsigned bits = 0;
  for (int k = 0; k < WideNode::kWidth; ++k) {
    const float lx = (n.min_x[k] - p.lo[0]) * p.inv_d[0], ux = (n.max_x[k] - p.hi[0]) * p.inv_d[0];
    const float ly = (n.min_y[k] - p.lo[1]) * p.inv_d[1], uy = (n.max_y[k] - p.hi[1]) * p.inv_d[1];
    const float lz = (n.min_z[k] - p.lo[2]) * p.inv_d[2], uz = (n.max_z[k] - p.hi[2]) * p.inv_d[2];
    const float t_near = max_ps(max_ps(min_ps(lx, ux), min_ps(ly, uy)), max_ps(min_ps(lz, uz), 0.f));
    const float t_far = min_ps(min_ps(max_ps(lx, ux), max_ps(ly, uy)), min_ps(max_ps(lz, uz), 1.f));
    near[k] = t_near;
    if (n.child[k] != WideNode::kEmpty && t_near <= t_far && t_near <= limit) bits |= 1u << k;
  }
  return bits;
}

unsigned child_entry_sse2(const ChildEntryPlanes& p, const WideNode& n, float limit, float* near) {
  return kernel::child_entry<xsimd::batch<float, xsimd::sse2>>(p, n, limit, near);
}

ChildEntryFn best_child_entry() {
  static const ChildEntryFn chosen = [] {
    // AVX-512 implies AVX2 on every real CPU; a VM may mask CPUID bits one by one.
    const std::string_view isa = best_block_sweep().isa;
    const bool avx2 = (isa == "avx2" || isa == "avx512f") && xsimd::available_architectures().avx2;
    return avx2 ? child_entry_avx2 : child_entry_sse2;
  }();
  return chosen;
}

std::vector<ChildEntryVariant> child_entry_variants() {
  std::vector<ChildEntryVariant> out;
  if (xsimd::available_architectures().avx2) out.push_back({"avx2", child_entry_avx2});
  out.push_back({"sse2", child_entry_sse2});
  out.push_back({"scalar", child_entry_scalar});
  return out;
}

}  // namespace capsweep
