// The C API's structs (<capsweep/capsweep_c.h>) as records of the C++ types: pinned layouts and
// lossless conversions, shared by libcapsweep_c and the Python module (whose numpy dtypes are
// these structs). Internal.
#pragma once

#include <cstddef>
#include <cstring>

#include <capsweep/capsweep_c.h>
#include <capsweep/files.h>
#include <capsweep/world.h>

#include "io/result_record.h"
#include "io/query_format.h"

namespace capsweep::records {

// The CWSQ and CWSR records of docs/FORMATS.md, field by field.
static_assert(sizeof(cs_capsule) == 28);
static_assert(sizeof(cs_pose) == 56 && sizeof(cs_instance) == 72 && offsetof(cs_instance, pose) == 8 &&
              sizeof(cs_instance_pose) == 64 && offsetof(cs_instance_pose, pose) == 8);
static_assert(sizeof(void*) != 8 || (sizeof(cs_tile) == 40 && offsetof(cs_tile, origin) == 8 && offsetof(cs_tile, mesh) == 32));
static_assert(sizeof(cs_ellipsoid_query) == kEllipsoidQueryBytes && offsetof(cs_ellipsoid_query, radii) == 12 &&
              offsetof(cs_ellipsoid_query, motion) == 24);
static_assert(sizeof(cs_sweep_query) == kQueryBytes && offsetof(cs_sweep_query, capsule.a) == 0 &&
              offsetof(cs_sweep_query, capsule.b) == 12 && offsetof(cs_sweep_query, capsule.radius) == 24 &&
              offsetof(cs_sweep_query, motion) == 28);
static_assert(sizeof(cs_sweep_hit) == kResultBytes && offsetof(cs_sweep_hit, hit) == 0 &&
              offsetof(cs_sweep_hit, feature) == 1 && offsetof(cs_sweep_hit, reserved) == 2 &&
              offsetof(cs_sweep_hit, t) == 4 && offsetof(cs_sweep_hit, normal) == 8 &&
              offsetof(cs_sweep_hit, point) == 20 && offsetof(cs_sweep_hit, depth) == 32 &&
              offsetof(cs_sweep_hit, triangle) == 36);
static_assert(sizeof(cs_masked_sweep_query) == kMaskedQueryBytes && offsetof(cs_masked_sweep_query, layers) == kQueryBytes &&
              sizeof(cs_masked_ellipsoid_query) == kMaskedEllipsoidQueryBytes &&
              offsetof(cs_masked_ellipsoid_query, layers) == kEllipsoidQueryBytes);
static_assert(sizeof(cs_claimed_move) == kGroundedClaimedMoveBytes && offsetof(cs_claimed_move, grounded) == 48 &&
              offsetof(cs_claimed_move, ground_triangle) == kShapedClaimedMoveBytes &&
              offsetof(cs_claimed_move, shape) == 49 && offsetof(cs_claimed_move, layers) == kClaimedMoveBytes &&
              offsetof(cs_claimed_move, from_ellipsoid) == kMaskedClaimedMoveBytes);
static_assert(sizeof(cs_ellipsoid) == 24 && offsetof(cs_agent, shape) == 52 && offsetof(cs_agent, grounded) == 53 &&
              offsetof(cs_agent, ellipsoid) == 56 && offsetof(cs_agent, ground_triangle) == 80 &&
              offsetof(cs_move_result, shape) == 66 && offsetof(cs_move_result, ellipsoid) == 200 &&
              offsetof(cs_verdict, furthest_ellipsoid) == 116 &&
              offsetof(cs_verdict, reason) == 164 && offsetof(cs_verdict, next_grounded) == 165 &&
              offsetof(cs_verdict, claimed) == 168 && offsetof(cs_verdict, limit) == 172 &&
              offsetof(cs_verdict, next_vertical_speed) == 176 && offsetof(cs_verdict, next_ground_triangle) == 180 &&
              offsetof(cs_validate_settings, rule) == 64 && int(AgentShape::ellipsoid) == CS_SHAPE_ELLIPSOID);
static_assert(sizeof(cs_agent) == 84 && sizeof(cs_move_settings) == 52 && sizeof(cs_move_contact) == 32 &&
              sizeof(cs_move_result) == 224 &&
              sizeof(cs_validate_settings) == 68 && sizeof(cs_verdict) == 184 && sizeof(cs_overlap_result) == 52);
static_assert(int(Status::out_of_range) == CS_STATUS_OUT_OF_RANGE && int(Status::bad_layers) == CS_STATUS_BAD_LAYERS && int(Feature::vertex) == CS_FEATURE_VERTEX &&
              int(VerdictKind::refused) == CS_VERDICT_REFUSED &&
              int(Reason::bad_input) == CS_REASON_BAD_INPUT && int(Reason::noclip) == CS_REASON_NOCLIP &&
              int(ClaimRule::straight_segment) == CS_RULE_STRAIGHT_SEGMENT && kNoTriangle == CS_NO_TRIANGLE && int(SweepPath::brute) == CS_PATH_BRUTE &&
              int(kMoveHeldByAgents) == int(CS_MOVE_HELD_BY_AGENTS) && int(kMoveWedged) == int(CS_MOVE_WEDGED) &&
              int(kMoveCrushed) == int(CS_MOVE_CRUSHED) &&
                  kMaxMoveContacts == 4);

inline Vec3 vec(const float v[3]) { return {v[0], v[1], v[2]}; }
inline void put(float out[3], const Vec3& v) { out[0] = v.x, out[1] = v.y, out[2] = v.z; }

inline Capsule capsule(const cs_capsule& c) { return {vec(c.a), vec(c.b), c.radius}; }

inline cs_capsule record(const Capsule& c) {
  cs_capsule r;
  put(r.a, c.a);
  put(r.b, c.b);
  r.radius = c.radius;
  return r;
}

inline SweepQuery query(const cs_sweep_query& q) { return {capsule(q.capsule), vec(q.motion)}; }
inline SweepEllipsoidQuery query(const cs_ellipsoid_query& q) {
  return {{vec(q.centre), vec(q.radii)}, vec(q.motion)};
}
inline cs_sweep_query record(const SweepQuery& q) { return {record(q.capsule), {q.motion.x, q.motion.y, q.motion.z}}; }
inline SweepQuery query(const cs_masked_sweep_query& q) {
  SweepQuery s = query(q.query);
  s.layers = q.layers;
  return s;
}
inline SweepEllipsoidQuery query(const cs_masked_ellipsoid_query& q) {
  SweepEllipsoidQuery s = query(q.query);
  s.layers = q.layers;
  return s;
}
inline cs_masked_sweep_query masked_record(const SweepQuery& q) { return {record(q), q.layers}; }
inline cs_ellipsoid_query record(const SweepEllipsoidQuery& q) {
  const Ellipsoid& e = q.ellipsoid;
  return {{e.centre.x, e.centre.y, e.centre.z}, {e.radii.x, e.radii.y, e.radii.z}, {q.motion.x, q.motion.y, q.motion.z}};
}
inline cs_masked_ellipsoid_query masked_record(const SweepEllipsoidQuery& q) { return {record(q), q.layers}; }

// The CWSR record of a hit: the bytes write_results writes (one encoder, io/result_record.h).
inline cs_sweep_hit record(const SweepHit& h) {
  unsigned char bytes[kResultBytes];
  encode_result(h, bytes);
  cs_sweep_hit r;
  std::memcpy(&r, bytes, sizeof r);
  return r;
}
inline SweepHit hit(const cs_sweep_hit& r) {
  SweepHit h;
  h.hit = r.hit != 0;
  h.feature = Feature(r.feature);
  h.t = r.t;
  h.normal = vec(r.normal);
  h.point = vec(r.point);
  h.depth = r.depth;
  h.triangle = r.triangle;
  return h;
}

inline Ellipsoid ellipsoid(const cs_ellipsoid& e) { return {vec(e.centre), vec(e.radii)}; }
inline cs_ellipsoid record(const Ellipsoid& e) {
  cs_ellipsoid r;
  put(r.centre, e.centre);
  put(r.radii, e.radii);
  return r;
}

// Shapes are checked where records enter (cs_move, cs_validate): 0 or 1 here.
inline Agent agent(const cs_agent& a) {
  return {capsule(a.capsule), vec(a.displacement), a.vertical_speed, a.id, a.layers, AgentShape(a.shape),
          ellipsoid(a.ellipsoid), a.grounded ? a.ground_triangle : kNoTriangle};
}

inline MoveSettings settings(const cs_move_settings& s) {
  MoveSettings m;
  m.skin = s.skin;
  m.backoff = s.backoff;
  m.max_iterations = s.max_iterations;
  m.min_distance = s.min_distance;
  m.max_depenetration_iterations = s.max_depenetration_iterations;
  m.max_slope_degrees = s.max_slope_degrees;
  m.step_height = s.step_height;
  m.snap_distance = s.snap_distance;
  m.ground_distance = s.ground_distance;
  m.gravity = s.gravity;
  m.max_fall_speed = s.max_fall_speed;
  m.dt = s.dt;
  m.agents_collide = s.agents_collide != 0;
  return m;
}
inline cs_move_settings record(const MoveSettings& m) {
  return {m.skin,          m.backoff,         m.max_iterations,  m.min_distance, m.max_depenetration_iterations,
          m.max_slope_degrees, m.step_height, m.snap_distance,   m.ground_distance, m.gravity,
          m.max_fall_speed, m.dt,             m.agents_collide ? 1 : 0};
}

inline ValidateSettings settings(const cs_validate_settings& s) {
  ValidateSettings v;
  v.tolerance = s.tolerance;
  v.max_speed = s.max_speed;
  v.jump_speed = s.jump_speed;
  v.movement = settings(s.movement);
  v.rule = ClaimRule(s.rule);  // checked where settings enter (cs_validate)
  return v;
}
inline cs_validate_settings record(const ValidateSettings& v) {
  return {v.tolerance, v.max_speed, v.jump_speed, record(v.movement), std::uint32_t(v.rule)};
}

inline cs_move_result record(const MoveResult& m, Status status) {
  cs_move_result r;
  std::memset(&r, 0, sizeof r);
  r.capsule = record(m.capsule);
  put(r.moved, m.moved);
  r.vertical_speed = m.vertical_speed;
  r.grounded = m.grounded ? 1 : 0;
  r.flags = m.flags;
  r.contact_count = m.contact_count;
  r.status = std::uint8_t(status);
  put(r.ground_normal, m.ground_normal);
  r.ground_triangle = m.ground_triangle;
  r.sweeps = m.sweeps;
  r.shape = std::uint8_t(m.shape);
  r.ellipsoid = record(m.ellipsoid);
  r.pushed = m.pushed;
  for (int k = 0; k < kMaxMoveContacts; ++k) {
    const MoveContact& c = m.contacts[k];
    put(r.contacts[k].point, c.point);
    put(r.contacts[k].normal, c.normal);
    r.contacts[k].triangle = c.triangle;
    r.contacts[k].agent = c.agent;
  }
  return r;
}

inline ClaimedMove claimed_move(const cs_claimed_move& m) {
  return {capsule(m.from),   vec(m.motion),           m.dt, m.vertical_speed, m.grounded != 0, m.layers,
          AgentShape(m.shape), ellipsoid(m.from_ellipsoid), m.ground_triangle};
}
inline cs_claimed_move record(const ClaimedMove& m) {
  cs_claimed_move r;
  std::memset(&r, 0, sizeof r);
  r.from = record(m.from);
  put(r.motion, m.motion);
  r.dt = m.dt;
  r.vertical_speed = m.vertical_speed;
  r.grounded = m.grounded ? 1 : 0;
  r.layers = m.layers;
  r.shape = std::uint8_t(m.shape);
  r.from_ellipsoid = record(m.ellipsoid);
  r.ground_triangle = m.ground_triangle;
  return r;
}

inline cs_agent record(const Agent& a) {
  cs_agent r;
  std::memset(&r, 0, sizeof r);
  r.capsule = record(a.capsule);
  put(r.displacement, a.displacement);
  r.vertical_speed = a.vertical_speed;
  r.id = a.id;
  r.layers = a.layers;
  r.shape = std::uint8_t(a.shape);
  r.ellipsoid = record(a.ellipsoid);
  r.grounded = a.ground_triangle != kNoTriangle;
  r.ground_triangle = r.grounded ? a.ground_triangle : 0;
  return r;
}

inline cs_verdict record(const Verdict& v) {
  cs_verdict r;
  std::memset(&r, 0, sizeof r);
  r.kind = std::uint8_t(v.kind);
  r.status = std::uint8_t(v.status);
  r.legal_fraction = v.legal_fraction;
  r.hit = record(v.hit);
  r.furthest = record(v.furthest);
  r.corrected = record(v.corrected);
  r.grounded = v.grounded ? 1 : 0;
  r.in_skin = v.in_skin ? 1 : 0;
  r.allowed_horizontal = v.allowed.horizontal;
  r.allowed_down = v.allowed.down;
  r.allowed_up = v.allowed.up;
  r.furthest_ellipsoid = record(v.furthest_ellipsoid);
  r.corrected_ellipsoid = record(v.corrected_ellipsoid);
  r.reason = std::uint8_t(v.reason);
  r.claimed = v.claimed;
  r.limit = v.limit;
  r.next_vertical_speed = v.next.vertical_speed;
  r.next_grounded = v.next.grounded ? 1 : 0;
  r.next_ground_triangle = v.next.ground_triangle;
  return r;
}

inline cs_overlap_result record(const OverlapResult& o, Status status) {
  cs_overlap_result r;
  std::memset(&r, 0, sizeof r);
  r.clear = o.clear ? 1 : 0;
  r.overlapping = o.overlapping ? 1 : 0;
  r.status = std::uint8_t(status);
  r.feature = std::uint8_t(o.deepest.feature);
  r.distance = o.deepest.distance;
  r.depth = o.deepest.depth;
  put(r.normal, o.deepest.normal);
  put(r.point, o.deepest.point);
  put(r.point_on_axis, o.deepest.point_on_axis);
  r.triangle = o.triangle;
  return r;
}

}  // namespace capsweep::records
