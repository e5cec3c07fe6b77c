// A small seeded generator whose streams are the same on every platform and compiler
// (std:: distributions are not), so that workloads and test cases are reproducible.
#pragma once

#include <cmath>
#include <cstdint>

#include <capsweep/values.h>

namespace capsweep {

class Random {
 public:
  explicit Random(std::uint64_t seed) : state_(seed) {}

  // SplitMix64 (Steele, Lea, Flood: "Fast splittable pseudorandom number generators", 2014).
  std::uint64_t next_u64() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double uniform() { return double(next_u64() >> 11) * 0x1.0p-53; }  // [0, 1)
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  double log_uniform(double lo, double hi) { return std::exp(uniform(std::log(lo), std::log(hi))); }
  std::uint64_t below(std::uint64_t n) { return next_u64() % n; }  // n small: bias is negligible
  bool chance(double p) { return uniform() < p; }

  Vec3d in_cube(double half) { return {uniform(-half, half), uniform(-half, half), uniform(-half, half)}; }
  Vec3d unit_vector() {
    for (;;) {
      const Vec3d v = in_cube(1.0);
      const double l = length(v);
      if (l > 1e-3 && l <= 1.0) return v / l;
    }
  }

 private:
  std::uint64_t state_;
};

}  // namespace capsweep
