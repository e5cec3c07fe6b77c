// Heightmap images for the command, the tests and the benchmarks: writing grayscale PNGs (the
// format capsweep::io's load_heightmap reads) and a seeded synthetic terrain to fill them with.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace capsweep {

// A grayscale PNG of `width` x `height` pixels, row by row, 8 or 16 bits a pixel (8: each value
// must be below 256), written atomically. Throws std::runtime_error naming the file.
void write_gray_png(const std::string& path, std::uint32_t width, std::uint32_t height,
                    std::span<const std::uint16_t> values, int depth = 16, std::span<const std::string> inputs = {});

// Rolling hills, ridges and valleys over the full 16-bit range (midpoint displacement,
// seeded): `size` x `size` samples, the same for the same size and seed.
std::vector<std::uint16_t> synthetic_hills(std::uint32_t size, std::uint64_t seed);

}  // namespace capsweep
