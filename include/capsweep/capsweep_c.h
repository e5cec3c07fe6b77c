/* capsweep's C API: the bridge for game engines and other languages (C#, Rust, Godot, Unreal).
 *
 * Every call declared here lives in libcapsweep_c.so, which needs only oneTBB (and the C and C++
 * run-time libraries): worlds from triangles in memory and from CWSW snapshots, and the batches.
 * Worlds built from mesh files and heightmaps come from cs_world_import, in libcapsweep_c_io.so
 * (<capsweep/capsweep_c_io.h>), which holds these calls too: a program links one of the two.
 *
 * An opaque world handle, plain structs with pinned sizes, and batch calls that return 0 or an
 * error code; cs_last_error() gives the message of this thread's last call if it failed. No C++
 * exception ever crosses this boundary. Compiles as C99 and as C++.
 *
 * Who owns what: every pointer a call takes (paths, arrays, structs, answers) stays the
 * caller's and is used only while the call runs; nothing is kept. The library owns what it
 * returns: a cs_world handle (the caller frees it once, with cs_world_free), a cs_move_cache
 * handle (freed once with cs_move_cache_free), and the strings of cs_version and cs_last_error
 * (never freed by the caller; how long each lives is said there).
 *
 * The query and hit structs are exactly the CWSQ and CWSR records (docs/FORMATS.md): the body
 * of a CWSQ file is an array of cs_sweep_query, that of a CWSR version 1 file an array of
 * cs_sweep_hit (both little-endian, 16-byte header first). A version 1 file suits any world;
 * version 2 (what capsweep sweep writes for worlds with instances or tiles) follows each
 * cs_sweep_hit with the part it is on, which cs_world_instance_of and cs_world_tile_of give.
 *
 * Two calls here make a world (cs_world_create from triangles in memory, cs_world_load from a
 * snapshot; cs_world_import builds one from a mesh file or a heightmap);
 * four answer batches, each taking one arguments struct that its *_default call fills, as
 * Embree's rtcIntersect1 takes RTCIntersectArguments: a new option adds a field, not a call.
 *
 * Worlds are read-only once made: any number of threads may query one world at once. Batches
 * run on `threads` workers (0 = every core, at most CS_MAX_THREADS; a negative or larger count is
 * CS_ERROR_ARGUMENT) and give the same bytes on any thread count. */
#ifndef CAPSWEEP_CAPSWEEP_C_H
#define CAPSWEEP_CAPSWEEP_C_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define CS_API __attribute__((visibility("default")))
#else
#define CS_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* What every call returns. */
enum cs_result {
  CS_OK = 0,
  CS_ERROR_ARGUMENT = 1, /* a null pointer, a bad count, index, option or setting */
  CS_ERROR_FILE = 2,     /* a file that cannot be read, or holds no usable mesh or snapshot */
  CS_ERROR_MESH = 3,     /* triangles refused when building a world (non-finite, out of range) */
  CS_ERROR_MEMORY = 4,   /* out of memory */
  CS_ERROR_INTERNAL = 5  /* anything else: a bug, please report it with cs_last_error() */
};

/* Why one query of a batch was refused (cs_sweep_args.status, the status fields below). */
enum cs_status {
  CS_STATUS_OK = 0,
  CS_STATUS_NON_FINITE_CAPSULE = 1, /* NaN or Inf in a capsule endpoint or radius */
  CS_STATUS_BAD_RADIUS = 2,         /* radius < 0, or 0 for an agent, an overlap or a contact */
  CS_STATUS_NON_FINITE_MOTION = 3,  /* NaN or Inf in the motion (or dt, vertical speed) */
  CS_STATUS_NON_FINITE_TRIANGLE = 4,
  CS_STATUS_OUT_OF_RANGE = 5,       /* a coordinate, radius or motion component beyond 1e6 m */
  CS_STATUS_BAD_LAYERS = 6          /* a record's layer mask that is 0 or shares no layer with the batch's */
};

