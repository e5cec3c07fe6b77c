// The Python module: a thin layer over the C API (compiled into it), so Python answers exactly
// what C answers. Arrays arrive as contiguous buffers of the C structs (capsweep/__init__.py
// makes them so, without a copy when they already are) and answers are written in place into
// arrays allocated once; every batch runs with the GIL released.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <array>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <capsweep/capsweep_c.h>
#include <capsweep/query_file.h>
#include <capsweep/scene.h>
#include <capsweep/version.h>
#include <capsweep/world.h>

#include "capi/records.h"
#include "capi/world_handle.h"
#include "tools/builtin_scene.h"

namespace py = pybind11;

namespace {

using namespace capsweep;

// A C API failure as a Python exception (capsweep.Error, a ValueError).
py::object error_type;
[[noreturn]] void raise_last_error() {
  PyErr_SetString(error_type.ptr(), cs_last_error());
  throw py::error_already_set();
}
void check(int code) {
  if (code != CS_OK) raise_last_error();
}

// A contiguous 1-d array of `count` records of type T (its itemsize checked), in place.
template <class T>
T* records_of(const py::array& a, std::size_t& count, bool writable, const char* what) {
  if (a.itemsize() != py::ssize_t(sizeof(T)) || a.ndim() != 1 || !(a.flags() & py::array::c_style) ||
      (writable && !a.writeable())) {
    throw std::invalid_argument(std::string(what) + ": expected a contiguous 1-d array of " + std::to_string(sizeof(T)) +
                                "-byte records");
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

cs_move_settings move_settings(const py::dict& d) {
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

py::dict default_move_settings() {
  cs_move_settings s;
  cs_move_settings_default(&s);
  py::dict d;
  d["skin"] = s.skin;
  d["backoff"] = s.backoff;
  d["max_iterations"] = s.max_iterations;
  d["min_distance"] = s.min_distance;
  d["max_depenetration_iterations"] = s.max_depenetration_iterations;
  d["max_slope_degrees"] = s.max_slope_degrees;
  d["step_height"] = s.step_height;
  d["snap_distance"] = s.snap_distance;
  d["ground_distance"] = s.ground_distance;
  d["gravity"] = s.gravity;
  d["max_fall_speed"] = s.max_fall_speed;
  d["dt"] = s.dt;
  d["agents_collide"] = s.agents_collide != 0;
  return d;
}

// World._sweep and _sweep_ellipsoid: query records in, CWSR records (and statuses) out, through
// the C call `Sweep` with the GIL released.
template <class Query, int (*Sweep)(const cs_world*, const Query*, size_t, cs_sweep_hit*, int, int, uint8_t*)>
void sweep_records(const PyWorld& w, const py::array& in, py::array& out, int path, int threads, py::object status) {
  std::size_t n = 0, m_out = 0, m_status = 0;
  const auto* q = records_of<const Query>(in, n, false, "queries");
  auto* h = records_of<cs_sweep_hit>(out, m_out, true, "hits");
  std::uint8_t* s = nullptr;
  if (!status.is_none()) s = records_of<std::uint8_t>(status.cast<py::array>(), m_status, true, "status");
  if (m_out != n || (s && m_status != n)) throw std::invalid_argument("queries and answers differ in length");
  int code;
  {
    py::gil_scoped_release free;
    code = Sweep(w.world, q, n, h, path, threads, s);
  }
  check(code);
}

// sizeof and offsetof of every C struct, for the test that holds the numpy dtypes to them.
py::dict layouts() {
  py::dict all;
#define CS_FIELD(S, F) fields[#F] = offsetof(S, F)
  {
    py::dict fields;
    CS_FIELD(cs_sweep_query, capsule.a); CS_FIELD(cs_sweep_query, capsule.b);
    CS_FIELD(cs_sweep_query, capsule.radius); CS_FIELD(cs_sweep_query, motion);
    all["cs_sweep_query"] = py::make_tuple(sizeof(cs_sweep_query), fields);
  }
  {
    py::dict fields;
    CS_FIELD(cs_sweep_hit, hit); CS_FIELD(cs_sweep_hit, feature); CS_FIELD(cs_sweep_hit, reserved);
    CS_FIELD(cs_sweep_hit, t); CS_FIELD(cs_sweep_hit, normal); CS_FIELD(cs_sweep_hit, point);
    CS_FIELD(cs_sweep_hit, depth); CS_FIELD(cs_sweep_hit, triangle);
    all["cs_sweep_hit"] = py::make_tuple(sizeof(cs_sweep_hit), fields);
  }
  {
    py::dict fields;
    CS_FIELD(cs_ellipsoid_query, centre); CS_FIELD(cs_ellipsoid_query, radii); CS_FIELD(cs_ellipsoid_query, motion);
    all["cs_ellipsoid_query"] = py::make_tuple(sizeof(cs_ellipsoid_query), fields);
  }
  {
    py::dict fields;
    // Named as the flat numpy fields (the record of QUERY_DTYPE, then the mask).
    fields["a"] = offsetof(cs_masked_sweep_query, query.capsule.a);
    fields["b"] = offsetof(cs_masked_sweep_query, query.capsule.b);
    fields["radius"] = offsetof(cs_masked_sweep_query, query.capsule.radius);
    fields["motion"] = offsetof(cs_masked_sweep_query, query.motion);
    CS_FIELD(cs_masked_sweep_query, layers);
    all["cs_masked_sweep_query"] = py::make_tuple(sizeof(cs_masked_sweep_query), fields);
  }
  {
    py::dict fields;
    fields["centre"] = offsetof(cs_masked_ellipsoid_query, query.centre);
    fields["radii"] = offsetof(cs_masked_ellipsoid_query, query.radii);
    fields["motion"] = offsetof(cs_masked_ellipsoid_query, query.motion);
    CS_FIELD(cs_masked_ellipsoid_query, layers);
    all["cs_masked_ellipsoid_query"] = py::make_tuple(sizeof(cs_masked_ellipsoid_query), fields);
  }
  {
    py::dict fields;
    CS_FIELD(cs_ellipsoid, centre); CS_FIELD(cs_ellipsoid, radii);
    all["cs_ellipsoid"] = py::make_tuple(sizeof(cs_ellipsoid), fields);
  }
  {
    py::dict fields;
    CS_FIELD(cs_capsule, a); CS_FIELD(cs_capsule, b); CS_FIELD(cs_capsule, radius);
    all["cs_capsule"] = py::make_tuple(sizeof(cs_capsule), fields);
  }
  {
    py::dict fields;
    CS_FIELD(cs_agent, capsule); CS_FIELD(cs_agent, displacement); CS_FIELD(cs_agent, vertical_speed);
    CS_FIELD(cs_agent, id); CS_FIELD(cs_agent, layers); CS_FIELD(cs_agent, shape); CS_FIELD(cs_agent, grounded);
    CS_FIELD(cs_agent, reserved); CS_FIELD(cs_agent, ellipsoid); CS_FIELD(cs_agent, ground_triangle);
    all["cs_agent"] = py::make_tuple(sizeof(cs_agent), fields);
  }
  {
    py::dict fields;
    CS_FIELD(cs_move_contact, point); CS_FIELD(cs_move_contact, normal); CS_FIELD(cs_move_contact, triangle);
    CS_FIELD(cs_move_contact, agent);
    all["cs_move_contact"] = py::make_tuple(sizeof(cs_move_contact), fields);
  }
  {
    py::dict fields;
    CS_FIELD(cs_move_result, capsule); CS_FIELD(cs_move_result, moved); CS_FIELD(cs_move_result, vertical_speed);
    CS_FIELD(cs_move_result, grounded); CS_FIELD(cs_move_result, flags); CS_FIELD(cs_move_result, contact_count);
    CS_FIELD(cs_move_result, status); CS_FIELD(cs_move_result, ground_normal);
    CS_FIELD(cs_move_result, ground_triangle); CS_FIELD(cs_move_result, sweeps); CS_FIELD(cs_move_result, shape);
    CS_FIELD(cs_move_result, reserved); CS_FIELD(cs_move_result, pushed); CS_FIELD(cs_move_result, contacts);
    CS_FIELD(cs_move_result, ellipsoid);
    all["cs_move_result"] = py::make_tuple(sizeof(cs_move_result), fields);
  }
  {
    py::dict fields;
    CS_FIELD(cs_claimed_move, from); CS_FIELD(cs_claimed_move, motion); CS_FIELD(cs_claimed_move, dt);
    CS_FIELD(cs_claimed_move, vertical_speed); CS_FIELD(cs_claimed_move, grounded); CS_FIELD(cs_claimed_move, shape);
    CS_FIELD(cs_claimed_move, reserved); CS_FIELD(cs_claimed_move, layers); CS_FIELD(cs_claimed_move, from_ellipsoid);
    all["cs_claimed_move"] = py::make_tuple(sizeof(cs_claimed_move), fields);
  }
  {
    py::dict fields;
    CS_FIELD(cs_verdict, kind); CS_FIELD(cs_verdict, status); CS_FIELD(cs_verdict, grounded);
    CS_FIELD(cs_verdict, in_skin); CS_FIELD(cs_verdict, legal_fraction); CS_FIELD(cs_verdict, hit);
    CS_FIELD(cs_verdict, furthest); CS_FIELD(cs_verdict, corrected); CS_FIELD(cs_verdict, allowed_horizontal);
    CS_FIELD(cs_verdict, allowed_down); CS_FIELD(cs_verdict, allowed_up); CS_FIELD(cs_verdict, furthest_ellipsoid);
    CS_FIELD(cs_verdict, corrected_ellipsoid);
    all["cs_verdict"] = py::make_tuple(sizeof(cs_verdict), fields);
  }
  {
    py::dict fields;
    CS_FIELD(cs_overlap_result, clear); CS_FIELD(cs_overlap_result, overlapping); CS_FIELD(cs_overlap_result, status);
    CS_FIELD(cs_overlap_result, feature); CS_FIELD(cs_overlap_result, distance); CS_FIELD(cs_overlap_result, depth);
    CS_FIELD(cs_overlap_result, normal); CS_FIELD(cs_overlap_result, point);
    CS_FIELD(cs_overlap_result, point_on_axis); CS_FIELD(cs_overlap_result, triangle);
    all["cs_overlap_result"] = py::make_tuple(sizeof(cs_overlap_result), fields);
  }
#undef CS_FIELD
  return all;
}

}  // namespace

PYBIND11_MODULE(_capsweep, m) {
  m.doc() = "capsweep's native module; use the capsweep package.";
  error_type = py::reinterpret_borrow<py::object>(PyExc_ValueError);
  m.attr("__version__") = CAPSWEEP_VERSION_STRING;
  m.attr("MAX_THREADS") = kMaxThreads;
  m.def("_set_error_type", [](py::object type) { error_type = std::move(type); });
  // A refusal from the module itself (an argument, a setting, a built-in scene) is a
  // capsweep.Error too, as the C API's are: never pybind's ValueError or RuntimeError.
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const std::invalid_argument& e) {
      PyErr_SetString(error_type.ptr(), e.what());
    } catch (const SceneError& e) {
      PyErr_SetString(error_type.ptr(), e.what());
    }
  });
  m.def("_layouts", &layouts);
  m.def("default_move_settings", &default_move_settings, "capsweep's movement settings, as a dict");

