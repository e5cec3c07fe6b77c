/* libcapsweep_c_io: capsweep's C API with worlds built from files (mesh files and heightmaps).
 *
 * libcapsweep_c_io.so is libcapsweep_c.so (every call of <capsweep/capsweep_c.h>, which this
 * header includes) plus cs_world_import, and so also needs what reads those files: Assimp, zlib
 * and libpng. A program links one of the two libraries: libcapsweep_c when its triangles are in
 * memory or in CWSW snapshots (it needs only oneTBB), libcapsweep_c_io when it reads scene files.
 * CMake: capsweep::c or capsweep::c_io.
 *
 * Navigation (cs_navmesh, cs_nav_crowd: <capsweep/navigation.h>) is here too, not in
 * libcapsweep_c.so: Recast and Detour come from Debian as shared libraries only, and the engine
 * library needs nothing but oneTBB (docs/DECISIONS.md). */
#ifndef CAPSWEEP_CAPSWEEP_C_IO_H
#define CAPSWEEP_CAPSWEEP_C_IO_H

#include <capsweep/capsweep_c.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A world built from a mesh file (options->kind CS_FILE_SCENE: anything Assimp reads, FILE.gz)
 * or a heightmap (CS_FILE_HEIGHTMAP), with the options of cs_load_options (NULL: the defaults).
 * A file that cannot be read or holds no usable mesh or heightmap is CS_ERROR_FILE, naming it,
 * and so is a CWSW snapshot: cs_world_load reads those. libcapsweep_c_io only. */
CS_API int cs_world_import(const char* path, const cs_load_options* options, cs_world** out);

/* ---- Navigation: navmeshes and crowds that walk them (<capsweep/navigation.h>) ----
 * libcapsweep_c_io only. A cs_navmesh is read-only once made (any number of threads may query
 * it); a cs_nav_crowd is one crowd's state: one thread at a time calls it (its tick uses the
 * settings' threads inside). Points are float[3] (x, y, z), metres, Y up. */

typedef struct cs_navmesh cs_navmesh;
typedef struct cs_nav_crowd cs_nav_crowd;

/* Recast's build parameters, metres and degrees (capsweep::NavMeshSettings says each one's
 * meaning and default). Fill them with cs_navmesh_settings_for, which derives them from the
 * movement settings and the body. 56 bytes. */
typedef struct cs_navmesh_settings {
  float agent_radius, agent_height, climb, max_slope_degrees;
  float cell_size, cell_height;
  int32_t tile_cells;
  uint32_t layers; /* only triangles on these layers are walked on or block, != 0 */
  float max_edge_length, max_edge_error, min_region_area, merge_region_area;
  float detail_sample_distance, detail_max_error;
} cs_navmesh_settings;

/* The navmesh that walks what the solver walks (capsweep::navmesh_settings): for agents whose
 * body is `body` (upright), moved with `move` (NULL: the defaults), colliding with `layers`. */
CS_API int cs_navmesh_settings_for(const cs_move_settings* move, const cs_capsule* body, uint32_t layers,
                                   cs_navmesh_settings* out);

/* Every call that makes a navmesh or a crowd sets *out to a new handle on CS_OK and to NULL on
 * failure; the caller frees it once (cs_navmesh_free, cs_nav_crowd_free; NULL is allowed). */

/* The navmesh of a world's triangles on settings->layers, built on `threads` workers (0: every
 * core; the same bytes for any count). Settings capsweep refuses are CS_ERROR_ARGUMENT naming
 * the first field out of range. */
CS_API int cs_navmesh_build(const cs_world* world, const cs_navmesh_settings* settings, int32_t threads,
                            cs_navmesh** out);
/* A CWNM file (docs/FORMATS.md). One it cannot use is CS_ERROR_FILE naming the file, the
 * record and the reason. */
CS_API int cs_navmesh_read(const char* path, cs_navmesh** out);
/* Writes a CWNM file atomically; one that cannot be written is CS_ERROR_FILE naming it. */
CS_API int cs_navmesh_write(const cs_navmesh* navmesh, const char* path);
CS_API void cs_navmesh_free(cs_navmesh* navmesh);
/* The settings it was built with. */
CS_API int cs_navmesh_settings_of(const cs_navmesh* navmesh, cs_navmesh_settings* out);

/* 48 bytes. */
typedef struct cs_navmesh_stats {
  uint64_t tiles; /* tiles holding polygons */
  uint64_t polygons;
  uint64_t vertices;
  float bounds_min[3], bounds_max[3]; /* of the polygons */
} cs_navmesh_stats;

CS_API int cs_navmesh_stats_of(const cs_navmesh* navmesh, cs_navmesh_stats* out);
/* The point of the mesh nearest `point` within `reach` (half extents of a box around it, each
 * 0 to 1000 m): *found 1 and the point in out, or *found 0 (out untouched) when no polygon is that close. */
CS_API int cs_navmesh_nearest(const cs_navmesh* navmesh, const float point[3], const float reach[3], float out[3],
                              int* found);
/* The shortest path from the polygon under `from` to the one under `to`: its corners (from and
 * end included) into corners[0 .. 3 * capacity) as xyz, the number of corners in *count (which
 * may exceed capacity: call again with more room), whether it reaches `to` in *complete, its
 * length in *length (both may be NULL). No polygon under either end: *count 0. corners may be
 * NULL when capacity is 0. */
