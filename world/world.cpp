#include <capsweep/world.h>

#include <atomic>
#include <bit>

#include <capsweep/sweep.h>

#include "broadphase/morton.h"
#include "broadphase/traverse.h"
#include "core/assert.h"
#include "parallel/executor.h"
#include "simd/block_sweep.h"
#include "world/contacts_near.h"
#include "world/sweep_batch.h"
#include "world/walk.h"
#include "world/world_arrays.h"

namespace capsweep {

// One limit: the public constant is the executor's, which every arena checks.
static_assert(kMaxThreads == parallel::kMaxThreads);

namespace {

struct KeepAll {
  bool operator()(SweepHit&) const { return true; }
};

// Keeps the contacts a motion moves into (see World::sweep_approaching). `layers`: the walk's
// mask (walk_layers), so that a neighbour the sweep does not see makes no seam.
// (No member initializers: sweep_approaching_chunk keeps an uninitialized array of them, and
// sweep_chunk_pooled sets those it uses.)
struct KeepApproaching {
  const World* world;
  Vec3 motion;
  float radius;
  std::uint32_t layers;
  bool operator()(SweepHit& h) const;
};
}  // namespace

const char* name(SweepPath path) {
  switch (path) {
    case SweepPath::simd: return "simd";
    case SweepPath::scalar: return "scalar";
    case SweepPath::brute: return "brute";
  }
  return "?";
}

bool parse_sweep_path(const std::string& text, SweepPath& out) {
  for (SweepPath p : {SweepPath::simd, SweepPath::scalar, SweepPath::brute}) {
    if (text == name(p)) {
      out = p;
      return true;
    }
  }
  return false;
}

namespace {

// What a world built in memory owns.
struct BuiltArrays {
  std::vector<Triangle> triangles;
  std::vector<Aabb> boxes;
  Bvh bvh;
  std::vector<TriangleLinks> links;
  std::vector<std::uint32_t> layers;
  TerrainArrays terrain;
};

// The arrays with what keeps them alive, shared by the copies of a World.
struct HeldArrays {
  WorldArrays arrays;
  std::shared_ptr<const void> owner;
};

std::shared_ptr<const WorldArrays> hold(const WorldArrays& arrays, std::shared_ptr<const void> owner) {
  auto held = std::make_shared<HeldArrays>(HeldArrays{arrays, std::move(owner)});
  return std::shared_ptr<const WorldArrays>(held, &held->arrays);
}

}  // namespace

World::World(std::vector<Triangle> triangles) : World(std::move(triangles), {}) {}

World::World(std::vector<Triangle> triangles, std::vector<std::uint32_t> layers)
    : World(nullptr, std::move(triangles), std::move(layers)) {
  // (the delegated constructor refuses an empty soup: a world of nothing answers nothing)
}

World::World(Heightfield terrain, std::vector<Triangle> triangles, std::vector<std::uint32_t> layers)
    : World(&terrain, std::move(triangles), std::move(layers)) {}

World::World(Heightfield* terrain, std::vector<Triangle> triangles, std::vector<std::uint32_t> layers) {
  if (triangles.empty() && !terrain) throw WorldError("the mesh has no triangles");
  if (!layers.empty() && layers.size() != triangles.size()) {
    throw WorldError("one layer mask per triangle: " + std::to_string(layers.size()) + " masks for " +
                     std::to_string(triangles.size()) + " triangles");
  }
  if (layers.empty()) layers.assign(triangles.size(), kDefaultLayers);
  std::uint32_t present = 0;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    if (layers[i] == 0) throw WorldError("triangle " + std::to_string(i) + ": its layer mask is 0 (on no layer)");
    present |= layers[i];
  }
  if (triangles.size() >= kNoTriangle) throw WorldError("the mesh has more than 2^32 - 2 triangles");
  auto built = std::make_shared<BuiltArrays>();
  Aabb bounds;
  built->boxes.reserve(triangles.size());
  for (std::size_t i = 0; i < triangles.size(); ++i) {
    if (Status s = check_triangle(triangles[i]); s != Status::ok) {
      throw WorldError("triangle " + std::to_string(i) + ": " + describe(s));
    }
    built->boxes.push_back(capsweep::bounds(triangles[i]));
    bounds.grow(built->boxes.back());
  }
  TerrainView terrain_view;
  if (terrain) {
    if (std::string why = check_heightfield(*terrain); !why.empty()) throw WorldError(why);
    if (std::uint64_t(triangles.size()) + 2 * heightfield_cells(*terrain) >= kNoTriangle) {
      throw WorldError("heightfield: its " + std::to_string(2 * heightfield_cells(*terrain)) + " triangles and the mesh's " +
                       std::to_string(triangles.size()) + " make more than 2^32 - 2");
    }
    build_terrain(std::move(*terrain), std::uint32_t(triangles.size()), built->terrain, terrain_view);
    present |= terrain_view.layers;
    bounds.grow(terrain_view.bounds);
  }
  built->triangles = std::move(triangles);
  built->layers = std::move(layers);
  if (!built->triangles.empty()) {
    built->bvh = build_bvh(built->triangles, built->layers);
    built->links = link_triangles(built->triangles);
  }
  WorldArrays arrays{built->triangles, built->boxes,  bounds,  built->bvh.view(),
                     built->links,     built->layers, present, terrain_view};
  arrays_ = hold(arrays, std::move(built));
}

