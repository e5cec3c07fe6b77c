// Triangles written as a Wavefront OBJ file (v and f lines only), e.g. to look at the arena or to
// hand a scene made in code to the commands.
#pragma once

#include <span>
#include <string>
#include <vector>

#include <capsweep/values.h>

namespace capsweep {

// Atomic: the file is complete or absent. `inputs` are files the output must not replace.
void write_obj(const std::string& path, const std::vector<Triangle>& triangles, std::span<const std::string> inputs = {});

}  // namespace capsweep
