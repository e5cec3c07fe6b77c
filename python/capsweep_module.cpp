// The Python module: a thin layer over the C API (compiled into it), so Python answers exactly
// what C answers. The numpy dtypes are the C structs, registered from them (register_dtypes);
// arrays arrive as contiguous buffers of those structs (capsweep/__init__.py makes them so,
// without a copy when they already are) and answers are written in place into arrays allocated
// once; every batch runs with the GIL released.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <tuple>
#include <vector>

#include <capsweep/capsweep_c_io.h>
#include <capsweep/files.h>
#include <capsweep/version.h>
#include <capsweep/world.h>

#include "capi/records.h"
#include "capi/world_handle.h"
#include "tools/builtin_scene.h"
#include "io/query_format.h"
#include "python/module_support.h"

namespace py = pybind11;

namespace {

using namespace capsweep;
using namespace capsweep::python;

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

// World._sweep: query records in (capsules or ellipsoids, with their own masks or not), CWSR
// records (and statuses) out, through cs_sweep with the GIL released.
void sweep_records(const PyWorld& w, const py::array& in, py::array& out, std::uint32_t shape, bool masked,
                   std::uint32_t path, std::uint32_t layer_mask, int threads, py::object status) {
  cs_sweep_args args;
  cs_sweep_args_default(&args);
  std::size_t n = 0, m_out = 0, m_status = 0;
  const std::size_t record_bytes =
      shape == CS_SHAPE_CAPSULE ? (masked ? sizeof(cs_masked_sweep_query) : sizeof(cs_sweep_query))
                                : (masked ? sizeof(cs_masked_ellipsoid_query) : sizeof(cs_ellipsoid_query));
  args.queries = records_of<const std::uint8_t>(in, n, false, "queries", record_bytes);
  args.hits = records_of<cs_sweep_hit>(out, m_out, true, "hits");
  if (!status.is_none()) args.status = records_of<std::uint8_t>(status.cast<py::array>(), m_status, true, "status");
  if (m_out != n || (args.status && m_status != n)) throw std::invalid_argument("queries and answers differ in length");
  args.count = n;
  args.shape = shape;
  args.masked = masked ? 1 : 0;
  args.path = path;
  args.layer_mask = layer_mask;
  args.threads = threads;
  int code;
  {
    py::gil_scoped_release free;
    code = cs_sweep(w.world, &args);
  }
  check(code);
}

// The numpy dtypes are the C structs, field by field (capsweep/__init__.py names them).
void register_dtypes(py::module_& m) {
  PYBIND11_NUMPY_DTYPE(cs_capsule, a, b, radius);
  PYBIND11_NUMPY_DTYPE(cs_pose, position, rotation);
  PYBIND11_NUMPY_DTYPE(cs_instance, id, prototype, pose, layers, reserved);
  PYBIND11_NUMPY_DTYPE(cs_instance_pose, id, reserved, pose);
  PYBIND11_NUMPY_DTYPE_EX(cs_sweep_query, capsule.a, "a", capsule.b, "b", capsule.radius, "radius", motion, "motion");
  PYBIND11_NUMPY_DTYPE(cs_ellipsoid_query, centre, radii, motion);
  PYBIND11_NUMPY_DTYPE_EX(cs_masked_sweep_query, query.capsule.a, "a", query.capsule.b, "b", query.capsule.radius,
                          "radius", query.motion, "motion", layers, "layers");
  PYBIND11_NUMPY_DTYPE_EX(cs_masked_ellipsoid_query, query.centre, "centre", query.radii, "radii", query.motion,
                          "motion", layers, "layers");
  PYBIND11_NUMPY_DTYPE(cs_sweep_hit, hit, feature, reserved, t, normal, point, depth, triangle);
  PYBIND11_NUMPY_DTYPE(cs_ellipsoid, centre, radii);
  PYBIND11_NUMPY_DTYPE(cs_agent, capsule, displacement, vertical_speed, id, layers, shape, grounded, reserved, ellipsoid,
                       ground_triangle);
  PYBIND11_NUMPY_DTYPE(cs_move_contact, point, normal, triangle, agent);
  PYBIND11_NUMPY_DTYPE(cs_move_result, capsule, moved, vertical_speed, grounded, flags, contact_count, status,
                       ground_normal, ground_triangle, sweeps, shape, reserved, pushed, contacts, ellipsoid);
  PYBIND11_NUMPY_DTYPE(cs_claimed_move, from, motion, dt, vertical_speed, grounded, shape, reserved, layers,
                       from_ellipsoid, ground_triangle);
  PYBIND11_NUMPY_DTYPE(cs_verdict, kind, status, grounded, in_skin, legal_fraction, hit, furthest, corrected,
                       allowed_horizontal, allowed_down, allowed_up, furthest_ellipsoid, corrected_ellipsoid, reason,
                       next_grounded, reserved, claimed, limit, next_vertical_speed, next_ground_triangle);
  PYBIND11_NUMPY_DTYPE(cs_overlap_result, clear, overlapping, status, feature, distance, depth, normal, point,
                       point_on_axis, triangle);
  PYBIND11_NUMPY_DTYPE(cs_nav_agent, capsule, speed, id, layers, status, returning, reserved, goal, velocity,
                       vertical_speed, ground_triangle, replans);
  m.attr("NAV_AGENT_DTYPE") = py::dtype::of<cs_nav_agent>();
  m.attr("CAPSULE_DTYPE") = py::dtype::of<cs_capsule>();
  m.attr("INSTANCE_DTYPE") = py::dtype::of<cs_instance>();
  m.attr("INSTANCE_POSE_DTYPE") = py::dtype::of<cs_instance_pose>();
  m.attr("QUERY_DTYPE") = py::dtype::of<cs_sweep_query>();
  m.attr("ELLIPSOID_QUERY_DTYPE") = py::dtype::of<cs_ellipsoid_query>();
  m.attr("MASKED_QUERY_DTYPE") = py::dtype::of<cs_masked_sweep_query>();
  m.attr("MASKED_ELLIPSOID_QUERY_DTYPE") = py::dtype::of<cs_masked_ellipsoid_query>();
  m.attr("HIT_DTYPE") = py::dtype::of<cs_sweep_hit>();
  m.attr("ELLIPSOID_DTYPE") = py::dtype::of<cs_ellipsoid>();
  m.attr("AGENT_DTYPE") = py::dtype::of<cs_agent>();
  m.attr("MOVE_CONTACT_DTYPE") = py::dtype::of<cs_move_contact>();
  m.attr("MOVE_RESULT_DTYPE") = py::dtype::of<cs_move_result>();
  m.attr("CLAIMED_MOVE_DTYPE") = py::dtype::of<cs_claimed_move>();
  m.attr("VERDICT_DTYPE") = py::dtype::of<cs_verdict>();
  m.attr("OVERLAP_DTYPE") = py::dtype::of<cs_overlap_result>();
}

// A world made by cs_world_create or cs_world_load, as a Python object that frees it.
PyWorld* made(int code, cs_world* w) {
  check(code);
  return new PyWorld(w);
}

}  // namespace