World::World(const WorldArrays& arrays, std::shared_ptr<const void> owner) {
  const bool mesh = !arrays.triangles.empty();
  if ((!mesh && !arrays.terrain.present()) || arrays.boxes.size() != arrays.triangles.size() ||
      arrays.links.size() != arrays.triangles.size() || mesh != !arrays.bvh.nodes.empty() ||
      mesh != !arrays.bvh.blocks.empty() || arrays.layers.size() != arrays.triangles.size() ||
      arrays.bvh.child_layers.size() != arrays.bvh.nodes.size() * WideNode::kWidth ||
      (arrays.terrain.present() && arrays.terrain.first_triangle != arrays.triangles.size())) {
    throw WorldError("inconsistent world arrays");
  }
  arrays_ = hold(arrays, std::move(owner));
}

std::size_t World::triangle_count() const { return std::size_t(world_triangle_count(*arrays_)); }
std::span<const Triangle> World::triangles() const { return arrays_->triangles; }
std::span<const std::uint32_t> World::layers() const { return arrays_->layers; }
Triangle World::triangle(std::uint32_t i) const {
  if (i >= world_triangle_count(*arrays_)) throw std::out_of_range("World::triangle: no triangle " + std::to_string(i));
  return triangle_at(*arrays_, i);
}
std::uint32_t World::layers_of(std::uint32_t i) const {
  if (i >= world_triangle_count(*arrays_)) throw std::out_of_range("World::layers_of: no triangle " + std::to_string(i));
  if (i < arrays_->layers.size()) return arrays_->layers[i];
  const TerrainView& t = arrays_->terrain;
  return terrain_triangle_is_hole(t, i - t.first_triangle) ? 0u : t.layers;
}
bool World::has_terrain() const { return arrays_->terrain.present(); }
const Aabb& World::bounds() const { return arrays_->bounds; }
std::size_t World::memory_bytes() const {
  const WorldArrays& w = *arrays_;
  return w.triangles.size_bytes() + w.boxes.size_bytes() + w.links.size_bytes() + w.layers.size_bytes() +
         w.bvh.memory_bytes() + w.terrain.heights.size_bytes() + w.terrain.samples.size_bytes() +
         w.terrain.holes.size_bytes() + w.terrain.pyramid.size_bytes();
}

bool is_better_hit(const SweepHit& a, const SweepHit& b) {
  if (a.hit != b.hit) return a.hit;
  if (!a.hit) return false;
  if (a.t != b.t) return a.t < b.t;
  if (a.depth != b.depth) return a.depth > b.depth;
  return a.triangle < b.triangle;
}

