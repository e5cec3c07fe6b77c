// What a NavMesh holds: Detour's tiled mesh and the settings it was built with. Internal to nav/.
#pragma once

#include <memory>

#include <recastnavigation/DetourNavMesh.h>
#include <recastnavigation/DetourNavMeshQuery.h>

#include <capsweep/navigation.h>

namespace capsweep {

struct NavMeshFree {
  void operator()(dtNavMesh* mesh) const { dtFreeNavMesh(mesh); }
};
struct NavQueryFree {
  void operator()(dtNavMeshQuery* query) const { dtFreeNavMeshQuery(query); }
};
using NavQueryPtr = std::unique_ptr<dtNavMeshQuery, NavQueryFree>;

// Polygons the build marks walkable carry this flag; the crowd's filter includes only it.
inline constexpr unsigned short kWalkablePolygon = 1;
// Nodes a query may search: enough for a path across 256 corridor polygons many times over.
inline constexpr int kQueryNodes = 4096;

struct NavMesh::Data {
  NavMeshSettings settings;
  std::unique_ptr<dtNavMesh, NavMeshFree> mesh;

  // A query over this mesh (Detour's queries are not thread-safe: one per worker).
  NavQueryPtr query() const;
  // The filter every search uses: walkable polygons, every area at cost 1.
  const dtQueryFilter& filter() const { return filter_; }
  // How far around a point its polygon is searched: a radius across, two climbs up and down
  // (the feet rest a skin above the floor; the detail mesh stays within a cell height of it).
  Vec3 reach() const;

  Data();

 private:
  dtQueryFilter filter_;
};

}  // namespace capsweep
