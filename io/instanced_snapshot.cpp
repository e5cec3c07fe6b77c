// CWSW version 10: a world with instances, as a container of version 9 images (docs/FORMATS.md).
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <iterator>

#include "io/snapshot_image.h"
#include "world/world_arrays.h"

namespace capsweep {

namespace {

// A world with instances or tiles (version 10): this header, the part table (where each image
// lies), the instance records and the tile records, then the static part's image, each
// prototype's and each tile's mesh's, each a version 9 image on a 64-byte boundary with its own
// header and checksums.
struct InstancedHeader {
  char magic[8];
  std::uint32_t version;       // kInstancedSnapshotVersion
  std::uint32_t header_bytes;  // 128
  std::uint32_t byte_order;
  std::uint32_t prototypes;    // images after the static part's
  std::uint64_t instances;     // records
  std::uint64_t table_bytes;   // the part table and the records, after this header
  std::uint64_t table_checksum;
  std::uint64_t file_bytes;  // where the last part ends: the file's end, unless sections follow
  std::uint64_t tiles;  // records after the instances', images after the prototypes'
  std::uint64_t sections;  // after the last part
  std::uint64_t spare[6];
  std::uint64_t header_checksum;  // snapshot_checksum of every byte before this field
};
static_assert(sizeof(InstancedHeader) == 128);

struct PartEntry {
  std::uint64_t offset, bytes;
};
static_assert(sizeof(PartEntry) == 16);

// One instance as the file holds it (the C API's cs_instance, field for field). A tile's record
// is the same: its id, its image among the tiles' (`prototype`), its origin, no rotation
// (0, 0, 0, 1), its layers.
struct InstanceRecord {
  std::uint32_t id, prototype;
  double position[3];
  double rotation[4];
  std::uint32_t layers, reserved;
};
static_assert(sizeof(InstanceRecord) == 72);

// The most prototypes and instances a file may name (each costs a record; far above any level).
constexpr std::uint64_t kMaxPrototypes = 1u << 20, kMaxInstances = 1u << 26, kMaxTiles = 1u << 20;

InstanceRecord record_of(const Instance& in) {
  return InstanceRecord{in.id,
                        in.prototype,
                        {in.pose.position.x, in.pose.position.y, in.pose.position.z},
                        {in.pose.rotation.x, in.pose.rotation.y, in.pose.rotation.z, in.pose.rotation.w},
                        in.layers,
                        0};
}

}  // namespace

std::vector<unsigned char> instanced_file(const WorldArrays& w, const std::string& source, std::uint32_t sections) {
  const InstanceSet& set = *w.instances;
  std::vector<std::vector<unsigned char>> images;
  images.push_back(image_of(*set.static_part, source));
  for (const WorldArrays* p : set.prototype_arrays) images.push_back(image_of(*p, ""));  // the tiles' last
  std::vector<InstanceRecord> records;
  for (const Instance& in : set.given) records.push_back(record_of(in));
  for (std::size_t k = 0; k < set.tiles.size(); ++k) {
    const Tile& t = set.tiles[k];
    records.push_back(record_of(Instance{t.id, std::uint32_t(k), Pose{t.origin, Quat{}}, t.layers}));
  }
  const std::uint64_t table = images.size() * sizeof(PartEntry) + records.size() * sizeof(InstanceRecord);
  std::vector<PartEntry> parts(images.size());
  std::uint64_t at = align_up(sizeof(InstancedHeader) + table);
  for (std::size_t k = 0; k < images.size(); ++k) {
    parts[k] = {at, images[k].size()};
    at = align_up(at + images[k].size());
  }
  std::vector<unsigned char> file(parts.back().offset + parts.back().bytes, 0);
  std::memcpy(file.data() + sizeof(InstancedHeader), parts.data(), parts.size() * sizeof(PartEntry));
  std::memcpy(file.data() + sizeof(InstancedHeader) + parts.size() * sizeof(PartEntry), records.data(),
              records.size() * sizeof(InstanceRecord));
  for (std::size_t k = 0; k < images.size(); ++k) std::memcpy(file.data() + parts[k].offset, images[k].data(), images[k].size());
  InstancedHeader h{};
  std::memcpy(h.magic, kMagic, sizeof kMagic);
  h.version = kInstancedSnapshotVersion;
  h.header_bytes = sizeof h;
  h.byte_order = kByteOrder;
  h.prototypes = std::uint32_t(images.size() - 1 - set.tiles.size());
  h.instances = set.given.size();
  h.tiles = set.tiles.size();
  h.table_bytes = table;
  h.table_checksum = snapshot_checksum(file.data() + sizeof h, table);
  h.file_bytes = file.size();
  h.sections = sections;
  h.header_checksum = snapshot_checksum(&h, offsetof(InstancedHeader, header_checksum));
  std::memcpy(file.data(), &h, sizeof h);
  return file;
}

// A world with instances (version 10): its table checked, each image loaded, the instances placed.
Snapshot load_instanced(const std::string& path, const std::shared_ptr<Mapping>& map) {
  const auto* base = static_cast<const unsigned char*>(map->address);
  if (map->bytes < sizeof(InstancedHeader)) refuse(path, "truncated: " + std::to_string(map->bytes) + " bytes, shorter than the header");
  InstancedHeader h;
  std::memcpy(&h, base, sizeof h);
  if (h.header_checksum != snapshot_checksum(&h, offsetof(InstancedHeader, header_checksum))) {
    refuse(path, "the header is corrupt (checksum mismatch)");
  }
  if (h.header_bytes != sizeof h || h.prototypes > kMaxPrototypes || h.instances > kMaxInstances || h.tiles > kMaxTiles ||
      h.sections > kMaxSnapshotSections ||
      std::any_of(std::begin(h.spare), std::end(h.spare), [](std::uint64_t x) { return x != 0; }) ||
      h.table_bytes != (h.prototypes + 1 + h.tiles) * sizeof(PartEntry) + (h.instances + h.tiles) * sizeof(InstanceRecord)) {
    refuse(path, "the header holds counts out of range");
  }
  if (map->bytes < h.file_bytes || (map->bytes > h.file_bytes && h.sections == 0)) {
    refuse(path, map->bytes < h.file_bytes ? "truncated: " + std::to_string(map->bytes) + " bytes, the header describes " +
                                                 std::to_string(h.file_bytes)
                                           : "has " + std::to_string(map->bytes - h.file_bytes) +
                                                 " bytes beyond what the header describes");
  }
  const std::uint64_t file_bytes = h.file_bytes;  // the world's: sections follow
  if (sizeof h + h.table_bytes > file_bytes) refuse(path, "truncated: no room for the part table");
  if (h.table_checksum != snapshot_checksum(base + sizeof h, h.table_bytes)) {
    refuse(path, "the part table or the instances are corrupt (checksum mismatch)");
  }
  std::vector<PartEntry> parts(h.prototypes + 1 + h.tiles);
  std::memcpy(parts.data(), base + sizeof h, parts.size() * sizeof(PartEntry));
  // Each image on a 64-byte boundary after the table, in order, none overlapping, inside the file,
  // and nothing but zeros between them (no byte of the file escapes a check).
  std::uint64_t after = sizeof h + h.table_bytes;
  for (std::size_t k = 0; k < parts.size(); ++k) {
    if (parts[k].offset % kAlign != 0 || parts[k].offset < after || parts[k].bytes > file_bytes ||
        parts[k].offset > file_bytes - parts[k].bytes || parts[k].offset - after >= kAlign ||
        std::any_of(base + after, base + parts[k].offset, [](unsigned char c) { return c != 0; })) {
      refuse(path, "part " + std::to_string(k) + " lies outside the file, overlaps another or follows bytes of nothing");
    }
    after = parts[k].offset + parts[k].bytes;
  }
  if (after != file_bytes) refuse(path, "has " + std::to_string(file_bytes - after) + " bytes beyond its last part");
  std::vector<SnapshotSection> sections = read_sections(path, *map, file_bytes, h.sections);
  std::string source, unused;
  const World static_part = load_image(path + ": the static part", map, parts[0].offset, parts[0].bytes, source);
  std::vector<World> prototypes;
  for (std::size_t k = 1; k <= h.prototypes; ++k) {
    prototypes.push_back(load_image(path + ": prototype " + std::to_string(k - 1), map, parts[k].offset, parts[k].bytes, unused));
  }
  const unsigned char* records = base + sizeof h + parts.size() * sizeof(PartEntry);
  auto read_record = [&](std::size_t k, const std::string& name) {
    InstanceRecord r;
    std::memcpy(&r, records + k * sizeof r, sizeof r);
    if (r.reserved != 0) refuse(path, name + ": reserved is not 0");
    return Instance{r.id, r.prototype,
                    Pose{Vec3d(r.position[0], r.position[1], r.position[2]),
                         Quat{r.rotation[0], r.rotation[1], r.rotation[2], r.rotation[3]}},
                    r.layers};
  };
  std::vector<Instance> instances(h.instances);
  for (std::size_t k = 0; k < instances.size(); ++k) instances[k] = read_record(k, "instance record " + std::to_string(k));
  std::vector<Tile> tiles;
  for (std::size_t k = 0; k < h.tiles; ++k) {
    const std::string name = "tile record " + std::to_string(k);
    const Instance r = read_record(h.instances + k, name);
    const Quat& q = r.pose.rotation;
    if (r.prototype != k || q.x != 0 || q.y != 0 || q.z != 0 || q.w != 1) {
      refuse(path, name + ": a tile names its own image and no rotation");
    }
    const PartEntry& part = parts[1 + h.prototypes + k];
    tiles.push_back(Tile{r.id, r.pose.position, r.layers, load_image(path + ": tile " + std::to_string(r.id), map, part.offset, part.bytes, unused)});
  }
  try {
    World world(static_part, std::move(prototypes), std::move(instances));
    if (!tiles.empty()) world = world.streamed(tiles);
    return Snapshot{std::move(world), std::move(source), map->bytes, std::move(sections)};
  } catch (const WorldError& e) {
    refuse(path, e.what());
  }
}

}  // namespace capsweep
