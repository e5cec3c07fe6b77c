#include <capsweep/scene.h>

#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <zlib.h>

#include <assimp/Importer.hpp>
#include <cmath>
#include <filesystem>
#include <algorithm>
#include <cctype>
#include <fstream>
#include <iterator>


#include "io/mesh_checks.h"

namespace capsweep {

namespace {

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw SceneError(path + ": cannot open");
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  if (in.bad()) throw SceneError(path + ": read failed");
  return bytes;
}

std::string lower_extension(const std::string& path) {
  std::string e = std::filesystem::path(path).extension().string();
  for (char& c : e) c = char(std::tolower(static_cast<unsigned char>(c)));
  return e;
}

void collect(const std::string& path, const aiScene& scene, const aiNode& node, const aiMatrix4x4& parent,
             std::vector<Triangle>& out) {
  const aiMatrix4x4 transform = parent * node.mTransformation;
  for (unsigned m = 0; m < node.mNumMeshes; ++m) {
    const aiMesh& mesh = *scene.mMeshes[node.mMeshes[m]];
    for (unsigned f = 0; f < mesh.mNumFaces; ++f) {
      const aiFace& face = mesh.mFaces[f];
      if (face.mNumIndices < 3) continue;  // points and lines: no triangle
      // Assimp is not trusted to have checked: every index must name a vertex of the mesh.
      if (face.mNumIndices != 3 || !face.mIndices || !mesh.mVertices) {
        throw SceneError(path + ": mesh " + std::to_string(node.mMeshes[m]) + " face " + std::to_string(f) +
                         " was not triangulated (" + std::to_string(face.mNumIndices) + " indices)");
      }
      Triangle t;
      for (int k = 0; k < 3; ++k) {
        if (face.mIndices[k] >= mesh.mNumVertices) {
          throw SceneError(path + ": mesh " + std::to_string(node.mMeshes[m]) + " face " + std::to_string(f) +
                           " names vertex " + std::to_string(face.mIndices[k]) + " of " +
                           std::to_string(mesh.mNumVertices));
        }
        const aiVector3D v = transform * mesh.mVertices[face.mIndices[k]];
        t.v[k] = {v.x, v.y, v.z};
      }
      out.push_back(t);
    }
  }
  for (unsigned c = 0; c < node.mNumChildren; ++c) collect(path, scene, *node.mChildren[c], transform, out);
}

}  // namespace

std::vector<Triangle> load_scene(const std::string& path, const SceneOptions& options) {
  if (!(options.scale > 0.f) || !std::isfinite(options.scale)) throw SceneError(path + ": --scale must be positive");
  std::vector<Triangle> triangles;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw SceneError(path + ": no such file");
  Assimp::Importer importer;
  // Triangulate only: no welding, no reordering, no removal of degenerate triangles, so that
  // triangle indices follow the file.
  const unsigned flags = aiProcess_Triangulate;
  const aiScene* scene = nullptr;
  std::string data;
  if (ends_with(path, ".gz")) {
    data = inflate_gzip(path, read_file(path));
    const std::string hint = lower_extension(path.substr(0, path.size() - 3));
    check_mesh_bytes(path, data, hint);
    scene = importer.ReadFileFromMemory(data.data(), data.size(), flags, hint.empty() ? "" : hint.c_str() + 1);
  } else {
    const std::string extension = lower_extension(path);
    if (extension == ".ply" || extension == ".off") check_mesh_bytes(path, read_file(path), extension);
    scene = importer.ReadFile(path, flags);
  }
  if (!scene || !scene->mRootNode) {
    throw SceneError(path + ": cannot read the mesh (" + std::string(importer.GetErrorString()) + ")");
  }
  collect(path, *scene, *scene->mRootNode, aiMatrix4x4(), triangles);
  return transform_scene(std::move(triangles), path, options);
}

std::vector<Triangle> transform_scene(std::vector<Triangle> triangles, const std::string& path,
                                      const SceneOptions& options) {
  if (!(options.scale > 0.f) || !std::isfinite(options.scale)) throw SceneError(path + ": --scale must be positive");
  if (triangles.empty()) throw SceneError(path + ": the file holds no triangles");
  for (Triangle& t : triangles) {
    for (Vec3& v : t.v) {
      if (options.z_up) v = {v.x, v.z, -v.y};
      v = v * options.scale;
    }
  }
  return triangles;
}

}  // namespace capsweep
