#include <capsweep/files.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "parallel/executor.h"
// xxHash compiled in from its header (static functions), so that snapshots need no libxxhash at
// run time: libcapsweep_c.so reads them with oneTBB alone.
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "broadphase/terrain.h"
#include "world/world_arrays.h"
#include "core/height_grid.h"
#include "io/atomic_file.h"
#include "io/snapshot_image.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

namespace capsweep {
namespace {


// The first 128 bytes of a snapshot; every count in it is checked before it is used.
struct Header {
  char magic[8];
  std::uint32_t version;
  std::uint32_t header_bytes;
  std::uint32_t byte_order;
  std::uint32_t sizes[5];  // of WideNode, TriangleBlock, a links word (u64), TerrainHeader, Header as written
  std::uint64_t triangles, nodes, blocks;
  std::uint32_t depth;
  std::uint32_t source_bytes;
  float bounds[6];
  std::uint64_t payload_bytes;     // everything after the header
  std::uint64_t payload_checksum;  // snapshot_checksum of those bytes
  // Version 7: the mask every mesh triangle is on, where the file holds no mask per triangle
  // (nor per BVH child); 0 where it does.
  std::uint32_t mesh_layers;
  std::uint32_t sections = 0;      // after the world (0 in an image inside a version 10 file)
  std::uint64_t header_checksum;   // snapshot_checksum of every byte before this last field
};
static_assert(sizeof(Header) == 128);

// What each older version held that this build reads no more; such a file is told to rebuild.
// (Version 1 predates XXH3 checksums and is refused before these.) A format change adds a row.
struct OlderVersion {
  std::uint32_t version;
  const char* held;
};
constexpr OlderVersion kOlderVersions[] = {
    {2, "has no layers"},
    {3, "holds blocks of an older layout (with double normals) and no heightfield section"},
    {4, "holds blocks of an older layout (with float normals)"},
    {5, "holds a BVH of an older layout (4-wide nodes)"},
    {6, "holds a second copy of the triangles, a box per triangle and a layer mask per triangle (issue 38: 64 bytes a triangle)"},
    {7, "holds links of 12 bytes a triangle (issue 38: 64 bytes a triangle)"},
    {8, "is a world with instances made of version 7 images"},
};


// Version 4: the heightfield (all zero when the world has none), the first section after the
// header. Its arrays follow the mesh's.
struct TerrainHeader {
  std::uint32_t columns, rows;  // samples; 0 x 0: no heightfield
  float cell_x, cell_z;
  float origin[3];
  float height_scale;
  std::uint32_t sample_kind;  // kNoSamples, kFloatSamples or kU16Samples
  std::uint32_t layers;
  std::uint64_t hole_words;   // u64 words of the hole bitset; 0: no holes
  std::uint64_t spare[2];
};
static_assert(sizeof(TerrainHeader) == 64);
constexpr std::uint32_t kNoSamples = 0, kFloatSamples = 1, kU16Samples = 2;

constexpr std::uint32_t kSizes[5] = {sizeof(WideNode), sizeof(TriangleBlock), sizeof(std::uint64_t), sizeof(TerrainHeader),
                                     sizeof(Header)};

std::uint64_t sample_bytes(const TerrainHeader& t) {
  const std::uint64_t n = std::uint64_t(t.columns) * t.rows;
  return t.sample_kind == kFloatSamples ? n * 4 : t.sample_kind == kU16Samples ? n * 2 : 0;
}

// The words of the links of a mesh of `tris` triangles (adjacency.h: LinksView).
std::uint64_t link_words(std::uint64_t tris) { return packed_words(3 * tris, link_index_bits(tris) + 2); }

// Where each array lies in the file, from the counts alone.
struct Layout {
  std::uint64_t terrain, nodes, blocks, links, layers, child_layers, samples, holes, source, end;
};

// `masks`: whether the file holds a layer mask per triangle and per node child (version 7: only
// where the mesh's triangles are not all on the same layers).
Layout layout_of(std::uint64_t tris, std::uint64_t nodes, std::uint64_t blocks, bool masks, const TerrainHeader& terrain,
                 std::uint64_t source_bytes) {
  Layout l;
  l.terrain = align_up(sizeof(Header));
  l.nodes = align_up(l.terrain + sizeof(TerrainHeader));
  l.blocks = align_up(l.nodes + nodes * sizeof(WideNode));
  l.links = align_up(l.blocks + blocks * sizeof(TriangleBlock));
  l.layers = align_up(l.links + link_words(tris) * sizeof(std::uint64_t));
  l.child_layers = align_up(l.layers + (masks ? tris : 0) * sizeof(std::uint32_t));
  l.samples = align_up(l.child_layers + (masks ? nodes * WideNode::kWidth : 0) * sizeof(std::uint32_t));
  l.holes = align_up(l.samples + sample_bytes(terrain));
  l.source = l.holes + terrain.hole_words * sizeof(std::uint64_t);
  l.end = l.source + source_bytes;
  return l;
}

// --- checksum: XXH3 (xxHash, 64-bit) per 1 MiB chunk in parallel, then XXH3 of the chunk digests ---

constexpr std::size_t kChunk = std::size_t(1) << 20;


// Whether every bit after the last value is zero, as PackedUints leaves it (the file is the build's).
bool zero_after(const PackedUintsView& v) {
  const std::uint64_t used = v.count * v.width, first = used / 64;
  for (std::uint64_t i = first; i < v.words.size(); ++i) {
    const std::uint64_t w = i == first && used % 64 ? v.words[i] >> (used % 64) : v.words[i];
    if (w != 0) return false;
  }
  return true;
}

// What a loaded world answers from: the file's bytes, and what is recomputed from them.
struct LoadedArrays {
  std::shared_ptr<Mapping> file;
  PackedUints lanes;  // WorldArrays::lanes, from the blocks (not stored)
  std::vector<HeightRange> pyramid;
};

// The heightfield's numbers, as check_heightfield checks a Heightfield, and its holes' padding.
void check_terrain(const std::string& path, const TerrainView& t) {
  HeightGrid g;
  g.columns = t.columns;
  g.rows = t.rows;
  g.cell_x = t.cell_x;
  g.cell_z = t.cell_z;
  g.origin = t.origin;
  g.height_scale = t.height_scale;
  g.heights = t.heights;
  g.samples = t.samples;
  g.layers = t.layers;
  if (std::string why = check_height_grid(g); !why.empty()) refuse(path, why);
  const std::uint64_t cells = std::uint64_t(t.cells_x()) * t.cells_z();
  if (!t.holes.empty() && cells % 64 != 0 && (t.holes.back() >> (cells % 64)) != 0) {
    refuse(path, "the heightfield's hole bits run past its last cell");
  }
}

template <class T>
std::span<const T> array_at(const unsigned char* base, std::uint64_t offset, std::uint64_t count) {
  return {reinterpret_cast<const T*>(base + offset), std::size_t(count)};
}

bool contains(const Aabb& outer, const Aabb& inner) {
  return outer.min.x <= inner.min.x && outer.min.y <= inner.min.y && outer.min.z <= inner.min.z &&
         outer.max.x >= inner.max.x && outer.max.y >= inner.max.y && outer.max.z >= inner.max.z;
}

Aabb child_box(const WideNode& n, int k) {
  return {{n.min_x[k], n.min_y[k], n.min_z[k]}, {n.max_x[k], n.max_y[k], n.max_z[k]}};
}

// What the numbers mean, once every index is known to be in range: the boxes the traversal
// prunes with hold what lies below them, the triangles lie inside the world's bounds, and each
// block is what the builder makes of its triangles (unused lanes copies of the first).
// A file that passes its checksum but breaks one of these would answer wrongly without a
// sound; linear time, parallel.
void check_meaning(const std::string& path, const WorldArrays& w) {
  std::atomic<std::uint64_t> bad_triangle{~0ull}, bad_block{~0ull}, bad_node{~0ull};
  auto note = [](std::atomic<std::uint64_t>& first, std::uint64_t i) {
    for (std::uint64_t seen = first.load(); i < seen && !first.compare_exchange_weak(seen, i);) {
    }
  };
  parallel::for_ranges<std::size_t>(0, w.mesh_count(), 4096, [&](const auto& r) {
    for (std::size_t i = r.begin(); i != r.end(); ++i) {
      if (!contains(w.bounds, bounds(w.mesh_triangle(i)))) note(bad_triangle, i);
    }
  });
  if (bad_triangle != ~0ull) refuse(path, "triangle " + std::to_string(bad_triangle.load()) + " lies outside the world's bounds");
  parallel::for_ranges<std::size_t>(0, w.bvh.blocks.size(), 256, [&](const auto& r) {
    for (std::size_t b = r.begin(); b != r.end(); ++b) {
      const TriangleBlock& block = w.bvh.blocks[b];
      TriangleBlock expected;
      int used = 0;
      for (; used < kBlockLanes && block.valid(used); ++used) set_block_lane(expected, used, block.get(used), block.triangle[used]);
      close_block(expected, used);
      if (std::memcmp(&expected, &block, sizeof block) != 0) note(bad_block, b);
    }
  });
  if (bad_block != ~0ull) {
    refuse(path, "block " + std::to_string(bad_block.load()) + ": its unused lanes are not copies of its first");
  }
  parallel::for_ranges<std::size_t>(0, w.bvh.nodes.size(), 256, [&](const auto& r) {
    for (std::size_t i = r.begin(); i != r.end(); ++i) {
      const WideNode& n = w.bvh.nodes[i];
      for (int k = 0; k < WideNode::kWidth; ++k) {
        if (!n.used(k)) continue;
        const Aabb box = child_box(n, k);
        bool ok = true;
        if (n.child[k] & WideNode::kLeaf) {
          const TriangleBlock& block = w.bvh.blocks[n.child[k] & ~WideNode::kLeaf];
          for (int lane = 0; lane < kBlockLanes && block.valid(lane); ++lane) {
            ok = ok && contains(box, bounds(block.get(lane)));
          }
        } else {
          const WideNode& c = w.bvh.nodes[n.child[k]];
          for (int j = 0; j < WideNode::kWidth; ++j) {
            if (c.used(j)) ok = ok && contains(box, child_box(c, j));
          }
        }
        if (!ok) note(bad_node, i * WideNode::kWidth + std::uint64_t(k));
      }
    }
  });
  if (bad_node != ~0ull) {
    const std::uint64_t at = bad_node;
    refuse(path, "BVH node " + std::to_string(at / WideNode::kWidth) + ": the box of child " +
                     std::to_string(at % WideNode::kWidth) + " does not contain what lies below it");
  }
  // The layers the walk skips subtrees by are the union of those below (else a filtered walk
  // would skip what it must see, or see what it must not).
  if (w.layers.empty()) return;
  const std::vector<std::uint32_t> unions = child_layer_unions(w.bvh.nodes, w.bvh.blocks, w.layers);
  const auto differs = std::mismatch(unions.begin(), unions.end(), w.bvh.child_layers.begin());
  if (differs.first != unions.end()) {
    const std::size_t at = std::size_t(differs.first - unions.begin());
    refuse(path, "BVH node " + std::to_string(at / WideNode::kWidth) + ": the layers of child " +
                     std::to_string(at % WideNode::kWidth) + " are not those below it");
  }
}

// Every index the traversal and the kernels follow, so that a file with a valid checksum but
// inconsistent contents (a bug, or a crafted file) is refused instead of read out of bounds;
// then where each of the `tris` triangles lies in the blocks (w.lanes, held by `lanes`).
void check_arrays(const std::string& path, WorldArrays& w, std::size_t tris, PackedUints& lanes) {
  for (std::size_t i = 0; i < w.layers.size(); ++i) {
    if (w.layers[i] == 0) refuse(path, "triangle " + std::to_string(i) + " is on no layer (mask 0)");
  }
  const auto& nodes = w.bvh.nodes;
  std::vector<std::uint8_t> level(nodes.size(), 0);  // 0 = not reached yet
  std::vector<std::uint8_t> block_seen(w.bvh.blocks.size(), 0);
  level[0] = 1;
  int deepest = 1;
  // The builder lays the tree out depth first, so every child comes after its parent: one
  // forward pass reaches each node from its parent, and a node reached twice or never (a cycle,
  // a shared subtree) is refused.
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const WideNode& n = nodes[i];
    if (level[i] == 0) refuse(path, "BVH node " + std::to_string(i) + " is not reachable from the root");
    bool any = false;
    for (int k = 0; k < WideNode::kWidth; ++k) {
      const std::uint32_t c = n.child[k];
      if (!n.used(k)) {
        // All zero bytes, as the builder leaves it (-0.0 too is refused: the file is the build's).
        const float* rows[6] = {n.min_x, n.min_y, n.min_z, n.max_x, n.max_y, n.max_z};
        for (const float* row : rows) {
          if (std::bit_cast<std::uint32_t>(row[k]) != 0) refuse(path, "BVH node " + std::to_string(i) + ": an unused slot has a box");
        }
        continue;
      }
      any = true;
      if (c & WideNode::kLeaf) {
        const std::uint32_t b = c & ~WideNode::kLeaf;
        if (b >= block_seen.size() || block_seen[b]++) {
          refuse(path, "BVH node " + std::to_string(i) + " names block " + std::to_string(b) + " out of range or twice");
        }
      } else {
        if (c <= i || c >= nodes.size() || level[c] != 0) {
          refuse(path, "BVH node " + std::to_string(i) + " names node " + std::to_string(c) + " out of order or twice");
        }
        level[c] = std::uint8_t(level[i] + 1);
        deepest = std::max(deepest, int(level[c]));
        if (deepest > w.bvh.depth) refuse(path, "the BVH is deeper than its header says");
      }
    }
    if (!any) refuse(path, "BVH node " + std::to_string(i) + " has no child");
  }
  std::vector<std::uint8_t> triangle_seen(tris, 0);
  for (std::size_t b = 0; b < w.bvh.blocks.size(); ++b) {
    if (!block_seen[b]) refuse(path, "block " + std::to_string(b) + " is not in the BVH");
    const TriangleBlock& block = w.bvh.blocks[b];
    for (int lane = 0; lane < kBlockLanes; ++lane) {
      const std::uint32_t t = block.triangle[lane];
      if (t == kNoTriangle) {
        if (lane == 0) refuse(path, "block " + std::to_string(b) + " is empty");
        continue;
      }
      // The used lanes come first: every reader stops at the first unused one.
      if (lane > 0 && !block.valid(lane - 1)) {
        refuse(path, "block " + std::to_string(b) + ": lane " + std::to_string(lane) + " is used after an unused one");
      }
      if (t >= tris || triangle_seen[t]++) {
        refuse(path, "block " + std::to_string(b) + " names triangle " + std::to_string(t) + " out of range or twice");
      }
      if (Status s = check_triangle(block.get(lane)); s != Status::ok) {
        refuse(path, "triangle " + std::to_string(t) + ": " + describe(s));
      }
    }
  }
  for (std::size_t i = 0; i < tris; ++i) {
    if (!triangle_seen[i]) refuse(path, "triangle " + std::to_string(i) + " is in no block");
    for (int k = 0; k < 3; ++k) {
      const std::uint32_t across = w.links.across(i, k);
      if (across != kNoTriangle && across >= tris) refuse(path, "triangle " + std::to_string(i) + " links out of range");
    }
  }
  lanes = triangle_lanes(w.bvh.blocks, tris);
  w.lanes = lanes.view();
  check_meaning(path, w);
}

}  // namespace