/* Which code answers a sweep batch (cs_sweep_args.path): the BVH with the wide kernel (default),
 * the same BVH with the exact scalar kernel, or every triangle (verification). All give answers
 * the oracle accepts. */
enum cs_path { CS_PATH_SIMD = 0, CS_PATH_SCALAR = 1, CS_PATH_BRUTE = 2 };

/* The part of a triangle touched. */
enum cs_feature { CS_FEATURE_NONE = 0, CS_FEATURE_FACE = 1, CS_FEATURE_EDGE = 2, CS_FEATURE_VERTEX = 3 };

/* cs_sweep_hit.hit: the CWSR hit code. */
enum cs_hit_code { CS_MISS = 0, CS_HIT = 1, CS_HIT_AT_START = 2 };

#define CS_NO_TRIANGLE 0xFFFFFFFFu
#define CS_NO_AGENT 0xFFFFFFFFu
#define CS_ALL_LAYERS 0xFFFFFFFFu /* a layer mask naming every layer (0 names none: refused) */
/* The most workers a batch's `threads` may ask for (capsweep::kMaxThreads, which says why). */
#define CS_MAX_THREADS 1024

typedef struct cs_world cs_world;

/* A capsule: every point within `radius` of the segment [a, b]. Metres, Y up. 28 bytes. */
typedef struct cs_capsule {
  float a[3];
  float b[3];
  float radius;
} cs_capsule;

/* One sweep: the capsule moves from where it is by `motion`. A CWSQ record: 40 bytes. */
typedef struct cs_sweep_query {
  cs_capsule capsule;
  float motion[3];
} cs_sweep_query;

/* An axis-aligned ellipsoid: the points x with sum(((x - centre) / radii)^2) <= 1, each radius
 * > 0. 24 bytes. */
typedef struct cs_ellipsoid {
  float centre[3];
  float radii[3];
} cs_ellipsoid;

/* A body: of a sweep batch's queries (cs_sweep_args.shape) or of an agent (cs_agent.shape,
 * cs_claimed_move.shape). */
enum cs_shape { CS_SHAPE_CAPSULE = 0, CS_SHAPE_ELLIPSOID = 1 };

/* One moving axis-aligned ellipsoid: the points x with sum(((x - centre) / radii)^2) <= 1, each
 * radius > 0, moving by `motion` (<capsweep/sweep.h>). A CWSQ version 3 record: 36 bytes. */
typedef struct cs_ellipsoid_query {
  float centre[3];
  float radii[3];
  float motion[3];
} cs_ellipsoid_query;

/* Layer masks (bit k = layer k + 1) mean the same everywhere: in C, C++, Python, the files and
 * the service. Every batch has one (its arguments' layer_mask: the triangles on none of its layers
 * are not there for it), and each masked query, agent and claim has its own: it sees the layers of
 * both. CS_ALL_LAYERS names every layer; 0 names none and is refused: a batch's with
 * CS_ERROR_ARGUMENT, a record's (as one sharing no layer with its batch's) with
 * CS_STATUS_BAD_LAYERS. A zeroed record is therefore refused: set its mask. */

/* A sweep with its own layers. A CWSQ version 4 record: 44 bytes. */
typedef struct cs_masked_sweep_query {
  cs_sweep_query query;
  uint32_t layers;
} cs_masked_sweep_query;

/* An ellipsoid sweep with its own layers. A CWSQ version 6 record: 40 bytes. */
typedef struct cs_masked_ellipsoid_query {
  cs_ellipsoid_query query;
  uint32_t layers;
} cs_masked_ellipsoid_query;

/* The first contact of a sweep. A CWSR record: 40 bytes. On a miss t = 1, every other float
 * is 0 and triangle = CS_NO_TRIANGLE. */
typedef struct cs_sweep_hit {
  uint8_t hit;       /* enum cs_hit_code */
  uint8_t feature;   /* enum cs_feature */
  uint16_t reserved; /* 0 */
  float t;           /* fraction of the motion travelled at first contact; never past it */
  float normal[3];   /* unit, from the obstacle toward the capsule */
  float point[3];    /* contact point on the triangle */
  float depth;       /* hit = CS_HIT_AT_START only: push-out distance along normal */
  uint32_t triangle; /* index of the touched triangle, in the order the world was made from */
} cs_sweep_hit;

