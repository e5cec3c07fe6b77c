#include "service/convert.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iterator>

namespace capsweep::service {

namespace {

// The bodies of a Move or Validate request: its shape column (empty: every element a capsule),
// the capsule columns `capsule_name`, required when some element is a capsule, and the ellipsoid
// columns, required when some element is an ellipsoid; either may be empty otherwise.
void bodies_of(const google::protobuf::RepeatedField<int>& shapes, const pb::CapsuleColumns& capsules,
               const std::string& capsule_name, const pb::Vec3Column& centre, const pb::Vec3Column& radii,
               const std::string& ellipsoid_name, BatchShape& s) {
  bool capsule = shapes.empty(), ellipsoid = false;
  if (!shapes.empty()) s.column("shape", std::size_t(shapes.size()));
  for (int i = 0; i < shapes.size(); ++i) {
    if (shapes[i] != pb::SHAPE_CAPSULE && shapes[i] != pb::SHAPE_ELLIPSOID) {
      s.fail("shape: element " + std::to_string(i) + " is " + std::to_string(shapes[i]) +
             ", not a shape (0: capsule, 1: ellipsoid)");
      return;
    }
    capsule = capsule || shapes[i] == pb::SHAPE_CAPSULE;
    ellipsoid = ellipsoid || shapes[i] == pb::SHAPE_ELLIPSOID;
  }
  if (capsule) {
    shape_of(capsules, capsule_name, s);
  } else {
    optional_shape_of(capsules, capsule_name, s);
  }
  if (ellipsoid) {
    shape_of(centre, ellipsoid_name + "_centre", s);
    shape_of(radii, ellipsoid_name + "_radii", s);
  } else if (has_any(centre) || has_any(radii)) {  // both or neither
    shape_of(centre, ellipsoid_name + "_centre", s);
    shape_of(radii, ellipsoid_name + "_radii", s);
  }
}

// Element i's shape and ellipsoid (zero where the columns are empty).
AgentShape shape_at(const google::protobuf::RepeatedField<int>& shapes, std::size_t i) {
  return shapes.empty() ? AgentShape::capsule : AgentShape(shapes[int(i)]);
}
Ellipsoid ellipsoid_at(const pb::Vec3Column& centre, const pb::Vec3Column& radii, std::size_t i) {
  return has_column(centre, i) ? Ellipsoid{vec3_at(centre, i), vec3_at(radii, i)} : Ellipsoid{};
}

// Whether an ellipsoid is all zero bits (a capsule's): columns of them are then left out.
bool zero(const Ellipsoid& e) {
  const Ellipsoid z{};
  return std::memcmp(&e, &z, sizeof e) == 0;
}

}  // namespace

const char* code_name(grpc::StatusCode code) {
  static const char* const names[] = {
      "OK",        "CANCELLED",         "UNKNOWN",          "INVALID_ARGUMENT",    "DEADLINE_EXCEEDED", "NOT_FOUND",
      "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED",
      "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL",      "UNAVAILABLE",         "DATA_LOSS",         "UNAUTHENTICATED"};
  const int c = int(code);
  return c >= 0 && c < int(std::size(names)) ? names[c] : "UNKNOWN";
}

pb::Path to_pb(SweepPath p) { return pb::Path(int(p)); }

bool from_pb(pb::Path p, SweepPath& out) {
  if (p < pb::PATH_SIMD || p > pb::PATH_BRUTE) return false;
  out = SweepPath(int(p));
  return true;
}

MoveSettings from_pb(const pb::MoveSettings& m) {
  MoveSettings s;
  if (m.has_skin()) s.skin = m.skin();
  if (m.has_backoff()) s.backoff = m.backoff();
  if (m.has_max_iterations()) s.max_iterations = m.max_iterations();
  if (m.has_min_distance()) s.min_distance = m.min_distance();
  if (m.has_max_depenetration_iterations()) s.max_depenetration_iterations = m.max_depenetration_iterations();
  if (m.has_max_slope_degrees()) s.max_slope_degrees = m.max_slope_degrees();
  if (m.has_step_height()) s.step_height = m.step_height();
  if (m.has_snap_distance()) s.snap_distance = m.snap_distance();
  if (m.has_ground_distance()) s.ground_distance = m.ground_distance();
  if (m.has_gravity()) s.gravity = m.gravity();
  if (m.has_max_fall_speed()) s.max_fall_speed = m.max_fall_speed();
  if (m.has_dt()) s.dt = m.dt();
  if (m.has_agents_collide()) s.agents_collide = m.agents_collide();
  return s;
}

pb::MoveSettings to_pb(const MoveSettings& s) {
  pb::MoveSettings m;
  m.set_skin(s.skin);
  m.set_backoff(s.backoff);
  m.set_max_iterations(s.max_iterations);
  m.set_min_distance(s.min_distance);
  m.set_max_depenetration_iterations(s.max_depenetration_iterations);
  m.set_max_slope_degrees(s.max_slope_degrees);
  m.set_step_height(s.step_height);
  m.set_snap_distance(s.snap_distance);
  m.set_ground_distance(s.ground_distance);
  m.set_gravity(s.gravity);
  m.set_max_fall_speed(s.max_fall_speed);
  m.set_dt(s.dt);
  m.set_agents_collide(s.agents_collide);
  return m;
}

ValidateSettings from_pb(const pb::ValidateSettings& v) {
  ValidateSettings s;
  if (v.has_tolerance()) s.tolerance = v.tolerance();
  if (v.has_max_speed()) s.max_speed = v.max_speed();
  if (v.has_jump_speed()) s.jump_speed = v.jump_speed();
  s.rule = ClaimRule(v.rule());  // the server refuses a value past the enum (rule_known)
  s.movement = from_pb(v.movement());
  return s;
}

pb::ValidateSettings to_pb(const ValidateSettings& s) {
  pb::ValidateSettings v;
  v.set_tolerance(s.tolerance);
  v.set_max_speed(s.max_speed);
  v.set_jump_speed(s.jump_speed);
  v.set_rule(pb::ClaimRule(s.rule));
  *v.mutable_movement() = to_pb(s.movement);
  return v;
}

// --- requests ---

void write_request(std::span<const SweepQuery> queries, pb::SweepRequest& r) {
  const std::size_t n = queries.size();
  CapsuleOut capsules(*r.mutable_capsules(), n);
  Vec3Out motion(*r.mutable_motion(), n);
  for (std::size_t i = 0; i < n; ++i) {
    capsules.put(i, queries[i].capsule);
    motion.put(i, queries[i].motion);
  }
  write_layers(queries, r.mutable_element_layers());
}

BatchShape shape_of(const pb::SweepRequest& r) {
  BatchShape s;
  shape_of(r.capsules(), "capsules", s);
  shape_of(r.motion(), "motion", s);
  s.optional_column("element_layers", std::size_t(r.element_layers_size()));
  return s;
}

std::vector<SweepQuery> read_request(const pb::SweepRequest& r, std::size_t n) {
  std::vector<SweepQuery> q(n);
  for (std::size_t i = 0; i < n; ++i) {
    q[i] = {capsule_at(r.capsules(), i), vec3_at(r.motion(), i), layers_at(r.element_layers(), i)};
  }
  return q;
}

void write_request(std::span<const SweepEllipsoidQuery> queries, pb::SweepEllipsoidRequest& r) {
  const std::size_t n = queries.size();
  Vec3Out centre(*r.mutable_centre(), n), radii(*r.mutable_radii(), n), motion(*r.mutable_motion(), n);
  for (std::size_t i = 0; i < n; ++i) {
    centre.put(i, queries[i].ellipsoid.centre);
    radii.put(i, queries[i].ellipsoid.radii);
    motion.put(i, queries[i].motion);
  }
  write_layers(queries, r.mutable_element_layers());
}

BatchShape shape_of(const pb::SweepEllipsoidRequest& r) {
  BatchShape s;
  shape_of(r.centre(), "centre", s);
  shape_of(r.radii(), "radii", s);
  shape_of(r.motion(), "motion", s);
  s.optional_column("element_layers", std::size_t(r.element_layers_size()));
  return s;
}

std::vector<SweepEllipsoidQuery> read_request(const pb::SweepEllipsoidRequest& r, std::size_t n) {
  std::vector<SweepEllipsoidQuery> q(n);
  for (std::size_t i = 0; i < n; ++i) {
    q[i] = {{vec3_at(r.centre(), i), vec3_at(r.radii(), i)}, vec3_at(r.motion(), i), layers_at(r.element_layers(), i)};
  }
  return q;
}

// The bodies of agents or claims as columns: the capsule columns when some is a capsule, the
// shape and ellipsoid columns when some is an ellipsoid.
template <class Items, class CapsuleOf>
void write_bodies(const Items& items, CapsuleOf capsule_of, pb::CapsuleColumns& capsules,
                  google::protobuf::RepeatedField<int>* shapes, pb::Vec3Column& centre, pb::Vec3Column& radii) {
  const std::size_t n = items.size();
  bool capsule = false, ellipsoid = false;
  for (const auto& item : items) (item.shape == AgentShape::ellipsoid ? ellipsoid : capsule) = true;
  if (capsule) {
    CapsuleOut out(capsules, n);
    for (std::size_t i = 0; i < n; ++i) out.put(i, capsule_of(items[i]));
  }
  if (!ellipsoid) return;
  int* shape = sized(shapes, n);
  Vec3Out c(centre, n), r(radii, n);
  for (std::size_t i = 0; i < n; ++i) {
    shape[i] = int(items[i].shape);
    c.put(i, items[i].ellipsoid.centre);
    r.put(i, items[i].ellipsoid.radii);
  }
}

void write_request(std::span<const Agent> agents, pb::MoveRequest& r) {
  const std::size_t n = agents.size();
  write_bodies(agents, [](const Agent& a) { return a.capsule; }, *r.mutable_capsules(), r.mutable_shape(),
               *r.mutable_ellipsoid_centre(), *r.mutable_ellipsoid_radii());
  Vec3Out displacement(*r.mutable_displacement(), n);
  float* vertical_speed = sized(r.mutable_vertical_speed(), n);
  std::uint32_t* id = sized(r.mutable_id(), n);
  for (std::size_t i = 0; i < n; ++i) {
    displacement.put(i, agents[i].displacement);
    vertical_speed[i] = agents[i].vertical_speed;
    id[i] = agents[i].id;
  }
  write_layers(agents, r.mutable_element_layers());
  if (std::any_of(agents.begin(), agents.end(), [](const Agent& a) { return a.ground_triangle != kNoTriangle; })) {
    std::uint32_t* ground = sized(r.mutable_ground_triangle(), n);
    for (std::size_t i = 0; i < n; ++i) ground[i] = agents[i].ground_triangle;
  }
}

BatchShape shape_of(const pb::MoveRequest& r) {
  BatchShape s;
  bodies_of(r.shape(), r.capsules(), "capsules", r.ellipsoid_centre(), r.ellipsoid_radii(), "ellipsoid", s);
  shape_of(r.displacement(), "displacement", s);
  s.optional_column("vertical_speed", std::size_t(r.vertical_speed_size()));
  s.optional_column("id", std::size_t(r.id_size()));
  s.optional_column("element_layers", std::size_t(r.element_layers_size()));
  s.optional_column("ground_triangle", std::size_t(r.ground_triangle_size()));
  return s;
}

std::vector<Agent> read_request(const pb::MoveRequest& r, std::size_t n) {
  std::vector<Agent> agents(n);
  for (std::size_t i = 0; i < n; ++i) {
    Agent& a = agents[i];
    a.capsule = has_column(r.capsules(), i) ? capsule_at(r.capsules(), i) : Capsule{};
    a.shape = shape_at(r.shape(), i);
    a.ellipsoid = ellipsoid_at(r.ellipsoid_centre(), r.ellipsoid_radii(), i);
    a.displacement = vec3_at(r.displacement(), i);
    a.vertical_speed = r.vertical_speed_size() ? r.vertical_speed(int(i)) : 0.f;
    a.id = r.id_size() ? r.id(int(i)) : std::uint32_t(i);
    a.layers = layers_at(r.element_layers(), i);
    a.ground_triangle = r.ground_triangle_size() ? r.ground_triangle(int(i)) : kNoTriangle;
  }
  return agents;
}

void write_request(std::span<const ClaimedMove> moves, pb::ValidateRequest& r) {
  const std::size_t n = moves.size();
  write_bodies(moves, [](const ClaimedMove& m) { return m.from; }, *r.mutable_from(), r.mutable_shape(),
               *r.mutable_from_ellipsoid_centre(), *r.mutable_from_ellipsoid_radii());
  Vec3Out motion(*r.mutable_motion(), n);
  float* dt = sized(r.mutable_dt(), n);
  float* vertical_speed = sized(r.mutable_vertical_speed(), n);
  bool* grounded = sized(r.mutable_grounded(), n);
  for (std::size_t i = 0; i < n; ++i) {
    motion.put(i, moves[i].motion);
    dt[i] = moves[i].dt;
    vertical_speed[i] = moves[i].vertical_speed;
    grounded[i] = moves[i].grounded;
  }
  write_layers(moves, r.mutable_element_layers());
  // The ground triangles only when some claim knows one (else the column stays empty: none).
  if (std::any_of(moves.begin(), moves.end(), [](const ClaimedMove& m) { return m.ground_triangle != kNoTriangle; })) {
    std::uint32_t* ground = sized(r.mutable_ground_triangle(), n);
    for (std::size_t i = 0; i < n; ++i) ground[i] = moves[i].ground_triangle;
  }
}

BatchShape shape_of(const pb::ValidateRequest& r) {
  BatchShape s;
  bodies_of(r.shape(), r.from(), "from", r.from_ellipsoid_centre(), r.from_ellipsoid_radii(), "from_ellipsoid", s);
  shape_of(r.motion(), "motion", s);
  s.optional_column("dt", std::size_t(r.dt_size()));
  s.optional_column("vertical_speed", std::size_t(r.vertical_speed_size()));
  s.optional_column("grounded", std::size_t(r.grounded_size()));
  s.optional_column("element_layers", std::size_t(r.element_layers_size()));
  s.optional_column("ground_triangle", std::size_t(r.ground_triangle_size()));
  return s;
}

std::vector<ClaimedMove> read_request(const pb::ValidateRequest& r, std::size_t n) {
  std::vector<ClaimedMove> moves(n);
  for (std::size_t i = 0; i < n; ++i) {
    moves[i] = {has_column(r.from(), i) ? capsule_at(r.from(), i) : Capsule{},
                vec3_at(r.motion(), i),
                r.dt_size() ? r.dt(int(i)) : 0.f,
                r.vertical_speed_size() ? r.vertical_speed(int(i)) : 0.f,
                r.grounded_size() ? r.grounded(int(i)) : false,
                layers_at(r.element_layers(), i),
                shape_at(r.shape(), i),
                ellipsoid_at(r.from_ellipsoid_centre(), r.from_ellipsoid_radii(), i),
                r.ground_triangle_size() ? r.ground_triangle(int(i)) : kNoTriangle};
  }
  return moves;
}

void write_request(std::span<const Capsule> capsules, pb::OverlapRequest& r) {
  CapsuleOut out(*r.mutable_capsules(), capsules.size());
  for (std::size_t i = 0; i < capsules.size(); ++i) out.put(i, capsules[i]);
}

BatchShape shape_of(const pb::OverlapRequest& r) {
  BatchShape s;
  shape_of(r.capsules(), "capsules", s);
  return s;
}

std::vector<Capsule> read_request(const pb::OverlapRequest& r, std::size_t n) {
  std::vector<Capsule> c(n);
  for (std::size_t i = 0; i < n; ++i) c[i] = capsule_at(r.capsules(), i);
  return c;
}

// --- responses ---

void write_response(std::span<const SweepHit> hits, std::span<const Status> status, pb::SweepResponse& r) {
  write_status(status, *r.mutable_status());
  write_hits(hits, *r.mutable_hits());
}

bool read_response(const pb::SweepResponse& r, std::span<SweepHit> hits, std::span<Status> status) {
  return read_status(r.status(), status, hits.size()) && read_hits(r.hits(), hits);
}

void write_response(std::span<const MoveResult> results, std::span<const Status> status, pb::MoveResponse& r) {
  const std::size_t n = results.size();
  write_status(status, *r.mutable_status());
  CapsuleOut capsule(*r.mutable_capsule(), n);
  Vec3Out moved(*r.mutable_moved(), n), ground_normal(*r.mutable_ground_normal(), n);
  float* vertical_speed = sized(r.mutable_vertical_speed(), n);
  bool* grounded = sized(r.mutable_grounded(), n);
  std::uint32_t* ground_triangle = sized(r.mutable_ground_triangle(), n);
  std::uint32_t* flags = sized(r.mutable_flags(), n);
  std::uint32_t* sweeps = sized(r.mutable_sweeps(), n);
  float* pushed = sized(r.mutable_pushed(), n);
  std::uint32_t* contact_count = sized(r.mutable_contact_count(), n);
  for (std::size_t i = 0; i < n; ++i) {
    const MoveResult& m = results[i];
    capsule.put(i, m.capsule);
    moved.put(i, m.moved);
    vertical_speed[i] = m.vertical_speed;
    grounded[i] = m.grounded;
    ground_normal.put(i, m.ground_normal);
    ground_triangle[i] = m.ground_triangle;
    flags[i] = m.flags;
    sweeps[i] = m.sweeps;
    pushed[i] = m.pushed;
    contact_count[i] = m.contact_count;
    for (int k = 0; k < m.contact_count; ++k) {  // a variable number per agent: appended
      add(*r.mutable_contact_point(), m.contacts[k].point);
      add(*r.mutable_contact_normal(), m.contacts[k].normal);
      r.add_contact_triangle(m.contacts[k].triangle);
      r.add_contact_agent(m.contacts[k].agent);
    }
  }
  // Ellipsoid agents' bodies, only when there are any.
  if (std::none_of(results.begin(), results.end(),
                   [](const MoveResult& m) { return m.shape != AgentShape::capsule || !zero(m.ellipsoid); })) {
    return;
  }
  int* shape = sized(r.mutable_shape(), n);
  Vec3Out centre(*r.mutable_ellipsoid_centre(), n), radii(*r.mutable_ellipsoid_radii(), n);
  for (std::size_t i = 0; i < n; ++i) {
    shape[i] = int(results[i].shape);
    centre.put(i, results[i].ellipsoid.centre);
    radii.put(i, results[i].ellipsoid.radii);
  }
}

bool read_response(const pb::MoveResponse& r, std::span<MoveResult> results, std::span<Status> status) {
  const std::size_t n = results.size();
  if (!read_status(r.status(), status, n) || !has(r.capsule(), n) || !has(r.moved(), n) ||
      std::size_t(r.vertical_speed_size()) != n || std::size_t(r.grounded_size()) != n || !has(r.ground_normal(), n) ||
      std::size_t(r.ground_triangle_size()) != n || std::size_t(r.flags_size()) != n ||
      std::size_t(r.sweeps_size()) != n || std::size_t(r.pushed_size()) != n || std::size_t(r.contact_count_size()) != n) {
    return false;
  }
  std::size_t contacts = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (r.contact_count(int(i)) > std::uint32_t(kMaxMoveContacts)) return false;
    contacts += r.contact_count(int(i));
  }
  if (!has(r.contact_point(), contacts) || !has(r.contact_normal(), contacts) ||
      std::size_t(r.contact_triangle_size()) != contacts || std::size_t(r.contact_agent_size()) != contacts) {
    return false;
  }
  const bool ellipsoids = r.shape_size() != 0;
  if (ellipsoids && (std::size_t(r.shape_size()) != n || !has(r.ellipsoid_centre(), n) || !has(r.ellipsoid_radii(), n))) {
    return false;
  }
  for (int i = 0; i < r.shape_size(); ++i) {
    if (r.shape(i) != pb::SHAPE_CAPSULE && r.shape(i) != pb::SHAPE_ELLIPSOID) return false;
  }
  std::size_t next = 0;
  for (std::size_t i = 0; i < n; ++i) {
    MoveResult& m = results[i];
    m = MoveResult{};
    m.capsule = capsule_at(r.capsule(), i);
    m.moved = vec3_at(r.moved(), i);
    m.vertical_speed = r.vertical_speed(int(i));
    m.grounded = r.grounded(int(i));
    m.ground_normal = vec3_at(r.ground_normal(), i);
    m.ground_triangle = r.ground_triangle(int(i));
    m.flags = std::uint8_t(r.flags(int(i)));
    m.sweeps = std::uint16_t(r.sweeps(int(i)));
    m.pushed = r.pushed(int(i));
    m.contact_count = std::uint8_t(r.contact_count(int(i)));
    if (ellipsoids) {
      m.shape = AgentShape(r.shape(int(i)));
      m.ellipsoid = ellipsoid_at(r.ellipsoid_centre(), r.ellipsoid_radii(), i);
    }
    for (int k = 0; k < m.contact_count; ++k, ++next) {
      m.contacts[k].point = vec3_at(r.contact_point(), next);
      m.contacts[k].normal = vec3_at(r.contact_normal(), next);
      m.contacts[k].triangle = r.contact_triangle(int(next));
      m.contacts[k].agent = r.contact_agent(int(next));
    }
  }
  return true;
}