std::uint64_t snapshot_checksum(const void* data, std::size_t bytes) {
  const auto* p = static_cast<const unsigned char*>(data);
  const std::size_t chunks = (bytes + kChunk - 1) / kChunk;
  std::vector<std::uint64_t> digest(chunks);
  parallel::for_ranges<std::size_t>(0, chunks, [&](const auto& r) {
    for (std::size_t c = r.begin(); c != r.end(); ++c) {
      const std::size_t begin = c * kChunk;
      digest[c] = XXH3_64bits(p + begin, std::min(kChunk, bytes - begin));
    }
  });
  // The digests in order (little-endian, as everything in the file), seeded with the length.
  return XXH3_64bits_withSeed(digest.data(), digest.size() * sizeof(std::uint64_t), bytes);
}

// A static world (no instances) as a version 9 image: header, sections, source.
std::vector<unsigned char> image_of(const WorldArrays& w, const std::string& source, std::uint32_t sections) {
  TerrainHeader th{};
  if (w.terrain.present()) {
    const TerrainView& t = w.terrain;
    th.columns = t.columns;
    th.rows = t.rows;
    th.cell_x = t.cell_x;
    th.cell_z = t.cell_z;
    th.origin[0] = t.origin.x, th.origin[1] = t.origin.y, th.origin[2] = t.origin.z;
    th.height_scale = t.height_scale;
    th.sample_kind = t.samples.empty() ? kFloatSamples : kU16Samples;
    th.layers = t.layers;
    th.hole_words = t.holes.size();
  }
  const Layout l = layout_of(w.mesh_count(), w.bvh.nodes.size(), w.bvh.blocks.size(), !w.layers.empty(), th,
                             source.size());
  std::vector<unsigned char> file(l.end, 0);
  auto put = [&](std::uint64_t offset, const auto& span) {
    if (!span.empty()) std::memcpy(file.data() + offset, span.data(), span.size_bytes());
  };
  std::memcpy(file.data() + l.terrain, &th, sizeof th);
  put(l.nodes, w.bvh.nodes);
  put(l.blocks, w.bvh.blocks);
  CAPSWEEP_ASSERT(w.links.size() == w.mesh_count() && w.links.index_bits() == link_index_bits(w.mesh_count()) &&
                      w.links.values.words.size() == link_words(w.mesh_count()),
                  "a world's links are packed as its snapshot holds them");
  put(l.links, w.links.values.words);
  put(l.layers, w.layers);
  put(l.child_layers, w.bvh.child_layers);
  put(l.samples, w.terrain.heights);
  put(l.samples, w.terrain.samples);
  put(l.holes, w.terrain.holes);
  put(l.source, std::span<const char>(source));

  Header h{};
  std::memcpy(h.magic, kMagic, sizeof kMagic);
  h.version = kSnapshotVersion;
  h.header_bytes = sizeof(Header);
  h.byte_order = kByteOrder;
  std::memcpy(h.sizes, kSizes, sizeof kSizes);
  h.triangles = w.mesh_count();
  h.nodes = w.bvh.nodes.size();
  h.blocks = w.bvh.blocks.size();
  h.depth = std::uint32_t(w.bvh.depth);
  h.source_bytes = std::uint32_t(source.size());
  h.mesh_layers = w.layers.empty() ? w.mesh_layers : 0;
  h.sections = sections;
  const float bounds[6] = {w.bounds.min.x, w.bounds.min.y, w.bounds.min.z, w.bounds.max.x, w.bounds.max.y, w.bounds.max.z};
  std::memcpy(h.bounds, bounds, sizeof bounds);
  h.payload_bytes = l.end - sizeof(Header);
  h.payload_checksum = snapshot_checksum(file.data() + sizeof(Header), h.payload_bytes);
  h.header_checksum = snapshot_checksum(&h, offsetof(Header, header_checksum));
  std::memcpy(file.data(), &h, sizeof h);
  return file;
}

