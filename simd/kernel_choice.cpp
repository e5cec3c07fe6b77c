#include "simd/kernel_choice.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <vector>

#include "core/random.h"

namespace capsweep {

namespace {

const BlockSweepVariant* find(std::span<const BlockSweepVariant> runs, const char* isa) {
  for (const BlockSweepVariant& v : runs) {
    if (std::strcmp(v.isa, isa) == 0) return &v;
  }
  return nullptr;
}

// The built-in batch: 32 blocks of random triangles within 3 m of the origin (from 2 cm to 3 m
// across) and 48 people (radius 0.35 m, 1.1 m tall, some leaning) there, moving 5 cm to 5 m.
struct Batch {
  std::vector<TriangleBlock> blocks;
  std::vector<KernelBlock> wide;
  std::vector<BlockQuery> queries;

  Batch() {
    Random rng(38);
    for (int b = 0; b < 32; ++b) {
      Triangle soup[kBlockLanes];
      std::uint32_t indices[kBlockLanes];
      for (int i = 0; i < kBlockLanes; ++i) {
        const Vec3d c = rng.in_cube(3.0);
        const double size = rng.log_uniform(0.02, 3.0);
        for (Vec3& v : soup[i].v) v = to_float(c + rng.in_cube(size));
        indices[i] = std::uint32_t(i);
      }
      blocks.push_back(make_block(soup, indices));
      for (int i = 0; i < kBlockLanes; ++i) blocks.back().triangle[i] = std::uint32_t(b * kBlockLanes + i);
      wide.push_back(widen(blocks.back()));
    }
    for (int q = 0; q < 48; ++q) {
      const Vec3 a = to_float(rng.in_cube(3.0));
      const Vec3 axis = to_float(Vec3d{0, 1.1, 0} + rng.in_cube(q % 4 == 0 ? 0.5 : 0.0));
      const Vec3 motion = to_float(rng.unit_vector() * rng.log_uniform(0.05, 5.0));
      queries.push_back(make_block_query({a, a + axis, 0.35f}, motion));
    }
  }
};

}  // namespace

KernelChoice choose_kernel(std::span<const BlockSweepVariant> runs, const char* requested, const TimeVariant& time) {
  KernelChoice out;
  if (requested != nullptr && (out.variant = find(runs, requested)) != nullptr) {
    out.why = std::string("CAPSWEEP_ISA=") + requested;
    return out;
  }
  for (const char* isa : {"avx2", "sse4_2", "sse2"}) {
    if ((out.variant = find(runs, isa)) != nullptr) break;
  }
  if (out.variant == nullptr) return out;  // no variant at all: not a CPU this builds for
  const BlockSweepVariant* avx512 = find(runs, "avx512f");
  if (avx512 == nullptr || std::strcmp(out.variant->isa, "avx2") != 0) {
    out.why = "the widest this CPU runs";
    return out;
  }
  double four = INFINITY, wide = INFINITY;
  for (int round = 0; round < 7; ++round) {
    four = std::min(four, time(*out.variant));
    wide = std::min(wide, time(*avx512));
  }
  if (!(four > 0 && wide > 0 && std::isfinite(four) && std::isfinite(wide))) {
    out.why = "the widest this CPU runs up to AVX2 (AVX-512's timing failed)";
    return out;
  }
  if (wide < (1 - kAvx512Margin) * four) out.variant = avx512;
  char line[96];
  std::snprintf(line, sizeof line, "avx512f took %.2f of avx2's time on the built-in batch", wide / four);
  out.why = line;
  return out;
}

const KernelChoice& kernel_in_use() {
  static const std::vector<BlockSweepVariant> runs = block_sweep_variants();
  static const KernelChoice choice = choose_kernel(runs, std::getenv("CAPSWEEP_ISA"), time_builtin_batch);
  return choice;
}

std::string isa_request_problem() {
  const char* wanted = std::getenv("CAPSWEEP_ISA");
  const std::vector<BlockSweepVariant> runs = block_sweep_variants();
  if (wanted == nullptr || find(runs, wanted) != nullptr) return "";
  std::string names;
  for (const BlockSweepVariant& v : runs) names += std::string(names.empty() ? "" : ", ") + v.isa;
  return std::string("CAPSWEEP_ISA=") + wanted + " is not an instruction set this CPU runs (it runs " + names + ")";
}

const BlockSweepVariant& best_block_sweep() { return *kernel_in_use().variant; }

double time_builtin_batch(const BlockSweepVariant& variant) {
  static const Batch batch;
  BlockHits hits;
  volatile unsigned sink = 0;
  const auto start = std::chrono::steady_clock::now();
  for (const BlockQuery& q : batch.queries) {
    for (std::size_t b = 0; b < batch.blocks.size(); ++b) {
      const std::uint32_t live = variant.live(batch.blocks[b], q);
      if (live != 0 && variant.fn(batch.wide[b], q, hits)) sink = sink + live;
    }
  }
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  (void)sink;
  return took.count();
}

}  // namespace capsweep