namespace {

// Queries reaching here passed check_sweep, and triangles were checked at build: the kernels
// run unchecked.
// `layers` is a walk's mask (walk_layers): kAllLayers, or the layers a filtered batch sees.
void sweep_brute(const WorldArrays& w, const SweepQuery& q, SweepHit& hit, std::uint32_t layers) {
  const Aabb reach = swept_bounds(q.capsule, q.motion);
  auto offer = [&](std::uint32_t i, const Triangle& t, const Aabb& box) {
    if (!reach.overlaps(box) || !seen(w, i, layers)) return;
    SweepHit h;
    sweep_capsule_triangle_unchecked(q.capsule, q.motion, t, h);
    h.triangle = i;
    if (is_better_hit(h, hit)) hit = h;
  };
  for (std::size_t i = 0; i < w.triangles.size(); ++i) offer(std::uint32_t(i), w.triangles[i], w.boxes[i]);
  for_each_terrain_triangle_near(w.terrain, reach, [&](std::uint32_t i, const Triangle& t) { offer(i, t, bounds(t)); });
}

template <class Keep>
void sweep_scalar(const WorldArrays& w, const SweepQuery& q, SweepHit& hit, TraversalStats& stats, const Keep& keep,
                  std::uint32_t layers) {
  const Aabb reach = swept_bounds(q.capsule, q.motion);
  float limit = 1.f;
  walk_world(w, make_swept_box(q.capsule, q.motion), limit, stats, [&](const TriangleBlock& block) {
    for (int lane = 0; lane < kBlockLanes && block.valid(lane); ++lane) {
      const std::uint32_t i = block.triangle[lane];
      ++stats.triangles;
      if (!reach.overlaps(lane_box(w, block, lane)) || !seen(w, i, layers)) continue;
      SweepHit h;
      sweep_capsule_triangle_unchecked(q.capsule, q.motion, block.get(lane), h);
      h.triangle = i;
      if (h.hit && is_better_hit(h, hit) && keep(h)) hit = h;
    }
    if (hit.hit) limit = hit.t;  // a node entered later holds only worse answers
    return false;
  }, layers);
}

// The pooled narrow phase: the live lanes a sweep has left when its walk ends (fewer than the
// kernel's group; 0.2-0.6 per walking step) wait here with those of the next sweeps of the same
// chunk, and the full kernel runs on eight lanes of several queries at once. Each lane's
// arithmetic is what the kernel does for its query alone, and the best hit is the least by
// is_better_hit whatever order the lanes come in, so pooling changes no bit of any answer.
class LanePool {
 public:
  // `keeps`: each query's filter (KeepApproaching, as its walk applies it); empty: keep all.
  LanePool(const WorldArrays& w, std::span<const SweepQuery> queries, std::span<SweepHit> hits,
           std::span<const KeepApproaching> keeps)
      : w_(w), queries_(queries), hits_(hits), keeps_(keeps) {}

  // Takes the first `used` lanes of a sweep's stage; `q` is that sweep's query, as limited by
  // the hits it has found (the lanes are judged exactly as its own last flush would judge them).
  void take(const KernelBlock& stage, int used, const BlockQuery& q, std::uint32_t slot) {
    CAPSWEEP_ASSERT(slot < kSweepChunk && has_axis(q), "a pooled query has a slot and an axis");
    for (int lane = 0; lane < used; ++lane) {
      copy_lane(stage, lane, block_, count_);
      set_lane_query(lanes_, count_, q);
      owner_[count_++] = slot;
      ++counts_.lanes;
      if (count_ == kBlockLanes) flush();
    }
  }

  void flush() {
    static const BlockSweepVariant& variant = best_block_sweep();
    if (count_ == 0) return;
    close_lanes(block_, count_);
    close_lane_queries(lanes_, count_);
    const int used = count_;
    count_ = 0;
    ++counts_.calls;
    BlockHits out;
    variant.complete(block_);
    if (!variant.pooled(block_, lanes_, out)) return;
    for (int lane = 0; lane < used; ++lane) {
      const std::uint32_t slot = owner_[lane];
      SweepHit& best = hits_[slot];
      SweepHit h;
      if (out.near_start[lane]) {
        // The query as asked, not as swept: the scalar core makes a ray its thin capsule itself.
        const SweepQuery& q = queries_[slot];
        sweep_capsule_triangle_unchecked(q.capsule, q.motion, triangle_at(w_, block_.triangle[lane]), h);
        h.triangle = block_.triangle[lane];
      } else if (out.t[lane] <= 1.0 && !(best.hit && round_time_down(out.t[lane]) > best.t)) {
        h = lane_hit(block_, lane, lane_query(lane), out);
      } else {
        continue;
      }
      if (h.hit && is_better_hit(h, best) && (keeps_.empty() || keeps_[slot](h))) best = h;
    }
  }

  const PoolCounts& counts() const { return counts_; }

