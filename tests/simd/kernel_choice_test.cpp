// simd/kernel_choice: which block-sweep variant runs. CAPSWEEP_ISA naming a variant the CPU runs
// wins; else the widest up to AVX2, or AVX-512 where it is timed faster than AVX2 by the margin;
// the rule is held to timings fed to it, and the choice in use to the rule and its reason.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include <capsweep/world.h>
#include "simd/kernel_choice.h"

namespace {

using namespace capsweep;

BlockSweepVariant named(const char* isa) { return {isa, nullptr, nullptr, nullptr, nullptr, 4}; }

const std::vector<BlockSweepVariant> kAvx512Cpu{named("avx2"), named("avx512f"), named("sse4_2"), named("sse2")};
const std::vector<BlockSweepVariant> kAvx2Cpu{named("avx2"), named("sse4_2"), named("sse2")};
const std::vector<BlockSweepVariant> kOldCpu{named("sse4_2"), named("sse2")};

std::string isa_of(const KernelChoice& c) { return c.variant ? c.variant->isa : "(none)"; }

// A clock that says AVX2 takes 1 s and AVX-512 `avx512` s, and counts its calls.
struct FedClock {
  double avx512;
  int* calls;
  double operator()(const BlockSweepVariant& v) const {
    ++*calls;
    return std::string(v.isa) == "avx512f" ? avx512 : 1.0;
  }
};

TEST(KernelChoice, CapsweepIsaNamingAVariantTheCpuRunsWins) {
  int calls = 0;
  const FedClock avx512_faster{0.5, &calls};
  for (const char* isa : {"sse2", "sse4_2", "avx2", "avx512f"}) {
    const KernelChoice c = choose_kernel(kAvx512Cpu, isa, avx512_faster);
    EXPECT_EQ(isa_of(c), isa);
    EXPECT_EQ(c.why, std::string("CAPSWEEP_ISA=") + isa);
  }
  EXPECT_EQ(calls, 0) << "CAPSWEEP_ISA's choice needs no clock";
  // A name the CPU does not run is ignored (the command refuses it up front): the rule decides.
  EXPECT_EQ(isa_of(choose_kernel(kAvx2Cpu, "avx512f", avx512_faster)), "avx2");
  EXPECT_EQ(isa_of(choose_kernel(kOldCpu, "avx2", avx512_faster)), "sse4_2");
  EXPECT_EQ(isa_of(choose_kernel(kAvx512Cpu, "neon", avx512_faster)), "avx512f");
}

TEST(KernelChoice, WithoutAvx512TheWidestUpToAvx2) {
  int calls = 0;
  const FedClock clock{0.5, &calls};
  EXPECT_EQ(isa_of(choose_kernel(kAvx2Cpu, nullptr, clock)), "avx2");
  EXPECT_EQ(isa_of(choose_kernel(kOldCpu, nullptr, clock)), "sse4_2");
  EXPECT_EQ(isa_of(choose_kernel(std::vector{named("sse2")}, nullptr, clock)), "sse2");
  EXPECT_EQ(choose_kernel(kAvx2Cpu, nullptr, clock).why, "the widest this CPU runs");
  EXPECT_EQ(calls, 0) << "nothing to time without AVX-512";
  // AVX-512 whose timing failed (no time at all, zero, NaN, infinite): AVX2, and the reason says so.
  for (const double failed : {0.0, double(NAN), double(INFINITY)}) {
    const KernelChoice untimed = choose_kernel(kAvx512Cpu, nullptr, FedClock{failed, &calls});
    EXPECT_EQ(isa_of(untimed), "avx2") << failed;
    EXPECT_NE(untimed.why.find("timing failed"), std::string::npos) << untimed.why;
  }
}

TEST(KernelChoice, Avx512IsKeptOnlyWhereTimedFasterThanAvx2ByTheMargin) {
  int calls = 0;
  const auto with = [&](double avx512) { return choose_kernel(kAvx512Cpu, nullptr, FedClock{avx512, &calls}); };
  EXPECT_EQ(isa_of(with(0.8)), "avx512f");  // a Zen 5
  EXPECT_EQ(calls, 14) << "seven rounds of each";
  EXPECT_EQ(isa_of(with(1.0 - kAvx512Margin - 0.001)), "avx512f");
  EXPECT_EQ(isa_of(with(1.0 - kAvx512Margin + 0.001)), "avx2");  // within the noise: the known default
  EXPECT_EQ(isa_of(with(1.0)), "avx2");
  EXPECT_EQ(isa_of(with(1.2)), "avx2");  // a Xeon
  EXPECT_EQ(with(0.8).why, "avx512f took 0.80 of avx2's time on the built-in batch");
  EXPECT_EQ(with(1.2).why, "avx512f took 1.20 of avx2's time on the built-in batch");
  // A timing that failed (zero, NaN) times nothing: AVX2.
  EXPECT_EQ(isa_of(with(0.0)), "avx2");
  EXPECT_EQ(isa_of(with(NAN)), "avx2");
  // The fastest round counts: one slow round of AVX-512 does not lose it the choice.
  int round = 0;
  const KernelChoice noisy = choose_kernel(kAvx512Cpu, nullptr, [&](const BlockSweepVariant& v) {
    return std::string(v.isa) == "avx512f" ? (round++ == 0 ? 5.0 : 0.8) : 1.0;
  });
  EXPECT_EQ(isa_of(noisy), "avx512f") << noisy.why;
}

TEST(KernelChoice, TheVariantInUseIsTheRulesAndSaysWhy) {
  const std::vector<BlockSweepVariant> runs = block_sweep_variants();
  const KernelChoice& in_use = kernel_in_use();
  ASSERT_NE(in_use.variant, nullptr);
  EXPECT_STREQ(best_block_sweep().isa, in_use.variant->isa);
  EXPECT_STREQ(kernel_isa(), in_use.variant->isa);
  EXPECT_EQ(std::string(kernel_isa_reason()), in_use.why);
  bool runs_it = false, avx512 = false;
  for (const BlockSweepVariant& v : runs) {
    runs_it = runs_it || std::string(v.isa) == in_use.variant->isa;
    avx512 = avx512 || std::string(v.isa) == "avx512f";
  }
  EXPECT_TRUE(runs_it);
  if (const char* requested = std::getenv("CAPSWEEP_ISA"); requested != nullptr && kernel_isa_problem().empty()) {
    EXPECT_STREQ(kernel_isa(), requested);
  } else if (avx512) {
    // Timed: AVX2 or AVX-512, whichever the clock said, and the reason gives the ratio.
    EXPECT_TRUE(std::string(kernel_isa()) == "avx2" || std::string(kernel_isa()) == "avx512f") << kernel_isa();
    EXPECT_NE(in_use.why.find("built-in batch"), std::string::npos) << in_use.why;
  } else {
    EXPECT_EQ(isa_of(choose_kernel(runs, nullptr, time_builtin_batch)), kernel_isa());
  }
  // The batch the clock runs sweeps with every variant (it is the kernels' own work).
  for (const BlockSweepVariant& v : runs) EXPECT_GT(time_builtin_batch(v), 0.0) << v.isa;
}

}  // namespace
