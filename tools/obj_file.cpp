#include "tools/obj_file.h"

#include <sstream>

#include "io/atomic_file.h"

namespace capsweep {

void write_obj(const std::string& path, const std::vector<Triangle>& triangles, std::span<const std::string> inputs) {
  std::ostringstream out;
  out.precision(9);
  for (const Triangle& t : triangles) {
    for (const Vec3& v : t.v) out << "v " << v.x << ' ' << v.y << ' ' << v.z << '\n';
  }
  for (std::size_t i = 0; i < triangles.size(); ++i) {
    out << "f " << 3 * i + 1 << ' ' << 3 * i + 2 << ' ' << 3 * i + 3 << '\n';
  }
  write_file_atomically(path, out.str(), inputs);
}

}  // namespace capsweep