CS_API int cs_navmesh_path(const cs_navmesh* navmesh, const float from[3], const float to[3], float* corners,
                           size_t capacity, size_t* count, int* complete, float* length);
/* A random point reachable from `from`, drawn from `seed` alone: *found 0 when `from` is off the mesh. */
CS_API int cs_navmesh_random_reachable(const cs_navmesh* navmesh, const float from[3], uint64_t seed, float out[3],
                                       int* found);

/* Where an agent stands with its goal (capsweep::NavStatus). */
enum cs_nav_status {
  CS_NAV_IDLE = 0,     /* no goal given yet */
  CS_NAV_WALKING = 1,  /* following its path */
  CS_NAV_ARRIVED = 2,  /* within arrive_distance of its goal */
  CS_NAV_NO_PATH = 3,  /* its goal is unreachable from where it stands: it waits (and replans now and then) */
  CS_NAV_OFF_MESH = 4  /* no polygon within reach of its feet: see cs_nav_agent.returning */
};

/* A crowd's settings (capsweep::NavCrowdSettings); cs_nav_crowd_settings_default fills
 * capsweep's defaults. 92 bytes. */
typedef struct cs_nav_crowd_settings {
  cs_move_settings move; /* the solver's (its dt is the tick) */
  uint32_t layer_mask;   /* the layers planning and moving see (CS_ALL_LAYERS); 0 is refused */
  int32_t threads;       /* 0 = every core, at most CS_MAX_THREADS; the same bytes for any count */
  float arrive_distance; /* horizontal distance to the goal that counts as there, m */
  float return_reach;    /* how far an off-mesh agent looks for the mesh, m (0 to 1000) */
  uint32_t avoidance;    /* 1: steer around other agents (Detour's obstacle avoidance), 0: not */
  float neighbour_distance; /* agents this close are avoided, m */
  int32_t max_neighbours;   /* 1-32 */
  float replan_seconds;     /* no progress for this long: plan again */
  int32_t max_path_polygons; /* 2-4096 */
  uint32_t reserved;         /* 0 */
} cs_nav_crowd_settings;

CS_API void cs_nav_crowd_settings_default(cs_nav_crowd_settings* settings);

/* An agent of a crowd as it is now (capsweep::NavAgent). 80 bytes. */
typedef struct cs_nav_agent {
  cs_capsule capsule;   /* its body */
  float speed;          /* walking speed, m/s */
  uint32_t id;
  uint32_t layers;
  uint8_t status;       /* enum cs_nav_status */
  uint8_t returning;    /* CS_NAV_OFF_MESH only: 1 while it walks to the nearest polygon, 0 while it stays */
  uint8_t reserved[2];
  float goal[3];
  float velocity[3];    /* what it asked the solver for last tick, m/s */
  float vertical_speed;
  uint32_t ground_triangle;
  uint32_t replans;     /* paths planned since its goal was given */
} cs_nav_agent;

/* A crowd on `world` walking `navmesh` (both handles stay the caller's: the crowd keeps what it
 * needs). Settings NULL: the defaults; settings out of range are CS_ERROR_ARGUMENT. */
CS_API int cs_nav_crowd_create(const cs_world* world, const cs_navmesh* navmesh, const cs_nav_crowd_settings* settings,
                               cs_nav_crowd** out);
CS_API void cs_nav_crowd_free(cs_nav_crowd* crowd);
/* Adds an agent standing where `body` is (idle until given a goal); its index in *index (may be
 * NULL). A body not finite, with a radius <= 0 or wider than the navmesh's agent radius, a speed
 * <= 0 or a layer mask of 0 is CS_ERROR_ARGUMENT. */
CS_API int cs_nav_crowd_add(cs_nav_crowd* crowd, const cs_capsule* body, float speed, uint32_t id, uint32_t layers,
                            size_t* index);
/* A new goal for agent `index` (planned at the next tick). An index past the agents or a goal
 * not finite is CS_ERROR_ARGUMENT. */
CS_API int cs_nav_crowd_set_goal(cs_nav_crowd* crowd, size_t index, const float goal[3]);
/* One tick: plans and steers every agent, then moves them all with one cs_move. */
CS_API int cs_nav_crowd_tick(cs_nav_crowd* crowd);
/* The number of agents (0 for NULL). */
CS_API size_t cs_nav_crowd_agent_count(const cs_nav_crowd* crowd);
/* The agents [first, first + count) into agents[0 .. count); past the end is CS_ERROR_ARGUMENT. */
CS_API int cs_nav_crowd_agents(const cs_nav_crowd* crowd, size_t first, size_t count, cs_nav_agent* agents);
/* The last tick's results of agents [first, first + count) (as cs_move's; status is
 * CS_STATUS_OK); before the first tick, or past the end, CS_ERROR_ARGUMENT. */
CS_API int cs_nav_crowd_results(const cs_nav_crowd* crowd, size_t first, size_t count, cs_move_result* results);
/* Agent `index`'s next path corners (at most `capacity`, xyz) into corners; their number in *count. */
CS_API int cs_nav_crowd_corners(const cs_nav_crowd* crowd, size_t index, float* corners, size_t capacity,
                                size_t* count);
/* What the last tick cost, seconds of wall time (either may be NULL). */
CS_API int cs_nav_crowd_times(const cs_nav_crowd* crowd, double* planning, double* moving);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* CAPSWEEP_CAPSWEEP_C_IO_H */
