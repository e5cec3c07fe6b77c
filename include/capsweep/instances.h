// Parts of a world that move: a prototype mesh placed by rigid poses (World's instance
// constructor and World::posed, <capsweep/world.h>).
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include <capsweep/values.h>

namespace capsweep {

// A rotation as a unit quaternion (x, y, z the vector part, w the scalar part). Its squared length
// within 1e-5 of 1, it is normalised in double; farther, it is refused.
struct Quat {
  double x = 0, y = 0, z = 0, w = 1;
};

// A rigid placement: a local point p goes to rotation * p + position. Double, so that a pose
// 1,000 km from the origin still places a triangle to the float it would have as a world vertex.
struct Pose {
  Vec3d position;
  Quat rotation;
};

// One placed copy of a prototype (World's instance constructor).
struct Instance {
  std::uint32_t id = 0;         // the caller's name for it: unique in a world (World::posed names it)
  std::uint32_t prototype = 0;  // which of the world's prototypes it places
  Pose pose;
  std::uint32_t layers = kDefaultLayers;  // every triangle of the instance is on these (never 0)
};

// A new pose for the instance `id` (World::posed).
struct InstancePose {
  std::uint32_t id = 0;
  Pose pose;
};

// The world-space vertex a pose gives a prototype's vertex: rotation * v + position in double,
// rounded to float. An instance's triangles are exactly these (placed(pose, triangle)), so a
// world with instances answers as the world with their triangles baked in (the tests' oracle).
Vec3 placed(const Pose& pose, const Vec3& v);
Triangle placed(const Pose& pose, const Triangle& t);

// Why a pose is refused ("" when it is not): a coordinate that is NaN, infinite or beyond
// kMaxCoordinate, or a rotation that is not a unit quaternion.
std::string check_pose(const Pose& pose);

}  // namespace capsweep