/* An agent for one tick of cs_move: a capsule or an ellipsoid (shape), where it is at the start
 * of the tick, and the ground it stood on at the end of the last (pass back the result's grounded
 * and ground_triangle: one sweep against that triangle then replaces the ground probe; a zeroed
 * struct probes). 84 bytes. */
typedef struct cs_agent {
  cs_capsule capsule;    /* a capsule agent's body */
  float displacement[3]; /* where it wants to walk this tick (horizontal part used) */
  float vertical_speed;  /* m/s, up positive: pass back the result's vertical_speed */
  uint32_t id;           /* reported in other agents' contacts; breaks ties between agents
                            (agents sharing an id: their capsules' bytes do) */
  uint32_t layers;       /* the layers of triangles it collides with (see above) */
  uint8_t shape;         /* enum cs_shape (0: a capsule, as a zeroed struct) */
  uint8_t grounded;      /* 1: ground_triangle is the last result's (its grounded); 0: probe */
  uint8_t reserved[2];   /* 0 */
  cs_ellipsoid ellipsoid; /* an ellipsoid agent's body */
  uint32_t ground_triangle; /* grounded = 1: the last result's ground_triangle; else ignored */
} cs_agent;

/* Every tunable of the movement solver; cs_move_settings_default() fills capsweep's defaults
 * (their units and reasons are in <capsweep/move.h>). 52 bytes. */
typedef struct cs_move_settings {
  float skin;
  float backoff;
  int32_t max_iterations;
  float min_distance;
  int32_t max_depenetration_iterations;
  float max_slope_degrees;
  float step_height;
  float snap_distance;
  float ground_distance;
  float gravity;
  float max_fall_speed;
  float dt;
  int32_t agents_collide; /* 0 or 1 */
} cs_move_settings;

/* A contact met during a tick: with a triangle (agent = CS_NO_AGENT) or an agent
 * (triangle = CS_NO_TRIANGLE). 32 bytes. */
typedef struct cs_move_contact {
  float point[3];
  float normal[3];
  uint32_t triangle;
  uint32_t agent;
} cs_move_contact;

/* cs_move_result.flags */
enum cs_move_flags {
  CS_MOVE_BLOCKED = 1,
  CS_MOVE_STEPPED_UP = 2,
  CS_MOVE_SNAPPED = 4,
  CS_MOVE_DEPENETRATED = 8,
  CS_MOVE_FALLING = 16,
  CS_MOVE_HELD_BY_AGENTS = 32,
  CS_MOVE_WEDGED = 64,
  CS_MOVE_CRUSHED = 128 /* a moving instance ran into it with nowhere to go: it stayed where it was */
};

/* Where an agent is after the tick. 224 bytes. */
typedef struct cs_move_result {
  cs_capsule capsule;   /* at the end of the tick (an ellipsoid agent: the capsule holding it) */
  float moved[3];       /* the displacement made (including pushes and falls) */
  float vertical_speed; /* to pass back in the next tick's cs_agent */
  uint8_t grounded;
  uint8_t flags;         /* enum cs_move_flags */
  uint8_t contact_count; /* contacts[0 .. contact_count) */
  uint8_t status;        /* enum cs_status: a refused agent stays put */
  float ground_normal[3];
  uint32_t ground_triangle;
  uint16_t sweeps; /* sweeps this agent cost this tick */
  uint8_t shape;   /* the agent's, enum cs_shape */
  uint8_t reserved;
  float pushed; /* total depenetration push, metres */
  cs_move_contact contacts[4];
  cs_ellipsoid ellipsoid; /* an ellipsoid agent's body at the end of the tick (else zero) */
} cs_move_result;

