// Packed values (broadphase/packed_uints.h) against a plain array: every width, values that
// straddle words, writes over earlier values, and the zero word at the end.
#include <gtest/gtest.h>

#include <random>

#include "broadphase/packed_uints.h"

namespace {

using namespace capsweep;

TEST(PackedUints, EveryWidthGivesBackWhatWasSetAndNothingSpills) {
  std::mt19937_64 rng(5);
  for (std::uint32_t width = 1; width <= 32; ++width) {
    const std::uint64_t top = (std::uint64_t(1) << width) - 1;
    for (std::size_t count : {std::size_t(0), std::size_t(1), std::size_t(63), std::size_t(64), std::size_t(1000)}) {
      PackedUints packed(count, width);
      std::vector<std::uint32_t> plain(count, 0);
      // Random writes (some over values already set; extremes often, so that all-ones and zero
      // neighbours meet at every offset in a word).
      for (std::size_t step = 0; step < 3 * count; ++step) {
        const std::size_t i = rng() % count;
        const std::uint64_t pick = rng() % 4;
        const auto v = std::uint32_t(pick == 0 ? 0 : pick == 1 ? top : rng() & top);
        packed.set(i, v);
        plain[i] = v;
      }
      const PackedUintsView view = packed.view();
      ASSERT_EQ(view.size(), count);
      ASSERT_EQ(view.words.size(), packed_words(count, width));
      for (std::size_t i = 0; i < count; ++i) ASSERT_EQ(view[i], plain[i]) << width << " bits, value " << i;
      if (count == 0) {
        EXPECT_TRUE(view.words.empty()) << "no values, no words";
        continue;
      }
      EXPECT_EQ(view.words.back(), 0u) << "the word after the values stays zero";
      const std::uint64_t used = count * width;
      if (used % 64) {
        EXPECT_EQ(view.words[used / 64] >> (used % 64), 0u) << "the bits after the last value stay zero";
      }
    }
  }
}

// The filling constructor writes a period of words and copies it: every width, counts around
// the period (64 / gcd(width, 64) values), values with ones at both ends; the same values as
// one set() each, and nothing after the last.
TEST(PackedUints, AFilledArrayIsEveryValueSetOnce) {
  for (std::uint32_t width = 1; width <= 32; ++width) {
    const std::uint64_t top = (std::uint64_t(1) << width) - 1;
    for (const std::uint64_t fill : {top, top >> 1 | 1, std::uint64_t(1), (top & 0x5555'5555u) | 1}) {
      for (std::size_t count : {std::size_t(1), std::size_t(3), std::size_t(63), std::size_t(64), std::size_t(65),
                                std::size_t(129), std::size_t(1001)}) {
        const PackedUints filled(count, width, std::uint32_t(fill));
        PackedUints one_by_one(count, width);
        for (std::size_t i = 0; i < count; ++i) one_by_one.set(i, std::uint32_t(fill));
        const PackedUintsView a = filled.view(), b = one_by_one.view();
        ASSERT_EQ(a.words.size(), b.words.size());
        for (std::size_t w = 0; w < a.words.size(); ++w) {
          ASSERT_EQ(a.words[w], b.words[w]) << width << " bits, fill " << fill << ", " << count << " values, word " << w;
        }
        for (std::size_t i = 0; i < count; ++i) ASSERT_EQ(a[i], fill) << width << " bits, value " << i;
      }
    }
  }
}

TEST(PackedUints, BitsForHoldsItsLargestValue) {
  EXPECT_EQ(bits_for(0), 1u);
  EXPECT_EQ(bits_for(1), 1u);
  EXPECT_EQ(bits_for(2), 2u);
  EXPECT_EQ(bits_for(255), 8u);
  EXPECT_EQ(bits_for(256), 9u);
  EXPECT_EQ(bits_for(0xFFFFFFFFu), 32u);
}

}  // namespace
