// Bit-for-bit equality of every field a caller sees (never of padding), for every kind of
// answer: what determinism, snapshots and the service promise.
#pragma once

#include <cstring>

#include <capsweep/world.h>

namespace answers {

template <class T>
bool bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

inline bool same(const capsweep::SweepHit& x, const capsweep::SweepHit& y) { return capsweep::identical(x, y); }

inline bool same(const capsweep::MoveResult& x, const capsweep::MoveResult& y) {
  if (!bits(x.capsule, y.capsule) || !bits(x.moved, y.moved) || !bits(x.vertical_speed, y.vertical_speed) ||
      x.grounded != y.grounded || !bits(x.ground_normal, y.ground_normal) || x.ground_triangle != y.ground_triangle ||
      x.flags != y.flags || x.contact_count != y.contact_count || x.sweeps != y.sweeps || !bits(x.pushed, y.pushed) ||
      x.shape != y.shape || !bits(x.ellipsoid, y.ellipsoid)) {
    return false;
  }
  for (int k = 0; k < x.contact_count; ++k) {
    const capsweep::MoveContact &a = x.contacts[k], &b = y.contacts[k];
    if (!bits(a.point, b.point) || !bits(a.normal, b.normal) || a.triangle != b.triangle || a.agent != b.agent) {
      return false;
    }
  }
  return true;
}

inline bool same(const capsweep::Verdict& x, const capsweep::Verdict& y) {
  return x.kind == y.kind && x.status == y.status && capsweep::identical(x.hit, y.hit) &&
         bits(x.legal_fraction, y.legal_fraction) && bits(x.furthest, y.furthest) && bits(x.corrected, y.corrected) &&
         x.grounded == y.grounded && x.in_skin == y.in_skin && bits(x.allowed.horizontal, y.allowed.horizontal) &&
         bits(x.allowed.down, y.allowed.down) && bits(x.allowed.up, y.allowed.up) &&
         bits(x.furthest_ellipsoid, y.furthest_ellipsoid) && bits(x.corrected_ellipsoid, y.corrected_ellipsoid) &&
         x.reason == y.reason && bits(x.claimed, y.claimed) && bits(x.limit, y.limit) &&
         bits(x.next.vertical_speed, y.next.vertical_speed) && x.next.grounded == y.next.grounded;
}
// next.ground_triangle is left to this: a triangle index, which worlds of the same ground in
// another triangle order (a terrain and its mesh twin) do not share.
inline bool same_ground(const capsweep::Verdict& x, const capsweep::Verdict& y) {
  return x.next.ground_triangle == y.next.ground_triangle;
}

inline bool same(const capsweep::Contact& x, const capsweep::Contact& y) {
  return bits(x.distance, y.distance) && x.overlapping == y.overlapping && bits(x.depth, y.depth) &&
         bits(x.normal, y.normal) && bits(x.point, y.point) && bits(x.point_on_axis, y.point_on_axis) &&
         x.feature == y.feature;
}

inline bool same(const capsweep::OverlapResult& x, const capsweep::OverlapResult& y) {
  return x.clear == y.clear && x.overlapping == y.overlapping && x.triangle == y.triangle &&
         (!x.overlapping || same(x.deepest, y.deepest));
}

}  // namespace answers
