#!/usr/bin/env python3
"""Quake 3 BSP level -> Wavefront OBJ triangle soup (metres, Y up) for capsweep's tests.

  q3bsp_to_obj.py INPUT -o OUT.obj [--gzip] [--level 4] [--all-models]

INPUT is a .bsp file, or a map inside a .pk3 (zip) written `PK3:maps/name.bsp`, e.g.
`/usr/share/games/openarena/baseoa/pak0.pk3:maps/oa_dm1.bsp`. IBSP versions 46 (Quake 3,
OpenArena, Nexuiz) and 47 (same lumps) are read.

What is kept: the visible, solid surfaces, i.e. faces of type 1 (polygon) and 3 (mesh), whose
triangles are listed by the meshverts lump, and type 2 (Bezier patch), whose grid of 3x3
biquadratic control patches is tessellated at --level (default 4: 5x5 points a patch). Type 4
(billboards) is skipped, and so is every surface whose shader (textures lump: name, surface
flags, content flags) has SURF_NODRAW or SURF_SKY, or lacks CONTENTS_SOLID (water, lava, fog,
player clip, triggers, non-solid decals and foliage). SURF_NODRAW is not read on patches: the
map compiler writes the shader entries of patches with SURF_NODRAW | SURF_NOLIGHTMAP |
SURF_POINTLIGHT (0xc80), visible ones included (e.g. textures/e8/e8_base1 in am_thornish), and the
game's collision with a patch reads its contents only; so a patch is skipped only for SURF_SKY or
non-solid contents. Only the faces of model 0 (worldspawn) are kept: the other models are brush
entities (doors, lifts, bobbing platforms, triggers) that the game moves or makes non-solid, and
a func_plat, for one, is stored at its top position although the game lowers it when the map
starts. --all-models keeps their faces too, where the map file places them.

Output: `v x y z` and `f a b c` lines only (1-based, triangles only). A Quake unit is 0.0254 m;
Z up becomes Y up as (x, y, z) -> (x, z, -y), a proper rotation, so windings keep their sense.
Each face's triangles are wound counter-clockwise about the face's own normal (the vertex normals
the map compiler stored; Quake 3 stores them clockwise), so floors have
cross(v1 - v0, v2 - v0).y > 0. Coordinates are written with 6 decimals; vertices with the same
written coordinates are one vertex; triangles that use a vertex twice or whose area is zero (twice
the area <= 1e-9 x the longest edge squared) are dropped, and so are exact duplicates (same three
vertices, same winding). The output depends only on the input bytes and the options. --gzip
writes gzip with mtime 0 and no file name, so it is deterministic too.

A summary goes to stderr. Errors (missing file or pk3 member, wrong magic or version, truncated
lumps) are one line naming the file, exit status 1, and leave no output file behind.
"""

import argparse
import gzip
import hashlib
import os
import struct
import sys
import zipfile

SCALE = 0.0254  # metres per Quake unit (one inch)

SURF_SKY = 0x4
SURF_NODRAW = 0x80
CONTENTS_SOLID = 0x1

LUMP_TEXTURES = 1
LUMP_MODELS = 7
LUMP_VERTEXES = 10
LUMP_MESHVERTS = 11
LUMP_FACES = 13
LUMP_COUNT = 17

FACE_POLYGON, FACE_PATCH, FACE_MESH, FACE_BILLBOARD = 1, 2, 3, 4

TEXTURE = struct.Struct("<64sii")              # name, surface flags, content flags
MODEL = struct.Struct("<6f4i")                  # mins, maxs, face, n_faces, brush, n_brushes
VERTEX = struct.Struct("<3f4f3f4B")             # position, 2 texcoords, normal, colour
FACE = struct.Struct("<8i2i2i3f6f3f2i")         # see read_faces
MESHVERT = struct.Struct("<i")


class ConvertError(Exception):
    """A problem with the input, reported as one line naming the file."""