void save_snapshot(const World& world, const std::string& source, const std::string& path,
                   std::span<const std::string> inputs, std::span<const SnapshotSection> sections) {
  const WorldArrays& w = world.arrays();
  if (source.size() > 4096) throw SnapshotError(path + ": the source description is longer than 4096 bytes");
  check_sections(sections);
  const auto count = std::uint32_t(sections.size());
  std::vector<unsigned char> file;
  if (!w.instances) {
    file = image_of(w, source, count);
  } else if (w.instances->given.empty() && w.instances->tiles.empty()) {
    file = image_of(*w.instances->static_part, source, count);  // every tile streamed out: the static world
  } else {
    file = instanced_file(w, source, count);
  }
  append_sections(file, sections);
  try {
    write_file_atomically(path, std::string_view(reinterpret_cast<const char*>(file.data()), file.size()), inputs);
  } catch (const OutputError& e) {
    throw SnapshotError(e.what());
  }
}

bool looks_like_snapshot(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  char magic[sizeof kMagic] = {};
  const bool ok = std::fread(magic, 1, sizeof magic, f) == sizeof magic && std::memcmp(magic, kMagic, sizeof kMagic) == 0;
  std::fclose(f);
  return ok;
}

namespace {

// The file read whole into memory of its own.
std::shared_ptr<Mapping> read_whole(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) refuse(path, std::string("cannot open: ") + std::strerror(errno));
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    refuse(path, "not a regular file");
  }
  // Read into memory of our own rather than mapped: a file overwritten in place or cut short
  // while it is being served (an operator copying a new build over it) can then neither change
  // the answers nor kill the process with SIGBUS. Read in parallel chunks from the page cache.
  auto map = std::make_shared<Mapping>();
  map->bytes = std::size_t(st.st_size);
  if (map->bytes > 0) {
    map->address = mmap(nullptr, map->bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map->address == MAP_FAILED) {
      close(fd);
      refuse(path, std::string("cannot allocate ") + std::to_string(map->bytes) + " bytes: " + std::strerror(errno));
    }
    constexpr std::size_t kReadChunk = std::size_t(8) << 20;
    std::atomic<int> read_error{0};
    parallel::for_ranges<std::size_t>(0, (map->bytes + kReadChunk - 1) / kReadChunk, [&](const auto& r) {
      for (std::size_t c = r.begin(); c != r.end(); ++c) {
        std::size_t at = c * kReadChunk;
        const std::size_t end = std::min(map->bytes, at + kReadChunk);
        while (at < end) {
          const ssize_t n = pread(fd, static_cast<char*>(map->address) + at, end - at, off_t(at));
          if (n < 0 && errno == EINTR) continue;
          if (n <= 0) {
            read_error = n < 0 ? errno : EIO;  // 0: the file got shorter while being read
            return;
          }
          at += std::size_t(n);
        }
      }
    });
    if (read_error != 0) {
      close(fd);
      refuse(path, std::string("cannot read: ") + std::strerror(read_error));
    }
    mprotect(map->address, map->bytes, PROT_READ);
  }
  close(fd);
  return map;
}

}  // namespace

