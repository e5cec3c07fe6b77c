// Unsigned values of one width (1 to 32 bits) back to back in 64-bit words: how a world keeps
// the arrays whose values need fewer bits than a u32 (issue 38: 64 bytes a triangle), its
// adjacency (adjacency.h) and where each mesh triangle lies in the blocks (world_arrays.h).
// Value i holds bits [i * width, (i + 1) * width) of the little-endian bit stream; the words end
// with one more, zero, so that every read is one unaligned 8-byte load from the value's first
// byte, shifted by at most 7 bits (the bit reader of meshoptimizer's and most codecs' decoders).
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <span>
#include <vector>

namespace capsweep {

static_assert(std::endian::native == std::endian::little, "the packed words are read as little-endian bytes");

// How many words hold `count` values of `width` bits, the zero word after them included (none
// for no values).
constexpr std::size_t packed_words(std::size_t count, std::uint32_t width) {
  return count == 0 ? 0 : (count * width + 63) / 64 + 1;
}

// The values, wherever their words live (built in memory, or mapped from a snapshot file).
struct PackedUintsView {
  std::span<const std::uint64_t> words;  // packed_words(count, width) of them
  std::uint32_t width = 1;
  std::size_t count = 0;

  std::size_t size() const { return count; }
  bool empty() const { return count == 0; }
  std::size_t size_bytes() const { return words.size_bytes(); }
  std::uint32_t operator[](std::size_t i) const {
    const std::size_t bit = i * width;
    std::uint64_t v;
    std::memcpy(&v, reinterpret_cast<const unsigned char*>(words.data()) + bit / 8, sizeof v);
    return std::uint32_t((v >> (bit % 8)) & ((std::uint64_t(1) << width) - 1));
  }
};

// The owner: `count` values of `width` bits, all zero until set.
class PackedUints {
 public:
  PackedUints() = default;
  PackedUints(std::size_t count, std::uint32_t width)
      : words_(packed_words(count, width), 0), width_(width), count_(count) {}
  // `count` values all `fill`, written a period of words at a time: one value repeated is a bit
  // stream whose every width / gcd(width, 64) words hold 64 / gcd(width, 64) whole values.
  PackedUints(std::size_t count, std::uint32_t width, std::uint32_t fill) : PackedUints(count, width) {
    if (fill == 0 || count == 0) return;
    const std::size_t g = std::gcd(std::size_t(width), std::size_t(64)), period = width / g;
    for (std::size_t i = 0, head = std::min(count, 64 / g); i < head; ++i) set(i, fill);
    const std::size_t used = (count * width + 63) / 64;
    for (std::size_t w = period; w < used; ++w) words_[w] = words_[w - period];
    if (const std::size_t tail = count * width % 64) words_[used - 1] &= (std::uint64_t(1) << tail) - 1;
  }

  // Value i becomes v (v < 2^width; i < size()).
  void set(std::size_t i, std::uint32_t v) {
    const std::size_t bit = i * width_;
    const std::uint64_t mask = (std::uint64_t(1) << width_) - 1;
    auto* bytes = reinterpret_cast<unsigned char*>(words_.data()) + bit / 8;
    std::uint64_t w;
    std::memcpy(&w, bytes, sizeof w);
    w = (w & ~(mask << (bit % 8))) | (std::uint64_t(v) & mask) << (bit % 8);
    std::memcpy(bytes, &w, sizeof w);
  }
  std::size_t size() const { return count_; }
  PackedUintsView view() const { return {words_, width_, count_}; }

 private:
  std::vector<std::uint64_t> words_;
  std::uint32_t width_ = 1;
  std::size_t count_ = 0;
};

// The fewest bits that hold every value up to `largest` (at least 1).
constexpr std::uint32_t bits_for(std::uint64_t largest) { return largest == 0 ? 1 : std::uint32_t(std::bit_width(largest)); }

}  // namespace capsweep
