// Files (capsweep::io): scenes, heightmaps, query and result files, snapshots, world files.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include <capsweep/values.h>
#include <capsweep/tiles.h>
#include <capsweep/world.h>

// Reads a triangle soup from a mesh file: anything Assimp reads (OBJ, glTF, PLY, STL, FBX, ...),
// and the same gzip-compressed (FILE.obj.gz).

namespace capsweep {

struct SceneOptions {
  float scale = 1.0f;  // multiply every coordinate (e.g. 0.0254 for inch-based levels)
  bool z_up = false;   // the file is Z up: turn it to Y up, (x, y, z) -> (x, z, -y)
  // A layer table (empty: every triangle on layer 1). Each line `NAME LAYER[,LAYER...]` puts the
  // triangles of the material, mesh or node (an OBJ group or object, a glTF mesh or node)
  // called NAME on those layers, numbered 1 to 32; a material's entry wins over its mesh's, a
  // mesh's over its nodes' (the nearest node first). `#` starts a comment. Unnamed triangles
  // stay on layer 1. A malformed line, a layer out of range, or a name the scene does not hold
  // is refused, naming the table and the line.
  std::string layers;
  // glTF 2.0 scenes (load_instanced_scene, open_world): nodes whose name starts with this are
  // dynamic, besides those marked `"extras": {"capsweep": {"dynamic": true}}`. Empty: only the
  // marked ones. Another format given a prefix is refused; load_layered_scene ignores it.
  std::string dynamic_prefix;
};

// A file that cannot be read, parsed or holds no triangles: the message names the file.
class SceneError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Triangles in the file's order: Assimp's node hierarchy depth first, each node's meshes in
// order, each mesh's faces in order (for a plain OBJ, the order of its `f` lines), with node
// transforms applied. Polygons are fan-triangulated by Assimp; points and lines are ignored.
std::vector<Triangle> load_scene(const std::string& path, const SceneOptions& options = {});

// A list of layers, "1,3", as a mask (bit k = layer k + 1). Throws std::invalid_argument naming
// an item that is not a number from 1 to 32: the layer tables' lists and the commands' --mask.
std::uint32_t parse_layer_list(const std::string& list);

// The same with each triangle's layer mask, from options.layers.
struct LayeredScene {
  std::vector<Triangle> triangles;
  std::vector<std::uint32_t> layers;  // one mask per triangle (kDefaultLayers where unnamed)
};
LayeredScene load_layered_scene(const std::string& path, const SceneOptions& options = {});

// A scene whose dynamic glTF nodes are instances of their meshes (docs/INSTANCES.md): a dynamic
// node's meshes, and its children's (which move with it), in the node's own frame are a
// prototype, shared by the nodes that hold the same triangles; the instance's id is the node's
// index in the file's `nodes`, its pose the node's transform in the scene (rigid, else refused),
// turned and scaled as the options say (prototypes are scaled too), and its layers its triangles'
// (one mask). Instances in the order the walk meets them. Every other node is baked into the
// static part exactly as load_layered_scene bakes it; a scene with no dynamic node gives exactly
// load_layered_scene's triangles and layers. Refused, naming the file and the node: a dynamic node
// holding no triangle, moved by more than a rotation and a translation, on mixed layers, or
// inside another dynamic node; a static part with no triangle; a prefix on another format.
struct InstancedScene {
  LayeredScene static_part;
  std::vector<std::vector<Triangle>> prototypes;
  std::vector<Instance> instances;
};
InstancedScene load_instanced_scene(const std::string& path, const SceneOptions& options = {});

// `static_part` (the static triangles' world, or a heightfield's with them) with the scene's
// instances placed on it; itself when there are none. Throws SceneError naming `path`.
World place_instances(World static_part, InstancedScene scene, const std::string& path);

// What load_scene does to the triangles it read: refuses an empty soup and applies the options.
// For soups made in code that should be treated like a file (`path` names it in errors).
std::vector<Triangle> transform_scene(std::vector<Triangle> triangles, const std::string& path,
                                      const SceneOptions& options = {});

}  // namespace capsweep

// Heightfields from image and raw files (capsweep::io): a grayscale PNG (16-bit, or 8-bit) or a
// raw little-endian float32 grid, with the cell size, height scale and origin the file does not
// carry, and optionally a PNG marking the holes.