 private:
  // What lane_hit reads of a lane's query (origin, e, d, r): the values the lane was swept with.
  BlockQuery lane_query(int lane) const {
    BlockQuery q;
    q.origin = {lanes_.ox[lane], lanes_.oy[lane], lanes_.oz[lane]};
    q.e = {lanes_.ex[lane], lanes_.ey[lane], lanes_.ez[lane]};
    q.d = {lanes_.dx[lane], lanes_.dy[lane], lanes_.dz[lane]};
    q.r = lanes_.r[lane];
    return q;
  }

  const WorldArrays& w_;
  std::span<const SweepQuery> queries_;
  std::span<SweepHit> hits_;
  std::span<const KeepApproaching> keeps_;
  KernelBlock block_;
  LaneQueries lanes_;
  std::uint32_t owner_[kBlockLanes];
  int count_ = 0;
  PoolCounts counts_;
};

// `pool`: where the lanes left at the end of the walk go (with `slot`, the query's place in the
// chunk); without one they are swept at once.
template <class Keep>
void sweep_simd(const WorldArrays& w, const SweepQuery& q, SweepHit& hit, TraversalStats& stats, const Keep& keep,
                std::uint32_t layers, LanePool* pool = nullptr, std::uint32_t slot = 0) {
  static const BlockSweepVariant kernel = best_block_sweep();
  BlockQuery bq = make_block_query(q.capsule, q.motion);
  float limit = 1.f;
  // Live lanes of the leaves visited are gathered into one block, so the full kernel runs on
  // as many live triangles as it sweeps at once (kernel.group) instead of on every leaf with one
  // or two; no more, so that a contact it finds narrows the rest of the walk sooner.
  KernelBlock stage;
  int staged = 0;
  BlockHits lanes;
  auto flush = [&] {
    close_lanes(stage, staged);
    kernel.complete(stage);
    staged = 0;
    if (!kernel.fn(stage, bq, lanes)) return;
    for (int lane = 0; lane < kBlockLanes; ++lane) {
      SweepHit h;
      CAPSWEEP_ASSERT(!stage.valid(lane) || stage.triangle[lane] < world_triangle_count(w), "a lane names a triangle");
      if (lanes.near_start[lane]) {
        // Starts within reach: the scalar core gives the depth and push-out.
        sweep_capsule_triangle_unchecked(q.capsule, q.motion, triangle_at(w, stage.triangle[lane]), h);
        h.triangle = stage.triangle[lane];
      } else if (lanes.t[lane] <= 1.0 && !(hit.hit && round_time_down(lanes.t[lane]) > hit.t)) {
        h = lane_hit(stage, lane, bq, lanes);
      } else {
        continue;
      }
      if (h.hit && is_better_hit(h, hit) && keep(h)) hit = h;
    }
    if (hit.hit) {
      limit = hit.t;  // a node or lane entered later holds only worse answers
      limit_block_query(bq, hit.t);
    }
  };
  walk_world(w, make_swept_box(q.capsule, q.motion), limit, stats, [&](const TriangleBlock& block) {
    if (stats.count_triangles) {
      for (int lane = 0; lane < kBlockLanes && block.valid(lane); ++lane) ++stats.triangles;
    }
    std::uint32_t shown = 0xFFu;  // the lanes on the batch's layers
    if (layers != kAllLayers) {
      shown = 0;
      for (int lane = 0; lane < kBlockLanes && block.valid(lane); ++lane) {
        if (seen(w, block.triangle[lane], layers)) shown |= 1u << lane;
      }
    }
    std::uint32_t live = kernel.live(block, bq) & shown;
    while (live != 0) {
      gather_lane(block, std::countr_zero(live), stage, staged++);
      live &= live - 1;
      if (staged < kernel.group) continue;
      const float before = limit;
      flush();
      // A contact found sooner narrows what is left of this block too.
      if (live != 0 && limit < before) live &= kernel.live(block, bq);
    }
    return false;
  }, layers);
  if (staged == 0) return;
  if (pool && has_axis(bq)) {
    pool->take(stage, staged, bq, slot);
  } else {
    flush();
  }
}

// A checked query as every path sweeps it: a ray or segment becomes its thin capsule (sweep.h).
SweepQuery as_swept(const SweepQuery& q) { return {swept_capsule(q.capsule, q.motion), q.motion, q.layers}; }

// A query's check: its shape and motion, then its layers within the batch's.
Status check_query(const SweepQuery& q, std::uint32_t batch_layers) {
  if (Status s = check_sweep(q.capsule, q.motion); s != Status::ok) return s;
  return check_layers(q.layers, batch_layers);
}

// One query through the chosen path, after its check. `layers`: the batch's mask; the query
// sees the layers of both.
template <class Keep>
Status sweep_path(const WorldArrays& w, const SweepQuery& query, SweepHit& hit, SweepPath path, TraversalStats& stats,
                  const Keep& keep, std::uint32_t layers) {
  hit = SweepHit{};
  if (Status s = check_query(query, layers); s != Status::ok) return s;
  const SweepQuery q = as_swept(query);
  layers = walk_layers(w, query.layers & layers);
  switch (path) {
    case SweepPath::simd: sweep_simd(w, q, hit, stats, keep, layers); break;
    case SweepPath::scalar: sweep_scalar(w, q, hit, stats, keep, layers); break;
    case SweepPath::brute: sweep_brute(w, q, hit, layers); break;  // only ever asked to keep everything
  }
  return Status::ok;
}

// The pooled narrow phase over one chunk: sweep_path's steps for each query (its check, then its
// walk as a swept capsule with its own mask, so a chunk may mix queries of any masks and each
// still gets the answer it gets alone), the lanes left at the end of each walk sharing one pool.
// With `keeps`, query i keeps only the contacts keeps[i] (set here: sweep_approaching's filter)
// passes; without, every contact.
PoolCounts sweep_chunk_pooled(const World& world, std::span<const SweepQuery> queries, std::span<SweepHit> hits,
                              std::span<Status> status, std::uint32_t layers, std::span<KeepApproaching> keeps) {
  CAPSWEEP_ASSERT(keeps.empty() || keeps.size() == queries.size(), "a keep for every query, or none");
  const WorldArrays& w = world.arrays();
  TraversalStats stats;
  LanePool pool(w, queries, hits, keeps);
  for (std::size_t i = 0; i < queries.size(); ++i) {
    hits[i] = SweepHit{};
    status[i] = check_query(queries[i], layers);
    if (status[i] != Status::ok) continue;
    const SweepQuery swept = as_swept(queries[i]);
    const std::uint32_t walk = walk_layers(w, queries[i].layers & layers);
    if (keeps.empty()) {
      sweep_simd(w, swept, hits[i], stats, KeepAll{}, walk, &pool, std::uint32_t(i));
    } else {
      keeps[i] = {&world, queries[i].motion, queries[i].capsule.radius, walk};
      sweep_simd(w, swept, hits[i], stats, keeps[i], walk, &pool, std::uint32_t(i));
    }
  }
  pool.flush();
  return pool.counts();
}

}  // namespace

