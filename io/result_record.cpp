#include "io/result_record.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

#include <capsweep/tiles.h>

namespace capsweep {

std::uint8_t hit_code(const SweepHit& hit) { return hit.hit ? (hit.t == 0.f ? 2 : 1) : 0; }

HitPart part_of(const World& world, const SweepHit& hit) {
  if (!hit.hit) return {};
  if (hit.triangle >= world.triangle_count()) {
    throw std::out_of_range("part_of: triangle " + std::to_string(hit.triangle) + " is not one of the world's " +
                            std::to_string(world.triangle_count()));
  }
  if (const Instance* instance = world.instance_of(hit.triangle)) return {PartKind::instance, instance->id};
  if (const Tile* tile = world.tile_of(hit.triangle)) return {PartKind::tile, tile->id};
  return {PartKind::static_part, kNoPart};
}

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

void encode_part(const HitPart& part, unsigned char out[sizeof(PartBytes)]) {
  PartBytes b{};
  b.kind = std::uint8_t(part.kind);
  b.id = part.id;
  std::memcpy(out, &b, sizeof b);
}

const char* decode_result(const unsigned char* p, SweepHit& h) {
  const std::uint8_t code = p[0], feature = p[1];
  if (code > 2) return "hit code must be 0, 1 or 2";
  if (feature > 3) return "feature must be 0 to 3";
  float f[8];
  std::memcpy(f, p + 4, sizeof f);
  h.hit = code != 0;
  h.feature = Feature(feature);
  h.t = f[0];
  h.normal = {f[1], f[2], f[3]};
  h.point = {f[4], f[5], f[6]};
  h.depth = f[7];
  std::memcpy(&h.triangle, p + 36, 4);
  for (float v : f) {
    if (!std::isfinite(v)) return "non-finite number";
  }
  if ((code == 2) != (h.hit && h.t == 0.f)) return "hit code 2 must go with t = 0";
  return nullptr;
}

const char* decode_part(const unsigned char* p, const SweepHit& hit, HitPart& part) {
  PartBytes b;
  std::memcpy(&b, p, sizeof b);
  if (b.kind > std::uint8_t(PartKind::tile)) return "part kind must be 0 to 3";
  if (b.reserved[0] != 0 || b.reserved[1] != 0 || b.reserved[2] != 0) return "reserved bytes must be 0";
  part = {PartKind(b.kind), b.id};
  if (!hit.hit && part.kind != PartKind::none) return "a miss is on no part (kind 0)";
  if (hit.hit && part.kind == PartKind::none) return "a hit names its part (kind 1, 2 or 3)";
  if ((part.kind == PartKind::none || part.kind == PartKind::static_part) && part.id != kNoPart) {
    return "a miss and the static part have the id 0xFFFFFFFF";
  }
  return nullptr;
}

}  // namespace capsweep