namespace capsweep {

struct HeightmapOptions {
  float cell_x = 1.f;        // metres between samples along x (image columns), > 0
  float cell_z = 1.f;        // and along z (image rows, top to bottom)
  float height_scale = 1.f;  // metres per sample step of a PNG; multiplies a raw file's floats
  Vec3 origin;               // where the top-left sample stands at height 0
  // A raw float32 file carries no size: give it (a PNG's own must match if given).
  std::uint32_t columns = 0, rows = 0;
  // A grayscale PNG of (columns - 1) x (rows - 1) pixels, one per cell: 0 = ground, anything
  // else = a hole. Empty: no holes.
  std::string holes;
  std::uint32_t layers = kDefaultLayers;  // the terrain's layer mask
};

// A file that cannot be read as a heightmap, or whose numbers check_heightfield refuses: names
// the file and what is wrong ("terrain.png: a heightmap is a grayscale PNG, this one is RGB").
class HeightmapError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// PNG files (by their signature) give 16-bit samples (8-bit ones are widened: a sample is the
// pixel value), anything else is read as raw float32. Throws HeightmapError.
Heightfield load_heightmap(const std::string& path, const HeightmapOptions& options = {});

// "PATH (cell X x Z m, height scale S, origin (x, y, z), holes FILE, layers MASK)": how a
// heightfield was made, for snapshots and the service's Info.
std::string describe_heightmap(const std::string& path, const HeightmapOptions& options);

}  // namespace capsweep

// Reading and writing the CWSQ (queries, versions 1 to 8) and CWSR (results, versions 1 and 2) files;
// docs/FORMATS.md says what their bytes are.
// Little-endian, fixed-size records, so that recorded moves and benchmarks are reproducible
// with any tool.

