// How every C entry point runs, in libcapsweep_c.so and libcapsweep_c_io.so alike: it catches
// everything, so no C++ exception crosses the boundary, and keeps the message of a failure per
// thread for cs_last_error(). Internal to capi/ (and the Python module, which compiles it in).
#pragma once

#include <new>
#include <stdexcept>
#include <string>

#include <capsweep/capsweep_c.h>
#include <capsweep/files.h>
#include <capsweep/world.h>

namespace capsweep::capi {

// One per thread in each library: cs_last_error() reads it.
inline thread_local std::string last_error;

inline int fail(int code, std::string message) {
  last_error = std::move(message);
  return code;
}

// Runs `body`, turning every exception into an error code and a message.
template <class Body>
int guarded(const char* function, Body&& body) {
  try {
    last_error.clear();
    body();
    return CS_OK;
  } catch (const std::bad_alloc&) {
    return fail(CS_ERROR_MEMORY, std::string(function) + ": out of memory");
  } catch (const SceneError& e) {
    return fail(CS_ERROR_FILE, e.what());
  } catch (const SnapshotError& e) {
    return fail(CS_ERROR_FILE, e.what());
  } catch (const HeightmapError& e) {
    return fail(CS_ERROR_FILE, e.what());
  } catch (const WorldError& e) {
    return fail(CS_ERROR_MESH, std::string(function) + ": " + e.what());
  } catch (const std::invalid_argument& e) {
    return fail(CS_ERROR_ARGUMENT, std::string(function) + ": " + e.what());
  } catch (const std::exception& e) {
    return fail(CS_ERROR_INTERNAL, std::string(function) + ": " + e.what());
  } catch (...) {
    return fail(CS_ERROR_INTERNAL, std::string(function) + ": unknown error");
  }
}

inline void require(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument(what);
}

// Where every call that makes a world starts: *out stays NULL unless the world is made.
inline void clear_out(cs_world** out) {
  require(out != nullptr, "out is NULL");
  *out = nullptr;
}

// The options of a call that reads a world from a file (cs_world_load, cs_world_import): the
// defaults for NULL, checked as both read them.
inline cs_load_options load_options(const char* path, const cs_load_options* options) {
  require(path != nullptr, "path is NULL");
  cs_load_options o;
  cs_load_options_default(&o);
  if (options) o = *options;
  require(o.kind <= CS_FILE_HEIGHTMAP, "unknown file kind " + std::to_string(o.kind));
  require(o.reserved == 0, "cs_load_options.reserved must be 0");
  return o;
}

// Whether only the defaults of the mesh-file options are set (all that a snapshot or a heightmap takes).
inline bool scene_defaults(const cs_load_options& o) {
  return o.scale == SceneOptions{}.scale && o.z_up == 0 && (o.layer_table == nullptr || *o.layer_table == 0);
}

}  // namespace capsweep::capi