PoolCounts sweep_chunk(const World& world, std::span<const SweepQuery> queries, std::span<SweepHit> hits,
                       std::span<Status> status, SweepPath path, bool pooled, std::uint32_t layers) {
  CAPSWEEP_ASSERT(queries.size() <= kSweepChunk && hits.size() == queries.size() && status.size() == queries.size(),
                  "a chunk of at most kSweepChunk queries, an answer each");
  if (path != SweepPath::simd || !pooled) {
    TraversalStats stats;
    for (std::size_t i = 0; i < queries.size(); ++i) {
      status[i] = sweep_path(world.arrays(), queries[i], hits[i], path, stats, KeepAll{}, layers);
    }
    return {};
  }
  return sweep_chunk_pooled(world, queries, hits, status, layers, {});
}

Status World::sweep_one(const SweepQuery& q, SweepHit& hit, SweepPath path, std::uint32_t layers) const {
  TraversalStats stats;
  return sweep_path(*arrays_, q, hit, path, stats, KeepAll{}, layers);
}

Status sweep_counted(const World& world, const SweepQuery& q, SweepHit& hit, SweepPath path, TraversalStats& stats,
                     std::uint32_t layers) {
  stats.count_triangles = true;
  return sweep_path(world.arrays(), q, hit, path, stats, KeepAll{}, layers);
}

bool KeepApproaching::operator()(SweepHit& h) const {
  seam_normal(*world, h, radius, layers);
  return dot(h.normal, motion) < 0;
}