PyMoveCache::PyMoveCache() { check(cs_move_cache_create(&cache)); }

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
  register_dtypes(m);
  m.def("default_move_settings", &default_move_settings, "capsweep's movement settings, as a dict");
  bind_navigation(m);

  py::class_<PyMoveCache>(m, "_MoveCache").def(py::init<>());

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
      .def("_sweep", &sweep_records)
      .def("_posed",
           [](const PyWorld& w, const py::array& poses) {
             std::size_t n = 0;
             const auto* p = records_of<const cs_instance_pose>(poses, n, false, "poses");
             cs_world* next = nullptr;
             int code;
             {
               py::gil_scoped_release free;
               code = cs_world_posed(w.world, p, n, &next);
             }
             return made(code, next);
           },
           py::return_value_policy::take_ownership)
      .def("_streamed",
           [](const PyWorld& w, const std::vector<std::tuple<std::uint32_t, std::uint32_t, double, double, double, const PyWorld*>>& added,
              const std::vector<std::uint32_t>& removed) {
             std::vector<cs_tile> tiles;
             for (const auto& [id, layers, x, y, z, mesh] : added) tiles.push_back(cs_tile{id, layers, {x, y, z}, mesh->world});
             cs_world* next = nullptr;
             int code;
             {
               py::gil_scoped_release free;
               code = cs_world_streamed(w.world, tiles.data(), tiles.size(), removed.data(), removed.size(), &next);
             }
             return made(code, next);
           },
           py::return_value_policy::take_ownership)
      .def("_tile_of",
           [](const PyWorld& w, std::uint32_t triangle) -> py::object {
             std::uint32_t id = 0;
             if (!cs_world_tile_of(w.world, triangle, &id)) return py::none();
             return py::int_(id);
           })
      .def("_instance_of",
           [](const PyWorld& w, std::uint32_t triangle) -> py::object {
             std::uint32_t id = 0;
             if (!cs_world_instance_of(w.world, triangle, &id)) return py::none();
             return py::int_(id);
           })
      .def("_move",
           [](const PyWorld& w, const py::array& in, const py::dict& settings, py::array& out,
              std::uint32_t layer_mask, int threads, PyMoveCache* cache) {
             std::size_t m_out = 0;
             cs_move_args args;
             cs_move_args_default(&args);
             args.agents = records_of<const cs_agent>(in, args.count, false, "agents");
             args.results = records_of<cs_move_result>(out, m_out, true, "results");
             if (m_out != args.count) throw std::invalid_argument("agents and results differ in length");
             const cs_move_settings s = move_settings(settings);
             args.settings = &s;
             args.layer_mask = layer_mask;
             args.threads = threads;
             int code;
             {
               py::gil_scoped_release free;
               code = cache ? cs_move_kept(w.world, &args, cache->cache) : cs_move(w.world, &args);
             }
             check(code);
           },
           py::arg("agents"), py::arg("settings"), py::arg("results"), py::arg("layer_mask"), py::arg("threads"),
           py::arg("cache").none(true) = py::none())
      .def("_validate",
           [](const PyWorld& w, const py::array& in, float tolerance, bool default_speed, float max_speed,
              float jump_speed, std::uint32_t rule, const py::dict& movement, py::array& out, std::uint32_t layer_mask, int threads) {
             std::size_t m_out = 0;
             cs_validate_args args;
             cs_validate_args_default(&args);
             args.moves = records_of<const cs_claimed_move>(in, args.count, false, "moves");
             args.verdicts = records_of<cs_verdict>(out, m_out, true, "verdicts");
             if (m_out != args.count) throw std::invalid_argument("moves and verdicts differ in length");
             cs_validate_settings s;
             cs_validate_settings_default(&s);
             s.tolerance = tolerance;
             if (!default_speed) s.max_speed = max_speed;
             s.jump_speed = jump_speed;
             s.rule = rule;
             s.movement = move_settings(movement);
             args.settings = &s;
             args.layer_mask = layer_mask;
             args.threads = threads;
             int code;
             {
               py::gil_scoped_release free;
               code = cs_validate(w.world, &args);
             }
             check(code);
           })
      .def("_overlap",
           [](const PyWorld& w, const py::array& in, float clearance, py::array& out, std::uint32_t layer_mask,
              int threads) {
             std::size_t m_out = 0;
             cs_overlap_args args;
             cs_overlap_args_default(&args);
             args.capsules = records_of<const cs_capsule>(in, args.count, false, "capsules");
             args.results = records_of<cs_overlap_result>(out, m_out, true, "results");
             if (m_out != args.count) throw std::invalid_argument("capsules and results differ in length");
             args.clearance = clearance;
             args.layer_mask = layer_mask;
             args.threads = threads;
             int code;
             {
               py::gil_scoped_release free;
               code = cs_overlap(w.world, &args);
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
      return new PyWorld(new cs_world{open_world_or_builtin(path, SceneOptions{scale, z_up, layers, {}}).world});
    }
    cs_load_options o;
    cs_load_options_default(&o);
    o.scale = scale;
    o.z_up = z_up ? 1 : 0;
    o.layer_table = layers.empty() ? nullptr : layers.c_str();
    cs_world* w = nullptr;
    // A snapshot is cs_world_load's; every other file is built into a world by cs_world_import.
    const int code = looks_like_snapshot(path) ? cs_world_load(path.c_str(), &o, &w) : cs_world_import(path.c_str(), &o, &w);
    return made(code, w);
  }, py::return_value_policy::take_ownership);
  m.def("_instanced", [](const PyWorld& static_part, const std::vector<const PyWorld*>& prototypes, const py::array& instances) {
    std::size_t n = 0;
    const auto* in = records_of<const cs_instance>(instances, n, false, "instances");
    std::vector<const cs_world*> protos;
    for (const PyWorld* p : prototypes) protos.push_back(p->world);
    cs_world* w = nullptr;
    int code;
    {
      py::gil_scoped_release free;
      code = cs_world_create_instanced(static_part.world, protos.data(), protos.size(), in, n, &w);
    }
    return made(code, w);
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
    const cs_world_desc desc{static_cast<const float*>(v.ptr), std::size_t(v.shape[0]),
                             static_cast<const std::uint32_t*>(i.ptr), std::size_t(i.shape[0]), masks, nullptr};
    cs_world* w = nullptr;
    int code;
    {
      py::gil_scoped_release free;
      code = cs_world_create(&desc, &w);
    }
    return made(code, w);
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
    const cs_world_desc desc{triangle_count ? v.data() : nullptr, vertex_count, triangle_count ? i.data() : nullptr,
                             triangle_count, masks.size() ? masks.data() : nullptr, &c};
    cs_world* w = nullptr;
    int code;
    {
      py::gil_scoped_release free;
      code = cs_world_create(&desc, &w);
    }
    return made(code, w);
  }, py::return_value_policy::take_ownership);
  m.def("_load_heightmap", [](const std::string& path, float cell_x, float cell_z, float height_scale,
                               std::array<float, 3> origin, std::uint32_t columns, std::uint32_t rows,
                               const std::string& holes, std::uint32_t layers) {
    cs_load_options o;
    cs_load_options_default(&o);
    o.kind = CS_FILE_HEIGHTMAP;
    cs_heightmap_options& h = o.heightmap;
    h.cell_x = cell_x, h.cell_z = cell_z, h.height_scale = height_scale;
    h.origin[0] = origin[0], h.origin[1] = origin[1], h.origin[2] = origin[2];
    h.columns = columns, h.rows = rows;
    h.holes = holes.empty() ? nullptr : holes.c_str();
    h.layers = layers;
    cs_world* w = nullptr;
    int code;
    {
      py::gil_scoped_release free;
      code = cs_world_import(path.c_str(), &o, &w);
    }
    return made(code, w);
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
  // `world`: the world that answered (None: version 1 regardless), whose instances and tiles a
  // version 2 file names.
  m.def("_write_results", [](const std::string& path, const py::array& hits, const PyWorld* world) {
    std::size_t n = 0;
    const auto* h = records_of<const cs_sweep_hit>(hits, n, false, "hits");
    std::vector<SweepHit> out(n);
    for (std::size_t i = 0; i < n; ++i) out[i] = records::hit(h[i]);
    try {
      if (world) {
        write_results(path, out, world->world->world);
      } else {
        write_results(path, out);
      }
    } catch (const FormatError& e) {
      PyErr_SetString(error_type.ptr(), e.what());
      throw py::error_already_set();
    }
  });
}
