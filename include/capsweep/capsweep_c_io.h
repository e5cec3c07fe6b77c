/* libcapsweep_c_io: capsweep's C API with worlds built from files (mesh files and heightmaps).
 *
 * libcapsweep_c_io.so is libcapsweep_c.so (every call of <capsweep/capsweep_c.h>, which this
 * header includes) plus cs_world_import, and so also needs what reads those files: Assimp, zlib
 * and libpng. A program links one of the two libraries: libcapsweep_c when its triangles are in
 * memory or in CWSW snapshots (it needs only oneTBB), libcapsweep_c_io when it reads scene files.
 * CMake: capsweep::c or capsweep::c_io. */
#ifndef CAPSWEEP_CAPSWEEP_C_IO_H
#define CAPSWEEP_CAPSWEEP_C_IO_H

#include <capsweep/capsweep_c.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A world built from a mesh file (options->kind CS_FILE_SCENE: anything Assimp reads, FILE.gz)
 * or a heightmap (CS_FILE_HEIGHTMAP), with the options of cs_load_options (NULL: the defaults).
 * A file that cannot be read or holds no usable mesh or heightmap is CS_ERROR_FILE, naming it,
 * and so is a CWSW snapshot: cs_world_load reads those. libcapsweep_c_io only. */
CS_API int cs_world_import(const char* path, const cs_load_options* options, cs_world** out);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* CAPSWEEP_CAPSWEEP_C_IO_H */
