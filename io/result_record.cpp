#include "io/result_record.h"

#include <cstdint>
#include <cstring>

namespace capsweep {

std::uint8_t hit_code(const SweepHit& hit) { return hit.hit ? (hit.t == 0.f ? 2 : 1) : 0; }

void encode_result(const SweepHit& h, unsigned char out[kResultBytes]) {
  const std::uint8_t code = hit_code(h), feature = std::uint8_t(h.hit ? h.feature : Feature::none);
  const std::uint16_t zero = 0;
  const float t = h.hit ? h.t : 1.f;
  const float floats[7] = {h.normal.x, h.normal.y, h.normal.z, h.point.x, h.point.y, h.point.z, h.depth};
  const std::uint32_t triangle = h.hit ? h.triangle : kNoTriangle;
  std::memcpy(out, &code, 1);
  std::memcpy(out + 1, &feature, 1);
  std::memcpy(out + 2, &zero, 2);
  std::memcpy(out + 4, &t, 4);
  for (int k = 0; k < 7; ++k) {
    const float v = h.hit ? floats[k] : 0.f;
    std::memcpy(out + 8 + 4 * k, &v, 4);
  }
  std::memcpy(out + 36, &triangle, 4);
}

}  // namespace capsweep
