// Checks of mesh files that Assimp 5.2 was seen to load wrongly instead of refusing: a PLY face
// that claims more indices than the file carries is padded with zeros, and an OFF index out of
// range is silently replaced. We check those formats ourselves before Assimp reads them, and
// every index Assimp hands back afterwards (scene_loader.cpp). Internal to io/.
#pragma once

#include <string>
#include <string_view>

namespace capsweep {

// Throws SceneError naming the file, the element (vertex or face number) and the reason when
// `bytes` (the whole file, decompressed) is a PLY or OFF file whose counts or indices do not
// hold. `extension` is the file's, lower case, with the dot (".ply", ".off"); other extensions
// are left to Assimp.
void check_mesh_bytes(const std::string& path, std::string_view bytes, const std::string& extension);

// The gzip file `packed` (named `path` in errors) inflated to the end of its last member: a file
// cut short, or not gzip at all, throws SceneError; so does one that inflates past 8 GiB.
std::string inflate_gzip(const std::string& path, std::string_view packed);

}  // namespace capsweep