/* A move a client claims: the body at its last accepted position (a capsule or an ellipsoid),
 * the displacement since then, over dt seconds (0 = unknown: no speed check), and the server's
 * state there (the last verdict's next_* fields, or the last accepted cs_move_result's
 * vertical_speed, grounded and ground_triangle), and the agent's layers. 84 bytes: exactly a
 * CWSQ version 8 record (docs/FORMATS.md; its first 80 bytes are a version 7 record, its first
 * 56, with shape 0, a version 5 record, and its first 52 a version 2 record). */
typedef struct cs_claimed_move {
  cs_capsule from;      /* a capsule agent's body */
  float motion[3];
  float dt;
  float vertical_speed; /* m/s, up positive */
  uint8_t grounded;     /* 0 is not trusted blindly: the validator then probes for ground */
  uint8_t shape;        /* enum cs_shape */
  uint8_t reserved[2];  /* 0 */
  uint32_t layers;      /* the agent's layers (cs_agent's; see above) */
  cs_ellipsoid from_ellipsoid; /* an ellipsoid agent's body */
  uint32_t ground_triangle;    /* the triangle it stood on at `from`, or CS_NO_TRIANGLE: a hint,
                                  checked, never trusted */
} cs_claimed_move;

/* How a claim's path is judged (capsweep::ClaimRule; docs/VALIDATION.md). */
enum cs_claim_rule {
  CS_RULE_TICK_END = 0,        /* the claim is where a tick ended: any path the solver makes */
  CS_RULE_STRAIGHT_SEGMENT = 1 /* the claim is one straight piece travelled (a crowd trace) */
};

/* cs_validate_settings.max_speed: no horizontal speed limit, by name (infinity). */
#define CS_NO_SPEED_LIMIT HUGE_VALF

/* cs_validate_settings_default() fills the defaults (max_speed 7 m/s, CS_RULE_TICK_END).
 * 68 bytes. */
typedef struct cs_validate_settings {
  float tolerance;  /* graze allowance, metres: the path is swept with the body shrunk by it; it
                       must be below every claim's radius (else the call is CS_ERROR_ARGUMENT) */
  float max_speed;  /* m/s over the horizontal part, in (0, 1e6], or CS_NO_SPEED_LIMIT; 0 is
                       refused (CS_ERROR_ARGUMENT) */
  float jump_speed; /* m/s, fastest take-off from the ground; 0 = agents do not jump */
  cs_move_settings movement; /* bounds the vertical part (gravity, steps, ...); the correction */
  uint32_t rule;    /* enum cs_claim_rule */
} cs_validate_settings;

enum cs_verdict_kind {
  CS_VERDICT_OK = 0,
  CS_VERDICT_BLOCKED = 1,
  CS_VERDICT_START_OVERLAPS = 2,
  CS_VERDICT_TOO_FAST = 3,
  CS_VERDICT_REFUSED = 4
};

/* Why a claim is not ok (cs_verdict.reason; capsweep::Reason says which number decided each). */
enum cs_reason {
  CS_REASON_NONE = 0,
  CS_REASON_SPEED = 1,
  CS_REASON_TELEPORT = 2,
  CS_REASON_FLY = 3,
  CS_REASON_SUPER_JUMP = 4,
  CS_REASON_WALL_CLIMB = 5,
  CS_REASON_FAST_FALL = 6,
  CS_REASON_NOCLIP = 7,
  CS_REASON_UNDER_THE_MAP = 8,
  CS_REASON_START_IN_WALL = 9,
  CS_REASON_BAD_INPUT = 10
};

