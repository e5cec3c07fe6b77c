// Navigation in the C API (<capsweep/capsweep_c_io.h>): cs_navmesh and cs_nav_crowd over
// capsweep::NavMesh and NavCrowd. In libcapsweep_c_io.so only: Recast and Detour are shared
// libraries in Debian, and libcapsweep_c.so needs nothing but oneTBB (docs/DECISIONS.md).
#include <capsweep/capsweep_c_io.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>

#include <capsweep/navigation.h>

#include "capi/guarded.h"
#include "capi/records.h"
#include "capi/world_handle.h"

struct cs_navmesh {
  capsweep::NavMesh navmesh;
};

struct cs_nav_crowd {
  capsweep::NavCrowd crowd;
};

namespace {

using namespace capsweep;
using namespace capsweep::capi;

static_assert(sizeof(cs_navmesh_settings) == 56 && sizeof(cs_navmesh_stats) == 48 &&
              sizeof(cs_nav_crowd_settings) == 92 && offsetof(cs_nav_crowd_settings, layer_mask) == 52 &&
              sizeof(cs_nav_agent) == 80 && offsetof(cs_nav_agent, status) == 40 &&
              offsetof(cs_nav_agent, goal) == 44 && offsetof(cs_nav_agent, replans) == 76);
static_assert(int(NavStatus::idle) == CS_NAV_IDLE && int(NavStatus::walking) == CS_NAV_WALKING &&
              int(NavStatus::arrived) == CS_NAV_ARRIVED && int(NavStatus::no_path) == CS_NAV_NO_PATH &&
              int(NavStatus::off_mesh) == CS_NAV_OFF_MESH);

// A refused navmesh file is a file error, as a refused snapshot is (guarded() would call the
// runtime_error internal); so is a file that cannot be written.
template <class Body>
int nav_guarded(const char* function, Body&& body) {
  int code = CS_OK;
  const int r = guarded(function, [&] {
    try {
      body();
    } catch (const NavMeshError& e) {
      code = fail(CS_ERROR_FILE, e.what());
    }
  });
  return code != CS_OK ? code : r;
}

NavMeshSettings settings(const cs_navmesh_settings& s) {
  NavMeshSettings n;
  n.agent_radius = s.agent_radius;
  n.agent_height = s.agent_height;
  n.climb = s.climb;
  n.max_slope_degrees = s.max_slope_degrees;
  n.cell_size = s.cell_size;
  n.cell_height = s.cell_height;
  n.tile_cells = s.tile_cells;
  n.layers = s.layers;
  n.max_edge_length = s.max_edge_length;
  n.max_edge_error = s.max_edge_error;
  n.min_region_area = s.min_region_area;
  n.merge_region_area = s.merge_region_area;
  n.detail_sample_distance = s.detail_sample_distance;
  n.detail_max_error = s.detail_max_error;
  return n;
}

cs_navmesh_settings record(const NavMeshSettings& n) {
  return {n.agent_radius,    n.agent_height,   n.climb,           n.max_slope_degrees,
          n.cell_size,       n.cell_height,    n.tile_cells,      n.layers,
          n.max_edge_length, n.max_edge_error, n.min_region_area, n.merge_region_area,
          n.detail_sample_distance, n.detail_max_error};
}

NavCrowdSettings settings(const cs_nav_crowd_settings& c) {
  require(c.reserved == 0, "cs_nav_crowd_settings.reserved must be 0");
  require(c.avoidance <= 1, "cs_nav_crowd_settings.avoidance must be 0 or 1");
  require(c.layer_mask != 0, "layer_mask is 0, which sees nothing (CS_ALL_LAYERS sees every layer)");
  require(c.threads >= 0 && c.threads <= CS_MAX_THREADS,
          "threads must be 0 (every core) to " + std::to_string(CS_MAX_THREADS) + ", got " + std::to_string(c.threads));
  NavCrowdSettings s;
  s.move = records::settings(c.move);
  s.batch.layers = c.layer_mask;
  s.batch.threads = c.threads;
  s.arrive_distance = c.arrive_distance;
  s.return_reach = c.return_reach;
  s.avoidance = c.avoidance != 0;
  s.neighbour_distance = c.neighbour_distance;
  s.max_neighbours = c.max_neighbours;
  s.replan_seconds = c.replan_seconds;
  s.max_path_polygons = c.max_path_polygons;
  return s;
}

cs_nav_agent record(const NavAgent& a) {
  cs_nav_agent r{};
  r.capsule = records::record(a.capsule);
  r.speed = a.speed;
  r.id = a.id;
  r.layers = a.layers;
  r.status = std::uint8_t(a.status);
  r.returning = a.returning ? 1 : 0;
  records::put(r.goal, a.goal);
  records::put(r.velocity, a.velocity);
  r.vertical_speed = a.vertical_speed;
  r.ground_triangle = a.ground_triangle;
  r.replans = a.replans;
  return r;
}

bool finite(const Vec3& v) { return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z); }

