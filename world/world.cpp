#include <capsweep/world.h>

#include <algorithm>
#include <atomic>
#include <bit>

#include <capsweep/sweep.h>

#include "broadphase/morton.h"
#include "broadphase/traverse.h"
#include "core/assert.h"
#include "parallel/executor.h"
#include "simd/block_sweep.h"
#include "simd/kernel_choice.h"
#include "world/contacts_near.h"
#include "world/lane_pool.h"
#include "world/narrow_phase.h"
#include "world/sweeps.h"
#include "world/sweep_batch.h"
#include "world/walk.h"
#include "world/world_arrays.h"

namespace capsweep {

// One limit: the public constant is the executor's, which every arena checks.
static_assert(kMaxThreads == parallel::kMaxThreads);

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
  PackedUints lanes;
  Bvh bvh;
  PackedLinks links;
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

// A frame: the static part's arrays with instances placed over them (world/instances.h), which
// keep the static part alive.
std::shared_ptr<const WorldArrays> framed(const WorldArrays& static_part, std::shared_ptr<InstanceSet> set) {
  WorldArrays arrays = static_part;
  arrays.instances = set.get();
  arrays.bounds.grow(set->bounds);
  arrays.layers_present |= set->layers_present;
  return hold(arrays, std::move(set));
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
  // (Its adjacency names a triangle in 30 bits: PackedLinks.)
  if (triangles.size() >= kMaxPackedTriangles) throw WorldError("the mesh has more than 2^30 - 2 triangles");
  auto built = std::make_shared<BuiltArrays>();
  Aabb bounds;
  for (std::size_t i = 0; i < triangles.size(); ++i) {
    if (Status s = check_triangle(triangles[i]); s != Status::ok) {
      throw WorldError("triangle " + std::to_string(i) + ": " + describe(s));
    }
    bounds.grow(capsweep::bounds(triangles[i]));
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
  // A mesh all on one mask keeps that mask, not a copy per triangle (nor per BVH child).
  const std::uint32_t mesh_layers = layers.empty() ? kDefaultLayers : layers[0];
  if (std::all_of(layers.begin(), layers.end(), [&](std::uint32_t m) { return m == mesh_layers; })) layers.clear();
  built->layers = std::move(layers);
  if (!triangles.empty()) {
    built->bvh = build_bvh(triangles, built->layers);
    built->links = link_triangles_packed(triangles);
    if (built->bvh.blocks.size() > (std::size_t(1) << 29)) {
      throw WorldError("the mesh needs more than 2^29 triangle blocks");  // lanes are block * 8 + lane in 32 bits
    }
    built->lanes = triangle_lanes(built->bvh.blocks, triangles.size());
  }
  // (`triangles` goes here: the blocks hold the mesh's one copy.)
  WorldArrays arrays{built->lanes.view(), bounds,      built->bvh.view(), built->links.view(),
                     built->layers,       mesh_layers, present,           terrain_view};
  arrays_ = hold(arrays, std::move(built));
}

World::World(const World& static_part, std::vector<World> prototypes, std::vector<Instance> instances) {
  if (static_part.arrays_->instances) throw WorldError("the static part has instances of its own");
  auto set = place_instances(std::make_shared<const std::vector<World>>(std::move(prototypes)), std::move(instances),
                             std::uint32_t(world_triangle_count(*static_part.arrays_)));
  set->static_part = static_part.arrays_;
  arrays_ = framed(*static_part.arrays_, std::move(set));
}

World World::posed(std::span<const InstancePose> poses) const {
  const InstanceSet* set = arrays_->instances;
  if (!set) {
    if (poses.empty()) return *this;
    throw WorldError("pose 0 (instance " + std::to_string(poses[0].id) + "): the world has no instance of that id");
  }
  return World(framed(*set->static_part, repose(*set, poses)));
}

std::span<const Instance> World::instances() const {
  return arrays_->instances ? std::span<const Instance>(arrays_->instances->given) : std::span<const Instance>{};
}

const Instance* World::instance_of(std::uint32_t i) const {
  const InstanceSet* set = arrays_->instances;
  if (!set || i < set->first || i - set->first >= set->triangles) return nullptr;
  const std::size_t k = std::size_t(&set->holding(i) - set->placed.data());
  return k < set->given.size() ? &set->given[k] : nullptr;
}

World World::streamed(std::span<const Tile> added, std::span<const std::uint32_t> removed) const {
  if (const InstanceSet* set = arrays_->instances) return World(framed(*set->static_part, restream(*set, added, removed)));
  // A world without instances becomes the static part of a frame of tiles alone.
  auto none = place_instances(std::make_shared<const std::vector<World>>(), {}, std::uint32_t(world_triangle_count(*arrays_)));
  none->static_part = arrays_;
  return World(framed(*arrays_, restream(*none, added, removed)));
}

std::span<const Tile> World::tiles() const {
  return arrays_->instances ? std::span<const Tile>(arrays_->instances->tiles) : std::span<const Tile>{};
}

const Tile* World::tile_of(std::uint32_t i) const {
  return arrays_->instances ? arrays_->instances->tile_holding(i) : nullptr;
}

PackedUints triangle_lanes(std::span<const TriangleBlock> blocks, std::size_t triangles) {
  // Every lane starts at the all-ones value no lane takes (bits_for leaves it free: the largest
  // lane is below it), so that a triangle placed twice or never shows to the assertions.
  const std::uint32_t bits = bits_for(blocks.empty() ? 0 : blocks.size() * kBlockLanes);
  const std::uint32_t none = std::uint32_t((std::uint64_t(1) << bits) - 1);
  PackedUints lanes(triangles, bits, none);
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    for (int lane = 0; lane < kBlockLanes && blocks[b].valid(lane); ++lane) {
      const std::uint32_t t = blocks[b].triangle[lane];
      CAPSWEEP_ASSERT(t < triangles && lanes.view()[t] == none, "each triangle in one block lane");
      lanes.set(t, std::uint32_t(b * kBlockLanes + std::size_t(lane)));
    }
  }
  for (std::size_t t = 0; t < triangles; ++t) CAPSWEEP_ASSERT(lanes.view()[t] != none, "every triangle in a block lane");
  return lanes;
}

World::World(const WorldArrays& arrays, std::shared_ptr<const void> owner) {
  const bool mesh = arrays.mesh_count() != 0;
  if ((!mesh && !arrays.terrain.present()) || arrays.links.size() != arrays.mesh_count() || mesh != !arrays.bvh.nodes.empty() ||
      mesh != !arrays.bvh.blocks.empty() ||
      (!arrays.layers.empty() && arrays.layers.size() != arrays.mesh_count()) || arrays.mesh_layers == 0 ||
      arrays.bvh.child_layers.size() != (arrays.layers.empty() ? 0 : arrays.bvh.nodes.size() * WideNode::kWidth) ||
      (arrays.terrain.present() && arrays.terrain.first_triangle != arrays.mesh_count())) {
    throw WorldError("inconsistent world arrays");
  }
  arrays_ = hold(arrays, std::move(owner));
}

std::size_t World::triangle_count() const { return std::size_t(world_triangle_count(*arrays_)); }
std::vector<Triangle> World::mesh_triangles() const {
  std::vector<Triangle> mesh(arrays_->mesh_count());
  for (std::size_t i = 0; i < mesh.size(); ++i) mesh[i] = arrays_->mesh_triangle(i);
  return mesh;
}
Triangle World::triangle(std::uint32_t i) const {
  if (i >= world_triangle_count(*arrays_)) throw std::out_of_range("World::triangle: no triangle " + std::to_string(i));
  return triangle_at(*arrays_, i);
}
std::uint32_t World::layers_of(std::uint32_t i) const {
  if (i >= world_triangle_count(*arrays_)) throw std::out_of_range("World::layers_of: no triangle " + std::to_string(i));
  if (i < arrays_->mesh_count()) return arrays_->layers.empty() ? arrays_->mesh_layers : arrays_->layers[i];
  if (!is_terrain_triangle(*arrays_, i)) return arrays_->instances->holding(i).layers;
  const TerrainView& t = arrays_->terrain;
  return terrain_triangle_is_hole(t, i - t.first_triangle) ? 0u : t.layers;
}
bool World::has_terrain() const { return arrays_->terrain.present(); }
const Aabb& World::bounds() const { return arrays_->bounds; }

WorldStats World::stats() const {
  const WorldArrays& w = *arrays_;
  WorldStats s;
  s.triangles = triangle_count();
  s.mesh_triangles = w.mesh_count();
  s.heightfield_columns = w.terrain.columns;
  s.heightfield_rows = w.terrain.rows;
  s.heightfield_triangles = w.terrain.triangle_count();
  if (const InstanceSet* set = w.instances) {
    s.instances = set->given.size();
    s.prototypes = set->prototypes->size();
    s.tiles = set->tiles.size();
    for (std::size_t k = 0; k < set->placed.size(); ++k) {
      (k < s.instances ? s.instance_triangles : s.tile_triangles) += set->placed[k].count;
    }
  }
  s.bvh_nodes = w.bvh.nodes.size();
  s.triangle_blocks = w.bvh.blocks.size();
  s.bvh_depth = w.bvh.depth;
  s.memory_bytes = memory_bytes();
  return s;
}

const char* kernel_isa() { return best_block_sweep().isa; }
const char* kernel_isa_reason() { return kernel_in_use().why.c_str(); }
std::string kernel_isa_problem() { return isa_request_problem(); }
std::size_t World::memory_bytes() const {
  const WorldArrays& w = *arrays_;
  std::size_t instances = 0;
  if (const InstanceSet* set = w.instances) {
    // The frame's own arrays, and each prototype once however often it is placed.
    instances = set->given.size() * sizeof(Instance) + set->placed.size() * sizeof(PlacedInstance) +
                set->by_id.size() * sizeof(set->by_id[0]) + set->moved.size() * sizeof(set->moved[0]) +
                set->top.view().memory_bytes();
    for (const World& p : *set->prototypes) instances += p.memory_bytes();
    for (const Tile& t : set->tiles) instances += sizeof(Tile) + t.mesh.memory_bytes();
  }
  return w.lanes.size_bytes() + w.links.size_bytes() + w.layers.size_bytes() +
         w.bvh.memory_bytes() + w.terrain.heights.size_bytes() + w.terrain.samples.size_bytes() +
         w.terrain.holes.size_bytes() + w.terrain.pyramid.size_bytes() + instances;
}

bool is_better_hit(const SweepHit& a, const SweepHit& b) {
  if (a.hit != b.hit) return a.hit;
  if (!a.hit) return false;
  if (a.t != b.t) return a.t < b.t;
  if (a.depth != b.depth) return a.depth > b.depth;
  return a.triangle < b.triangle;
}

namespace {

// A capsule query as the narrow phase sweeps it (narrow_phase.h): a ray or segment as its thin
// capsule (as_swept). Queries reaching here passed check_sweep, and triangles were checked at
// build: the kernels run unchecked.
struct CapsuleSweep {
  const SweepQuery& query;
  Aabb reach() const { return swept_bounds(query.capsule, query.motion); }
  SweptBox walk_box() const { return make_swept_box(query.capsule, query.motion); }
  void sweep(const Triangle& t, SweepHit& h) const { sweep_capsule_triangle_unchecked(query.capsule, query.motion, t, h); }
};

// The lanes of one query's gathered block, as sweep_gathered asks for them.
template <class Collector>
struct OneQueryLanes {
  const SweepQuery& asked;
  const BlockQuery& bq;
  Collector& closest;
  bool sweep(const BlockSweepVariant& kernel, const KernelBlock& block, BlockHits& out) const {
    return kernel.fn(block, bq, out);
  }
  const SweepQuery& query(int) const { return asked; }
  const BlockQuery& block_query(int) const { return bq; }
  Collector& collector(int) const { return closest; }
};

// The wide path: the rejection stage eight lanes at a time, the live lanes gathered and swept by
// the full kernel (sweep_gathered). `pool`: where the lanes left at the end of the walk go, with
// `asked`, the query as asked (which outlives the pool's last flush); without one they are swept
// at once.
template <class Collector>
void sweep_simd(const WorldArrays& w, const CapsuleSweep& shape, Collector& closest, TraversalStats& stats,
                std::uint32_t layers, LanePool<Collector>* pool = nullptr, const SweepQuery* asked = nullptr) {
  static const BlockSweepVariant kernel = best_block_sweep();
  const SweepQuery& q = shape.query;
  BlockQuery bq = make_block_query(q.capsule, q.motion);
  float limit = 1.f;
  // Live lanes of the leaves visited are gathered into one block, so the full kernel runs on
  // as many live triangles as it sweeps at once (kernel.group) instead of on every leaf with one
  // or two; no more, so that a contact it finds narrows the rest of the walk sooner.
  KernelBlock stage;
  int staged = 0;
  OneQueryLanes<Collector> lanes{q, bq, closest};
  auto flush = [&] {
    const int used = staged;
    staged = 0;
    if (sweep_gathered(w, kernel, stage, used, lanes) && closest.found()) {
      limit = closest.early_out();  // a node or lane entered later holds only worse answers
      limit_block_query(bq, limit);
    }
  };
  walk_world(w, shape.walk_box(), limit, stats, [&](const TriangleBlock& block) {
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
    pool->take(stage, staged, bq, *asked, closest);
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
  sweep_on_path(w, CapsuleSweep{q}, path, hit, keep, stats, walk_layers(w, query.layers & layers));
  return Status::ok;
}

// The pooled narrow phase over one chunk: sweep_path's steps for each query (its check, then its
// walk as a swept capsule with its own mask, so a chunk may mix queries of any masks and each
// still gets the answer it gets alone), the lanes left at the end of each walk sharing one pool.
// Query i is answered from *arrays[i] (one world's; an agent's copy walks its own neighbourhood)
// and keeps the contacts keep_for(i, queries[i], its walk's mask) passes.
template <class KeepFor>
PoolCounts sweep_chunk_pooled(std::span<const WorldArrays* const> arrays, std::span<const SweepQuery> queries,
                              std::span<SweepHit> hits, std::span<Status> status, std::uint32_t layers,
                              const KeepFor& keep_for) {
  using Collector = ClosestHit<decltype(keep_for(0, queries[0], layers))>;
  TraversalStats stats;
  LanePool<Collector> pool(*arrays[0]);  // the lanes' triangles: the same blocks in every copy
  Collector closest[kSweepChunk];  // each lives until the pool's last flush
  for (std::size_t i = 0; i < queries.size(); ++i) {
    hits[i] = SweepHit{};
    status[i] = check_query(queries[i], layers);
    if (status[i] != Status::ok) continue;
    const SweepQuery swept = as_swept(queries[i]);
    const WorldArrays& w = *arrays[i];
    const std::uint32_t walk = walk_layers(w, queries[i].layers & layers);
    closest[i] = Collector(hits[i], keep_for(i, queries[i], walk));
    sweep_simd(w, CapsuleSweep{swept}, closest[i], stats, walk, &pool, &queries[i]);
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
  const WorldArrays* const w = &world.arrays();
  const WorldArrays* each[kSweepChunk] = {};
  std::fill_n(each, queries.size(), w);
  return sweep_chunk_pooled(std::span(each, queries.size()), queries, hits, status, layers,
                            [](std::size_t, const SweepQuery&, std::uint32_t) { return KeepAll{}; });
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

Status sweep_approaching(const World& world, const SweepQuery& q, SweepHit& hit, SweepPath path, std::uint32_t layers) {
  return sweep_approaching(world.arrays(), q, hit, path, layers);
}

Status sweep_approaching(const WorldArrays& w, const SweepQuery& q, SweepHit& hit, SweepPath path, std::uint32_t layers) {
  TraversalStats stats;
  const KeepApproaching keep{&w, q.motion, q.capsule.radius, walk_layers(w, q.layers & layers)};
  return sweep_path(w, q, hit, solver_path(path), stats, keep, layers);
}

void sweep_approaching_chunk(std::span<const WorldArrays* const> arrays, std::span<const SweepQuery> queries,
                             std::span<SweepHit> hits, SweepPath path) {
  CAPSWEEP_ASSERT(queries.size() <= kSweepChunk && hits.size() == queries.size() && arrays.size() == queries.size(),
                  "a chunk of at most kSweepChunk queries, an answer and arrays each");
  // One query alone has nothing to pool with: its walk sweeps its last lanes at once.
  if (path != SweepPath::simd || queries.size() == 1) {
    for (std::size_t i = 0; i < queries.size(); ++i) sweep_approaching(*arrays[i], queries[i], hits[i], path);
    return;
  }
  Status status[kSweepChunk];
  sweep_chunk_pooled(arrays, queries, hits, std::span(status, queries.size()), kAllLayers,
                     [&](std::size_t i, const SweepQuery& q, std::uint32_t walk) {
                       return KeepApproaching{arrays[i], q.motion, q.capsule.radius, walk};
                     });
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