/* 184 bytes. */
typedef struct cs_verdict {
  uint8_t kind;     /* enum cs_verdict_kind */
  uint8_t status;   /* enum cs_status, for CS_VERDICT_REFUSED */
  uint8_t grounded; /* the move counted as starting on the ground (flag or probe) */
  uint8_t in_skin;  /* it counted as starting inside the solver's skin (see MoveAllowance) */
  float legal_fraction; /* how much of the straight path is free */
  cs_sweep_hit hit;     /* blocked: the first blocking contact; start_overlaps: the overlap */
  cs_capsule furthest;  /* the capsule at the end of the free part of the path */
  cs_capsule corrected; /* where collide-and-slide takes the capsule (ok: the claim itself) */
  /* what the move could cover, metres (infinite where unchecked): horizontal length, and the
   * vertical window [down, up]; outside it the verdict is CS_VERDICT_TOO_FAST */
  float allowed_horizontal, allowed_down, allowed_up;
  /* an ellipsoid agent's claim: the ellipsoid at the end of the free part and where
   * collide-and-slide takes it (furthest and corrected then hold the capsules holding them) */
  cs_ellipsoid furthest_ellipsoid, corrected_ellipsoid;
  uint8_t reason;        /* enum cs_reason */
  uint8_t next_grounded; /* the state to carry into the next claim (its grounded, ... ) */
  uint8_t reserved[2];   /* 0 */
  float claimed, limit;  /* a verdict not ok: the claimed number that decided it, and its limit */
  float next_vertical_speed;     /* the next claim's vertical_speed */
  uint32_t next_ground_triangle; /* the next claim's ground_triangle */
} cs_verdict;

/* A static capsule against the world. 52 bytes. */
typedef struct cs_overlap_result {
  uint8_t clear;       /* farther than the clearance from every triangle */
  uint8_t overlapping; /* closer than its radius to some triangle: the deepest one below */
  uint8_t status;      /* enum cs_status */
  uint8_t feature;     /* enum cs_feature, of the deepest overlap */
  float distance;      /* axis to triangle */
  float depth;         /* push-out distance along normal */
  float normal[3];     /* unit, from the triangle toward the capsule */
  float point[3];      /* on the triangle */
  float point_on_axis[3];
  uint32_t triangle; /* CS_NO_TRIANGLE when not overlapping */
} cs_overlap_result;

/* The library's version, "MAJOR.MINOR.PATCH" (CAPSWEEP_VERSION_STRING of <capsweep/version.h>,
 * from the build that made the library). A constant string owned by the library, valid for as
 * long as the library is loaded. */
CS_API const char* cs_version(void);

/* Why this thread's last call that returns a code failed, or "" when it returned CS_OK (each
 * such call clears the message as it starts) or none has been made. cs_version, cs_last_error,
 * cs_world_free, cs_world_triangle_count and the *_default calls leave it as it is. The string
 * is owned by the library and valid until this thread's next call that returns a code (or the
 * thread's end): copy it to keep it. Each thread has its own. */
CS_API const char* cs_last_error(void);

/* ---- Worlds ---- */

/* Terrain as a grid of heights (<capsweep/values.h>): sample (row, column) stands at
 * origin + (column * cell_x, height, row * cell_z); each cell holds two triangles, split from
 * (row, column + 1) to (row + 1, column). The world's triangles are the mesh's (if any), then two
 * per cell: mesh_count + 2 * (row * (columns - 1) + column) + half. The arrays are copied.
 * 64 bytes on 64-bit targets. */
typedef struct cs_heightfield {
  uint32_t columns, rows;  /* samples along +x and +z, each >= 2 */
  float cell_x, cell_z;    /* metres between samples, > 0 */
  float origin[3];         /* where sample (0, 0) stands at height 0 */
  float height_scale;      /* metres per step of `samples` */
  const float* heights;    /* columns * rows heights (metres above origin.y), row by row, or NULL */
  const uint16_t* samples; /* or columns * rows 16-bit samples: exactly one of the two is given */
  const uint8_t* holes;    /* (columns - 1) * (rows - 1) cells, non-zero = no ground; NULL = none */
  uint32_t layers;         /* the terrain's layer mask, != 0 */
  uint32_t reserved;       /* 0 */
} cs_heightfield;

/* A world in memory (cs_world_create): triangles, a heightfield, or both (a mesh on terrain).
 * Every array is copied. A zeroed struct names nothing. 48 bytes on 64-bit targets. */
typedef struct cs_world_desc {
  const float* vertices;         /* vertex_count xyz vertices */
  size_t vertex_count;
  const uint32_t* indices;       /* triangle_count index triples into vertices */
  size_t triangle_count;
  const uint32_t* layers;        /* a layer mask per triangle (each != 0), or NULL: all on layer 1 */
  const cs_heightfield* terrain; /* the terrain under the triangles, or NULL: none */
} cs_world_desc;