Status sweep_approaching(const World& world, const SweepQuery& q, SweepHit& hit, SweepPath path, std::uint32_t layers) {
  TraversalStats stats;
  const KeepApproaching keep{&world, q.motion, q.capsule.radius, walk_layers(world.arrays(), q.layers & layers)};
  return sweep_path(world.arrays(), q, hit, path == SweepPath::simd ? SweepPath::simd : SweepPath::scalar, stats, keep,
                    layers);
}

void sweep_approaching_chunk(const World& world, std::span<const SweepQuery> queries, std::span<SweepHit> hits,
                             SweepPath path) {
  CAPSWEEP_ASSERT(queries.size() <= kSweepChunk && hits.size() == queries.size(),
                  "a chunk of at most kSweepChunk queries, an answer each");
  if (path != SweepPath::simd) {
    for (std::size_t i = 0; i < queries.size(); ++i) sweep_approaching(world, queries[i], hits[i], path);
    return;
  }
  KeepApproaching keeps[kSweepChunk];
  Status status[kSweepChunk];
  sweep_chunk_pooled(world, queries, hits, std::span(status, queries.size()), kAllLayers, std::span(keeps, queries.size()));
}

std::size_t World::sweep(std::span<const SweepQuery> queries, std::span<SweepHit> hits, const SweepOptions& options,
                         std::span<Status> status) const {
  if (hits.size() != queries.size() || (!status.empty() && status.size() != queries.size())) {
    throw std::invalid_argument("World::sweep: queries, hits and status must have the same size");
  }
  return sweep_batch(
      *this, queries.size(), [&](std::size_t i) -> const SweepQuery& { return queries[i]; },
      [&](std::size_t i, const SweepHit& hit, Status s) {
        hits[i] = hit;
        if (!status.empty()) status[i] = s;
      },
      options);
}

std::size_t World::overlap(std::span<const Capsule> capsules, float clearance, std::span<OverlapResult> results,
                           const BatchOptions& options, std::span<Status> status) const {
  if (results.size() != capsules.size() || (!status.empty() && status.size() != capsules.size())) {
    throw std::invalid_argument("World::overlap: capsules, results and status must have the same size");
  }
  if (!(clearance >= 0.f && clearance <= kMaxCoordinate)) {
    throw std::invalid_argument("World::overlap: the clearance must be finite and >= 0");
  }
  std::atomic<std::size_t> refused{0};
  parallel::StopCheck stop(options.stop);
  auto run = [&] {
    parallel::for_ranges<std::size_t>(0, capsules.size(), 64, [&](const auto& range) {
      for (std::size_t i = range.begin(); i != range.end(); ++i) {
        if (stop.before(i)) return;
        OverlapResult r;
        const Status s = check_capsule(capsules[i]);
        if (s == Status::ok) {
          // One walk answers both: the triangles within the clearance include every overlap.
          const float reach = capsules[i].radius + clearance;
          DeepestOverlap deepest;
          r.clear = true;
          for_each_contact(*arrays_, capsules[i], clearance, [&](std::uint32_t t, const Contact& k) {
            r.clear = r.clear && !(k.distance <= reach);
            deepest.offer(t, k, capsules[i].radius);
            return false;
          }, options.layers);
          r.overlapping = deepest.found;
          if (deepest.found) {
            r.deepest = deepest.contact;
            r.triangle = deepest.triangle;
          }
        } else {
          ++refused;
        }
        results[i] = r;
        if (!status.empty()) status[i] = s;
      }
    });
  };
  parallel::in_arena(options.threads, run);
  stop.throw_if_stopped<Cancelled>("World::overlap");
  return refused.load();
}

bool World::is_clear(const Capsule& capsule, float clearance, std::uint32_t layers) const {
  if (!(clearance >= 0.f && clearance <= kMaxCoordinate)) {
    throw std::invalid_argument("World::is_clear: the clearance must be finite and >= 0");
  }
  // A refused capsule is not clear (nor overlapping: World::overlap says the same of it).
  if (check_capsule(capsule) != Status::ok) return false;
  const float reach = capsule.radius + clearance;
  bool clear = true;
  for_each_contact(*arrays_, capsule, clearance, [&](std::uint32_t, const Contact& k) {
    clear = !(k.distance <= reach);
    return !clear;
  }, layers);
  return clear;
}

}  // namespace capsweep
