// Reading a NavMesh: nearest points, paths, random reachable points and its polygons.
#include <cmath>
#include <stdexcept>

#include <recastnavigation/DetourCommon.h>

#include "core/random.h"
#include "nav/navmesh_data.h"

namespace capsweep {

NavMesh::Data::Data() {
  filter_.setIncludeFlags(kWalkablePolygon);
  filter_.setExcludeFlags(0);
}

NavQueryPtr NavMesh::Data::query() const {
  NavQueryPtr q(dtAllocNavMeshQuery());
  if (!q || !dtStatusSucceed(q->init(mesh.get(), kQueryNodes))) throw std::runtime_error("navmesh: out of memory for a query");
  return q;
}

Vec3 NavMesh::Data::reach() const {
  return {settings.agent_radius, 2 * settings.climb + settings.agent_radius, settings.agent_radius};
}

const NavMeshSettings& NavMesh::settings() const { return data_->settings; }

NavMeshStats NavMesh::stats() const {
  NavMeshStats s;
  const dtNavMesh& mesh = *data_->mesh;
  for (int i = 0; i < mesh.getMaxTiles(); ++i) {
    const dtMeshTile* tile = mesh.getTile(i);
    if (!tile || !tile->header || tile->header->polyCount == 0) continue;
    ++s.tiles;
    s.polygons += std::size_t(tile->header->polyCount);
    s.vertices += std::size_t(tile->header->vertCount);
    s.bounds.grow(Vec3{tile->header->bmin[0], tile->header->bmin[1], tile->header->bmin[2]});
    s.bounds.grow(Vec3{tile->header->bmax[0], tile->header->bmax[1], tile->header->bmax[2]});
  }
  return s;
}

bool NavMesh::nearest(const Vec3& point, const Vec3& reach, Vec3& out) const {
  for (float r : {reach.x, reach.y, reach.z}) {
    if (!(r >= 0 && r <= kMaxNavReach)) {
      throw std::invalid_argument("nearest: reach: each half extent must be 0 to 1000 m");
    }
  }
  NavQueryPtr q = data_->query();
  dtPolyRef ref = 0;
  float p[3];
  if (!dtStatusSucceed(q->findNearestPoly(&point.x, &reach.x, &data_->filter(), &ref, p)) || ref == 0) return false;
  out = {p[0], p[1], p[2]};
  return true;
}

NavPath NavMesh::path(const Vec3& from, const Vec3& to) const {
  NavPath path;
  NavQueryPtr q = data_->query();
  const Vec3 reach = data_->reach();
  dtPolyRef start = 0, end = 0;
  float a[3], b[3];
  if (!dtStatusSucceed(q->findNearestPoly(&from.x, &reach.x, &data_->filter(), &start, a)) || start == 0) return path;
  if (!dtStatusSucceed(q->findNearestPoly(&to.x, &reach.x, &data_->filter(), &end, b)) || end == 0) return path;
  std::vector<dtPolyRef> polys(static_cast<std::size_t>(kQueryNodes));
  int count = 0;
  const dtStatus status = q->findPath(start, end, a, b, &data_->filter(), polys.data(), &count, int(polys.size()));
  if (dtStatusFailed(status) || count == 0) return path;
  path.complete = polys[std::size_t(count - 1)] == end && !dtStatusDetail(status, DT_PARTIAL_RESULT);
  float target[3];
  dtVcopy(target, b);
  if (!path.complete) q->closestPointOnPoly(polys[std::size_t(count - 1)], b, target, nullptr);
  std::vector<float> corners(3 * polys.size());
  int n = 0;
  q->findStraightPath(a, target, polys.data(), count, corners.data(), nullptr, nullptr, &n, int(polys.size()));
  for (int k = 0; k < n; ++k) {
    const Vec3 c{corners[3 * std::size_t(k)], corners[3 * std::size_t(k) + 1], corners[3 * std::size_t(k) + 2]};
    if (!path.corners.empty()) path.length += length(c - path.corners.back());
    path.corners.push_back(c);
  }
  return path;
}

namespace {
// Detour draws random points with a plain function pointer: the stream it reads is the caller's,
// one per thread.
thread_local Random* random_stream = nullptr;
float draw() { return float(random_stream->uniform()); }
}  // namespace

bool NavMesh::random_reachable(const Vec3& from, std::uint64_t seed, Vec3& out) const {
  NavQueryPtr q = data_->query();
  const Vec3 reach = data_->reach();
  dtPolyRef start = 0, ref = 0;
  float a[3], p[3];
  if (!dtStatusSucceed(q->findNearestPoly(&from.x, &reach.x, &data_->filter(), &start, a)) || start == 0) return false;
  Random rng(seed);
  random_stream = &rng;
  // A radius past the whole mesh: every polygon connected to the start may be drawn, by area.
  const dtStatus status = q->findRandomPointAroundCircle(start, a, 1e9f, &data_->filter(), draw, &ref, p);
  random_stream = nullptr;
  if (dtStatusFailed(status) || ref == 0) return false;
  out = {p[0], p[1], p[2]};
  return true;
}

std::vector<Triangle> NavMesh::triangles() const {
  std::vector<Triangle> out;
  const dtNavMesh& mesh = *data_->mesh;
  for (int i = 0; i < mesh.getMaxTiles(); ++i) {
    const dtMeshTile* tile = mesh.getTile(i);
    if (!tile || !tile->header) continue;
    for (int p = 0; p < tile->header->polyCount; ++p) {
      const dtPoly& poly = tile->polys[p];
      const dtPolyDetail& detail = tile->detailMeshes[p];
      for (int t = 0; t < detail.triCount; ++t) {
        const unsigned char* tri = &tile->detailTris[(detail.triBase + unsigned(t)) * 4];
        Triangle out_t;
        for (int k = 0; k < 3; ++k) {
          const float* v = tri[k] < poly.vertCount ? &tile->verts[poly.verts[tri[k]] * 3]
                                                   : &tile->detailVerts[(detail.vertBase + tri[k] - poly.vertCount) * 3];
          out_t.v[k] = {v[0], v[1], v[2]};
        }
        out.push_back(out_t);
      }
    }
  }
  return out;
}

}  // namespace capsweep