/* What a heightmap file does not carry (cs_load_options.heightmap; cs_load_options_default fills
 * 1 m cells, scale 1, origin 0, no size, no holes, layer 1). 48 bytes on 64-bit targets. */
typedef struct cs_heightmap_options {
  float cell_x, cell_z;  /* metres between samples, > 0 */
  float height_scale;    /* metres per PNG sample step; multiplies a raw file's floats */
  float origin[3];       /* where the top-left sample stands at height 0 */
  uint32_t columns, rows; /* the size of a raw float32 file (0, 0 for a PNG) */
  const char* holes;     /* a grayscale PNG with a pixel per cell (0 = ground), or NULL */
  uint32_t layers;       /* the terrain's layer mask, != 0 */
  uint32_t reserved;     /* 0 */
} cs_heightmap_options;

/* What a file holds (cs_load_options.kind). */
enum cs_file_kind {
  CS_FILE_SCENE = 0,    /* a CWSW snapshot (cs_world_load) or a mesh file: anything Assimp reads, FILE.gz */
  CS_FILE_HEIGHTMAP = 1 /* a grayscale PNG (16 or 8 bits) or raw little-endian float32 heights */
};

/* How cs_world_load and cs_world_import read a file; cs_load_options_default fills the defaults
 * (a scene as it is).
 * 72 bytes on 64-bit targets. */
typedef struct cs_load_options {
  uint32_t kind;           /* enum cs_file_kind */
  float scale;             /* a mesh file's coordinates times this (1) */
  uint32_t z_up;           /* 1: a Z-up mesh file is turned Y up (0) */
  uint32_t reserved;       /* 0 */
  const char* layer_table; /* a mesh file's layer table (lines `NAME LAYER[,LAYER...]` putting a
                              material, mesh or node's triangles on layers 1-32; others stay on
                              layer 1), or NULL */
  cs_heightmap_options heightmap; /* a heightmap's cells, scale, origin, size, holes and layers */
} cs_load_options;
/* scale, z_up and layer_table apply to mesh files only: a snapshot or a heightmap with others
 * than the defaults is refused (CS_ERROR_ARGUMENT). heightmap is read for CS_FILE_HEIGHTMAP only
 * (by cs_world_import). */

CS_API void cs_load_options_default(cs_load_options* options);

/* Every call that makes a world sets *out to a new handle on CS_OK, and to NULL on failure
 * (unless out itself is NULL). The handle is the caller's: free it once with cs_world_free. */

/* A world from memory. No triangles and no terrain is CS_ERROR_ARGUMENT; triangles the world
 * refuses (non-finite, out of range, a mask of 0) or a heightfield it refuses are CS_ERROR_MESH. */
CS_API int cs_world_create(const cs_world_desc* desc, cs_world** out);
/* A world from a CWSW snapshot (`capsweep build`; options NULL: the defaults). A file that
 * cannot be read or is no usable snapshot is CS_ERROR_FILE, naming it; so are a mesh file and
 * kind CS_FILE_HEIGHTMAP, with a message naming cs_world_import, which builds those worlds. */
CS_API int cs_world_load(const char* path, const cs_load_options* options, cs_world** out);

/* Frees a handle (NULL is allowed); the handle must not be used after. */
CS_API void cs_world_free(cs_world* world);
/* Every triangle index of the world (0 for NULL). */
CS_API size_t cs_world_triangle_count(const cs_world* world);

/* ---- Instances: parts of a world that move (<capsweep/instances.h>) ---- */

/* A rigid placement: a local point p goes to rotation * p + position, computed in double and
 * rounded once to float. rotation: a unit quaternion x, y, z, w (its squared length within 1e-5
 * of 1; normalised). 56 bytes. */
typedef struct cs_pose {
  double position[3];
  double rotation[4];
} cs_pose;