void write_response(std::span<const Verdict> verdicts, pb::ValidateResponse& r) {
  const std::size_t n = verdicts.size();
  std::vector<SweepHit> hits(n);
  std::vector<Status> status(n);
  int* kind = sized(r.mutable_kind(), n);
  float* legal_fraction = sized(r.mutable_legal_fraction(), n);
  CapsuleOut furthest(*r.mutable_furthest(), n), corrected(*r.mutable_corrected(), n);
  bool* grounded = sized(r.mutable_grounded(), n);
  bool* in_skin = sized(r.mutable_in_skin(), n);
  float* horizontal = sized(r.mutable_allowed_horizontal(), n);
  float* down = sized(r.mutable_allowed_down(), n);
  float* up = sized(r.mutable_allowed_up(), n);
  int* reason = sized(r.mutable_reason(), n);
  float* claimed = sized(r.mutable_claimed(), n);
  float* limit = sized(r.mutable_limit(), n);
  float* next_vertical_speed = sized(r.mutable_next_vertical_speed(), n);
  bool* next_grounded = sized(r.mutable_next_grounded(), n);
  std::uint32_t* next_ground_triangle = sized(r.mutable_next_ground_triangle(), n);
  for (std::size_t i = 0; i < n; ++i) {
    const Verdict& v = verdicts[i];
    reason[i] = int(v.reason);
    claimed[i] = v.claimed;
    limit[i] = v.limit;
    next_vertical_speed[i] = v.next.vertical_speed;
    next_grounded[i] = v.next.grounded;
    next_ground_triangle[i] = v.next.ground_triangle;
    grounded[i] = v.grounded;
    in_skin[i] = v.in_skin;
    horizontal[i] = v.allowed.horizontal;
    down[i] = v.allowed.down;
    up[i] = v.allowed.up;
    status[i] = v.status;
    kind[i] = int(v.kind);
    hits[i] = v.hit;
    legal_fraction[i] = v.legal_fraction;
    furthest.put(i, v.furthest);
    corrected.put(i, v.corrected);
  }
  write_status(status, *r.mutable_status());
  write_hits(hits, *r.mutable_hits());
  // Ellipsoid agents' claims, only when there are any.
  if (std::all_of(verdicts.begin(), verdicts.end(),
                  [](const Verdict& v) { return zero(v.furthest_ellipsoid) && zero(v.corrected_ellipsoid); })) {
    return;
  }
  Vec3Out fc(*r.mutable_furthest_ellipsoid_centre(), n), fr(*r.mutable_furthest_ellipsoid_radii(), n);
  Vec3Out cc(*r.mutable_corrected_ellipsoid_centre(), n), cr(*r.mutable_corrected_ellipsoid_radii(), n);
  for (std::size_t i = 0; i < n; ++i) {
    fc.put(i, verdicts[i].furthest_ellipsoid.centre);
    fr.put(i, verdicts[i].furthest_ellipsoid.radii);
    cc.put(i, verdicts[i].corrected_ellipsoid.centre);
    cr.put(i, verdicts[i].corrected_ellipsoid.radii);
  }
}

