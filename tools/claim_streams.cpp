#include "tools/claim_streams.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <sstream>

#include "core/random.h"
#include "tools/crowd.h"

namespace capsweep {

const char* name(Cheat cheat) {
  switch (cheat) {
    case Cheat::speed: return "speed";
    case Cheat::teleport: return "teleport";
    case Cheat::fly: return "fly";
    case Cheat::super_jump: return "super_jump";
    case Cheat::wall_climb: return "wall_climb";
    case Cheat::noclip: return "noclip";
    case Cheat::under_the_map: return "under_the_map";
    case Cheat::start_in_wall: return "start_in_wall";
  }
  return "?";
}

Reason expected_reason(Cheat cheat) {
  switch (cheat) {
    case Cheat::speed: return Reason::speed;
    case Cheat::teleport: return Reason::teleport;
    case Cheat::fly: return Reason::fly;
    case Cheat::super_jump: return Reason::super_jump;
    case Cheat::wall_climb: return Reason::wall_climb;
    case Cheat::noclip: return Reason::noclip;
    case Cheat::under_the_map: return Reason::under_the_map;
    case Cheat::start_in_wall: return Reason::start_in_wall;
  }
  return Reason::none;
}

const char* margin_of(Cheat cheat) {
  switch (cheat) {
    case Cheat::speed: return "horizontal max(1.25 x allowance, allowance + 0.1 m)";
    case Cheat::teleport: return "+5 m horizontally";
    case Cheat::fly: return "airborne, dy = max(0, allowed up) + 0.05 m";
    case Cheat::super_jump: return "from ground, dy = max(1.5 jump dt, allowed up) + 0.05 m";
    case Cheat::wall_climb: return "against a wall, dy = max(1.5 jump dt, allowed up) + 0.05 m";
    case Cheat::noclip: return "against a wall, 0.02-0.1 m into it within the speed allowance";
    case Cheat::under_the_map: return "from ground, 2 m down through the floor";
    case Cheat::start_in_wall: return "start 0.3 m down into the floor";
  }
  return "?";
}

std::string describe(const JudgedClaim& j) {
  const ClaimedMove& c = j.claim;
  const Verdict& v = j.verdict;
  const Vec3 from = c.shape == AgentShape::ellipsoid ? c.ellipsoid.centre : c.from.a;
  std::ostringstream o;
  o << "tick " << j.tick << " agent " << j.agent << (c.shape == AgentShape::ellipsoid ? " (ellipsoid)" : " (capsule)")
    << ": " << name(v.kind) << ' ' << name(v.reason) << " claimed " << v.claimed << " limit " << v.limit
    << "; motion " << c.motion.x << ' ' << c.motion.y << ' ' << c.motion.z << " from " << from.x << ' ' << from.y
    << ' ' << from.z << " dt " << c.dt << " v0 " << c.vertical_speed << " grounded " << c.grounded
    << " flags " << int(j.flags) << " (true v0 " << j.true_vertical_speed << " grounded " << j.true_grounded
    << "); allowed h " << v.allowed.horizontal << " up " << v.allowed.up << " down "
    << v.allowed.down << (v.grounded ? " counted grounded" : "") << (v.in_skin ? " in skin" : "");
  return o.str();
}

ValidateSettings stream_validate_settings(const ClaimStreamSettings& settings) {
  ValidateSettings s;
  s.movement.dt = 1.f / settings.rate_hz;
  s.max_speed = 1.1f * settings.max_speed;  // 10 % above the fastest walker
  s.jump_speed = settings.jump_speed;
  return s;
}

// The claim a server sees of agent i's last tick: where it started, where it ended, with the
// state it carries.
ClaimedMove tick_claim(const Crowd& crowd, std::size_t i, float dt, const CarriedState& state) {
  const Agent& a = crowd.previous()[i];
  const MoveResult& r = crowd.results()[i];
  ClaimedMove c;
  c.from = a.capsule;
  c.shape = a.shape;
  c.ellipsoid = a.ellipsoid;
  c.motion = a.shape == AgentShape::ellipsoid ? r.ellipsoid.centre - a.ellipsoid.centre : r.capsule.a - a.capsule.a;
  c.dt = dt;
  c.vertical_speed = state.vertical_speed;
  c.grounded = state.grounded;
  c.ground_triangle = state.ground_triangle;
  c.layers = a.layers;
  return c;
}

namespace {

constexpr std::size_t kReasons = 11;


JudgedClaim judged(const Crowd& crowd, std::uint64_t tick, std::size_t i, const ClaimedMove& c, const Verdict& v) {
  JudgedClaim j;
  j.tick = tick;
  j.agent = i;
  j.flags = crowd.results()[i].flags;
  j.true_vertical_speed = crowd.previous()[i].vertical_speed;
  j.true_grounded = crowd.previous()[i].ground_triangle != kNoTriangle;
  j.claim = c;
  j.verdict = v;
  return j;
}

Vec3 horizontal(const Vec3& v) { return {v.x, 0, v.z}; }

// The unit horizontal direction of v, or `fallback` when v has none.
Vec3 direction(const Vec3& v, const Vec3& fallback) {
  const Vec3 h = horizontal(v);
  const float l = length(h);
  return l > 1e-6f ? h * (1.f / l) : fallback;
}

Capsule moved(const Capsule& c, const Vec3& by) { return {c.a + by, c.b + by, c.radius}; }

// How far the claim's end (its own body) can go along u before it meets a steep face
// (|n.y| < 0.3), within `reach`; negative when it meets none.
float wall_ahead(const World& world, const ClaimedMove& c, const Vec3& u, float reach) {
  SweepHit hit;
  if (c.shape == AgentShape::ellipsoid) {
    const SweepEllipsoidQuery q{{c.ellipsoid.centre + c.motion, c.ellipsoid.radii}, u * reach, c.layers};
    SweepOptions one;
    one.threads = 1;
    world.sweep_ellipsoid(std::span(&q, 1), std::span(&hit, 1), one);
  } else {
    world.sweep_one({moved(c.from, c.motion), u * reach, c.layers}, hit, SweepPath::simd, c.layers);
  }
  if (!hit.hit || std::fabs(hit.normal.y) >= 0.3f) return -1;
  return hit.t * reach;
}

struct Cheater {
  const World& world;
  const ValidateSettings& vs;
  float jump_speed;