/* One placed copy of a prototype (cs_world_create_instanced). 72 bytes. */
typedef struct cs_instance {
  uint32_t id;        /* the caller's name for it, unique in the world */
  uint32_t prototype; /* an index into the prototypes */
  cs_pose pose;
  uint32_t layers;    /* every triangle of the instance is on these, != 0 */
  uint32_t reserved;  /* 0 */
} cs_instance;

/* A new pose for the instance `id` (cs_world_posed). 64 bytes. */
typedef struct cs_instance_pose {
  uint32_t id;
  uint32_t reserved; /* 0 */
  cs_pose pose;
} cs_instance_pose;

/* A world of a static part (a world without instances) and instances of prototypes (each a world
 * of a mesh alone, kept once however often it is placed). Its triangles are the static part's,
 * then each instance's in the order given; it answers every request as the world with the
 * instances' triangles baked in. The handles passed stay the caller's (free them when it
 * likes: the new world keeps what it needs). An instance refused (an id twice, no such
 * prototype, a bad pose, a mask of 0, placed beyond 1e6 m) is CS_ERROR_MESH naming it. */
CS_API int cs_world_create_instanced(const cs_world* static_part, const cs_world* const* prototypes,
                                     size_t prototype_count, const cs_instance* instances, size_t instance_count,
                                     cs_world** out);
/* The next frame: a new world with the instances named in `poses` moved and the others where they
 * were. `world` does not change, so batches running on it keep answering against it. A pose
 * refused (an unknown id, an id twice, a bad pose) is CS_ERROR_ARGUMENT naming its row; *out is
 * then NULL and nothing is applied. */
CS_API int cs_world_posed(const cs_world* world, const cs_instance_pose* poses, size_t count, cs_world** out);
/* Whether triangle `triangle` is an instance's (1, its id in *id) or the static part's (0). */
CS_API int cs_world_instance_of(const cs_world* world, uint32_t triangle, uint32_t* id);

/* ---- Tiles: static pieces of an open world, streamed in and out (<capsweep/tiles.h>) ---- */

/* A tile: a world of a mesh alone whose coordinates are relative to `origin` (double), placed
 * there without rotation. Build the mesh (cs_world_create) on any thread while batches run: it
 * is the costly part; cs_world_streamed only publishes it. 40 bytes. */
typedef struct cs_tile {
  uint32_t id;           /* the caller's name for it, unique among the world's tiles */
  uint32_t layers;       /* every triangle of the tile is on these, != 0 */
  double origin[3];
  const cs_world* mesh;  /* stays the caller's: the frame keeps what it needs */
} cs_tile;

/* The next frame with the tiles named in `removed` gone, then `added` in (an id both removed
 * and added is replaced). Tiles' triangles follow the instances', tile after tile by id. `world`
 * does not change; a tile's memory goes with the last frame that holds it. A refused row (an id
 * the world has no tile of, or named twice; an added id in use, or twice; a mesh that is not a
 * mesh alone; a mask of 0; an origin not finite or placing it beyond 1e6 m) is
 * CS_ERROR_ARGUMENT naming the tile and row; *out is then NULL and nothing is applied. */
CS_API int cs_world_streamed(const cs_world* world, const cs_tile* added, size_t added_count, const uint32_t* removed,
                             size_t removed_count, cs_world** out);
/* Whether triangle `triangle` is a tile's (1, its id in *id) or not (0). */
CS_API int cs_world_tile_of(const cs_world* world, uint32_t triangle, uint32_t* id);

/* ---- Batches ----
 * Each reads `count` records and writes `count` answers (NULL only when count is 0), sees the
 * layers of its layer_mask, and runs on `threads` workers. Its *_default call fills its
 * arguments with the defaults: no records, every layer (CS_ALL_LAYERS), every core. */

