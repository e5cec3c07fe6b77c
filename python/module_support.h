// What the Python module's files share: the capsweep.Error type and the C API's failures raised
// as it, records read in place from numpy arrays, movement settings from a dict, and the world
// handle. Internal to python/.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <capsweep/capsweep_c_io.h>

namespace capsweep::python {

namespace py = pybind11;

// A C API failure as a Python exception (capsweep.Error, a ValueError).
inline py::object error_type;  // one for the module, set by _set_error_type
[[noreturn]] inline void raise_last_error() {
  PyErr_SetString(error_type.ptr(), cs_last_error());
  throw py::error_already_set();
}
inline void check(int code) {
  if (code != CS_OK) raise_last_error();
}

// A contiguous 1-d array of `count` records of type T (its itemsize checked), in place.
template <class T>
T* records_of(const py::array& a, std::size_t& count, bool writable, const char* what,
              std::size_t record_bytes = sizeof(T)) {
  if (a.itemsize() != py::ssize_t(record_bytes) || a.ndim() != 1 || !(a.flags() & py::array::c_style) ||
      (writable && !a.writeable())) {
    throw std::invalid_argument(std::string(what) + ": expected a contiguous 1-d array of " +
                                std::to_string(record_bytes) + "-byte records");
  }
  count = std::size_t(a.shape(0));
  return static_cast<T*>(const_cast<void*>(a.data()));
}

struct PyWorld {
  cs_world* world = nullptr;
  explicit PyWorld(cs_world* w) : world(w) {}
  PyWorld(const PyWorld&) = delete;
  ~PyWorld() { cs_world_free(world); }
};

// A cs_move_cache, owned (capsweep.MoveCache).
struct PyMoveCache {
  cs_move_cache* cache = nullptr;
  PyMoveCache();
  PyMoveCache(const PyMoveCache&) = delete;
  ~PyMoveCache() { cs_move_cache_free(cache); }
};

// One movement setting's value as T; a value of another type is refused naming the setting
// (pybind's own cast error names neither it nor the value).
template <class T>
T setting(const std::string& key, py::handle value) {
  try {
    return value.cast<T>();
  } catch (const py::cast_error&) {
    const char* wanted = std::is_same_v<T, bool> ? "true or false" : std::is_integral_v<T> ? "an integer" : "a number";
    throw std::invalid_argument("movement setting '" + key + "' must be " + wanted + ", got " +
                                std::string(py::repr(value)));
  }
}

inline cs_move_settings move_settings(const py::dict& d) {
  cs_move_settings s;
  cs_move_settings_default(&s);
  for (const auto& [key, value] : d) {
    const std::string k = py::str(key);
    if (k == "skin") s.skin = setting<float>(k, value);
    else if (k == "backoff") s.backoff = setting<float>(k, value);
    else if (k == "max_iterations") s.max_iterations = setting<std::int32_t>(k, value);
    else if (k == "min_distance") s.min_distance = setting<float>(k, value);
    else if (k == "max_depenetration_iterations") s.max_depenetration_iterations = setting<std::int32_t>(k, value);
    else if (k == "max_slope_degrees") s.max_slope_degrees = setting<float>(k, value);
    else if (k == "step_height") s.step_height = setting<float>(k, value);
    else if (k == "snap_distance") s.snap_distance = setting<float>(k, value);
    else if (k == "ground_distance") s.ground_distance = setting<float>(k, value);
    else if (k == "gravity") s.gravity = setting<float>(k, value);
    else if (k == "max_fall_speed") s.max_fall_speed = setting<float>(k, value);
    else if (k == "dt") s.dt = setting<float>(k, value);
    else if (k == "agents_collide") s.agents_collide = setting<bool>(k, value) ? 1 : 0;
    else throw std::invalid_argument("unknown movement setting '" + k + "' (default_move_settings() lists them)");
  }
  return s;
}

// capsweep.NavMesh and capsweep.NavCrowd's native halves (nav_bindings.cpp).
void bind_navigation(py::module_& m);

}  // namespace capsweep::python
