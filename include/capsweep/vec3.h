// A 3-vector of float (storage, the public API) or double (inside the exact kernels).
#pragma once

#include <cmath>

namespace capsweep {

template <class T>
struct Vec3T {
  T x{}, y{}, z{};

  constexpr Vec3T() = default;
  constexpr Vec3T(T x_, T y_, T z_) : x(x_), y(y_), z(z_) {}
  template <class U>
  constexpr explicit Vec3T(const Vec3T<U>& o) : x(T(o.x)), y(T(o.y)), z(T(o.z)) {}

  constexpr T operator[](int i) const { return i == 0 ? x : (i == 1 ? y : z); }
  constexpr Vec3T operator+(const Vec3T& o) const { return {x + o.x, y + o.y, z + o.z}; }
  constexpr Vec3T operator-(const Vec3T& o) const { return {x - o.x, y - o.y, z - o.z}; }
  constexpr Vec3T operator-() const { return {-x, -y, -z}; }
  constexpr Vec3T operator*(T s) const { return {x * s, y * s, z * s}; }
  constexpr Vec3T operator/(T s) const { return {x / s, y / s, z / s}; }
  constexpr Vec3T& operator+=(const Vec3T& o) { x += o.x; y += o.y; z += o.z; return *this; }
  constexpr Vec3T& operator-=(const Vec3T& o) { x -= o.x; y -= o.y; z -= o.z; return *this; }
  constexpr bool operator==(const Vec3T&) const = default;
};

using Vec3 = Vec3T<float>;
using Vec3d = Vec3T<double>;

template <class T> constexpr Vec3T<T> operator*(T s, const Vec3T<T>& v) { return v * s; }
template <class T> constexpr T dot(const Vec3T<T>& a, const Vec3T<T>& b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
template <class T> constexpr Vec3T<T> cross(const Vec3T<T>& a, const Vec3T<T>& b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
template <class T> constexpr T length_sq(const Vec3T<T>& v) { return dot(v, v); }
template <class T> T length(const Vec3T<T>& v) { return std::sqrt(dot(v, v)); }
// Plain compares, not std::fmin/fmax (library calls on hot paths); like them, a NaN in `a`
// yields b's component (inputs are validated before they get here).
template <class T> Vec3T<T> min(const Vec3T<T>& a, const Vec3T<T>& b) {
  return {a.x < b.x ? a.x : b.x, a.y < b.y ? a.y : b.y, a.z < b.z ? a.z : b.z};
}
template <class T> Vec3T<T> max(const Vec3T<T>& a, const Vec3T<T>& b) {
  return {a.x > b.x ? a.x : b.x, a.y > b.y ? a.y : b.y, a.z > b.z ? a.z : b.z};
}
template <class T> T max_abs_component(const Vec3T<T>& v) {
  const T x = std::fabs(v.x), y = std::fabs(v.y), z = std::fabs(v.z);
  return x > y ? (x > z ? x : z) : (y > z ? y : z);
}
template <class T> bool is_finite(const Vec3T<T>& v) {
  return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z);
}

inline Vec3d to_double(const Vec3& v) { return Vec3d(v); }
inline Vec3 to_float(const Vec3d& v) { return Vec3(v); }

}  // namespace capsweep
