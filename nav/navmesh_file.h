// The CWNM navmesh file (docs/FORMATS.md): what NavMesh::read and NavMesh::write share with the
// fuzz target. Internal to nav/.
#pragma once

#include <cstddef>
#include <cstdint>

namespace capsweep {

inline constexpr char kNavMeshMagic[4] = {'C', 'W', 'N', 'M'};
inline constexpr std::uint32_t kNavMeshVersion = 1;
// The checksum in a file's last 8 bytes, over every byte before them (FNV-1a, 64 bits).
std::uint64_t navmesh_checksum(const std::uint8_t* bytes, std::size_t size);

}  // namespace capsweep
