#include <capsweep/scene.h>

#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <zlib.h>

#include <assimp/Importer.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>


namespace capsweep {

namespace {

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

std::string gunzip_file(const std::string& path) {
  gzFile in = gzopen(path.c_str(), "rb");
  if (!in) throw SceneError(path + ": cannot open");
  std::string out;
  char buffer[1 << 16];
  for (;;) {
    const int n = gzread(in, buffer, sizeof buffer);
    if (n < 0) {
      int code = 0;
      const std::string why = gzerror(in, &code);
      gzclose(in);
      throw SceneError(path + ": broken gzip data (" + why + ")");
    }
    if (n == 0) break;
    out.append(buffer, std::size_t(n));
  }
  gzclose(in);
  return out;
}

void collect(const aiScene& scene, const aiNode& node, const aiMatrix4x4& parent, std::vector<Triangle>& out) {
  const aiMatrix4x4 transform = parent * node.mTransformation;
  for (unsigned m = 0; m < node.mNumMeshes; ++m) {
    const aiMesh& mesh = *scene.mMeshes[node.mMeshes[m]];
    for (unsigned f = 0; f < mesh.mNumFaces; ++f) {
      const aiFace& face = mesh.mFaces[f];
      if (face.mNumIndices != 3) continue;
      Triangle t;
      for (int k = 0; k < 3; ++k) {
        const aiVector3D v = transform * mesh.mVertices[face.mIndices[k]];
        t.v[k] = {v.x, v.y, v.z};
      }
      out.push_back(t);
    }
  }
  for (unsigned c = 0; c < node.mNumChildren; ++c) collect(scene, *node.mChildren[c], transform, out);
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
    data = gunzip_file(path);
    const std::string inner = path.substr(0, path.size() - 3);
    const std::string hint = std::filesystem::path(inner).extension().string();
    scene = importer.ReadFileFromMemory(data.data(), data.size(), flags, hint.empty() ? "" : hint.c_str() + 1);
  } else {
    scene = importer.ReadFile(path, flags);
  }
  if (!scene || !scene->mRootNode) {
    throw SceneError(path + ": cannot read the mesh (" + std::string(importer.GetErrorString()) + ")");
  }
  collect(*scene, *scene->mRootNode, aiMatrix4x4(), triangles);
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