  py::class_<PyWorld>(m, "_World")
      .def_property_readonly("triangle_count", [](const PyWorld& w) { return cs_world_triangle_count(w.world); })
      .def_property_readonly("bounds", [](const PyWorld& w) {
        const Aabb& b = w.world->world.bounds();
        py::array_t<float> corners({2, 3});
        auto c = corners.mutable_unchecked<2>();
        for (int k = 0; k < 3; ++k) c(0, k) = b.min[k], c(1, k) = b.max[k];
        return corners;
      })
      .def_property_readonly("triangles", [](const PyWorld& w) {
        const World& world = w.world->world;
        const py::ssize_t n = py::ssize_t(world.triangle_count());
        py::array_t<float> out({n, py::ssize_t(3), py::ssize_t(3)});
        auto t = out.mutable_unchecked<3>();
        for (py::ssize_t i = 0; i < n; ++i) {
          const Triangle tri = world.triangle(std::uint32_t(i));
          for (int v = 0; v < 3; ++v) {
            for (int k = 0; k < 3; ++k) t(i, v, k) = tri.v[v][k];
          }
        }
        return out;
      })
      .def("_sweep", &sweep_records<cs_sweep_query, cs_sweep_ex>)
      .def("_sweep_ellipsoid", &sweep_records<cs_ellipsoid_query, cs_sweep_ellipsoid>)
      .def("_sweep_masked", &sweep_records<cs_masked_sweep_query, cs_sweep_masked>)
      .def("_sweep_ellipsoid_masked", &sweep_records<cs_masked_ellipsoid_query, cs_sweep_ellipsoid_masked>)
      .def("_move",
           [](const PyWorld& w, const py::array& in, const py::dict& settings, py::array& out, int threads) {
             std::size_t n = 0, m_out = 0;
             const auto* a = records_of<const cs_agent>(in, n, false, "agents");
             auto* r = records_of<cs_move_result>(out, m_out, true, "results");
             if (m_out != n) throw std::invalid_argument("agents and results differ in length");
             const cs_move_settings s = move_settings(settings);
             int code;
             {
               py::gil_scoped_release free;
               code = cs_move(w.world, a, n, &s, r, threads);
             }
             check(code);
           })
      .def("_validate",
           [](const PyWorld& w, const py::array& in, float tolerance, float max_speed, float jump_speed,
              const py::dict& movement,
              py::array& out, int threads) {
             std::size_t n = 0, m_out = 0;
             const auto* c = records_of<const cs_claimed_move>(in, n, false, "moves");
             auto* v = records_of<cs_verdict>(out, m_out, true, "verdicts");
             if (m_out != n) throw std::invalid_argument("moves and verdicts differ in length");
             cs_validate_settings s;
             cs_validate_settings_default(&s);
             s.tolerance = tolerance;
             s.max_speed = max_speed;
             s.jump_speed = jump_speed;
             s.movement = move_settings(movement);
             int code;
             {
               py::gil_scoped_release free;
               code = cs_validate(w.world, c, n, &s, v, threads);
             }
             check(code);
           })
      .def("_overlap",
           [](const PyWorld& w, const py::array& in, float clearance, py::array& out, int threads) {
             std::size_t n = 0, m_out = 0;
             const auto* c = records_of<const cs_capsule>(in, n, false, "capsules");
             auto* r = records_of<cs_overlap_result>(out, m_out, true, "results");
             if (m_out != n) throw std::invalid_argument("capsules and results differ in length");
             int code;
             {
               py::gil_scoped_release free;
               code = cs_overlap(w.world, c, n, clearance, r, threads);
             }
             check(code);
           })
      // The same batch through the C++ span API (queries converted beforehand, untimed): the
      // best of `repeats` runs, in seconds. For the bench script, never for answers.
      .def("_sweep_seconds", [](const PyWorld& w, const py::array& in, int path, int threads, int repeats) {
        std::size_t n = 0;
        const auto* q = records_of<const cs_sweep_query>(in, n, false, "queries");
        std::vector<SweepQuery> queries(n);
        for (std::size_t i = 0; i < n; ++i) queries[i] = records::query(q[i]);
        std::vector<SweepHit> hits(n);
        double best = 1e300;
        py::gil_scoped_release free;
        const World& world = w.world->world;
        for (int r = 0; r < repeats; ++r) {
          const auto start = std::chrono::steady_clock::now();
          world.sweep(queries, hits, on_path(SweepPath(path), threads));
          best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        }
        return best;
      });

