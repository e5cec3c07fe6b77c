// Writing and reading CWNM navmesh files (docs/FORMATS.md). The reader trusts nothing: the
// checksum first, then every record's size, then each tile's own counts and every index Detour
// follows when it links and searches a tile, so that a file it accepts cannot make Detour read
// outside a tile. A refusal names the file, the record and the reason.
#include <algorithm>
#include <cmath>
#include <limits>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>

#include <recastnavigation/DetourCommon.h>

#include <capsweep/files.h>

#include "io/atomic_file.h"
#include "nav/navmesh_data.h"
#include "nav/navmesh_file.h"

namespace capsweep {

std::uint64_t navmesh_checksum(const std::uint8_t* bytes, std::size_t size) {
  std::uint64_t h = 1469598103934665603ull;
  for (std::size_t k = 0; k < size; ++k) h = (h ^ bytes[k]) * 1099511628211ull;
  return h;
}

namespace {

// The settings as the file stores them, in this order (14 fields of 4 bytes).
constexpr std::size_t kSettingsBytes = 14 * 4;
constexpr std::size_t kParamsBytes = 7 * 4;
constexpr std::size_t kHeaderBytes = 4 + 4 + 4 + kSettingsBytes + kParamsBytes + 4;  // magic .. tile count

template <class T>
void put(std::string& out, T v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

class Reader {
 public:
  Reader(const std::string& path, std::string_view bytes) : path_(path), bytes_(bytes) {}
  template <class T>
  T get(const std::string& record) {
    T v;
    need(sizeof v, record);
    std::memcpy(&v, bytes_.data() + at_, sizeof v);
    at_ += sizeof v;
    return v;
  }
  void need(std::size_t n, const std::string& record) {
    if (n > end_ - at_) fail(record, "the file ends inside it");
  }
  const std::uint8_t* take(std::size_t n, const std::string& record) {
    need(n, record);
    const auto* p = reinterpret_cast<const std::uint8_t*>(bytes_.data() + at_);
    at_ += n;
    return p;
  }
  void set_end(std::size_t end) { end_ = end; }
  std::size_t left() const { return end_ - at_; }
  [[noreturn]] void fail(const std::string& record, const std::string& reason) const {
    throw NavMeshError(path_ + ": " + record + ": " + reason);
  }

 private:
  const std::string& path_;
  std::string_view bytes_;
  std::size_t at_ = 0, end_ = 0;
};

constexpr int kMaxTileCoordinate = 1 << 20;
// Every coordinate a tile holds is at most 1e7 m from 0, as the mesh's origin: Detour's closest
// point on a polygon (closestPointOnDetailEdges) squares distances and keeps the nearest edge; at
// 1e34 every square is infinite, no edge is kept, and it reads through a null pointer.
constexpr float kMaxCoordinate = 1e7f;
bool coordinate(float v) { return std::fabs(v) <= kMaxCoordinate; }  // false for NaN too

// Detour's dtNavMesh::init rounds each limit up to a power of two and gives a polygon reference
// tile bits + polygon bits of its 32, keeping at least 10 for the salt: the sum is at most 22.
// One tile leaves all 22 to its polygons (NavMesh::build's maxPolys = 1 << (22 - tile bits)).
int bits_of_next_pow2(std::int32_t n) {
  int bits = 0;
  while ((std::int64_t(1) << bits) < n) ++bits;
  return bits;
}

std::size_t align4(std::size_t n) { return (n + 3) & ~std::size_t(3); }

// Whether Detour may use a tile's bytes as they are: its header's counts give exactly its size,
// and every index a link, search or height query follows stays inside the tile.
std::string check_tile(const std::uint8_t* bytes, std::size_t size, int x, int y) {
  if (size < sizeof(dtMeshHeader)) return "shorter than a Detour tile header";
  dtMeshHeader h;
  std::memcpy(&h, bytes, sizeof h);
  if (h.magic != DT_NAVMESH_MAGIC) return "not a Detour tile (magic)";
  if (h.version != DT_NAVMESH_VERSION) return "a Detour tile of version " + std::to_string(h.version) + ", not " + std::to_string(DT_NAVMESH_VERSION);
  if (h.x != x || h.y != y || h.layer != 0) return "its header places it elsewhere than its record says";
  // Detour steps to neighbour tiles at x +- 1 and hashes x, y: far from int's ends (the build's
  // grid is at most 4,096 tiles from 0).
  if (std::abs(x) >= kMaxTileCoordinate || std::abs(y) >= kMaxTileCoordinate) return "its place (x, y) is out of range";
  const int counts[] = {h.polyCount, h.vertCount, h.maxLinkCount, h.detailMeshCount, h.detailVertCount,
                        h.detailTriCount, h.bvNodeCount, h.offMeshConCount};
  for (int c : counts) {
    if (c < 0 || c > (1 << 20)) return "a count in its header is out of range";
  }
  // Detour's addTile writes links[maxLinkCount - 1] when it frees its link list: none is too few.
  if (h.polyCount < 1) return "no polygon (the build writes no empty tile)";
  if (h.maxLinkCount < 1) return "no link (Detour writes its last one when it adds the tile)";
  if (h.offMeshConCount != 0 || h.offMeshBase != h.polyCount) return "off-mesh connections (capsweep builds none)";
  if (h.detailMeshCount != h.polyCount) return "a detail mesh count other than its polygon count";
  if (h.bvNodeCount != 0 && h.bvNodeCount > 2 * h.polyCount) return "more tree nodes than polygons need";
  const std::size_t expected = align4(sizeof(dtMeshHeader)) + align4(sizeof(float) * 3 * std::size_t(h.vertCount)) +
                               align4(sizeof(dtPoly) * std::size_t(h.polyCount)) +
                               align4(sizeof(dtLink) * std::size_t(h.maxLinkCount)) +
                               align4(sizeof(dtPolyDetail) * std::size_t(h.detailMeshCount)) +
                               align4(sizeof(float) * 3 * std::size_t(h.detailVertCount)) +
                               align4(4 * std::size_t(h.detailTriCount)) +
                               align4(sizeof(dtBVNode) * std::size_t(h.bvNodeCount));
  if (expected != size) return "its header's counts give " + std::to_string(expected) + " bytes, the record holds " + std::to_string(size);
  for (int k = 0; k < 3; ++k) {
    if (!coordinate(h.bmin[k]) || !coordinate(h.bmax[k]) || h.bmin[k] > h.bmax[k]) {
      return "its bounds are not a box within 1e7 m";
    }
  }
  if (!(h.bvQuantFactor >= 0) || !std::isfinite(h.bvQuantFactor)) return "its tree's quantisation is not finite";
  const std::uint8_t* p = bytes + align4(sizeof(dtMeshHeader));
  const auto* verts = reinterpret_cast<const float*>(p);
  for (int k = 0; k < 3 * h.vertCount; ++k) {
    if (!coordinate(verts[k])) return "vertex " + std::to_string(k / 3) + " is not finite within 1e7 m";
  }
  p += align4(sizeof(float) * 3 * std::size_t(h.vertCount));
  const auto* polys = reinterpret_cast<const dtPoly*>(p);
  p += align4(sizeof(dtPoly) * std::size_t(h.polyCount));
  p += align4(sizeof(dtLink) * std::size_t(h.maxLinkCount));
  const auto* details = reinterpret_cast<const dtPolyDetail*>(p);
  p += align4(sizeof(dtPolyDetail) * std::size_t(h.detailMeshCount));
  const auto* dverts = reinterpret_cast<const float*>(p);
  for (int k = 0; k < 3 * h.detailVertCount; ++k) {
    if (!coordinate(dverts[k])) return "detail vertex " + std::to_string(k / 3) + " is not finite within 1e7 m";
  }
  p += align4(sizeof(float) * 3 * std::size_t(h.detailVertCount));
  const std::uint8_t* dtris = p;
  p += align4(4 * std::size_t(h.detailTriCount));
  const auto* nodes = reinterpret_cast<const dtBVNode*>(p);
  std::size_t links_needed = 0;
  for (int i = 0; i < h.polyCount; ++i) {
    const dtPoly& poly = polys[i];
    const std::string which = "polygon " + std::to_string(i);
    if (poly.vertCount < 3 || poly.vertCount > DT_VERTS_PER_POLYGON) return which + ": a vertex count out of range";
    if (poly.getType() != DT_POLYTYPE_GROUND) return which + ": not a ground polygon";
    for (int k = 0; k < poly.vertCount; ++k) {
      if (poly.verts[k] >= h.vertCount) return which + ": a vertex index past the tile's vertices";
      const unsigned short nei = poly.neis[k];
      if (nei != 0 && !(nei & DT_EXT_LINK) && nei - 1 >= h.polyCount) return which + ": a neighbour past the tile's polygons";
      // dtCreateNavMeshData marks a portal to the next tile DT_EXT_LINK | side, side 0, 2, 4 or 6
      // (x+, z+, x-, z-): Detour's slab tests know no other side.
      if (nei & DT_EXT_LINK && (nei & ~DT_EXT_LINK) != 0 && (nei & ~DT_EXT_LINK) != 2 && (nei & ~DT_EXT_LINK) != 4 &&
          (nei & ~DT_EXT_LINK) != 6) {
        return which + ": a portal side other than 0, 2, 4 or 6";
      }
      ++links_needed;
    }
    const dtPolyDetail& d = details[i];
    if (std::size_t(d.vertBase) + d.vertCount > std::size_t(h.detailVertCount) ||
        std::size_t(d.triBase) + d.triCount > std::size_t(h.detailTriCount)) {
      return which + ": its detail mesh reaches past the tile's detail arrays";
    }
    // Detour's closest point on a polygon walks its detail triangles' outline edges and reads the
    // nearest one it found: a polygon with no detail triangle, or none on its outline, has none.
    bool outline = false;
    for (unsigned t = 0; t < d.triCount; ++t) {
      const std::uint8_t* tri = dtris + 4 * (std::size_t(d.triBase) + t);
      for (int k = 0; k < 3; ++k) {
        if (tri[k] >= poly.vertCount + d.vertCount) return which + ": a detail triangle's vertex out of range";
        outline = outline || ((tri[3] >> (2 * k)) & DT_DETAIL_EDGE_BOUNDARY) != 0;
      }
    }
    if (!outline) return which + ": its detail mesh has no triangle on the polygon's outline";
  }
  if (std::size_t(h.maxLinkCount) < links_needed) return "fewer links than its polygons' sides";
  for (int i = 0; i < h.bvNodeCount; ++i) {
    const dtBVNode& n = nodes[i];
    // A leaf names a polygon; an inner node the escape past its subtree (negated), which must
    // stay within the tree (in 64 bits: -INT_MIN does not fit an int).
    if (n.i >= 0 ? n.i >= h.polyCount : -std::int64_t(n.i) > std::int64_t(h.bvNodeCount - i)) {
      return "tree node " + std::to_string(i) + ": an index out of range";
    }
  }
  return "";
}

}  // namespace

std::string NavMesh::bytes() const {
  std::string out;
  const NavMeshSettings& s = data_->settings;
  out.append(kNavMeshMagic, 4);
  put(out, kNavMeshVersion);
  put(out, std::uint32_t(DT_NAVMESH_VERSION));
  for (float f : {s.agent_radius, s.agent_height, s.climb, s.max_slope_degrees, s.cell_size, s.cell_height}) put(out, f);
  put(out, std::int32_t(s.tile_cells));
  put(out, s.layers);
  for (float f : {s.max_edge_length, s.max_edge_error, s.min_region_area, s.merge_region_area,
                  s.detail_sample_distance, s.detail_max_error}) {
    put(out, f);
  }
  const dtNavMeshParams* p = data_->mesh->getParams();
  for (float f : {p->orig[0], p->orig[1], p->orig[2], p->tileWidth, p->tileHeight}) put(out, f);
  put(out, std::int32_t(p->maxTiles));
  put(out, std::int32_t(p->maxPolys));
  const dtNavMesh& mesh = *data_->mesh;
  std::uint32_t count = 0;
  for (int i = 0; i < mesh.getMaxTiles(); ++i) count += mesh.getTile(i)->header ? 1 : 0;
  put(out, count);
  // Tiles by (y, x): the order the build adds them in.
  std::vector<const dtMeshTile*> tiles;
  for (int i = 0; i < mesh.getMaxTiles(); ++i) {
    if (mesh.getTile(i)->header) tiles.push_back(mesh.getTile(i));
  }
  std::sort(tiles.begin(), tiles.end(), [](const dtMeshTile* a, const dtMeshTile* b) {
    return std::pair(a->header->y, a->header->x) < std::pair(b->header->y, b->header->x);
  });
  for (const dtMeshTile* t : tiles) {
    put(out, std::int32_t(t->header->x));
    put(out, std::int32_t(t->header->y));
    put(out, std::uint32_t(t->dataSize));
    // The tile as built: Detour's links, made when a tile is added, are cleared.
    std::string data(reinterpret_cast<const char*>(t->data), std::size_t(t->dataSize));
    auto* polys = reinterpret_cast<dtPoly*>(data.data() + align4(sizeof(dtMeshHeader)) +
                                            align4(sizeof(float) * 3 * std::size_t(t->header->vertCount)));
    for (int k = 0; k < t->header->polyCount; ++k) polys[k].firstLink = DT_NULL_LINK;
    const std::size_t links_at = align4(sizeof(dtMeshHeader)) + align4(sizeof(float) * 3 * std::size_t(t->header->vertCount)) +
                                 align4(sizeof(dtPoly) * std::size_t(t->header->polyCount));
    std::memset(data.data() + links_at, 0, sizeof(dtLink) * std::size_t(t->header->maxLinkCount));
    out += data;
  }
  put(out, navmesh_checksum(reinterpret_cast<const std::uint8_t*>(out.data()), out.size()));
  return out;
}

void NavMesh::write(const std::string& path) const {
  AtomicFile file(path);
  file.write(bytes());
  file.commit();
}

NavMesh NavMesh::read(const std::string& path) {
  if (looks_like_snapshot(path)) {
    try {
      // The world is checked too: a navmesh is for it.
      if (std::optional<NavMesh> kept = from_snapshot(load_snapshot(path).sections, path)) return *std::move(kept);
    } catch (const SnapshotError& e) {
      throw NavMeshError(e.what());
    }
    throw NavMeshError(path + ": the snapshot holds no navmesh (build it with capsweep build --navmesh)");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw NavMeshError(path + ": cannot be opened");
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw NavMeshError(path + ": cannot be read");
  return from_bytes(bytes, path);
}

std::optional<NavMesh> NavMesh::from_snapshot(std::span<const SnapshotSection> sections, const std::string& path) {
  for (const SnapshotSection& s : sections) {
    if (s.name == kNavMeshSection) return from_bytes(s.bytes, path + ": section " + kNavMeshSection);
  }
  return std::nullopt;
}

NavMesh NavMesh::from_bytes(const std::string& bytes, const std::string& path) {
  Reader r(path, bytes);
  if (bytes.size() < kHeaderBytes + 8) r.fail("header", "the file is " + std::to_string(bytes.size()) + " bytes, shorter than a header and a checksum");
  if (std::memcmp(bytes.data(), kNavMeshMagic, 4) != 0) r.fail("header", "not a CWNM navmesh file (magic)");
  std::uint64_t stored;
  std::memcpy(&stored, bytes.data() + bytes.size() - 8, 8);
  if (stored != navmesh_checksum(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size() - 8)) {
    r.fail("checksum", "the bytes do not match their checksum (damaged or cut short)");
  }
  r.set_end(bytes.size() - 8);
  r.take(4, "header");
  const auto version = r.get<std::uint32_t>("header");
  if (version != kNavMeshVersion) r.fail("header", "version " + std::to_string(version) + ", this reader knows 1");
  const auto tile_version = r.get<std::uint32_t>("header");
  if (tile_version != DT_NAVMESH_VERSION) r.fail("header", "Detour tile version " + std::to_string(tile_version) + ", this build's is " + std::to_string(DT_NAVMESH_VERSION));
  NavMeshSettings s;
  for (float* f : {&s.agent_radius, &s.agent_height, &s.climb, &s.max_slope_degrees, &s.cell_size, &s.cell_height}) *f = r.get<float>("settings");
  s.tile_cells = r.get<std::int32_t>("settings");
  s.layers = r.get<std::uint32_t>("settings");
  for (float* f : {&s.max_edge_length, &s.max_edge_error, &s.min_region_area, &s.merge_region_area, &s.detail_sample_distance, &s.detail_max_error}) *f = r.get<float>("settings");
  if (const std::string problem = check_navmesh_settings(s); !problem.empty()) r.fail("settings", problem);
  dtNavMeshParams params{};
  for (float* f : {&params.orig[0], &params.orig[1], &params.orig[2], &params.tileWidth, &params.tileHeight}) *f = r.get<float>("mesh parameters");
  params.maxTiles = r.get<std::int32_t>("mesh parameters");
  params.maxPolys = r.get<std::int32_t>("mesh parameters");
  for (float f : {params.orig[0], params.orig[1], params.orig[2]}) {
    if (!coordinate(f)) r.fail("mesh parameters", "an origin that is not a finite coordinate within 1e7 m");
  }
  if (!(params.tileWidth > 0 && params.tileWidth < 1e6f && params.tileHeight == params.tileWidth)) r.fail("mesh parameters", "a tile size out of range");
  if (params.maxTiles < 1 || params.maxTiles > (1 << 14) || params.maxPolys < 1 || params.maxPolys > (1 << 22) ||
      bits_of_next_pow2(params.maxTiles) + bits_of_next_pow2(params.maxPolys) > 22) {
    r.fail("mesh parameters", "tile or polygon limits out of range (tile bits + polygon bits must be at most 22)");
  }
  const auto count = r.get<std::uint32_t>("tile count");
  if (count > std::uint32_t(params.maxTiles)) r.fail("tile count", std::to_string(count) + " tiles, more than the mesh's limit");

  auto data = std::make_shared<Data>();
  data->settings = s;
  data->mesh.reset(dtAllocNavMesh());
  if (!data->mesh || dtStatusFailed(data->mesh->init(&params))) r.fail("mesh parameters", "Detour refuses them");
  for (std::uint32_t k = 0; k < count; ++k) {
    const std::string record = "tile " + std::to_string(k);
    const auto x = r.get<std::int32_t>(record);
    const auto y = r.get<std::int32_t>(record);
    const auto size = r.get<std::uint32_t>(record);
    const std::uint8_t* tile = r.take(size, record);
    // Checked in Detour's own aligned copy, which the mesh then keeps.
    auto* copy = static_cast<unsigned char*>(dtAlloc(size ? size : 1, DT_ALLOC_PERM));
    if (!copy) r.fail(record, "out of memory");
    std::memcpy(copy, tile, size);
    std::string problem = check_tile(copy, size, x, y);
    if (problem.empty()) {
      dtMeshHeader h;
      std::memcpy(&h, copy, sizeof h);
      if (h.polyCount > params.maxPolys) problem = "more polygons than the mesh's limit";
      if (data->mesh->getTileAt(x, y, 0)) problem = "a second tile at the same place";
    }
    if (!problem.empty()) {
      dtFree(copy);
      r.fail(record, problem);
    }
    if (dtStatusFailed(data->mesh->addTile(copy, int(size), DT_TILE_FREE_DATA, 0, nullptr))) {
      dtFree(copy);
      r.fail(record, "Detour refuses it");
    }
  }
  if (r.left() != 0) r.fail("end", std::to_string(r.left()) + " bytes after the last tile");
  return NavMesh(std::move(data));
}

}  // namespace capsweep
