// The peers capsweep is measured against, called through their public APIs (Debian packages):
// Embree 3 casts one ray per query (the r -> 0 limit of a sweep: a ceiling, not a like-for-like
// answer) and Bullet 3 sweeps a btCapsuleShape against a btBvhTriangleMeshShape.
#pragma once

#include <memory>
#include <span>
#include <vector>

#include <capsweep/world.h>

namespace capsweep::bench {

// What a peer answers per query: whether it hit, and the fraction of the motion travelled.
struct PeerHit {
  bool hit = false;
  float t = 1.f;
};

class EmbreeScene {
 public:
  explicit EmbreeScene(std::span<const Triangle> triangles);
  ~EmbreeScene();
  EmbreeScene(const EmbreeScene&) = delete;
  EmbreeScene& operator=(const EmbreeScene&) = delete;
  // rtcIntersect1 from the capsule's centre along the motion, t in [0, 1].
  PeerHit cast(const SweepQuery& query) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

class BulletScene {
 public:
  explicit BulletScene(std::span<const Triangle> triangles);
  ~BulletScene();
  BulletScene(const BulletScene&) = delete;
  BulletScene& operator=(const BulletScene&) = delete;
  // convexSweepTest of a btCapsuleShape (Y axis: the workloads' capsules are vertical).
  PeerHit sweep(const SweepQuery& query) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace capsweep::bench