namespace capsweep {

// Refused file: the message names the file and, for a bad record, the record's index.
class FormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Reads and validates every query (finite, radius >= 0, within range, a mask that is not 0) of
// a file of capsule sweeps (versions 1, 2, 4, 5, and 7 or 8 when every move is a capsule agent's; a
// claimed move's state is checked, then left out; its mask is kept).
std::vector<SweepQuery> read_queries(const std::string& path);

// Reads and validates every claimed move: a version 2, 5, 7 or 8 file's records as they are
// (before version 8 with no ground triangle, kNoTriangle); a version 1 or 4 file's queries as
// moves over `dt_if_absent` seconds from an unknown state (vertical speed 0, not known to be
// grounded).
std::vector<ClaimedMove> read_claimed_moves(const std::string& path, float dt_if_absent = 0.f);

// Reads and validates every ellipsoid sweep of a version 3 or 6 file (finite, each radius > 0,
// within range, a mask that is not 0), or of a version 7 or 8 file whose moves are all ellipsoid
// agents' (their paths); a file of another version is refused, saying what it holds.
std::vector<SweepEllipsoidQuery> read_ellipsoid_queries(const std::string& path);
// Writes version 3, or version 6 when some query sees fewer than every layer.
void write_ellipsoid_queries(const std::string& path, const std::vector<SweepEllipsoidQuery>& queries,
                             std::span<const std::string> inputs = {});

// The version in a CWSQ file's header, from its first 8 bytes alone; 0 when the file cannot be
// read or is not CWSQ (read_queries then says why).
std::uint32_t query_file_version(const std::string& path);

// Every writer here is atomic: the file appears whole or not at all, a failed write leaves the
// file that was there untouched, and nothing else behind. A target that exists and is not a
// regular file (directory, symlink, FIFO, device) is refused, and so is one that is the same
// file as any of `inputs` (pass the files the output was made from). Throws FormatError.
// Writes version 1, or version 4 when some query sees fewer than every layer.
void write_queries(const std::string& path, const std::vector<SweepQuery>& queries,
                   std::span<const std::string> inputs = {});

enum class QueryRecords {
  sweeps,                // version 1: SweepQuery records
  claimed_moves,         // version 2: ClaimedMove records
  masked_sweeps,         // version 4: SweepQuery records with their masks
  masked_claimed_moves,  // version 5: ClaimedMove records with their masks
  shaped_claimed_moves,  // version 7: ClaimedMove records of capsule or ellipsoid agents
  grounded_claimed_moves,  // version 8: version 7 records with the ground triangle
};

// Writes a CWSQ file record by record (traces too large to hold in memory). The header's count
// is written by finish(), and only then does the file appear; a writer destroyed unfinished
// leaves nothing behind.
class QueryWriter {
 public:
  // Throws FormatError if it cannot create it (or refuses the target, as write_queries does).
  explicit QueryWriter(const std::string& path, std::span<const std::string> inputs = {},
                       QueryRecords records = QueryRecords::sweeps);
  ~QueryWriter();
  QueryWriter(const QueryWriter&) = delete;
  QueryWriter& operator=(const QueryWriter&) = delete;
  // A sweeps file only (std::logic_error otherwise). A mask that is not kAllLayers needs a
  // masked file (std::invalid_argument: an unmasked file cannot carry it), and 0 is never written.
  void add(const SweepQuery& query);
  // A claimed-moves file only; masks as for sweeps; an ellipsoid agent's move needs version 7 or
  // 8, and a move with a ground triangle (not kNoTriangle) version 8 (std::invalid_argument
  // otherwise: a file must not drop what the claim carries).
  void add(const ClaimedMove& move);
  void finish();  // throws FormatError if the file could not be written
  std::uint64_t count() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// The CWSR hit code: 0 miss, 1 hit at t > 0, 2 hit at t = 0 (start touches or overlaps).
std::uint8_t hit_code(const SweepHit& hit);

// The part of a world a hit is on (CWSR version 2): the static part (meshes and heightfield), an
// instance or a streamed tile. Triangle indices stay global (static, then instances, then
// tiles), so the part adds the name a caller knows the moving thing by: its id.
enum class PartKind : std::uint8_t {
  none = 0,         // a miss
  static_part = 1,  // the world's static triangles
  instance = 2,     // an instance (<capsweep/instances.h>), by its id
  tile = 3,         // a streamed tile (<capsweep/tiles.h>), by its id
};
inline constexpr std::uint32_t kNoPart = 0xFFFFFFFF;  // the id of a miss and of the static part
struct HitPart {
  PartKind kind = PartKind::none;
  std::uint32_t id = kNoPart;  // Instance::id or Tile::id; kNoPart for none and static_part
};
// The part of `world` (the frame that answered it) `hit` is on: World::instance_of, World::tile_of.
// Throws std::out_of_range for a hit on a triangle the world does not have.
HitPart part_of(const World& world, const SweepHit& hit);

// A CWSR file of either version, every record checked.
struct ResultFile {
  std::uint32_t version = 1;
  std::vector<SweepHit> hits;
  std::vector<HitPart> parts;  // version 2: one per hit; version 1 does not say: empty
};
ResultFile read_result_file(const std::string& path);
// The hits of a file of either version (read_result_file's hits).
std::vector<SweepHit> read_results(const std::string& path);

// Writes version 1: the hits alone.
void write_results(const std::string& path, const std::vector<SweepHit>& hits,
                   std::span<const std::string> inputs = {});
// Writes what `world` answered: version 1, the same bytes as above, when the world has no
// instances and no tiles; else version 2, each hit with its part (part_of). A hit on a triangle
// the world does not have is refused (FormatError naming the result).
void write_results(const std::string& path, const std::vector<SweepHit>& hits, const World& world,
                   std::span<const std::string> inputs = {});

}  // namespace capsweep

// Poses of instances from a CSV file (docs/FORMATS.md, "Poses (CSV)"): a row per instance,
// `id,tx,ty,tz,qx,qy,qz,qw`, its pose in world space (World::posed); an optional header line of
// exactly those names, `#` comments and blank lines.

namespace capsweep {

struct PoseFile {
  std::vector<InstancePose> poses;   // in the file's order
  std::vector<std::uint32_t> lines;  // the line each came from
};

// Throws FormatError "FILE:LINE: reason" for a row that is not 8 fields, a field that is not a
// number (an id: a whole number from 0 to 2^32 - 1), NaN or infinite, an id given twice, or a pose
// check_pose refuses; "FILE: cannot open" for a file it cannot read.
PoseFile read_poses(const std::string& path);

// `world` at the file's poses (instances without a row keep theirs), as a still frame: it carries
// no motion into its first tick (World::move), as a loaded world does not. Throws FormatError
// "FILE:LINE: reason" for a row the world refuses (an id it has no instance of, an instance
// placed beyond kMaxCoordinate), and "FILE: ..." when the world has no instances at all.
World posed_from_file(const World& world, const std::string& path);

}  // namespace capsweep

// Tiles from a CSV file (docs/FORMATS.md, "Tiles (CSV)"): a row per tile, `id,x,y,z,mesh` or
// `id,x,y,z,mesh,layers`: its id, its origin in world space (metres, read in double), the mesh
// file of its triangles (anything load_scene reads; its coordinates relative to the origin, Y
// up, in metres; a relative path is relative to the CSV's folder) and its layers as a list
// `1|3` (default 1). An optional header line of exactly those names, `#` comments, blank lines.

namespace capsweep {

struct TileFile {
  std::vector<Tile> tiles;           // in the file's order, each mesh built (on `threads` workers)
  std::vector<std::uint32_t> lines;  // the line each came from
  std::vector<std::string> meshes;   // the mesh file each was read from (as opened)
};

// Throws FormatError "FILE:LINE: reason" for a row of another number of fields, a field that is
// not a number (an id: a whole number from 0 to 2^32 - 1), NaN or infinite, an origin beyond
// 1e6 m, a layer list it cannot read, an id given twice, or a mesh that cannot be read or built
// (with the loader's message).
TileFile read_tiles(const std::string& path, int threads = 0);

// `world` with the file's tiles streamed in (World::streamed): a still frame. Throws FormatError
// "FILE:LINE: reason" for a tile the world refuses (an id it holds already, a tile placed beyond
// kMaxCoordinate).
World streamed_from_file(const World& world, const std::string& path);

}  // namespace capsweep

// World snapshots: a built world (triangles, BVH, adjacency) as one versioned,
// checksummed file that loads in milliseconds, so a server starts without rebuilding the BVH.
// Layout: docs/FORMATS.md ("CWSW").

namespace capsweep {

// Version 9: the blocks the one copy of the triangles, no box per triangle, links in as few bits
// as the mesh's triangle count needs (3 x (bits + 2) a triangle), and no layer mask per triangle
// where the mesh is all on one.
// Version 8 (instances of version 7 images), 7 (links in 12 bytes), 6 (boxes and masks), 5
// (4-wide nodes), 4 (blocks of 416 bytes, with float normals), 3 (blocks with double normals, no
// heightfield), 2 (no layers) and 1 (not XXH3 checksums) files are refused with a message to
// rebuild them.
inline constexpr std::uint32_t kSnapshotVersion = 9;
// Version 10: a world with instances (World's instance constructor), as the static part's and
// each prototype's version 9 image and the instances' poses. Its frame is still: a loaded world
// carries no motion into its first tick.
inline constexpr std::uint32_t kInstancedSnapshotVersion = 10;

// A file that is not a snapshot this build can trust: wrong magic, another version or layout,
// truncated, failing its checksum, or holding an index out of range. Names the file.
class SnapshotError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A named block of bytes a snapshot carries after its world, for a layer above the world (the
// navmesh, capsweep::nav, in the section "navmesh"). A name is 1 to 15 printable ASCII
// characters, unique in a file. Checked by its own checksum when the snapshot loads.
struct SnapshotSection {
  std::string name;
  std::string bytes;
};
inline constexpr std::size_t kMaxSnapshotSections = 64;

struct Snapshot {
  World world;          // answers exactly like World(triangles) of the same soup
  std::string source;   // what it was built from (the scene path and options), as saved
  std::uint64_t bytes;  // file size
  std::vector<SnapshotSection> sections;  // in the order they were saved
  // The section of that name, or nullptr.
  const SnapshotSection* section(const std::string& name) const;
};

// Writes atomically (a temporary file beside `path`, flushed, renamed over it): a failed save
// leaves the file that was there untouched and nothing else behind. Refuses a target that is not
// a regular file or is one of `inputs`. The bytes depend only on the world and `source`. Throws
// SnapshotError on I/O failure. A world with instances is saved as version 10, at its current poses.
// `sections` follow the world, in order (std::invalid_argument for a name out of the rules above,
// twice the same name, or more than kMaxSnapshotSections).
void save_snapshot(const World& world, const std::string& source, const std::string& path,
                   std::span<const std::string> inputs = {}, std::span<const SnapshotSection> sections = {});

// Reads the file into memory of its own (so that a file overwritten or cut short later changes
// nothing), checks header, size and checksum (in parallel), every index, and what the arrays
// mean (every triangle inside its box and every box inside its parent's, each block holding
// exactly the triangles it names), then answers from that memory. Throws SnapshotError.
Snapshot load_snapshot(const std::string& path);

// Whether the file starts with the snapshot magic (for tools that take scenes or snapshots).
bool looks_like_snapshot(const std::string& path);

// The checksum snapshots use: XXH3 (64-bit) of each 1 MiB chunk, in parallel, then XXH3 of
// those digests seeded with the length; exposed for tests.
std::uint64_t snapshot_checksum(const void* data, std::size_t bytes);

}  // namespace capsweep

// A world from a file: a snapshot (capsweep build) is mapped, anything else is loaded as a scene
// and built.

namespace capsweep {

struct WorldFile {
  World world;
  std::string source;  // scene path and options, or the snapshot's own source
  bool snapshot = false;
  double load_seconds = 0;
  std::vector<SnapshotSection> sections;  // a snapshot's (Snapshot::sections)
};

// Throws SceneError or SnapshotError naming the file. Scene options do not apply to snapshots
// (they were applied when it was built). A scene with dynamic glTF nodes opens as a world with
// instances (load_instanced_scene, place_instances).
WorldFile open_world(const std::string& path, const SceneOptions& options = {});

// "PATH" or "PATH (scale S, z-up, layers TABLE, dynamic prefix P)": how a world was made, for
// snapshots and the service's Info.
std::string describe_source(const std::string& path, const SceneOptions& options);

}  // namespace capsweep
