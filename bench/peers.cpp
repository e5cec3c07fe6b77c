#include "bench/peers.h"

#include <embree3/rtcore.h>

#include <btBulletCollisionCommon.h>

#include <cmath>
#include <limits>
#include <stdexcept>

namespace capsweep::bench {

// ---- Embree ------------------------------------------------------------------------------

struct EmbreeScene::Impl {
  RTCDevice device = nullptr;
  RTCScene scene = nullptr;
};

EmbreeScene::EmbreeScene(std::span<const Triangle> triangles) : impl_(std::make_unique<Impl>()) {
  impl_->device = rtcNewDevice(nullptr);
  if (!impl_->device) throw std::runtime_error("Embree: rtcNewDevice failed");
  impl_->scene = rtcNewScene(impl_->device);
  RTCGeometry geometry = rtcNewGeometry(impl_->device, RTC_GEOMETRY_TYPE_TRIANGLE);
  const std::size_t n = triangles.size();
  auto* vertices = static_cast<float*>(
      rtcSetNewGeometryBuffer(geometry, RTC_BUFFER_TYPE_VERTEX, 0, RTC_FORMAT_FLOAT3, 3 * sizeof(float), 3 * n));
  auto* indices = static_cast<unsigned*>(
      rtcSetNewGeometryBuffer(geometry, RTC_BUFFER_TYPE_INDEX, 0, RTC_FORMAT_UINT3, 3 * sizeof(unsigned), n));
  for (std::size_t i = 0; i < n; ++i) {
    for (int k = 0; k < 3; ++k) {
      vertices[9 * i + 3 * k + 0] = triangles[i].v[k].x;
      vertices[9 * i + 3 * k + 1] = triangles[i].v[k].y;
      vertices[9 * i + 3 * k + 2] = triangles[i].v[k].z;
      indices[3 * i + k] = unsigned(3 * i + k);
    }
  }
  rtcCommitGeometry(geometry);
  rtcAttachGeometry(impl_->scene, geometry);
  rtcReleaseGeometry(geometry);
  rtcCommitScene(impl_->scene);
}

EmbreeScene::~EmbreeScene() {
  if (impl_->scene) rtcReleaseScene(impl_->scene);
  if (impl_->device) rtcReleaseDevice(impl_->device);
}

PeerHit EmbreeScene::cast(const SweepQuery& q) const {
  const Vec3 c = (q.capsule.a + q.capsule.b) * 0.5f;
  RTCIntersectContext context;
  rtcInitIntersectContext(&context);
  RTCRayHit rh{};
  rh.ray.org_x = c.x, rh.ray.org_y = c.y, rh.ray.org_z = c.z;
  rh.ray.dir_x = q.motion.x, rh.ray.dir_y = q.motion.y, rh.ray.dir_z = q.motion.z;
  rh.ray.tnear = 0.f;
  rh.ray.tfar = 1.f;  // the direction is the whole motion: t is its fraction, as in a sweep
  rh.ray.mask = std::numeric_limits<unsigned>::max();
  rh.hit.geomID = RTC_INVALID_GEOMETRY_ID;
  rh.hit.instID[0] = RTC_INVALID_GEOMETRY_ID;
  rtcIntersect1(impl_->scene, &context, &rh);
  if (rh.hit.geomID == RTC_INVALID_GEOMETRY_ID) return {};
  return {true, rh.ray.tfar};
}

// ---- Bullet ------------------------------------------------------------------------------

struct BulletScene::Impl {
  std::vector<btScalar> vertices;
  std::vector<int> indices;
  std::unique_ptr<btTriangleIndexVertexArray> mesh;
  std::unique_ptr<btBvhTriangleMeshShape> shape;
  btCollisionObject object;
  btDefaultCollisionConfiguration configuration;
  std::unique_ptr<btCollisionDispatcher> dispatcher;
  btDbvtBroadphase broadphase;
  std::unique_ptr<btCollisionWorld> world;
};

BulletScene::BulletScene(std::span<const Triangle> triangles) : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  for (const Triangle& t : triangles) {
    for (const Vec3& v : t.v) {
      m.indices.push_back(int(m.vertices.size() / 3));
      m.vertices.insert(m.vertices.end(), {v.x, v.y, v.z});
    }
  }
  m.mesh = std::make_unique<btTriangleIndexVertexArray>(int(triangles.size()), m.indices.data(), int(3 * sizeof(int)),
                                                        int(m.vertices.size() / 3), m.vertices.data(),
                                                        int(3 * sizeof(btScalar)));
  m.shape = std::make_unique<btBvhTriangleMeshShape>(m.mesh.get(), true);
  m.object.setCollisionShape(m.shape.get());
  m.dispatcher = std::make_unique<btCollisionDispatcher>(&m.configuration);
  m.world = std::make_unique<btCollisionWorld>(m.dispatcher.get(), &m.broadphase, &m.configuration);
  m.world->addCollisionObject(&m.object);
  m.world->updateAabbs();
}

BulletScene::~BulletScene() { impl_->world->removeCollisionObject(&impl_->object); }

PeerHit BulletScene::sweep(const SweepQuery& q) const {
  const Vec3 c = (q.capsule.a + q.capsule.b) * 0.5f;
  const Vec3 axis = q.capsule.b - q.capsule.a;
  const btCapsuleShape capsule(q.capsule.radius, std::sqrt(axis.x * axis.x + axis.y * axis.y + axis.z * axis.z));
  btTransform from, to;
  from.setIdentity();
  to.setIdentity();
  from.setOrigin({c.x, c.y, c.z});
  to.setOrigin({c.x + q.motion.x, c.y + q.motion.y, c.z + q.motion.z});
  btCollisionWorld::ClosestConvexResultCallback result(from.getOrigin(), to.getOrigin());
  impl_->world->convexSweepTest(&capsule, from, to, result);
  if (!result.hasHit()) return {};
  return {true, result.m_closestHitFraction};
}

}  // namespace capsweep::bench
