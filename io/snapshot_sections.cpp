// Sections after a snapshot's world (docs/FORMATS.md, "Sections"): named blocks of bytes for the
// layers above the world (the navmesh), each with a header of its own and an XXH3 checksum, so
// that the world's format stays as it is and a reader checks every byte of the file.
#include <algorithm>
#include <cstring>
#include <set>
#include <stdexcept>

#include "io/snapshot_image.h"

namespace capsweep {
namespace {

constexpr char kSectionMagic[8] = {'C', 'W', 'S', 'W', 'S', 'E', 'C', 'T'};

struct SectionHeader {
  char magic[8];
  char name[16];                  // 1 to 15 printable ASCII characters, then zeros
  std::uint64_t bytes;            // what follows this header
  std::uint64_t checksum;         // snapshot_checksum of those bytes
  std::uint64_t spare[2];
  std::uint64_t header_checksum;  // snapshot_checksum of every byte before this field
};
static_assert(sizeof(SectionHeader) == 64);

// Why `name` cannot name a section, or "".
std::string name_problem(std::string_view name) {
  if (name.empty() || name.size() > 15) return "a section's name is 1 to 15 characters";
  if (!std::all_of(name.begin(), name.end(), [](char c) { return c > ' ' && c < 127; })) {
    return "a section's name is printable ASCII without spaces";
  }
  return "";
}

}  // namespace

const SnapshotSection* Snapshot::section(const std::string& name) const {
  for (const SnapshotSection& s : sections) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

void check_sections(std::span<const SnapshotSection> sections) {
  if (sections.size() > kMaxSnapshotSections) {
    throw std::invalid_argument("a snapshot holds at most " + std::to_string(kMaxSnapshotSections) + " sections");
  }
  std::set<std::string_view> names;
  for (const SnapshotSection& s : sections) {
    if (const std::string problem = name_problem(s.name); !problem.empty()) {
      throw std::invalid_argument(problem + " (\"" + s.name + "\")");
    }
    if (!names.insert(s.name).second) throw std::invalid_argument("two sections named \"" + s.name + "\"");
  }
}

void append_sections(std::vector<unsigned char>& file, std::span<const SnapshotSection> sections) {
  for (const SnapshotSection& s : sections) {
    file.resize(align_up(file.size()), 0);
    SectionHeader h{};
    std::memcpy(h.magic, kSectionMagic, sizeof h.magic);
    std::memcpy(h.name, s.name.data(), s.name.size());
    h.bytes = s.bytes.size();
    h.checksum = snapshot_checksum(s.bytes.data(), s.bytes.size());
    h.header_checksum = snapshot_checksum(&h, offsetof(SectionHeader, header_checksum));
    const auto* header = reinterpret_cast<const unsigned char*>(&h);
    file.insert(file.end(), header, header + sizeof h);
    file.insert(file.end(), s.bytes.begin(), s.bytes.end());
  }
}

std::vector<SnapshotSection> read_sections(const std::string& path, const Mapping& map, std::uint64_t world_end,
                                           std::uint64_t count) {
  const auto* base = static_cast<const unsigned char*>(map.address);
  std::vector<SnapshotSection> sections;
  std::uint64_t at = world_end;
  for (std::uint64_t k = 0; k < count; ++k) {
    const std::string record = "section " + std::to_string(k);
    const std::uint64_t begin = align_up(at);
    if (begin > map.bytes || map.bytes - begin < sizeof(SectionHeader)) {
      refuse(path, record + ": truncated (the header names " + std::to_string(count) + " sections)");
    }
    if (std::any_of(base + at, base + begin, [](unsigned char c) { return c != 0; })) {
      refuse(path, record + ": bytes of nothing before it are not zero");
    }
    SectionHeader h;
    std::memcpy(&h, base + begin, sizeof h);
    if (std::memcmp(h.magic, kSectionMagic, sizeof h.magic) != 0) refuse(path, record + ": no section magic");
    if (h.header_checksum != snapshot_checksum(&h, offsetof(SectionHeader, header_checksum))) {
      refuse(path, record + ": its header is corrupt (checksum mismatch)");
    }
    const std::size_t length = std::find(h.name, h.name + sizeof h.name, '\0') - h.name;
    const std::string name(h.name, length);
    if (!name_problem(name).empty() || std::any_of(h.name + length, h.name + sizeof h.name, [](char c) { return c != 0; }) ||
        h.spare[0] != 0 || h.spare[1] != 0) {
      refuse(path, record + ": a name or a field out of range");
    }
    const std::uint64_t data = begin + sizeof h;
    if (h.bytes > map.bytes - data) refuse(path, record + " (" + name + "): truncated");
    if (h.checksum != snapshot_checksum(base + data, h.bytes)) {
      refuse(path, record + " (" + name + "): the contents are corrupt (checksum mismatch)");
    }
    for (const SnapshotSection& s : sections) {
      if (s.name == name) refuse(path, record + ": a second section named " + name);
    }
    sections.push_back({name, std::string(reinterpret_cast<const char*>(base + data), h.bytes)});
    at = data + h.bytes;
  }
  if (at != map.bytes) refuse(path, "has " + std::to_string(map.bytes - at) + " bytes beyond what the header describes");
  return sections;
}

}  // namespace capsweep
