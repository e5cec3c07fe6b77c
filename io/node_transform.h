// A glTF node's transform in double (internal to io/): composed down the node tree, then read as
// an instance's rigid pose, or refused with the reason. Kept in double from the file's numbers
// (not Assimp's float matrices) so that a node at (4, 0, 12) is posed exactly there.
#pragma once

#include <string>

#include <capsweep/instances.h>

namespace capsweep {

// p -> m * (p, 1): a 3 x 4 matrix, row-major (the last column the translation).
struct Affine {
  double m[3][4] = {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}};
};

Affine operator*(const Affine& a, const Affine& b);

// glTF's TRS (translation, rotation x y z w, scale): T * R * S. The rotation is normalised here
// (glTF files round their unit quaternions); a zero one is refused by the caller.
Affine from_trs(const double t[3], const double q[4], const double s[3]);
// glTF's `matrix`: 16 numbers, column-major; the last row must be 0 0 0 1 (the caller checks).
Affine from_column_major(const double m[16]);

// The pose `a` is when it is a rotation and a translation (its rows orthonormal within 1e-5, as
// a pose's quaternion is, and no mirror): "" and `pose` set; else why not ("scales by (1, 1, 2)",
// "shears", "mirrors").
std::string rigid_pose(const Affine& a, Pose& pose);

}  // namespace capsweep