Vec3 point(const float* p, const char* name) {
  require(p != nullptr, std::string(name) + " is NULL");
  const Vec3 v = records::vec(p);
  require(finite(v), std::string(name) + " is not finite");
  return v;
}

// Copies the first `capacity` of `points` as xyz, and says how many there were.
void put_points(const std::vector<Vec3>& points, float* out, std::size_t capacity, std::size_t* count) {
  require(capacity == 0 || out != nullptr, "corners is NULL with a capacity of " + std::to_string(capacity));
  const std::size_t n = std::min(capacity, points.size());
  for (std::size_t k = 0; k < n; ++k) records::put(out + 3 * k, points[k]);
  if (count) *count = points.size();
}

void check_range(const cs_nav_crowd* crowd, std::size_t first, std::size_t count, std::size_t size, const void* out) {
  require(crowd != nullptr, "crowd is NULL");
  require(count == 0 || out != nullptr, "the answers are NULL");
  require(first <= size && count <= size - first, "agents [" + std::to_string(first) + ", " +
                                                      std::to_string(first) + " + " + std::to_string(count) +
                                                      ") are past the crowd's " + std::to_string(size));
}

}  // namespace

extern "C" {

int cs_navmesh_settings_for(const cs_move_settings* move, const cs_capsule* body, uint32_t layers,
                            cs_navmesh_settings* out) {
  return guarded("cs_navmesh_settings_for", [&] {
    require(body != nullptr, "body is NULL");
    require(out != nullptr, "out is NULL");
    require(layers != 0, "layers is 0, which sees nothing (CS_ALL_LAYERS sees every layer)");
    const Capsule c = records::capsule(*body);
    require(finite(c.a) && finite(c.b) && std::isfinite(c.radius) && c.radius > 0,
            "body: its endpoints must be finite and its radius > 0");
    const MoveSettings m = move ? records::settings(*move) : MoveSettings{};
    if (const std::string problem = check_settings(m); !problem.empty()) throw std::invalid_argument("move: " + problem);
    *out = record(navmesh_settings(m, c, layers));
  });
}

int cs_navmesh_build(const cs_world* world, const cs_navmesh_settings* settings_in, int32_t threads, cs_navmesh** out) {
  return nav_guarded("cs_navmesh_build", [&] {
    require(out != nullptr, "out is NULL");
    *out = nullptr;
    require(world != nullptr, "world is NULL");
    require(settings_in != nullptr, "settings is NULL");
    require(threads >= 0 && threads <= CS_MAX_THREADS,
            "threads must be 0 (every core) to " + std::to_string(CS_MAX_THREADS) + ", got " + std::to_string(threads));
    const NavMeshSettings s = settings(*settings_in);
    if (const std::string problem = check_navmesh_settings(s); !problem.empty()) throw std::invalid_argument(problem);
    *out = new cs_navmesh{NavMesh::build(world->world, s, threads)};
  });
}

int cs_navmesh_read(const char* path, cs_navmesh** out) {
  return nav_guarded("cs_navmesh_read", [&] {
    require(out != nullptr, "out is NULL");
    *out = nullptr;
    require(path != nullptr, "path is NULL");
    *out = new cs_navmesh{NavMesh::read(path)};
  });
}

int cs_navmesh_write(const cs_navmesh* navmesh, const char* path) {
  return nav_guarded("cs_navmesh_write", [&] {
    require(navmesh != nullptr, "navmesh is NULL");
    require(path != nullptr, "path is NULL");
    try {
      navmesh->navmesh.write(path);
    } catch (const std::invalid_argument&) {
      throw;
    } catch (const std::runtime_error& e) {
      throw NavMeshError(e.what());  // a file that cannot be written: CS_ERROR_FILE, named by write
    }
  });
}

void cs_navmesh_free(cs_navmesh* navmesh) { delete navmesh; }

int cs_navmesh_settings_of(const cs_navmesh* navmesh, cs_navmesh_settings* out) {
  return guarded("cs_navmesh_settings_of", [&] {
    require(navmesh != nullptr, "navmesh is NULL");
    require(out != nullptr, "out is NULL");
    *out = record(navmesh->navmesh.settings());
  });
}

int cs_navmesh_stats_of(const cs_navmesh* navmesh, cs_navmesh_stats* out) {
  return guarded("cs_navmesh_stats_of", [&] {
    require(navmesh != nullptr, "navmesh is NULL");
    require(out != nullptr, "out is NULL");
    const NavMeshStats s = navmesh->navmesh.stats();
    *out = {s.tiles, s.polygons, s.vertices, {}, {}};
    records::put(out->bounds_min, s.bounds.min);
    records::put(out->bounds_max, s.bounds.max);
  });
}

int cs_navmesh_nearest(const cs_navmesh* navmesh, const float point_in[3], const float reach_in[3], float out[3],
                       int* found) {
  return guarded("cs_navmesh_nearest", [&] {
    require(navmesh != nullptr, "navmesh is NULL");
    require(out != nullptr && found != nullptr, "out or found is NULL");
    const Vec3 p = point(point_in, "point"), reach = point(reach_in, "reach");
    require(reach.x >= 0 && reach.y >= 0 && reach.z >= 0 && reach.x <= kMaxNavReach && reach.y <= kMaxNavReach &&
                reach.z <= kMaxNavReach,
            "reach: each half extent must be 0 to 1000 m");
    Vec3 near;
    *found = navmesh->navmesh.nearest(p, reach, near) ? 1 : 0;
    if (*found) records::put(out, near);
  });
}

int cs_navmesh_path(const cs_navmesh* navmesh, const float from[3], const float to[3], float* corners,
                    size_t capacity, size_t* count, int* complete, float* length) {
  return guarded("cs_navmesh_path", [&] {
    require(navmesh != nullptr, "navmesh is NULL");
    require(count != nullptr, "count is NULL");
    const NavPath p = navmesh->navmesh.path(point(from, "from"), point(to, "to"));
    put_points(p.corners, corners, capacity, count);
    if (complete) *complete = p.complete ? 1 : 0;
    if (length) *length = p.length;
  });
}

int cs_navmesh_random_reachable(const cs_navmesh* navmesh, const float from[3], uint64_t seed, float out[3],
                                int* found) {
  return guarded("cs_navmesh_random_reachable", [&] {
    require(navmesh != nullptr, "navmesh is NULL");
    require(out != nullptr && found != nullptr, "out or found is NULL");
    Vec3 p;
    *found = navmesh->navmesh.random_reachable(point(from, "from"), seed, p) ? 1 : 0;
    if (*found) records::put(out, p);
  });
}

void cs_nav_crowd_settings_default(cs_nav_crowd_settings* out) {
  if (!out) return;
  const NavCrowdSettings s;
  *out = {records::record(s.move), s.batch.layers, s.batch.threads, s.arrive_distance, s.return_reach,
          s.avoidance ? 1u : 0u, s.neighbour_distance, s.max_neighbours, s.replan_seconds, s.max_path_polygons, 0};
}

int cs_nav_crowd_create(const cs_world* world, const cs_navmesh* navmesh, const cs_nav_crowd_settings* settings_in,
                        cs_nav_crowd** out) {
  return guarded("cs_nav_crowd_create", [&] {
    require(out != nullptr, "out is NULL");
    *out = nullptr;
    require(world != nullptr, "world is NULL");
    require(navmesh != nullptr, "navmesh is NULL");
    cs_nav_crowd_settings c;
    cs_nav_crowd_settings_default(&c);
    if (settings_in) c = *settings_in;
    *out = new cs_nav_crowd{NavCrowd(world->world, navmesh->navmesh, settings(c))};
  });
}

void cs_nav_crowd_free(cs_nav_crowd* crowd) { delete crowd; }

int cs_nav_crowd_add(cs_nav_crowd* crowd, const cs_capsule* body, float speed, uint32_t id, uint32_t layers,
                     size_t* index) {
  return guarded("cs_nav_crowd_add", [&] {
    require(crowd != nullptr, "crowd is NULL");
    require(body != nullptr, "body is NULL");
    const Capsule c = records::capsule(*body);
    // What World::move would refuse tick after tick is refused once, here, by name.
    require(finite(c.a) && finite(c.b) && std::isfinite(c.radius) && c.radius > 0,
            "body: its endpoints must be finite and its radius > 0");
    require(layers != 0, "layers is 0, which sees nothing (CS_ALL_LAYERS sees every layer)");
    const std::size_t i = crowd->crowd.add(c, speed, id, layers);
    if (index) *index = i;
  });
}

int cs_nav_crowd_set_goal(cs_nav_crowd* crowd, size_t index, const float goal[3]) {
  return guarded("cs_nav_crowd_set_goal", [&] {
    require(crowd != nullptr, "crowd is NULL");
    const std::size_t n = crowd->crowd.agents().size();
    require(index < n, "agent " + std::to_string(index) + " of " + std::to_string(n));
    crowd->crowd.set_goal(index, point(goal, "goal"));
  });
}

int cs_nav_crowd_tick(cs_nav_crowd* crowd) {
  return guarded("cs_nav_crowd_tick", [&] {
    require(crowd != nullptr, "crowd is NULL");
    crowd->crowd.tick();
  });
}

size_t cs_nav_crowd_agent_count(const cs_nav_crowd* crowd) { return crowd ? crowd->crowd.agents().size() : 0; }

int cs_nav_crowd_agents(const cs_nav_crowd* crowd, size_t first, size_t count, cs_nav_agent* agents) {
  return guarded("cs_nav_crowd_agents", [&] {
    check_range(crowd, first, count, crowd ? crowd->crowd.agents().size() : 0, agents);
    for (std::size_t k = 0; k < count; ++k) agents[k] = record(crowd->crowd.agents()[first + k]);
  });
}

int cs_nav_crowd_results(const cs_nav_crowd* crowd, size_t first, size_t count, cs_move_result* results) {
  return guarded("cs_nav_crowd_results", [&] {
    require(crowd != nullptr, "crowd is NULL");
    // Results exist for the agents of the last tick (adding an agent clears them).
    require(crowd->crowd.results().size() == crowd->crowd.agents().size(),
            "no results: no tick since the last agent was added");
    check_range(crowd, first, count, crowd->crowd.results().size(), results);
    for (std::size_t k = 0; k < count; ++k) results[k] = records::record(crowd->crowd.results()[first + k], Status::ok);
  });
}

int cs_nav_crowd_corners(const cs_nav_crowd* crowd, size_t index, float* corners, size_t capacity, size_t* count) {
  return guarded("cs_nav_crowd_corners", [&] {
    require(crowd != nullptr, "crowd is NULL");
    require(count != nullptr, "count is NULL");
    const std::size_t n = crowd->crowd.agents().size();
    require(index < n, "agent " + std::to_string(index) + " of " + std::to_string(n));
    require(capacity <= 4096, "capacity: at most 4096 corners, got " + std::to_string(capacity));
    put_points(crowd->crowd.corners(index, int(capacity)), corners, capacity, count);
  });
}

int cs_nav_crowd_times(const cs_nav_crowd* crowd, double* planning, double* moving) {
  return guarded("cs_nav_crowd_times", [&] {
    require(crowd != nullptr, "crowd is NULL");
    if (planning) *planning = crowd->crowd.times().planning;
    if (moving) *moving = crowd->crowd.times().moving;
  });
}

}  // extern "C"