bool read_response(const pb::ValidateResponse& r, std::span<Verdict> verdicts) {
  const std::size_t n = verdicts.size();
  std::vector<Status> status(n);
  std::vector<SweepHit> hits(n);
  if (!read_status(r.status(), status, n) || std::size_t(r.kind_size()) != n || !read_hits(r.hits(), hits) ||
      std::size_t(r.legal_fraction_size()) != n || !has(r.furthest(), n) || !has(r.corrected(), n) ||
      std::size_t(r.grounded_size()) != n || std::size_t(r.in_skin_size()) != n ||
      std::size_t(r.allowed_horizontal_size()) != n ||
      std::size_t(r.allowed_down_size()) != n || std::size_t(r.allowed_up_size()) != n ||
      std::size_t(r.reason_size()) != n || std::size_t(r.claimed_size()) != n || std::size_t(r.limit_size()) != n ||
      std::size_t(r.next_vertical_speed_size()) != n || std::size_t(r.next_grounded_size()) != n ||
      std::size_t(r.next_ground_triangle_size()) != n) {
    return false;
  }
  const bool ellipsoids = r.furthest_ellipsoid_centre().x_size() != 0;
  if (ellipsoids && (!has(r.furthest_ellipsoid_centre(), n) || !has(r.furthest_ellipsoid_radii(), n) ||
                     !has(r.corrected_ellipsoid_centre(), n) || !has(r.corrected_ellipsoid_radii(), n))) {
    return false;
  }
  for (std::size_t i = 0; i < n; ++i) {
    const int j = int(i);
    if (r.kind(j) < 0 || r.kind(j) > int(VerdictKind::refused)) return false;
    if (r.reason(j) < 0 || r.reason(j) > int(Reason::bad_input)) return false;
    Verdict& v = verdicts[i];
    v = {};
    v.kind = VerdictKind(r.kind(j));
    v.status = status[i];
    v.reason = Reason(r.reason(j));
    v.claimed = r.claimed(j);
    v.limit = r.limit(j);
    v.hit = hits[i];
    v.legal_fraction = r.legal_fraction(j);
    v.furthest = capsule_at(r.furthest(), i);
    v.corrected = capsule_at(r.corrected(), i);
    v.grounded = r.grounded(j);
    v.in_skin = r.in_skin(j);
    v.allowed = {r.allowed_horizontal(j), r.allowed_down(j), r.allowed_up(j)};
    v.next = {r.next_vertical_speed(j), r.next_grounded(j), r.next_ground_triangle(j)};
    if (ellipsoids) {
      verdicts[i].furthest_ellipsoid = ellipsoid_at(r.furthest_ellipsoid_centre(), r.furthest_ellipsoid_radii(), i);
      verdicts[i].corrected_ellipsoid = ellipsoid_at(r.corrected_ellipsoid_centre(), r.corrected_ellipsoid_radii(), i);
    }
  }
  return true;
}