/* Sweeps: queries[i] into hits[i]. With shape CS_SHAPE_CAPSULE the queries are cs_sweep_query
 * records (radius 0: a ray (a == b) or a moving segment, answered as <capsweep/sweep.h> says),
 * or cs_masked_sweep_query with masked = 1; with CS_SHAPE_ELLIPSOID they are cs_ellipsoid_query,
 * or cs_masked_ellipsoid_query with masked = 1. A refused query (NaN, a bad radius, out of range,
 * a mask seeing nothing) gets a miss and its reason in status; the call still returns CS_OK.
 * 56 bytes on 64-bit targets. */
typedef struct cs_sweep_args {
  const void* queries;
  size_t count;
  cs_sweep_hit* hits;
  uint8_t* status;     /* count enum cs_status bytes, or NULL */
  uint32_t shape;      /* enum cs_shape (capsules) */
  uint32_t masked;     /* 1: each query record carries its own layer mask (0) */
  uint32_t path;       /* enum cs_path (CS_PATH_SIMD) */
  uint32_t layer_mask; /* the layers this batch sees (CS_ALL_LAYERS); 0 is refused */
  int32_t threads;     /* 0 = every core, at most CS_MAX_THREADS (0) */
  uint32_t reserved;   /* 0 */
} cs_sweep_args;

CS_API void cs_sweep_args_default(cs_sweep_args* args);
CS_API int cs_sweep(const cs_world* world, const cs_sweep_args* args);

CS_API void cs_move_settings_default(cs_move_settings* settings);
CS_API void cs_validate_settings_default(cs_validate_settings* settings);

/* One tick for a batch of agents: agents[i] into results[i]. Refused agents stay put, with their
 * status in the result. 40 bytes on 64-bit targets. */
typedef struct cs_move_args {
  const cs_agent* agents;
  size_t count;
  cs_move_result* results;
  const cs_move_settings* settings; /* NULL = capsweep's defaults */
  uint32_t layer_mask;
  int32_t threads;
} cs_move_args;

CS_API void cs_move_args_default(cs_move_args* args);
CS_API int cs_move(const cs_world* world, const cs_move_args* args);

/* What each agent met of the world last tick, kept for its next ticks (MoveCache in
 * <capsweep/move.h>): pass the same cache to each cs_move_kept of a crowd and every result is
 * cs_move's, bit for bit, sooner while agents stay near where they were. Agent i of a batch keeps
 * slot i (a reordered batch loses speed for a tick, never an answer). About 3 KB an agent. One
 * call at a time per cache; it keeps the last world it moved agents on alive until it moves them
 * on another or is freed. */
typedef struct cs_move_cache cs_move_cache;

/* Sets *out to a new, empty cache (NULL on failure). */
CS_API int cs_move_cache_create(cs_move_cache** out);
/* Frees a cache (NULL is allowed); it must not be used after. */
CS_API void cs_move_cache_free(cs_move_cache* cache);
/* cs_move, with each agent's neighbourhood kept in `cache` (not NULL) between calls. */
CS_API int cs_move_kept(const cs_world* world, const cs_move_args* args, cs_move_cache* cache);

/* Judges claimed moves: moves[i] into verdicts[i]. 40 bytes on 64-bit targets. */
typedef struct cs_validate_args {
  const cs_claimed_move* moves;
  size_t count;
  cs_verdict* verdicts;
  const cs_validate_settings* settings; /* NULL = capsweep's defaults */
  uint32_t layer_mask;
  int32_t threads;
} cs_validate_args;

CS_API void cs_validate_args_default(cs_validate_args* args);
CS_API int cs_validate(const cs_world* world, const cs_validate_args* args);

/* Static capsules: capsules[i] clear of the world by `clearance` (>= 0), and its deepest
 * overlap, into results[i]. 40 bytes on 64-bit targets. */
typedef struct cs_overlap_args {
  const cs_capsule* capsules;
  size_t count;
  cs_overlap_result* results;
  float clearance; /* metres (0) */
  uint32_t layer_mask;
  int32_t threads;
  uint32_t reserved; /* 0 */
} cs_overlap_args;

CS_API void cs_overlap_args_default(cs_overlap_args* args);
CS_API int cs_overlap(const cs_world* world, const cs_overlap_args* args);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* CAPSWEEP_CAPSWEEP_C_H */