def read_input(spec):
    """Returns (bytes of the BSP, a name for messages)."""
    if os.path.isfile(spec):
        try:
            with open(spec, "rb") as f:
                return f.read(), spec
        except OSError as e:
            raise ConvertError(f"{spec}: cannot read ({e.strerror})")
    lower = spec.lower()
    cut = lower.rfind(".pk3:")
    if cut < 0:
        raise ConvertError(f"{spec}: no such file (a map inside a pk3 is written PK3:maps/name.bsp)")
    archive, member = spec[:cut + 4], spec[cut + 5:]
    if not os.path.isfile(archive):
        raise ConvertError(f"{archive}: no such file")
    try:
        with zipfile.ZipFile(archive) as z:
            try:
                info = z.getinfo(member)
            except KeyError:
                raise ConvertError(f"{archive}: has no member {member}")
            return z.read(info), spec
    except zipfile.BadZipFile as e:
        raise ConvertError(f"{archive}: not a zip (pk3) file ({e})")
    except OSError as e:
        raise ConvertError(f"{archive}: cannot read ({e.strerror or e})")


def lumps_of(data, name):
    if len(data) < 8 + 8 * LUMP_COUNT:
        raise ConvertError(f"{name}: {len(data)} bytes, too short for a Quake 3 BSP header")
    magic, version = data[:4], struct.unpack_from("<i", data, 4)[0]
    if magic != b"IBSP":
        raise ConvertError(f"{name}: magic {magic!r}, not b'IBSP' (not a Quake 3 BSP)")
    if version not in (46, 47):
        raise ConvertError(f"{name}: IBSP version {version}, only 46 and 47 are read")
    lumps = []
    for i in range(LUMP_COUNT):
        offset, length = struct.unpack_from("<ii", data, 8 + 8 * i)
        if offset < 0 or length < 0 or offset + length > len(data):
            raise ConvertError(f"{name}: lump {i} ({offset}, {length}) lies outside the "
                               f"{len(data)}-byte file")
        lumps.append((offset, length))
    return version, lumps