  // The cheat of class `k` made of genuine claim c (verdict v), or false where it does not apply.
  bool make(Cheat k, const ClaimedMove& c, const Verdict& v, const Vec3& u, float wall, ClaimedMove& out) const {
    out = c;
    const float dt = c.dt;
    const bool walking = c.grounded && c.vertical_speed <= 0;
    const float rise = std::fmax(1.5f * jump_speed * dt, v.allowed.up) + 0.05f;
    switch (k) {
      case Cheat::speed: {
        const float h = std::fmax(1.25f * v.allowed.horizontal, v.allowed.horizontal + 0.1f);
        const Vec3 d = direction(c.motion, u);
        out.motion = {d.x * h, c.motion.y, d.z * h};
        return std::isfinite(h);
      }
      case Cheat::teleport: out.motion = c.motion + u * 5.f; return true;
      case Cheat::fly:
        if (walking || v.next.grounded || !std::isfinite(v.allowed.up)) return false;
        out.motion.y = std::fmax(0.f, v.allowed.up) + 0.05f;
        return true;
      case Cheat::super_jump:
      case Cheat::wall_climb:
        if (!walking || !std::isfinite(rise) || (k == Cheat::wall_climb) != (wall >= 0)) return false;
        out.motion.y = rise;
        return true;
      case Cheat::noclip: {
        if (!walking || wall < 0) return false;
        const Vec3 to_face = horizontal(c.motion) + u * wall;
        // p beyond the face, at most what keeps the horizontal part inside the allowance.
        float p = 0.1f;
        while (p >= 0.02f && length(to_face + u * p) > v.allowed.horizontal - 1e-3f) p -= 0.005f;
        if (p < 0.02f) return false;
        out.motion = to_face + u * p + Vec3{0, c.motion.y, 0};
        return true;
      }
      case Cheat::under_the_map:
        if (!walking) return false;
        out.motion.y = -2.f;
        return true;
      case Cheat::start_in_wall: {
        if (!walking) return false;
        const Vec3 down{0, -0.3f, 0};
        out.from = moved(c.from, down);
        out.ellipsoid.centre = c.ellipsoid.centre + down;
        return true;
      }
    }
    return false;
  }
};

}  // namespace

ClaimStreamReport run_claim_stream(const World& world, const ClaimStreamSettings& settings, ClaimBatches* keep) {
  const float dt = 1.f / settings.rate_hz;
  CrowdSettings cs;
  cs.agents = settings.agents;
  cs.seed = settings.seed;
  cs.min_speed = settings.min_speed;
  cs.max_speed = settings.max_speed;
  cs.move.dt = dt;
  cs.agent_shapes = {AgentShape::capsule, AgentShape::capsule, AgentShape::ellipsoid};
  cs.jump_speed = settings.jump_speed;
  cs.jump_chance = settings.jump_chance;
  cs.up_to_capacity = true;
  cs.batch.threads = 1;
  Crowd crowd(world, cs);
  const std::size_t n = crowd.agents().size();
  const ValidateSettings vs = stream_validate_settings(settings);
  BatchOptions one;
  one.threads = 1;
  const Cheater cheater{world, vs, settings.jump_speed};
  Random rng(settings.seed ^ 0xC4EA7ull);

  ClaimStreamReport report;
  std::vector<CarriedState> state(n, CarriedState{0, true, kNoTriangle});  // they spawn standing
  std::vector<ClaimedMove> claims(n), cheats;
  std::vector<Verdict> verdicts(n), cheat_verdicts(n);
  std::vector<int> cheat_of(n);
  std::size_t turn = 0, wall_turn = 0;
  const std::uint64_t ticks = std::uint64_t(std::llround(double(settings.seconds) * settings.rate_hz));
  for (std::uint64_t t = 0; t < ticks; ++t) {
    crowd.tick();
    for (std::size_t i = 0; i < n; ++i) claims[i] = tick_claim(crowd, i, dt, state[i]);
    const auto start = std::chrono::steady_clock::now();
    world.validate(claims, vs, verdicts, one);
    report.validate_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (keep) keep->genuine.push_back(claims);
    for (std::size_t i = 0; i < n; ++i) {
      const MoveResult& r = crowd.results()[i];
      const Verdict& v = verdicts[i];
      ++report.genuine;
      report.steps += (r.flags & kMoveSteppedUp) != 0;
      report.snaps += (r.flags & kMoveSnapped) != 0;
      report.airborne += !r.grounded;
      report.jumps += crowd.previous()[i].vertical_speed > 0 && claims[i].grounded;
      if (v.kind != VerdictKind::ok) {
        ++report.flagged;
        ++report.flagged_by_reason[std::size_t(v.reason)];
        if (report.false_flags.size() < settings.examples_kept) {
          report.false_flags.push_back(judged(crowd, t, i, claims[i], v));
        }
      }
    }
    // The cheats: each ok claim of this tick turned into one cheat, judged in the tick's batch.
    if (settings.cheat_every > 0 && t % settings.cheat_every == 0) {
      cheats = claims;
      std::fill(cheat_of.begin(), cheat_of.end(), -1);
      for (std::size_t i = 0; i < n; ++i) {
        const ClaimedMove& c = claims[i];
        const Verdict& v = verdicts[i];
        if (v.kind != VerdictKind::ok) continue;
        const double angle = rng.uniform(0, 6.283185307179586);
        const Vec3 any{float(std::cos(angle)), 0, float(std::sin(angle))};
        const Vec3 u = direction(crowd.previous()[i].displacement, direction(c.motion, any));
        const bool walking = c.grounded && c.vertical_speed <= 0;
        const float wall = walking && (crowd.results()[i].flags & kMoveBlocked)
                               ? wall_ahead(world, c, u, std::fmax(v.allowed.horizontal, 0.05f))
                               : -1.f;
        std::vector<Cheat> order;
        if (!walking) {
          order = {Cheat::fly};
        } else if (wall >= 0 && wall <= 0.05f) {
          order = wall_turn++ % 2 ? std::vector{Cheat::noclip, Cheat::wall_climb} : std::vector{Cheat::wall_climb, Cheat::noclip};
        } else {
          static constexpr Cheat kOpen[] = {Cheat::speed, Cheat::teleport, Cheat::super_jump, Cheat::under_the_map,
                                            Cheat::start_in_wall};
          order = {kOpen[turn++ % 5]};
        }
        for (Cheat k : order) {
          if (cheater.make(k, c, v, u, wall >= 0 && wall <= 0.05f ? wall : -1.f, cheats[i])) {
            cheat_of[i] = int(k);
            break;
          }
          cheats[i] = c;
        }
      }
      world.validate(cheats, vs, cheat_verdicts, one);
      if (keep) keep->with_cheats.push_back(cheats);
      for (std::size_t i = 0; i < n; ++i) {
        if (cheat_of[i] < 0) continue;
        const Cheat k = Cheat(cheat_of[i]);
        CheatTally& tally = report.cheats[std::size_t(k)];
        const Verdict& v = cheat_verdicts[i];
        ++tally.tried;
        ++tally.by_reason[std::size_t(v.reason)];
        if (v.kind != VerdictKind::ok) {
          ++tally.caught;
          tally.named += v.reason == expected_reason(k);
        } else {
          tally.missed_in_skin += v.in_skin;
          if (tally.missed.size() < settings.examples_kept) tally.missed.push_back(judged(crowd, t, i, cheats[i], v));
        }
      }
    }
    for (std::size_t i = 0; i < n; ++i) {
      state[i] = verdicts[i].next;
      // An agent that fell off the world starts again, standing, somewhere else.
      if (std::memcmp(&crowd.agents()[i].capsule, &crowd.results()[i].capsule, sizeof(Capsule)) != 0) {
        state[i] = {0, true, kNoTriangle};
        ++report.respawns;
      }
    }
  }
  static_assert(kReasons == std::tuple_size_v<decltype(report.flagged_by_reason)>);
  return report;
}

}  // namespace capsweep
