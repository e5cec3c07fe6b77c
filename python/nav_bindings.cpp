// The Python module's navigation: capsweep.NavMesh and capsweep.NavCrowd (their Python faces are
// in capsweep/__init__.py) over cs_navmesh and cs_nav_crowd (capi/capsweep_c_nav.cpp, compiled
// in), so Python's navigation answers what C's does; tick, build and path with the GIL released.
#include <atomic>
#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

#include <pybind11/stl.h>

#include "python/module_support.h"

namespace capsweep::python {

namespace {

// A point as the C calls take it: three numbers, or a capsweep.Error naming `what`.
std::array<float, 3> point3(const py::handle& p, const char* what) {
  const auto a = py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(p);
  if (!a) PyErr_Clear();
  if (!a || a.ndim() != 1 || a.shape(0) != 3) throw std::invalid_argument(std::string(what) + ": expected 3 numbers (x, y, z)");
  return {a.at(0), a.at(1), a.at(2)};
}

py::array_t<float> points_array(const std::vector<float>& xyz, std::size_t count) {
  py::array_t<float> out({py::ssize_t(count), py::ssize_t(3)});
  std::memcpy(out.mutable_data(), xyz.data(), count * 3 * sizeof(float));
  return out;
}

// The fields of cs_navmesh_settings by name, as a dict goes in and out.
#define CS_NAVMESH_FIELDS(X)                                                                                      \
  X(agent_radius, float) X(agent_height, float) X(climb, float) X(max_slope_degrees, float) X(cell_size, float)   \
  X(cell_height, float) X(tile_cells, std::int32_t) X(layers, std::uint32_t) X(max_edge_length, float)            \
  X(max_edge_error, float) X(min_region_area, float) X(merge_region_area, float)                                 \
  X(detail_sample_distance, float) X(detail_max_error, float)

py::dict navmesh_dict(const cs_navmesh_settings& s) {
  py::dict d;
#define X(name, type) d[#name] = s.name;
  CS_NAVMESH_FIELDS(X)
#undef X
  return d;
}

cs_navmesh_settings navmesh_settings_of(const py::dict& d) {
  cs_navmesh_settings s{};
  std::size_t seen = 0;
#define X(name, type)                                                                   \
  if (d.contains(#name)) s.name = setting<type>(#name, d[#name]), ++seen;               \
  else throw std::invalid_argument("navmesh setting '" #name "' is missing (navmesh_settings() gives them all)");
  CS_NAVMESH_FIELDS(X)
#undef X
  if (seen != d.size()) throw std::invalid_argument("unknown navmesh setting (navmesh_settings() lists them)");
  return s;
}

struct PyNavMesh {
  cs_navmesh* mesh = nullptr;
  explicit PyNavMesh(cs_navmesh* m) : mesh(m) {}
  PyNavMesh(const PyNavMesh&) = delete;
  ~PyNavMesh() { cs_navmesh_free(mesh); }
};

struct PyNavCrowd {
  cs_nav_crowd* crowd = nullptr;
  // tick frees the GIL, so another Python thread can reach the crowd while it runs (add
  // reallocates what tick reads): every call holds the crowd, and one that finds it held fails.
  mutable std::atomic<bool> busy{false};
  explicit PyNavCrowd(cs_nav_crowd* c) : crowd(c) {}
  PyNavCrowd(const PyNavCrowd&) = delete;
  ~PyNavCrowd() { cs_nav_crowd_free(crowd); }
};

// A call's hold on a crowd, for its whole length.
class Holding {
 public:
  explicit Holding(const PyNavCrowd& c) : c_(c) {
    if (c_.busy.exchange(true)) throw std::invalid_argument("NavCrowd is busy: another thread's tick is running on it");
  }
  ~Holding() { c_.busy.store(false); }
  Holding(const Holding&) = delete;

 private:
  const PyNavCrowd& c_;
};

cs_nav_crowd_settings crowd_settings(const py::dict& d, const py::dict& movement, std::uint32_t layer_mask, int threads) {
  cs_nav_crowd_settings s;
  cs_nav_crowd_settings_default(&s);
  s.move = move_settings(movement);
  s.layer_mask = layer_mask;
  s.threads = threads;
  for (const auto& [key, value] : d) {
    const std::string k = py::str(key);
    if (k == "arrive_distance") s.arrive_distance = setting<float>(k, value);
    else if (k == "return_reach") s.return_reach = setting<float>(k, value);
    else if (k == "avoidance") s.avoidance = setting<bool>(k, value) ? 1 : 0;
    else if (k == "neighbour_distance") s.neighbour_distance = setting<float>(k, value);
    else if (k == "max_neighbours") s.max_neighbours = setting<std::int32_t>(k, value);
    else if (k == "replan_seconds") s.replan_seconds = setting<float>(k, value);
    else if (k == "max_path_polygons") s.max_path_polygons = setting<std::int32_t>(k, value);
    else throw std::invalid_argument("unknown crowd setting '" + k + "' (default_crowd_settings() lists them)");
  }
  return s;
}

py::dict default_crowd_settings() {
  cs_nav_crowd_settings s;
  cs_nav_crowd_settings_default(&s);
  py::dict d;
  d["arrive_distance"] = s.arrive_distance;
  d["return_reach"] = s.return_reach;
  d["avoidance"] = s.avoidance != 0;
  d["neighbour_distance"] = s.neighbour_distance;
  d["max_neighbours"] = s.max_neighbours;
  d["replan_seconds"] = s.replan_seconds;
  d["max_path_polygons"] = s.max_path_polygons;
  return d;
}

}  // namespace

void bind_navigation(py::module_& m) {
  m.def("default_crowd_settings", &default_crowd_settings, "a NavCrowd's settings besides movement, as a dict");
  m.def("_navmesh_settings", [](const py::dict& movement, const py::array& body, std::uint32_t layers) {
    std::size_t n = 0;
    const auto* c = records_of<const cs_capsule>(body, n, false, "body");
    if (n != 1) throw std::invalid_argument("body: expected one capsule");
    const cs_move_settings move = move_settings(movement);
    cs_navmesh_settings s;
    check(cs_navmesh_settings_for(&move, c, layers, &s));
    return navmesh_dict(s);
  });
  py::class_<PyNavMesh>(m, "_NavMesh")
      .def("write", [](const PyNavMesh& n, const std::string& path) { check(cs_navmesh_write(n.mesh, path.c_str())); })
      .def_property_readonly("settings", [](const PyNavMesh& n) {
        cs_navmesh_settings s;
        check(cs_navmesh_settings_of(n.mesh, &s));
        return navmesh_dict(s);
      })
      .def_property_readonly("stats", [](const PyNavMesh& n) {
        cs_navmesh_stats s;
        check(cs_navmesh_stats_of(n.mesh, &s));
        py::dict d;
        d["tiles"] = s.tiles, d["polygons"] = s.polygons, d["vertices"] = s.vertices;
        std::vector<float> b(s.bounds_min, s.bounds_min + 3);
        b.insert(b.end(), s.bounds_max, s.bounds_max + 3);
        d["bounds"] = points_array(b, 2);
        return d;
      })
      .def("nearest", [](const PyNavMesh& n, const py::object& point, const py::object& reach) -> py::object {
        const auto p = point3(point, "point"), r = point3(reach, "reach");
        std::vector<float> out(3);
        int found = 0;
        check(cs_navmesh_nearest(n.mesh, p.data(), r.data(), out.data(), &found));
        if (!found) return py::none();
        return points_array(out, 1).attr("reshape")(3);
      })
      .def("path", [](const PyNavMesh& n, const py::object& from, const py::object& to) {
        const auto f = point3(from, "start"), t = point3(to, "end");
        std::size_t count = 0;
        int complete = 0;
        float length = 0;
        std::vector<float> corners;
        {
          py::gil_scoped_release free;
          // Twice: once for the number of corners, then into room for them all.
          check(cs_navmesh_path(n.mesh, f.data(), t.data(), nullptr, 0, &count, &complete, &length));
          corners.resize(3 * count);
          check(cs_navmesh_path(n.mesh, f.data(), t.data(), corners.data(), count, &count, &complete, &length));
        }
        return py::make_tuple(points_array(corners, count), complete != 0, length);
      })
      .def("random_reachable", [](const PyNavMesh& n, const py::object& from, std::uint64_t seed) -> py::object {
        const auto f = point3(from, "start");
        std::vector<float> out(3);
        int found = 0;
        check(cs_navmesh_random_reachable(n.mesh, f.data(), seed, out.data(), &found));
        if (!found) return py::none();
        return points_array(out, 1).attr("reshape")(3);
      });
  m.def("_navmesh_build", [](const PyWorld& w, const py::dict& settings, int threads) {
    const cs_navmesh_settings s = navmesh_settings_of(settings);
    cs_navmesh* mesh = nullptr;
    int code;
    {
      py::gil_scoped_release free;
      code = cs_navmesh_build(w.world, &s, threads, &mesh);
    }
    check(code);
    return new PyNavMesh(mesh);
  }, py::return_value_policy::take_ownership);
  m.def("_navmesh_read", [](const std::string& path) {
    cs_navmesh* mesh = nullptr;
    check(cs_navmesh_read(path.c_str(), &mesh));
    return new PyNavMesh(mesh);
  }, py::return_value_policy::take_ownership);

  py::class_<PyNavCrowd>(m, "_NavCrowd")
      .def("add", [](PyNavCrowd& c, const py::array& body, float speed, std::uint32_t id, std::uint32_t layers) {
        std::size_t n = 0, index = 0;
        const auto* b = records_of<const cs_capsule>(body, n, false, "body");
        if (n != 1) throw std::invalid_argument("body: expected one capsule");
        const Holding hold(c);
        check(cs_nav_crowd_add(c.crowd, b, speed, id, layers, &index));
        return index;
      })
      .def("set_goal", [](PyNavCrowd& c, std::size_t i, const py::object& goal) {
        const auto g = point3(goal, "goal");
        const Holding hold(c);
        check(cs_nav_crowd_set_goal(c.crowd, i, g.data()));
      })
      .def("tick", [](PyNavCrowd& c) {
        const Holding hold(c);
        int code;
        {
          py::gil_scoped_release free;
          code = cs_nav_crowd_tick(c.crowd);
        }
        check(code);
      })
      .def("_agents", [](const PyNavCrowd& c, py::array& out) {
        std::size_t n = 0;
        auto* a = records_of<cs_nav_agent>(out, n, true, "agents");
        const Holding hold(c);
        check(cs_nav_crowd_agents(c.crowd, 0, n, a));
      })
      .def("_results", [](const PyNavCrowd& c, py::array& out) {
        std::size_t n = 0;
        auto* r = records_of<cs_move_result>(out, n, true, "results");
        const Holding hold(c);
        check(cs_nav_crowd_results(c.crowd, 0, n, r));
      })
      .def_property_readonly("agent_count", [](const PyNavCrowd& c) {
        const Holding hold(c);
        return cs_nav_crowd_agent_count(c.crowd);
      })
      .def("corners", [](const PyNavCrowd& c, std::size_t i, std::size_t max) {
        std::vector<float> out(3 * max);
        std::size_t count = 0;
        const Holding hold(c);
        check(cs_nav_crowd_corners(c.crowd, i, out.data(), max, &count));
        return points_array(out, std::min(count, max));
      })
      .def_property_readonly("times", [](const PyNavCrowd& c) {
        double planning = 0, moving = 0;
        const Holding hold(c);
        check(cs_nav_crowd_times(c.crowd, &planning, &moving));
        return py::make_tuple(planning, moving);
      });
  m.def("_nav_crowd", [](const PyWorld& w, const PyNavMesh& n, const py::dict& settings, const py::dict& movement,
                         std::uint32_t layer_mask, int threads) {
    const cs_nav_crowd_settings s = crowd_settings(settings, movement, layer_mask, threads);
    cs_nav_crowd* crowd = nullptr;
    check(cs_nav_crowd_create(w.world, n.mesh, &s, &crowd));
    return new PyNavCrowd(crowd);
  }, py::return_value_policy::take_ownership);
}

}  // namespace capsweep::python