void write_response(std::span<const OverlapResult> results, std::span<const Status> status, pb::OverlapResponse& r) {
  const std::size_t n = results.size();
  write_status(status, *r.mutable_status());
  bool* clear = sized(r.mutable_clear(), n);
  bool* overlapping = sized(r.mutable_overlapping(), n);
  float* distance = sized(r.mutable_distance(), n);
  float* depth = sized(r.mutable_depth(), n);
  Vec3Out normal(*r.mutable_normal(), n), point(*r.mutable_point(), n), on_axis(*r.mutable_point_on_axis(), n);
  int* feature = sized(r.mutable_feature(), n);
  std::uint32_t* triangle = sized(r.mutable_triangle(), n);
  for (std::size_t i = 0; i < n; ++i) {
    const OverlapResult& o = results[i];
    clear[i] = o.clear;
    overlapping[i] = o.overlapping;
    distance[i] = o.deepest.distance;
    depth[i] = o.deepest.depth;
    normal.put(i, o.deepest.normal);
    point.put(i, o.deepest.point);
    on_axis.put(i, o.deepest.point_on_axis);
    feature[i] = int(o.deepest.feature);
    triangle[i] = o.triangle;
  }
}

bool read_response(const pb::OverlapResponse& r, std::span<OverlapResult> results, std::span<Status> status) {
  const std::size_t n = results.size();
  if (!read_status(r.status(), status, n) || std::size_t(r.clear_size()) != n || std::size_t(r.overlapping_size()) != n ||
      std::size_t(r.distance_size()) != n || std::size_t(r.depth_size()) != n || !has(r.normal(), n) ||
      !has(r.point(), n) || !has(r.point_on_axis(), n) || std::size_t(r.feature_size()) != n ||
      std::size_t(r.triangle_size()) != n) {
    return false;
  }
  for (std::size_t i = 0; i < n; ++i) {
    OverlapResult& o = results[i];
    o = OverlapResult{};
    o.clear = r.clear(int(i));
    o.overlapping = r.overlapping(int(i));
    o.deepest.distance = r.distance(int(i));
    o.deepest.depth = r.depth(int(i));
    o.deepest.overlapping = o.overlapping;
    o.deepest.normal = vec3_at(r.normal(), i);
    o.deepest.point = vec3_at(r.point(), i);
    o.deepest.point_on_axis = vec3_at(r.point_on_axis(), i);
    const int f = r.feature(int(i));
    if (f < 0 || f > int(Feature::vertex)) return false;
    o.deepest.feature = Feature(f);
    o.triangle = r.triangle(int(i));
  }
  return true;
}

}  // namespace capsweep::service