  m.def("_load", [](const std::string& path, float scale, bool z_up, const std::string& layers) {
    // The built-in scenes the command takes by name ("@arena"), made as the command makes them.
    if (path == kArenaName) {
      return new PyWorld(new cs_world{open_world_or_builtin(path, SceneOptions{scale, z_up, layers}).world});
    }
    cs_world* w = nullptr;
    check(cs_world_load_layered(path.c_str(), scale, z_up ? 1 : 0, layers.c_str(), &w));
    return new PyWorld(w);
  }, py::return_value_policy::take_ownership);
  m.def("_with_layers", [](const PyWorld& world, std::uint32_t layers) {
    cs_world* w = nullptr;
    check(cs_world_with_layers(world.world, layers, &w));
    return new PyWorld(w);
  }, py::return_value_policy::take_ownership);
  m.def("_from_triangles", [](const py::array_t<float, py::array::c_style>& vertices,
                               const py::array_t<std::uint32_t, py::array::c_style>& indices, py::object layers) {
    const py::buffer_info v = vertices.request(), i = indices.request();
    if (v.ndim != 2 || i.ndim != 2 || v.shape[1] != 3 || i.shape[1] != 3) {
      throw std::invalid_argument("vertices must have shape (n, 3) and indices (m, 3)");
    }
    const std::uint32_t* masks = nullptr;
    py::array_t<std::uint32_t, py::array::c_style> mask_array;
    if (!layers.is_none()) {
      mask_array = layers.cast<py::array_t<std::uint32_t, py::array::c_style>>();
      if (mask_array.ndim() != 1 || mask_array.shape(0) != i.shape[0]) {
        throw std::invalid_argument("layers must hold one mask per triangle");
      }
      masks = mask_array.data();
    }
    cs_world* w = nullptr;
    int code;
    {
      py::gil_scoped_release free;
      code = cs_world_from_layered_triangles(static_cast<const float*>(v.ptr), std::size_t(v.shape[0]),
                                             static_cast<const std::uint32_t*>(i.ptr), std::size_t(i.shape[0]), masks,
                                             &w);
    }
    check(code);
    return new PyWorld(w);
  }, py::return_value_policy::take_ownership);

