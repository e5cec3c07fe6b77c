#include "tools/heightmaps.h"

#include <png.h>

#include <algorithm>
#include <cmath>
#include <csetjmp>
#include <stdexcept>

#include "core/random.h"
#include "io/atomic_file.h"

namespace capsweep {

namespace {

// Encodes into `bytes`; false when libpng failed. Only trivial locals: a longjmp skips nothing.
bool encode(std::string& bytes, std::uint32_t width, std::uint32_t height, const std::uint16_t* values, int depth,
            png_bytep row) {
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  if (!png || !info) {
    png_destroy_write_struct(&png, &info);
    return false;
  }
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    return false;
  }
  png_set_write_fn(
      png, &bytes,
      [](png_structp p, png_bytep data, png_size_t n) {
        static_cast<std::string*>(png_get_io_ptr(p))->append(reinterpret_cast<const char*>(data), n);
      },
      nullptr);
  png_set_IHDR(png, info, width, height, depth, PNG_COLOR_TYPE_GRAY, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  png_set_compression_level(png, 3);  // large heightmaps: fast over small
  png_write_info(png, info);
  for (std::uint32_t y = 0; y < height; ++y) {
    const std::uint16_t* v = values + std::size_t(y) * width;
    for (std::uint32_t x = 0; x < width; ++x) {
      if (depth == 16) {
        row[2 * x] = png_byte(v[x] >> 8);  // big-endian, as PNG stores it
        row[2 * x + 1] = png_byte(v[x]);
      } else {
        row[x] = png_byte(v[x]);
      }
    }
    png_write_row(png, row);
  }
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return true;
}

}  // namespace

void write_gray_png(const std::string& path, std::uint32_t width, std::uint32_t height,
                    std::span<const std::uint16_t> values, int depth, std::span<const std::string> inputs) {
  if ((depth != 8 && depth != 16) || values.size() != std::size_t(width) * height) {
    throw std::runtime_error(path + ": a gray PNG of 8 or 16 bits needs width x height values");
  }
  if (depth == 8 && std::any_of(values.begin(), values.end(), [](std::uint16_t v) { return v > 255; })) {
    throw std::runtime_error(path + ": an 8-bit PNG holds values below 256");
  }
  std::string bytes;
  std::vector<png_byte> row(std::size_t(width) * (depth / 8));
  if (!encode(bytes, width, height, values.data(), depth, row.data())) {
    throw std::runtime_error(path + ": encoding the PNG failed");
  }
  write_file_atomically(path, bytes, inputs);
}

std::vector<std::uint16_t> synthetic_hills(std::uint32_t size, std::uint64_t seed) {
  // Midpoint displacement (Fournier, Fussell and Carpenter, "Computer rendering of stochastic
  // models", 1982) on the smallest 2^k + 1 grid holding size x size, then cropped.
  std::uint32_t n = 1;
  while (n + 1 < size) n *= 2;
  const std::uint32_t side = n + 1;
  std::vector<double> h(std::size_t(side) * side, 0.0);
  Random rng(seed);
  auto at = [&](std::uint32_t r, std::uint32_t c) -> double& { return h[std::size_t(r) * side + c]; };
  double amplitude = 1.0;
  for (std::uint32_t step = n; step > 1; step /= 2, amplitude *= 0.55) {
    const std::uint32_t half = step / 2;
    for (std::uint32_t r = half; r < side; r += step) {  // squares: centres
      for (std::uint32_t c = half; c < side; c += step) {
        at(r, c) = (at(r - half, c - half) + at(r - half, c + half) + at(r + half, c - half) + at(r + half, c + half)) / 4 +
                   amplitude * rng.uniform(-1, 1);
      }
    }
    for (std::uint32_t r = 0; r < side; r += half) {  // diamonds: edge midpoints
      for (std::uint32_t c = (r / half) % 2 == 0 ? half : 0; c < side; c += step) {
        double sum = 0;
        int count = 0;
        if (r >= half) sum += at(r - half, c), ++count;
        if (r + half < side) sum += at(r + half, c), ++count;
        if (c >= half) sum += at(r, c - half), ++count;
        if (c + half < side) sum += at(r, c + half), ++count;
        at(r, c) = sum / count + amplitude * rng.uniform(-1, 1);
      }
    }
  }
  double lo = INFINITY, hi = -INFINITY;
  for (std::uint32_t r = 0; r < size; ++r) {
    for (std::uint32_t c = 0; c < size; ++c) lo = std::min(lo, at(r, c)), hi = std::max(hi, at(r, c));
  }
  std::vector<std::uint16_t> out(std::size_t(size) * size);
  for (std::uint32_t r = 0; r < size; ++r) {
    for (std::uint32_t c = 0; c < size; ++c) {
      out[std::size_t(r) * size + c] = std::uint16_t(std::lround((at(r, c) - lo) / std::max(hi - lo, 1e-12) * 65535.0));
    }
  }
  return out;
}

}  // namespace capsweep
