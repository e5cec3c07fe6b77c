// Which block-sweep variant the batches run, where the CPU runs more than one worth having.
// AVX-512's eight double lanes ran 5-22 % slower than AVX2's four on an AVX-512 Xeon and 8-24 %
// faster on a Zen 5 EPYC (docs/DECISIONS.md), so no rule by name holds: on a CPU with both, each
// is timed on a small built-in batch once, at first use (a few milliseconds), and the faster
// kept. Every variant gives the same bits (tests/simd), so the choice moves only the speed.
#pragma once

#include <functional>
#include <span>
#include <string>

#include "simd/block_sweep.h"

namespace capsweep {

struct KernelChoice {
  const BlockSweepVariant* variant = nullptr;
  std::string why;  // one line: what chose it (CAPSWEEP_ISA, the widest there is, or the timing)
};

// AVX-512 is kept only when it beats AVX2 by more than this fraction of AVX2's time: a tie on a
// noisy machine keeps the variant measured faster on the CPUs we know.
inline constexpr double kAvx512Margin = 0.03;

// Seconds a variant takes over a batch (time_builtin_batch, or the tests' own numbers).
using TimeVariant = std::function<double(const BlockSweepVariant&)>;

// The rule, with the clock passed in (the tests feed it timings). `runs`: the variants this CPU
// runs, as block_sweep_variants() lists them; `requested`: CAPSWEEP_ISA (or null). CAPSWEEP_ISA
// naming a variant of `runs` wins; else the widest up to AVX2 (AVX2, SSE4.2, SSE2), or AVX-512
// where the CPU runs both it and AVX2 and `time` says it is faster by the margin (seven rounds,
// taken in turn, the fastest of each kept: a burst of noise costs a round, not a side). `time` is
// called only there.
KernelChoice choose_kernel(std::span<const BlockSweepVariant> runs, const char* requested, const TimeVariant& time);

// The choice in use: made once, at first use, with the clock where the CPU runs AVX-512 and
// CAPSWEEP_ISA does not name a variant it runs (best_block_sweep() is its variant).
const KernelChoice& kernel_in_use();

// Seconds the variant takes over the built-in batch (person-sized sweeps against blocks of
// random triangles: the rejection stage on every pair, the full kernel where a lane is live).
double time_builtin_batch(const BlockSweepVariant& variant);

}  // namespace capsweep
