#include "io/node_transform.h"

#include <cmath>
#include <cstdio>

namespace capsweep {

Affine operator*(const Affine& a, const Affine& b) {
  Affine c;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 4; ++j) {
      c.m[i][j] = a.m[i][0] * b.m[0][j] + a.m[i][1] * b.m[1][j] + a.m[i][2] * b.m[2][j] + (j == 3 ? a.m[i][3] : 0.0);
    }
  }
  return c;
}

Affine from_trs(const double t[3], const double q[4], const double s[3]) {
  const double n = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  const double x = q[0] / n, y = q[1] / n, z = q[2] / n, w = q[3] / n;
  const double r[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)},
                          {2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)},
                          {2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)}};
  Affine a;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) a.m[i][j] = r[i][j] * s[j];
    a.m[i][3] = t[i];
  }
  return a;
}

Affine from_column_major(const double m[16]) {
  Affine a;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 4; ++j) a.m[i][j] = m[j * 4 + i];
  }
  return a;
}

std::string rigid_pose(const Affine& a, Pose& pose) {
  constexpr double kTolerance = 1e-5;  // as check_pose allows a quaternion's squared length
  double len2[3], dot[3];
  for (int j = 0; j < 3; ++j) {
    len2[j] = a.m[0][j] * a.m[0][j] + a.m[1][j] * a.m[1][j] + a.m[2][j] * a.m[2][j];
    const int k = (j + 1) % 3;
    dot[j] = a.m[0][j] * a.m[0][k] + a.m[1][j] * a.m[1][k] + a.m[2][j] * a.m[2][k];
  }
  for (int j = 0; j < 3; ++j) {
    if (!std::isfinite(len2[j]) || std::fabs(len2[j] - 1) > kTolerance) {
      char text[96];
      std::snprintf(text, sizeof text, "scales by (%.6g, %.6g, %.6g)", std::sqrt(len2[0]), std::sqrt(len2[1]),
                    std::sqrt(len2[2]));
      return text;
    }
  }
  for (int j = 0; j < 3; ++j) {
    if (!(std::fabs(dot[j]) <= kTolerance)) return "shears (its axes are not perpendicular)";
  }
  const double (&r)[3][4] = a.m;
  const double det = r[0][0] * (r[1][1] * r[2][2] - r[1][2] * r[2][1]) - r[0][1] * (r[1][0] * r[2][2] - r[1][2] * r[2][0]) +
                     r[0][2] * (r[1][0] * r[2][1] - r[1][1] * r[2][0]);
  if (!(det > 0)) return "mirrors (a negative scale)";
  for (int i = 0; i < 3; ++i) {
    if (!std::isfinite(r[i][3])) return "moves by a coordinate that is not finite";
  }
  // The quaternion of a rotation matrix from its largest component (Shepperd, "Quaternion from
  // rotation matrix", J. Guidance and Control 1(3), 1978), so that no division is by a small one.
  const double trace = r[0][0] + r[1][1] + r[2][2];
  double q[4];  // x y z w
  if (trace >= r[0][0] && trace >= r[1][1] && trace >= r[2][2]) {
    const double w4 = 2 * std::sqrt(1 + trace);
    q[3] = w4 / 4, q[0] = (r[2][1] - r[1][2]) / w4, q[1] = (r[0][2] - r[2][0]) / w4, q[2] = (r[1][0] - r[0][1]) / w4;
  } else if (r[0][0] >= r[1][1] && r[0][0] >= r[2][2]) {
    const double x4 = 2 * std::sqrt(1 + r[0][0] - r[1][1] - r[2][2]);
    q[0] = x4 / 4, q[1] = (r[0][1] + r[1][0]) / x4, q[2] = (r[0][2] + r[2][0]) / x4, q[3] = (r[2][1] - r[1][2]) / x4;
  } else if (r[1][1] >= r[2][2]) {
    const double y4 = 2 * std::sqrt(1 + r[1][1] - r[0][0] - r[2][2]);
    q[1] = y4 / 4, q[0] = (r[0][1] + r[1][0]) / y4, q[2] = (r[1][2] + r[2][1]) / y4, q[3] = (r[0][2] - r[2][0]) / y4;
  } else {
    const double z4 = 2 * std::sqrt(1 + r[2][2] - r[0][0] - r[1][1]);
    q[2] = z4 / 4, q[0] = (r[0][2] + r[2][0]) / z4, q[1] = (r[1][2] + r[2][1]) / z4, q[3] = (r[1][0] - r[0][1]) / z4;
  }
  const double n = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  const double sign = q[3] < 0 ? -1 : 1;  // w >= 0: one of the two quaternions of a rotation
  pose.rotation = {sign * q[0] / n, sign * q[1] / n, sign * q[2] / n, sign * q[3] / n};
  pose.position = Vec3d(r[0][3], r[1][3], r[2][3]);
  return "";
}

}  // namespace capsweep