  // A file's records: make_array(count, masked) gives the array (the masked dtype when the file
  // carries masks: versions 4 to 6), filled with the records as the C++ reader checked them.
  // A heightfield world: heights (rows, columns) of float32 or uint16, holes (rows - 1, columns -
  // 1) or None, and optionally a mesh on it (vertices and indices, or None).
  m.def("_from_heightfield", [](const py::array& heights, float cell_x, float cell_z, float height_scale,
                                 std::array<float, 3> origin, py::object holes, std::uint32_t terrain_layers,
                                 py::object vertices, py::object indices, py::object layers) {
    if (heights.ndim() != 2) throw std::invalid_argument("heights must have shape (rows, columns)");
    const bool u16 = heights.dtype().is(py::dtype::of<std::uint16_t>());
    if (!u16 && !heights.dtype().is(py::dtype::of<float>())) {
      throw std::invalid_argument("heights must be float32 metres or uint16 samples");
    }
    if (heights.shape(0) < 2 || heights.shape(1) < 2 || heights.shape(0) > 0xFFFFFFFFll || heights.shape(1) > 0xFFFFFFFFll) {
      throw std::invalid_argument("heights must hold at least 2 x 2 samples");
    }
    const py::array h = py::array::ensure(heights, py::array::c_style);
    cs_heightfield c{};
    c.rows = std::uint32_t(h.shape(0));
    c.columns = std::uint32_t(h.shape(1));
    c.cell_x = cell_x;
    c.cell_z = cell_z;
    c.height_scale = height_scale;
    c.origin[0] = origin[0], c.origin[1] = origin[1], c.origin[2] = origin[2];
    c.layers = terrain_layers;
    if (u16) {
      c.samples = static_cast<const std::uint16_t*>(h.data());
    } else {
      c.heights = static_cast<const float*>(h.data());
    }
    py::array_t<std::uint8_t, py::array::c_style> hole_array;
    if (!holes.is_none()) {
      hole_array = holes.cast<py::array_t<std::uint8_t, py::array::c_style | py::array::forcecast>>();
      if (hole_array.ndim() != 2 || hole_array.shape(0) != h.shape(0) - 1 || hole_array.shape(1) != h.shape(1) - 1) {
        throw std::invalid_argument("holes must have one flag per cell: shape (rows - 1, columns - 1)");
      }
      c.holes = hole_array.data();
    }
    py::array_t<float, py::array::c_style> v;
    py::array_t<std::uint32_t, py::array::c_style> i, masks;
    std::size_t vertex_count = 0, triangle_count = 0;
    if (!indices.is_none()) {
      v = vertices.cast<py::array_t<float, py::array::c_style | py::array::forcecast>>();
      i = indices.cast<py::array_t<std::uint32_t, py::array::c_style | py::array::forcecast>>();
      if (v.ndim() != 2 || i.ndim() != 2 || v.shape(1) != 3 || i.shape(1) != 3) {
        throw std::invalid_argument("vertices must have shape (n, 3) and indices (m, 3)");
      }
      vertex_count = std::size_t(v.shape(0));
      triangle_count = std::size_t(i.shape(0));
      if (!layers.is_none()) {
        masks = layers.cast<py::array_t<std::uint32_t, py::array::c_style | py::array::forcecast>>();
        if (masks.ndim() != 1 || std::size_t(masks.shape(0)) != triangle_count) {
          throw std::invalid_argument("layers must hold one mask per triangle");
        }
      }
    }
    cs_world* w = nullptr;
    int code;
    {
      py::gil_scoped_release free;
      code = cs_world_from_heightfield(&c, triangle_count ? v.data() : nullptr, vertex_count,
                                       triangle_count ? i.data() : nullptr, triangle_count,
                                       masks.size() ? masks.data() : nullptr, &w);
    }
    check(code);
    return new PyWorld(w);
  }, py::return_value_policy::take_ownership);
  m.def("_load_heightmap", [](const std::string& path, float cell_x, float cell_z, float height_scale,
                               std::array<float, 3> origin, std::uint32_t columns, std::uint32_t rows,
                               const std::string& holes, std::uint32_t layers) {
    cs_heightmap_options o{};
    o.cell_x = cell_x, o.cell_z = cell_z, o.height_scale = height_scale;
    o.origin[0] = origin[0], o.origin[1] = origin[1], o.origin[2] = origin[2];
    o.columns = columns, o.rows = rows;
    o.holes = holes.empty() ? nullptr : holes.c_str();
    o.layers = layers;
    cs_world* w = nullptr;
    int code;
    {
      py::gil_scoped_release free;
      code = cs_world_load_heightmap(path.c_str(), &o, &w);
    }
    check(code);
    return new PyWorld(w);
  }, py::return_value_policy::take_ownership);

