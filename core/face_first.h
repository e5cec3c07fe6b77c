// Whether a capsule moving by d meets a triangle first on its face, told without the exact
// kernel where that is certain, and then the kernel's answer computed from the face alone: the
// sweeps movement runs against the one triangle an agent stands on (its carried ground, the
// check that it still stands there). The exact kernel classifies the triangle and walks the 20
// parts of its rounded prism, about 1,700 instructions for a person over a floor; telling the
// face first costs about a third of that, and the face's entry a classification and a division.
#pragma once

#include <capsweep/values.h>

namespace capsweep::detail {

struct FaceFirst {
  enum class Kind { unknown, miss, face };
  Kind kind = Kind::unknown;
  // For `face`: the kernel's unit normal of the triangle's plane, turned to the capsule's side,
  // and whether the end a meets it first (b lies higher above it by a margin).
  Vec3d normal;
  bool a_first = false;
};

// For a capsule and motion that passed check_sweep and a triangle that passed check_triangle.
// `miss`: sweep_capsule_triangle reports no hit. `face`: it reports a hit at some t <= 1 on the
// face (Feature::face, not starting in contact). `unknown` otherwise, and wherever it could not
// be told with margins far above rounding: a capsule within 1e-6 of the magnitudes of its reach
// of the plane (or across it), a contact near t = 1, a triangle too thin for its normal to be
// well conditioned, a path passing within 1 % of the radius of an edge's side, a ray or segment.
FaceFirst face_first(const Capsule& capsule, const Vec3& motion, const Triangle& triangle);

// sweep_capsule_triangle_unchecked's answer, bit for bit: where face_first tells it, a miss or
// the face entered by the end a (the part the kernel finds first there, with its arithmetic);
// elsewhere the kernel itself, on the frame already made. Returns whether face_first told it.
// `exact_t`, when given, receives the entry in double before its rounding (the kernel's Best::t;
// +inf on a miss); a ray or segment (radius 0) goes to the kernel whole and leaves it alone.
bool sweep_face_first(const Capsule& capsule, const Vec3& motion, const Triangle& triangle, SweepHit& hit,
                      double* exact_t = nullptr);

}  // namespace capsweep::detail