def records(data, lumps, index, layout, name):
    offset, length = lumps[index]
    if length % layout.size:
        raise ConvertError(f"{name}: lump {index} is {length} bytes, not a multiple of {layout.size}")
    return [layout.unpack_from(data, offset + i * layout.size) for i in range(length // layout.size)]


def sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def tessellate(points, normals, width, height, level):
    """A patch's control grid (width x height, odd sizes >= 3) -> (points, normals, triangles).

    Each 3x3 block of control points (blocks share their border rows and columns) is a
    biquadratic Bezier patch, evaluated at (level + 1) x (level + 1) evenly spaced (u, v)."""
    out_p, out_n, tris = [], [], []
    weights = []
    for i in range(level + 1):
        t = i / level
        weights.append(((1 - t) * (1 - t), 2 * t * (1 - t), t * t))
    for py in range((height - 1) // 2):
        for px in range((width - 1) // 2):
            base = len(out_p)
            for j in range(level + 1):
                wv = weights[j]
                for i in range(level + 1):
                    wu = weights[i]
                    p = [0.0, 0.0, 0.0]
                    n = [0.0, 0.0, 0.0]
                    for r in range(3):
                        for c in range(3):
                            w = wv[r] * wu[c]
                            k = (2 * py + r) * width + 2 * px + c
                            for a in range(3):
                                p[a] += w * points[k][a]
                                n[a] += w * normals[k][a]
                    out_p.append(tuple(p))
                    out_n.append(tuple(n))
            row = level + 1
            for j in range(level):
                for i in range(level):
                    a = base + j * row + i
                    b, c, d = a + 1, a + row, a + row + 1
                    tris.append((a, b, d))
                    tris.append((a, d, c))
    return out_p, out_n, tris


def convert(data, name, level, world_only):
    version, lumps = lumps_of(data, name)
    textures = records(data, lumps, LUMP_TEXTURES, TEXTURE, name)
    models = records(data, lumps, LUMP_MODELS, MODEL, name)
    vertexes = records(data, lumps, LUMP_VERTEXES, VERTEX, name)
    meshverts = [m[0] for m in records(data, lumps, LUMP_MESHVERTS, MESHVERT, name)]
    faces = records(data, lumps, LUMP_FACES, FACE, name)

    face_range = range(len(faces))
    if world_only:
        if not models:
            raise ConvertError(f"{name}: no models lump entries (no worldspawn)")
        first, count = models[0][6], models[0][7]
        face_range = range(max(0, first), min(len(faces), first + count))

    stats = {"faces": len(faces), "kept faces": 0, "billboard": 0, "nodraw": 0, "sky": 0,
             "non-solid": 0, "other type": 0, "bad patch": 0, "clockwise faces": 0,
             "counter-clockwise faces": 0, "undecided faces": 0, "degenerate": 0,
             "duplicate": 0, "bad index": 0}
    stats["brush entity faces"] = len(faces) - len(face_range)

    vertex_index = {}     # written coordinates -> 1-based index
    vertex_text = []      # "x y z" strings, in order of first use
    vertex_xyz = []
    triangles = []
    seen = set()

    def out_vertex(p):
        # Quake (x, y, z) in units -> (x, z, -y) in metres, rounded as written.
        coords = []
        for value in (p[0] * SCALE, p[2] * SCALE, -p[1] * SCALE):
            text = "%.6f" % value
            if text == "-0.000000":
                text = "0.000000"
            coords.append(text)
        key = " ".join(coords)
        index = vertex_index.get(key)
        if index is None:
            vertex_text.append(key)
            vertex_xyz.append(tuple(float(c) for c in coords))
            index = len(vertex_text)
            vertex_index[key] = index
        return index

    def add_triangle(a, b, c):
        if a == b or b == c or a == c:
            stats["degenerate"] += 1
            return
        pa, pb, pc = vertex_xyz[a - 1], vertex_xyz[b - 1], vertex_xyz[c - 1]
        e1, e2, e3 = sub(pb, pa), sub(pc, pa), sub(pc, pb)
        n = cross(e1, e2)
        longest = max(dot(e1, e1), dot(e2, e2), dot(e3, e3))
        if dot(n, n) <= (1e-9 * longest) ** 2:
            stats["degenerate"] += 1
            return
        # the same triangle with the same winding, whichever vertex it starts from
        m = min(a, b, c)
        key = (a, b, c) if m == a else (b, c, a) if m == b else (c, a, b)
        if key in seen:
            stats["duplicate"] += 1
            return
        seen.add(key)
        triangles.append((a, b, c))

    for f in face_range:
        face = faces[f]
        texture, _effect, kind, first_vertex, n_vertexes, first_meshvert, n_meshverts = face[:7]
        size_w, size_h = face[-2], face[-1]
        if kind == FACE_BILLBOARD:
            stats["billboard"] += 1
            continue
        if kind not in (FACE_POLYGON, FACE_PATCH, FACE_MESH):
            stats["other type"] += 1
            continue
        if not 0 <= texture < len(textures):
            raise ConvertError(f"{name}: face {f} uses shader {texture}, the textures lump has "
                               f"{len(textures)}")
        _shader, surface_flags, contents = textures[texture]
        if surface_flags & SURF_NODRAW and kind != FACE_PATCH:
            stats["nodraw"] += 1
            continue
        if surface_flags & SURF_SKY:
            stats["sky"] += 1
            continue
        if not contents & CONTENTS_SOLID:
            stats["non-solid"] += 1
            continue
        if first_vertex < 0 or n_vertexes < 0 or first_vertex + n_vertexes > len(vertexes):
            raise ConvertError(f"{name}: face {f} lists vertices {first_vertex}.."
                               f"{first_vertex + n_vertexes}, the lump has {len(vertexes)}")
        verts = vertexes[first_vertex:first_vertex + n_vertexes]
        points = [v[0:3] for v in verts]
        normals = [v[7:10] for v in verts]

        if kind == FACE_PATCH:
            if (size_w < 3 or size_h < 3 or size_w % 2 == 0 or size_h % 2 == 0
                    or size_w * size_h != n_vertexes):
                stats["bad patch"] += 1
                continue
            points, normals, local = tessellate(points, normals, size_w, size_h, level)
        else:
            if first_meshvert < 0 or n_meshverts < 0 or first_meshvert + n_meshverts > len(meshverts):
                raise ConvertError(f"{name}: face {f} lists meshverts {first_meshvert}.."
                                   f"{first_meshvert + n_meshverts}, the lump has {len(meshverts)}")
            ids = meshverts[first_meshvert:first_meshvert + n_meshverts]
            local = []
            for t in range(0, len(ids) - 2, 3):
                tri = ids[t:t + 3]
                if min(tri) < 0 or max(tri) >= n_vertexes:
                    stats["bad index"] += 1
                    continue
                local.append(tuple(tri))
        if not local:
            continue

        # Which way round are this face's triangles about its vertex normals?
        vote = 0.0
        for a, b, c in local:
            n = cross(sub(points[b], points[a]), sub(points[c], points[a]))
            s = normals[a]
            s = (s[0] + normals[b][0] + normals[c][0], s[1] + normals[b][1] + normals[c][1],
                 s[2] + normals[b][2] + normals[c][2])
            vote += dot(n, s)
        if vote > 0:
            flip = False
            stats["counter-clockwise faces"] += 1
        elif vote < 0:
            flip = True
            stats["clockwise faces"] += 1
        else:
            flip = kind != FACE_PATCH  # Quake 3's stored order is clockwise
            stats["undecided faces"] += 1

        stats["kept faces"] += 1
        ids = [out_vertex(p) for p in points]
        for a, b, c in local:
            if flip:
                add_triangle(ids[a], ids[c], ids[b])
            else:
                add_triangle(ids[a], ids[b], ids[c])

    # Only the vertices the kept triangles use, renumbered in order of first use.
    renumber = {}
    used = []
    final = []
    for tri in triangles:
        out = []
        for v in tri:
            n = renumber.get(v)
            if n is None:
                used.append(v)
                n = len(used)
                renumber[v] = n
            out.append(n)
        final.append(tuple(out))
    lines = ["v %s\n" % vertex_text[v - 1] for v in used]
    lines += ["f %d %d %d\n" % t for t in final]
    xyz = [vertex_xyz[v - 1] for v in used]
    return version, "".join(lines).encode("ascii"), final, xyz, stats


def write_output(path, payload, compress):
    directory = os.path.dirname(os.path.abspath(path))
    temp = os.path.join(directory, ".%s.tmp%d" % (os.path.basename(path), os.getpid()))
    try:
        with open(temp, "wb") as raw:
            if compress:
                with gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=9, mtime=0) as z:
                    z.write(payload)
            else:
                raw.write(payload)
        os.replace(temp, path)
    except BaseException:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="q3bsp_to_obj.py",
        description="Quake 3 BSP (IBSP 46/47) -> OBJ triangle soup in metres, Y up.")
    parser.add_argument("input", help="a .bsp file, or ARCHIVE.pk3:maps/name.bsp")
    parser.add_argument("-o", "--output", required=True, help="the .obj (or, with --gzip, .obj.gz) to write")
    parser.add_argument("--gzip", action="store_true",
                        help="gzip the output (mtime 0, no name: deterministic)")
    parser.add_argument("--level", type=int, default=4, help="patch tessellation level (default 4)")
    parser.add_argument("--all-models", action="store_true",
                        help="also keep the brush entities' faces (doors, lifts, platforms) where the "
                             "file places them; "
                             "by default only model 0 (worldspawn)")
    args = parser.parse_args(argv)
    if args.level < 1:
        parser.error("--level must be at least 1")
    try:
        data, name = read_input(args.input)
        version, payload, tris, xyz, stats = convert(data, name, args.level, not args.all_models)
        if not tris:
            raise ConvertError(f"{name}: no visible solid triangle")
        write_output(args.output, payload, args.gzip)
    except ConvertError as e:
        print(f"q3bsp_to_obj.py: error: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"q3bsp_to_obj.py: error: {args.output}: cannot write ({e.strerror or e})", file=sys.stderr)
        return 1
    lo = [min(p[a] for p in xyz) for a in range(3)]
    hi = [max(p[a] for p in xyz) for a in range(3)]
    size = os.path.getsize(args.output)
    with open(args.output, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    print(f"{name}: IBSP {version}, {stats['faces']} faces, {stats['kept faces']} kept "
          f"(skipped: {stats['nodraw']} nodraw, {stats['sky']} sky, {stats['non-solid']} non-solid, "
          f"{stats['billboard']} billboards, {stats['bad patch']} bad patches, "
          f"{stats['other type']} other types, "
          f"{stats['brush entity faces']} of brush entities)",
          file=sys.stderr)
    print(f"  windings about the stored normals: {stats['clockwise faces']} clockwise faces (flipped), "
          f"{stats['counter-clockwise faces']} counter-clockwise, {stats['undecided faces']} undecided",
          file=sys.stderr)
    print(f"  dropped triangles: {stats['degenerate']} degenerate, {stats['duplicate']} duplicates, "
          f"{stats['bad index']} with a bad index", file=sys.stderr)
    print(f"  {len(tris)} triangles, {len(xyz)} vertices", file=sys.stderr)
    print("  bounds min (%.3f, %.3f, %.3f) max (%.3f, %.3f, %.3f) m" % (*lo, *hi), file=sys.stderr)
    print(f"  {args.output}: {size} bytes, sha256 {digest}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