  m.def("_query_count_and_fill", [](const std::string& path, py::object make_array) -> py::object {
    std::vector<SweepQuery> queries;
    try {
      queries = read_queries(path);
    } catch (const FormatError& e) {
      PyErr_SetString(error_type.ptr(), e.what());
      throw py::error_already_set();
    }
    const bool masked = holds_masks(query_file_version(path));
    py::object array = make_array(queries.size(), masked);
    std::size_t n = 0;
    if (masked) {
      auto* q = records_of<cs_masked_sweep_query>(array.cast<py::array>(), n, true, "queries");
      for (std::size_t i = 0; i < n; ++i) q[i] = records::masked_record(queries[i]);
    } else {
      auto* q = records_of<cs_sweep_query>(array.cast<py::array>(), n, true, "queries");
      for (std::size_t i = 0; i < n; ++i) q[i] = records::record(queries[i]);
    }
    return array;
  });
  m.def("_ellipsoid_count_and_fill", [](const std::string& path, py::object make_array) -> py::object {
    std::vector<SweepEllipsoidQuery> queries;
    try {
      queries = read_ellipsoid_queries(path);
    } catch (const FormatError& e) {
      PyErr_SetString(error_type.ptr(), e.what());
      throw py::error_already_set();
    }
    const bool masked = holds_masks(query_file_version(path));
    py::object array = make_array(queries.size(), masked);
    std::size_t n = 0;
    if (masked) {
      auto* q = records_of<cs_masked_ellipsoid_query>(array.cast<py::array>(), n, true, "queries");
      for (std::size_t i = 0; i < n; ++i) q[i] = records::masked_record(queries[i]);
    } else {
      auto* q = records_of<cs_ellipsoid_query>(array.cast<py::array>(), n, true, "queries");
      for (std::size_t i = 0; i < n; ++i) q[i] = records::record(queries[i]);
    }
    return array;
  });
  m.def("_claimed_move_count_and_fill", [](const std::string& path, float dt, py::object make_array) -> py::object {
    std::vector<ClaimedMove> moves;
    try {
      moves = read_claimed_moves(path, dt);
    } catch (const FormatError& e) {
      PyErr_SetString(error_type.ptr(), e.what());
      throw py::error_already_set();
    }
    py::object array = make_array(moves.size());
    std::size_t n = 0;
    auto* out = records_of<cs_claimed_move>(array.cast<py::array>(), n, true, "moves");
    for (std::size_t i = 0; i < n; ++i) out[i] = records::record(moves[i]);
    return array;
  });
  m.def("_write_results", [](const std::string& path, const py::array& hits) {
    std::size_t n = 0;
    const auto* h = records_of<const cs_sweep_hit>(hits, n, false, "hits");
    std::vector<SweepHit> out(n);
    for (std::size_t i = 0; i < n; ++i) out[i] = records::hit(h[i]);
    try {
      write_results(path, out);
    } catch (const FormatError& e) {
      PyErr_SetString(error_type.ptr(), e.what());
      throw py::error_already_set();
    }
  });
}