// The version 9 image of a static world at [offset, offset + bytes) of the file's memory: checked
// (header, sizes, checksums, every index, what the arrays mean), then a World answering from it.
World load_image(const std::string& path, const std::shared_ptr<Mapping>& map, std::size_t offset, std::size_t bytes,
                 std::string& source_out, WorldEnd* end_out) {
  const auto* base = static_cast<const unsigned char*>(map->address) + offset;
  if (bytes < sizeof(Header)) refuse(path, "truncated: " + std::to_string(bytes) + " bytes, shorter than the header");
  Header h;
  std::memcpy(&h, base, sizeof h);
  if (h.version == 1) {
    refuse(path, "CWSW version 1 is no longer read (its checksum is not XXH3); rebuild it with `capsweep build`");
  }
  for (const OlderVersion& older : kOlderVersions) {
    if (h.version == older.version) {
      refuse(path, "CWSW version " + std::to_string(older.version) + " " + older.held +
                       "; rebuild it with `capsweep build` (this build reads version " + std::to_string(kSnapshotVersion) + ")");
    }
  }
  if (h.version != kSnapshotVersion) {
    refuse(path, "snapshot version " + std::to_string(h.version) + ", this build reads version " +
                     std::to_string(kSnapshotVersion) + " (and " + std::to_string(kInstancedSnapshotVersion) +
                     " for a world with instances; rebuild it with capsweep build)");
  }
  if (h.header_checksum != snapshot_checksum(&h, offsetof(Header, header_checksum))) {
    refuse(path, "the header is corrupt (checksum mismatch)");
  }
  if (h.header_bytes != sizeof(Header) || std::memcmp(h.sizes, kSizes, sizeof kSizes) != 0) {
    refuse(path, "written by a build with another data layout (rebuild it with capsweep build)");
  }
  TerrainHeader th{};
  if (bytes < sizeof(Header) + sizeof(TerrainHeader)) refuse(path, "truncated: no room for the heightfield section");
  std::memcpy(&th, base + align_up(sizeof(Header)), sizeof th);
  const bool terrain = th.columns != 0 || th.rows != 0;
  const bool mesh = h.triangles != 0;
  if (h.triangles >= kMaxPackedTriangles || h.nodes >= WideNode::kLeaf || h.blocks > (std::uint64_t(1) << 29) ||
      h.depth > std::uint32_t(kMaxBvhDepth) || h.source_bytes > 4096 || (!mesh && !terrain) ||
      mesh != (h.nodes != 0) || mesh != (h.blocks != 0) || mesh != (h.depth != 0) ||
      (end_out ? h.sections > kMaxSnapshotSections : h.sections != 0) ||
      (!mesh && h.mesh_layers != kDefaultLayers)) {
    refuse(path, "the header holds counts out of range");
  }
  // The heightfield's counts, before they size anything.
  if (terrain) {
    const std::uint64_t cells = std::uint64_t(th.columns < 2 ? 0 : th.columns - 1) * (th.rows < 2 ? 0 : th.rows - 1);
    if (th.columns < 2 || th.rows < 2 || (th.sample_kind != kFloatSamples && th.sample_kind != kU16Samples) ||
        h.triangles + 2 * cells >= kNoTriangle || (th.hole_words != 0 && th.hole_words != (cells + 63) / 64) ||
        th.spare[0] != 0 || th.spare[1] != 0) {
      refuse(path, "the heightfield section holds counts out of range");
    }
  } else if (th.sample_kind != kNoSamples || th.hole_words != 0 || th.layers != 0) {
    refuse(path, "the heightfield section holds counts out of range");
  }
  const bool masks = h.mesh_layers == 0;
  const Layout l = layout_of(h.triangles, h.nodes, h.blocks, masks, th, h.source_bytes);
  if (bytes < l.end) {
    refuse(path, "truncated: " + std::to_string(bytes) + " bytes, the header describes " + std::to_string(l.end));
  }
  if ((bytes > l.end && h.sections == 0) || h.payload_bytes != l.end - sizeof(Header)) {
    refuse(path, "has " + std::to_string(bytes - l.end) + " bytes beyond what the header describes");
  }
  if (h.payload_checksum != snapshot_checksum(base + sizeof(Header), h.payload_bytes)) {
    refuse(path, "the contents are corrupt (checksum mismatch)");
  }

  auto owner = std::make_shared<LoadedArrays>();
  WorldArrays w;
  w.bounds.min = {h.bounds[0], h.bounds[1], h.bounds[2]};
  w.bounds.max = {h.bounds[3], h.bounds[4], h.bounds[5]};
  w.bvh.nodes = array_at<WideNode>(base, l.nodes, h.nodes);
  w.bvh.blocks = array_at<TriangleBlock>(base, l.blocks, h.blocks);
  w.bvh.depth = int(h.depth);
  w.links.values = {array_at<std::uint64_t>(base, l.links, link_words(h.triangles)), link_index_bits(h.triangles) + 2,
                    3 * h.triangles};
  if (!zero_after(w.links.values)) refuse(path, "the links' padding is not zero");
  w.layers = array_at<std::uint32_t>(base, l.layers, masks ? h.triangles : 0);
  w.mesh_layers = masks ? kDefaultLayers : h.mesh_layers;
  w.bvh.child_layers = array_at<std::uint32_t>(base, l.child_layers, masks ? h.nodes * WideNode::kWidth : 0);
  if (mesh) check_arrays(path, w, h.triangles, owner->lanes);
  w.layers_present = mesh && !masks ? h.mesh_layers : 0;
  for (std::uint32_t m : w.layers) w.layers_present |= m;
  if (terrain) {
    TerrainView& t = w.terrain;
    t.columns = th.columns;
    t.rows = th.rows;
    t.cell_x = th.cell_x;
    t.cell_z = th.cell_z;
    t.origin = {th.origin[0], th.origin[1], th.origin[2]};
    t.height_scale = th.height_scale;
    const std::uint64_t n = std::uint64_t(th.columns) * th.rows;
    if (th.sample_kind == kFloatSamples) {
      t.heights = array_at<float>(base, l.samples, n);
    } else {
      t.samples = array_at<std::uint16_t>(base, l.samples, n);
    }
    t.holes = array_at<std::uint64_t>(base, l.holes, th.hole_words);
    t.layers = th.layers;
    t.first_triangle = std::uint32_t(h.triangles);
    check_terrain(path, t);
    // The pyramid is recomputed, not stored: it costs what checking a stored one would.
    t.levels = terrain_levels(t.cells_x(), t.cells_z());
    owner->pyramid = terrain_pyramid(t);
    t.pyramid = owner->pyramid;
    t.bounds = terrain_bounds(t);
    if (!contains(w.bounds, t.bounds)) refuse(path, "the heightfield lies outside the world's bounds");
    w.layers_present |= t.layers;
  }
  source_out.assign(reinterpret_cast<const char*>(base + l.source), h.source_bytes);
  if (end_out) *end_out = {offset + l.end, h.sections};
  owner->file = map;
  return World(w, std::move(owner));
}

Snapshot load_snapshot(const std::string& path) {
  std::shared_ptr<Mapping> map = read_whole(path);
  const auto* base = static_cast<const unsigned char*>(map->address);
  if (map->bytes < sizeof kMagic || std::memcmp(base, kMagic, sizeof kMagic) != 0) {
    refuse(path, "not a capsweep world snapshot (no CWSW magic)");
  }
  if (map->bytes < 20) refuse(path, "truncated: " + std::to_string(map->bytes) + " bytes, shorter than the header");
  std::uint32_t version, byte_order;
  std::memcpy(&version, base + 8, 4);
  std::memcpy(&byte_order, base + 16, 4);
  if (byte_order != kByteOrder) refuse(path, "written on a machine of the other byte order");
  if (version == kInstancedSnapshotVersion) return load_instanced(path, map);
  std::string source;
  WorldEnd end;
  World world = load_image(path, map, 0, map->bytes, source, &end);
  std::vector<SnapshotSection> sections = read_sections(path, *map, end.end, end.sections);
  return Snapshot{std::move(world), std::move(source), map->bytes, std::move(sections)};
}

}  // namespace capsweep
