"""capsweep: exact swept-capsule queries and crowd movement against static triangle meshes.

Batches are numpy arrays of records whose dtypes are the C API's structs
(<capsweep/capsweep_c.h>): QUERY_DTYPE is the 40-byte CWSQ record and HIT_DTYPE the 40-byte
CWSR record, so ``hits.tobytes()`` is a CWSR version 1 file body byte for byte (version 2, for
worlds with instances or tiles, adds each hit's part: write_results). Every batch runs with
the GIL released, on ``threads`` workers (0 = every core, at most MAX_THREADS); the answers are
the same bytes on any thread count.

    world = capsweep.load("level.obj")             # any mesh Assimp reads, FILE.gz, or a snapshot
    hits = world.sweep(capsweep.read_queries("moves.cwsq"))
    capsweep.write_results("answers.cwsr", hits)
"""
from collections.abc import Mapping as _Mapping

import numpy as _np

from . import _capsweep

__version__ = _capsweep.__version__
#: The most workers a batch's ``threads`` may ask for (0 = every core); more is refused.
MAX_THREADS = _capsweep.MAX_THREADS


class Error(ValueError):
    """A refused input or call: the message names the file, record or argument and the reason."""


_capsweep._set_error_type(Error)


# The record dtypes are the C structs themselves (registered from <capsweep/capsweep_c.h>), so
# their fields and offsets are the C API's and the files' by construction.
CAPSULE_DTYPE = _capsweep.CAPSULE_DTYPE
#: One instance of a prototype (instanced()): its id, the prototype's index, its pose (position
#: float64 xyz, rotation a unit quaternion float64 xyzw) and its layers (reserved: 0).
INSTANCE_DTYPE = _capsweep.INSTANCE_DTYPE
#: A new pose for the instance `id` (World.posed).
INSTANCE_POSE_DTYPE = _capsweep.INSTANCE_POSE_DTYPE
#: One sweep: the CWSQ record (capsule a, b, radius, then the motion).
QUERY_DTYPE = _capsweep.QUERY_DTYPE
#: One moving ellipsoid: the CWSQ version 3 record (centre, radii, motion).
ELLIPSOID_QUERY_DTYPE = _capsweep.ELLIPSOID_QUERY_DTYPE
#: A layer mask naming every layer. Masks mean the same everywhere (C, C++, files, service): a
#: mask of 0 names no layer and is refused (a record's with status "bad_layers"), so a zeroed
#: record must have its mask set.
ALL_LAYERS = 0xFFFFFFFF
#: A claim's ground_triangle (and a verdict's next_ground_triangle) when none is known (CS_NO_TRIANGLE).
NO_TRIANGLE = 0xFFFFFFFF
#: validate's max_speed for no horizontal speed limit (CS_NO_SPEED_LIMIT); None is the library's 7 m/s.
NO_SPEED_LIMIT = float("inf")
#: One sweep with its own layers (bit k = layer k + 1): the CWSQ version 4 record.
MASKED_QUERY_DTYPE = _capsweep.MASKED_QUERY_DTYPE
#: One moving ellipsoid with its own layers: the CWSQ version 6 record.
MASKED_ELLIPSOID_QUERY_DTYPE = _capsweep.MASKED_ELLIPSOID_QUERY_DTYPE
#: The first contact of a sweep: the CWSR record. hit: 0 miss, 1 hit, 2 hit at the start.
HIT_DTYPE = _capsweep.HIT_DTYPE
#: An axis-aligned ellipsoid: centre, radii (each > 0).
ELLIPSOID_DTYPE = _capsweep.ELLIPSOID_DTYPE
#: Values of the shape fields: an agent's body is its capsule or its ellipsoid.
SHAPES = ("capsule", "ellipsoid")
#: An agent; `layers`: the layers of triangles it collides with (ALL_LAYERS: every layer); `shape`:
#: 0 a capsule (`capsule`), 1 an ellipsoid (`ellipsoid`); `grounded` and `ground_triangle`: pass
#: back the last result's (one sweep against that triangle replaces the ground probe; 0: probe).
AGENT_DTYPE = _capsweep.AGENT_DTYPE
MOVE_CONTACT_DTYPE = _capsweep.MOVE_CONTACT_DTYPE
MOVE_RESULT_DTYPE = _capsweep.MOVE_RESULT_DTYPE
#: A claimed move: the CWSQ version 7 record (the server's last accepted state and the agent's
#: layers ride along; `shape` says whether `from` or `from_ellipsoid` is its body).
CLAIMED_MOVE_DTYPE = _capsweep.CLAIMED_MOVE_DTYPE
VERDICT_DTYPE = _capsweep.VERDICT_DTYPE
OVERLAP_DTYPE = _capsweep.OVERLAP_DTYPE

#: Values of the status arrays and fields (enum cs_status).
STATUS = ("ok", "non_finite_capsule", "bad_radius", "non_finite_motion", "non_finite_triangle", "out_of_range",
          "bad_layers")
#: VERDICT_DTYPE's kind (enum cs_verdict_kind).
VERDICTS = ("ok", "blocked", "start_overlaps", "too_fast", "refused")
#: VERDICT_DTYPE's reason (enum cs_reason): why a claim is not ok.
REASONS = ("none", "speed", "teleport", "fly", "super_jump", "wall_climb", "fast_fall", "noclip", "under_the_map",
           "start_in_wall", "bad_input")
#: validate's rule (enum cs_claim_rule): a tick's end (a server's claims), or one straight piece
#: travelled (a crowd trace's segments).
RULES = ("tick_end", "straight_segment")
_PATHS = {"simd": 0, "scalar": 1, "brute": 2}

default_move_settings = _capsweep.default_move_settings


def _dtype_name(dtype):
    return next(name for name, value in globals().items() if name.endswith("_DTYPE") and value == dtype)


def _records(array, dtype, width, what):
    """The array as contiguous records of dtype: as it is when it already is, else converted
    from plain numbers of shape (n, width) (no copy when those are contiguous float32); width
    None: records only (a struct with integer fields has no float32 row form)."""
    a = _np.asarray(array)
    if a.dtype == dtype:
        if a.ndim != 1:
            raise Error(f"{what}: expected a 1-d array of records, got shape {a.shape}")
        return _np.ascontiguousarray(a)
    if a.dtype.names is not None:
        raise Error(f"{what}: records of dtype {a.dtype} are not {_dtype_name(dtype)}")
    if width is None:
        raise Error(f"{what}: expected an array of {_dtype_name(dtype)} records, got {a.dtype} of shape {a.shape}")
    if a.ndim != 2 or a.shape[1] != width:
        raise Error(f"{what}: expected shape (n, {width}) or an array of {_dtype_name(dtype)} records, "
                    f"got shape {a.shape}")
    floats = _np.ascontiguousarray(a, dtype="<f4")
    return floats.view(dtype).reshape(len(floats))


def _sweep(world, queries, shape, masked, path, threads, status):
    """Records through the native sweep (capsules: shape 0, ellipsoids: 1; with their own masks or
    not): HIT_DTYPE answers, and statuses."""
    if path not in _PATHS:
        raise Error(f"unknown path {path!r} (simd, scalar or brute)")
    hits = _np.empty(len(queries), HIT_DTYPE)
    codes = _np.empty(len(queries), _np.uint8) if status else None
    world._native._sweep(queries, hits, shape, masked, _PATHS[path], world._layers, _threads(threads), codes)
    return (hits, codes) if status else hits


def _claimed_moves(moves):
    a = _np.asarray(moves)
    if a.dtype == CLAIMED_MOVE_DTYPE or a.dtype.names is not None:
        return _records(a, CLAIMED_MOVE_DTYPE, None, "moves")
    if a.ndim != 2 or a.shape[1] not in (11, 13):
        raise Error(f"moves: expected shape (n, 11) or (n, 13) or an array of records, got shape {a.shape}")
    m = _np.zeros(len(a), CLAIMED_MOVE_DTYPE)
    m["layers"] = ALL_LAYERS
    m["ground_triangle"] = NO_TRIANGLE
    f = a.astype("<f4")
    m["from"]["a"], m["from"]["b"], m["from"]["radius"] = f[:, 0:3], f[:, 3:6], f[:, 6]
    m["motion"], m["dt"] = f[:, 7:10], f[:, 10]
    if a.shape[1] == 13:
        if not _np.all((a[:, 12] == 0) | (a[:, 12] == 1)):
            raise Error("moves: column 12 (grounded) must be 0 or 1")
        m["vertical_speed"], m["grounded"] = f[:, 11], a[:, 12].astype("u1")
    return m


def _threads(threads):
    """`threads` as the C int the library checks against 0 .. MAX_THREADS."""
    try:
        count = int(threads)
    except (TypeError, ValueError):
        raise Error(f"threads must be an integer, got {threads!r}") from None
    # A count no C int holds would never reach the library's check: refuse it in the same words.
    if not -2**31 <= count < 2**31:
        raise Error(f"threads must be from 0 (every core) to {MAX_THREADS}, got {count}")
    return count


def _number(value, what):
    """A float argument, or a capsweep.Error naming it."""
    try:
        return float(value)
    except (TypeError, ValueError):
        raise Error(f"{what} must be a number, got {value!r}") from None


def _settings(settings, what):
    """A dict of movement settings (None: the defaults), or a capsweep.Error naming it."""
    if settings is None:
        return {}
    if not isinstance(settings, _Mapping):
        raise Error(f"{what} must be a dict of movement settings (default_move_settings() lists them), "
                    f"got {type(settings).__name__}")
    return dict(settings)


def _mesh_arrays(vertices, indices, layers):
    """Vertices, indices and layer masks as the native calls take them, checked."""
    v = _np.ascontiguousarray(vertices, dtype="<f4")
    i = _np.asarray(indices)
    if i.ndim != 2 or i.shape[1] != 3 or v.ndim != 2 or v.shape[1] != 3:
        raise Error(f"vertices must have shape (n, 3) and indices (m, 3), got {v.shape} and {i.shape}")
    if i.size and (not _np.issubdtype(i.dtype, _np.integer)):
        raise Error(f"indices must be integers, got {i.dtype}")
    if i.size and (i.min() < 0 or i.max() > 0xFFFFFFFE):
        t = int(_np.argwhere((i < 0) | (i > 0xFFFFFFFE))[0][0])
        raise Error(f"triangle {t} names vertex {int(i[t][(i[t] < 0) | (i[t] > 0xFFFFFFFE)][0])}, "
                    f"which is not an index")
    masks = None
    if layers is not None:
        masks = _np.asarray(layers)
        if masks.ndim != 1 or len(masks) != len(i):
            raise Error(f"layers must hold one mask per triangle: {masks.shape} for {len(i)} triangles")
        if masks.size and (masks.min() < 0 or masks.max() > 0xFFFFFFFF):
            raise Error("layers must be 32-bit masks")
        masks = _np.ascontiguousarray(masks, dtype="<u4")
    return v, _np.ascontiguousarray(i, dtype="<u4"), masks


class MoveCache:
    """What each agent of a crowd met of the world last tick, kept for its next ticks: pass the
    same one to every World.move of the crowd (agent i keeps slot i). The results are those of
    World.move without it, byte for byte; about 3 KB an agent. One move at a time per cache."""

    def __init__(self):
        self._native = _capsweep._MoveCache()


class World:
    """A static triangle world: built once, then read-only (any number of threads may query it).

    World(vertices, indices, layers=None): vertices (n, 3) numbers, indices (m, 3) integers into
    them, layers one mask per triangle (bit k = layer k + 1; default: all on layer 1).
    capsweep.load(path) makes one from a file. world.with_layers(mask) is the same world whose
    batches see only those layers.
    """

    def __init__(self, vertices, indices, layers=None):
        self._native = _capsweep._from_triangles(*_mesh_arrays(vertices, indices, layers))
        self._layers = ALL_LAYERS

    def with_layers(self, layers):
        """The same world (sharing its memory) whose sweeps, moves, validation and overlaps see
        only the layers of the mask `layers` (bit k = layer k + 1): triangles on none of them are
        not there. Each batch passes the mask to the library as its layer_mask."""
        if not 0 < int(layers) <= 0xFFFFFFFF:
            raise Error("layers must be a mask naming at least one layer")
        return World._wrap(self._native, int(layers))

    @classmethod
    def _wrap(cls, native, layers=ALL_LAYERS):
        world = cls.__new__(cls)
        world._native = native
        world._layers = layers
        return world

    @property
    def triangle_count(self):
        """Every triangle index: the mesh's, then a heightfield's (two per cell, holes included)."""
        return self._native.triangle_count

    @property
    def bounds(self):
        """The box holding every triangle, float32 of shape (2, 3): the min corner, then the max."""
        return self._native.bounds

    @property
    def triangles(self):
        """Every triangle, float32 of shape (triangle_count, 3, 3) (triangle, vertex, xyz), in the
        order hits name them (a heightfield's after the mesh's; a hole's two are there, on no layer).
        A new array each time."""
        return self._native.triangles

    def sweep(self, queries, path="simd", threads=0, status=False):
        """Sweeps each query (QUERY_DTYPE records, MASKED_QUERY_DTYPE records with each query's
        layers, or float32 (n, 10) in CWSQ order) and returns an array of HIT_DTYPE records (a
        CWSR body). Radius 0 is a ray (a == b) or a moving segment. A refused query (NaN, radius
        < 0, out of range, layers sharing none with the world's view) gets a miss; with
        status=True, also returns its reason per query (uint8, STATUS)."""
        if _np.asarray(queries).dtype == MASKED_QUERY_DTYPE:
            return _sweep(self, _records(queries, MASKED_QUERY_DTYPE, None, "queries"), 0, True, path, threads, status)
        return _sweep(self, _records(queries, QUERY_DTYPE, 10, "queries"), 0, False, path, threads, status)

    def sweep_ellipsoid(self, queries, path="simd", threads=0, status=False):
        """Sweeps each moving axis-aligned ellipsoid (ELLIPSOID_QUERY_DTYPE records,
        MASKED_ELLIPSOID_QUERY_DTYPE records, or float32 (n, 9): centre, radii, motion) and returns
        HIT_DTYPE records, the same bytes on every path. A refused query (NaN, a radius <= 0, out of
        range, layers sharing none with the world's view) gets a miss; with status=True, also
        returns its reason per query (uint8, STATUS)."""
        if _np.asarray(queries).dtype == MASKED_ELLIPSOID_QUERY_DTYPE:
            return _sweep(self, _records(queries, MASKED_ELLIPSOID_QUERY_DTYPE, None, "queries"), 1, True, path, threads,
                          status)
        return _sweep(self, _records(queries, ELLIPSOID_QUERY_DTYPE, 9, "queries"), 1, False, path, threads, status)

    def move(self, agents, settings=None, threads=0, cache=None):
        """One tick for a 1-d array of AGENT_DTYPE records (capsules or ellipsoids, by `shape`;
        each with the layers it collides with, ALL_LAYERS for every one; no plain-number form, the record
        holds integers); returns MOVE_RESULT_DTYPE records (status inside). settings: a dict of
        movement settings (default_move_settings() lists them). cache: a MoveCache passed to every
        tick of a crowd keeps each agent's neighbourhood between ticks (the same records, sooner)."""
        a = _records(agents, AGENT_DTYPE, None, "agents")
        if cache is not None and not isinstance(cache, MoveCache):
            raise Error(f"cache must be a capsweep.MoveCache or None, got {type(cache).__name__}")
        results = _np.empty(len(a), MOVE_RESULT_DTYPE)
        self._native._move(a, _settings(settings, "settings"), results, self._layers, _threads(threads),
                           None if cache is None else cache._native)
        return results

    def validate(self, moves, tolerance=0.01, max_speed=None, movement=None, threads=0, jump_speed=0.0,
                 rule="tick_end"):
        """Judges CLAIMED_MOVE_DTYPE records (each against its agent's layers), or
        numbers of shape (n, 11) (capsule, motion, dt) or (n, 13) (then vertical_speed, grounded);
        returns VERDICT_DTYPE records (kind: VERDICTS, reason: REASONS with the claimed number and
        its limit, the allowance each move was held to, and the next_* state to carry into the
        agent's next claim). max_speed: m/s over the horizontal part; None = the library's
        default (7 m/s), NO_SPEED_LIMIT = none; 0 is refused. rule: "tick_end" (claims are where
        ticks ended) or "straight_segment" (claims are straight pieces travelled, as a crowd trace
        holds). A tolerance at or above some claimed body's radius, or settings the library
        refuses, raise capsweep.Error with the library's message."""
        m = _claimed_moves(moves)
        if rule not in RULES:
            raise Error(f"rule must be one of {', '.join(RULES)}, got {rule!r}")
        speed = 0.0 if max_speed is None else _number(max_speed, "max_speed")
        verdicts = _np.empty(len(m), VERDICT_DTYPE)
        self._native._validate(m, _number(tolerance, "tolerance"), max_speed is None, speed, _number(jump_speed, "jump_speed"),
                               RULES.index(rule), _settings(movement, "movement"), verdicts, self._layers,
                               _threads(threads))
        return verdicts

    def overlap(self, capsules, clearance=0.0, threads=0):
        """Static capsules (CAPSULE_DTYPE records, or float32 (n, 7)): clear of the world by
        `clearance`, and their deepest overlap; returns OVERLAP_DTYPE records."""
        c = _records(capsules, CAPSULE_DTYPE, 7, "capsules")
        results = _np.empty(len(c), OVERLAP_DTYPE)
        self._native._overlap(c, _number(clearance, "clearance"), results, self._layers, _threads(threads))
        return results

    def posed(self, poses):
        """The next frame of a world with instances (instanced()): a new World with the instances
        named in `poses` (INSTANCE_POSE_DTYPE records, or numbers of shape (n, 8): id, x, y, z, qx,
        qy, qz, qw) moved and the others where they were. This world does not change. A pose
        refused (an unknown id, an id twice, NaN, a rotation off unit length, placed beyond 1e6 m)
        raises capsweep.Error naming its row; nothing is applied."""
        return World._wrap(self._native._posed(_instance_poses(poses)), self._layers)

    def instance_of(self, triangle):
        """The id of the instance that triangle `triangle` belongs to, or None for the static part's."""
        return self._native._instance_of(int(triangle))

    def streamed(self, added=(), removed=()):
        """The next frame with the tiles whose ids are in `removed` gone, then the Tiles in `added`
        in (an id both removed and added is replaced). Tiles' triangles follow the instances',
        tile after tile by id. This world does not change. A refused row (an id the world has no
        tile of, an id in use, a mesh that is not a mesh alone, layers 0, an origin not finite or
        beyond 1e6 m) raises capsweep.Error naming the tile and row; nothing is applied."""
        rows = []
        for k, t in enumerate(added):
            if not isinstance(t, Tile):
                raise Error(f"added: row {k} is {type(t).__name__}, not capsweep.Tile")
            rows.append((t.id, t.layers, t.origin[0], t.origin[1], t.origin[2], t.mesh._native))
        ids = [_uint32(r, f"removed: row {k}") for k, r in enumerate(removed)]
        return World._wrap(self._native._streamed(rows, ids), self._layers)

    def tile_of(self, triangle):
        """The id of the tile that triangle `triangle` belongs to, or None."""
        return self._native._tile_of(int(triangle))

    def _sweep_seconds(self, queries, path="simd", threads=0, repeats=5):
        """The best time of the same batch through the C++ API (for bench scripts)."""
        return self._native._sweep_seconds(_records(queries, QUERY_DTYPE, 10, "queries"), _PATHS[path],
                                           _threads(threads), int(repeats))


def _instance_poses(poses):
    a = _np.asarray(poses)
    if a.dtype == INSTANCE_POSE_DTYPE:
        if a.ndim != 1:
            raise Error(f"poses: expected a 1-d array of records, got shape {a.shape}")
        return _np.ascontiguousarray(a)
    if a.dtype.names is not None or a.ndim != 2 or a.shape[1] != 8:
        raise Error(f"poses: expected shape (n, 8) (id, x, y, z, qx, qy, qz, qw) or INSTANCE_POSE_DTYPE records, "
                    f"got {a.dtype} of shape {a.shape}")
    rows = _np.asarray(a, dtype=_np.float64)
    ids = rows[:, 0]
    if not (_np.all(ids == _np.floor(ids)) and _np.all((ids >= 0) & (ids <= 0xFFFFFFFF))):
        bad = int(_np.argmax(~((ids == _np.floor(ids)) & (ids >= 0) & (ids <= 0xFFFFFFFF))))
        raise Error(f"poses: row {bad}: the id {rows[bad, 0]!r} is not a 32-bit unsigned integer")
    out = _np.zeros(len(rows), INSTANCE_POSE_DTYPE)
    out["id"] = ids.astype(_np.uint32)
    out["pose"]["position"] = rows[:, 1:4]
    out["pose"]["rotation"] = rows[:, 4:8]
    return out


def _uint32(value, where):
    if isinstance(value, bool) or int(value) != value or not 0 <= int(value) <= 0xFFFFFFFF:
        raise Error(f"{where}: {value!r} is not a 32-bit unsigned integer")
    return int(value)


class Tile:
    """A static piece of an open world (World.streamed): `mesh`, a World of a mesh alone whose
    coordinates are relative to `origin` (x, y, z, kept in double), placed there without
    rotation, on `layers`. Build the mesh on any thread while batches run: it is the costly
    part; streamed() only publishes it."""

    def __init__(self, id, origin, mesh, layers=1):
        self.id = _uint32(id, "Tile id")
        o = _np.asarray(origin, dtype=_np.float64)
        if o.shape != (3,):
            raise Error(f"Tile {self.id}: origin must be 3 numbers, got shape {o.shape}")
        self.origin = tuple(float(v) for v in o)
        if not isinstance(mesh, World):
            raise Error(f"Tile {self.id}: mesh must be capsweep.World, got {type(mesh).__name__}")
        self.mesh = mesh
        self.layers = _uint32(layers, f"Tile {self.id} layers")


def instanced(static, prototypes, instances):
    """A World of a static part (a World without instances) and instances of prototypes (Worlds
    of a mesh alone, each kept once however often it is placed), placed by INSTANCE_DTYPE records.
    Its triangles are the static part's, then each instance's in the order given; it answers
    every batch as the World with the instances' triangles baked in. world.posed(poses) makes
    the next frame. A refused instance raises capsweep.Error naming it."""
    a = _np.asarray(instances)
    if a.dtype != INSTANCE_DTYPE or a.ndim != 1:
        raise Error(f"instances: expected a 1-d array of INSTANCE_DTYPE records, got {a.dtype} of shape {a.shape}")
    protos = list(prototypes)
    if not isinstance(static, World) or not all(isinstance(p, World) for p in protos):
        raise Error("instanced: the static part and every prototype must be capsweep.World")
    return World._wrap(_capsweep._instanced(static._native, [p._native for p in protos], _np.ascontiguousarray(a)),
                       static._layers)


def load(path, scale=1.0, z_up=False, layers=None):
    """A World from a mesh file (anything Assimp reads, FILE.gz), a CWSW snapshot, or a built-in
    scene by name as the command takes it ("@arena": the 40 m walled arena). scale multiplies
    every coordinate; z_up turns a Z-up file Y up; layers names a layer table (lines
    `NAME LAYER[,LAYER...]`); none of them applies to snapshots."""
    return World._wrap(_capsweep._load(str(path), _number(scale, "scale"), bool(z_up), str(layers) if layers else ""))


def _cell(cell):
    c = _np.atleast_1d(_np.asarray(cell, dtype=float))
    if c.shape not in ((1,), (2,)):
        raise Error(f"cell must be one size or (x, z), got {cell!r}")
    return float(c[0]), float(c[-1])


def _origin(origin):
    o = _np.asarray(origin, dtype=float)
    if o.shape != (3,):
        raise Error(f"origin must be (x, y, z), got {origin!r}")
    return [float(x) for x in o]


def _mask(layers, what):
    if not 0 < int(layers) <= 0xFFFFFFFF:
        raise Error(f"{what} must be a mask naming at least one layer")
    return int(layers)


def heightfield(heights, cell=1.0, origin=(0.0, 0.0, 0.0), height_scale=1.0, holes=None, layers=1,
                vertices=None, indices=None, mesh_layers=None):
    """A World of terrain as a grid of heights, with a mesh on it or none.

    heights: (rows, columns) float32 metres, or uint16 samples (metres = height_scale * sample);
    rows run along +z, columns along +x; sample (r, c) stands at origin + (c * cell_x, height,
    r * cell_z). cell: one size or (cell_x, cell_z). holes: (rows - 1, columns - 1) flags, true =
    no ground in that cell. layers: the terrain's layer mask. vertices, indices, mesh_layers: a
    mesh on the terrain, as World() takes them. Triangle indices: the mesh's first, then two per
    cell, mesh_count + 2 * (r * (columns - 1) + c) + half."""
    h = _np.asarray(heights)
    if h.dtype != _np.uint16:
        h = h.astype("<f4")
    if h.ndim != 2 or h.shape[0] < 2 or h.shape[1] < 2:
        raise Error(f"heights must have shape (rows, columns), at least 2 x 2, got {h.shape}")
    cx, cz = _cell(cell)
    hole_flags = None
    if holes is not None:
        hole_flags = _np.ascontiguousarray(_np.asarray(holes) != 0, dtype=_np.uint8)
        if hole_flags.shape != (h.shape[0] - 1, h.shape[1] - 1):
            raise Error(f"holes must have one flag per cell: shape {(h.shape[0] - 1, h.shape[1] - 1)}, "
                        f"got {hole_flags.shape}")
    v = i = m = None
    if indices is not None:
        v, i, m = _mesh_arrays(vertices, indices, mesh_layers)
    return World._wrap(_capsweep._from_heightfield(h, cx, cz, _number(height_scale, "height_scale"), _origin(origin), hole_flags,
                                                   _mask(layers, "layers"), v, i, m))


def load_heightmap(path, cell=1.0, origin=(0.0, 0.0, 0.0), height_scale=1.0, size=None, holes=None, layers=1):
    """A World from a heightmap file: a grayscale PNG (16 or 8 bits, a sample per pixel, rows
    along +z) or raw little-endian float32 heights (give size=(columns, rows)); holes names a
    grayscale PNG with a pixel per cell (0 = ground). As `capsweep build --heightmap` reads them."""
    columns, rows = (0, 0) if size is None else (int(size[0]), int(size[1]))
    cx, cz = _cell(cell)
    return World._wrap(_capsweep._load_heightmap(str(path), cx, cz, _number(height_scale, "height_scale"), _origin(origin), columns,
                                                 rows, str(holes) if holes else "", _mask(layers, "layers")))


def read_queries(path):
    """The queries of a CWSQ file of capsule sweeps or claimed moves (every one checked): QUERY_DTYPE
    records, or MASKED_QUERY_DTYPE records when the file carries each query's layers (versions 4, 5)."""
    return _capsweep._query_count_and_fill(
        str(path), lambda n, masked: _np.empty(n, MASKED_QUERY_DTYPE if masked else QUERY_DTYPE))


def read_ellipsoid_queries(path):
    """The ellipsoid sweeps of a CWSQ version 3 file, as ELLIPSOID_QUERY_DTYPE records (version 6,
    with each one's layers: MASKED_ELLIPSOID_QUERY_DTYPE records)."""
    return _capsweep._ellipsoid_count_and_fill(
        str(path), lambda n, masked: _np.empty(n, MASKED_ELLIPSOID_QUERY_DTYPE if masked else ELLIPSOID_QUERY_DTYPE))


def read_claimed_moves(path, dt=0.0):
    """The claimed moves of a CWSQ file as CLAIMED_MOVE_DTYPE records (every one checked): a version
    2, 5 or 7 file's as they are (7: capsule and ellipsoid agents), a version 1 or 4 file's sweeps as
    moves over `dt` seconds from an unknown state."""
    return _capsweep._claimed_move_count_and_fill(str(path), _number(dt, "dt"), lambda n: _np.empty(n, CLAIMED_MOVE_DTYPE))


def write_results(path, hits, world=None):
    """Writes HIT_DTYPE records as a CWSR file (the bytes `capsweep sweep` writes): version 1, or,
    given the World that answered them and it has instances or tiles, version 2, each record
    naming the instance or tile its hit is on (docs/FORMATS.md)."""
    if world is not None and not isinstance(world, World):
        raise Error(f"write_results: world must be capsweep.World, got {type(world).__name__}")
    _capsweep._write_results(str(path), _records(hits, HIT_DTYPE, None, "hits"), world._native if world is not None else None)


# ---- Navigation: navmeshes and crowds that walk them (<capsweep/navigation.h>) ----

#: An agent of a NavCrowd (cs_nav_agent, 80 bytes): status indexes NAV_STATUS.
NAV_AGENT_DTYPE = _capsweep.NAV_AGENT_DTYPE
#: cs_nav_agent.status: idle (no goal yet), walking, arrived, no_path (its goal is unreachable:
#: it waits), off_mesh (no polygon within reach of its feet; `returning` says whether it walks back).
NAV_STATUS = ("idle", "walking", "arrived", "no_path", "off_mesh")
default_crowd_settings = _capsweep.default_crowd_settings


def _capsule(body, what):
    """One capsule as a 1-record CAPSULE_DTYPE array: from a record or 7 numbers (a, b, radius)."""
    a = _np.asarray(body)
    if a.dtype == CAPSULE_DTYPE:
        c = _np.ascontiguousarray(a.reshape(-1))
    else:
        c = _records(a.reshape(1, -1) if a.ndim == 1 else a, CAPSULE_DTYPE, 7, what)
    if len(c) != 1:
        raise Error(f"{what}: expected one capsule, got {len(c)}")
    return c


def navmesh_settings(body, movement=None, layers=ALL_LAYERS):
    """The navmesh settings (a dict, metres and degrees) that walk what the solver walks for agents
    whose body is `body` (a CAPSULE_DTYPE record or 7 numbers: a, b, radius; upright) moved with
    `movement` (a dict of movement settings, None: the defaults) on the triangles of `layers`:
    climb from step_height, slope from max_slope_degrees, radius and height from the body
    (docs/NAVIGATION.md gives each mapping)."""
    return _capsweep._navmesh_settings(_settings(movement, "movement"), _capsule(body, "body"), _mask(layers, "layers"))


class NavMesh:
    """A tiled Recast navmesh: immutable once built or read, safe to query from any thread.

    NavMesh.build(world, settings) builds one (settings from navmesh_settings()); NavMesh.read(path)
    reads a CWNM file (`capsweep navmesh` writes them). Points are 3 numbers (x, y, z), metres."""

    def __init__(self, native):
        self._native = native

    @classmethod
    def build(cls, world, settings, threads=0):
        """The navmesh of the world's triangles on settings["layers"], tiles built on `threads`
        workers (the same bytes on any count)."""
        if not isinstance(settings, _Mapping):
            raise Error("settings must be a dict of navmesh settings (navmesh_settings() makes one)")
        return cls(_capsweep._navmesh_build(world._native, dict(settings), _threads(threads)))

    @classmethod
    def read(cls, path):
        """A CWNM file; a damaged one raises capsweep.Error naming the file, the record and why."""
        return cls(_capsweep._navmesh_read(str(path)))

    def write(self, path):
        """Writes it as a CWNM file, atomically."""
        self._native.write(str(path))

    @property
    def settings(self):
        return self._native.settings

    @property
    def stats(self):
        """tiles, polygons, vertices, and bounds (float32 (2, 3): min corner, then max)."""
        return self._native.stats

    def nearest(self, point, reach=(1.0, 2.0, 1.0)):
        """The point of the mesh nearest `point` within `reach` (half extents of a box), float32
        (3,), or None when no polygon is that close."""
        return self._native.nearest(point, reach)

    def path(self, start, end):
        """The shortest path from the polygon under `start` to the one under `end`: (corners,
        complete, length): corners float32 (n, 3) from start to end (n = 0 when either is off the
        mesh), complete False when it only gets as close as the mesh allows."""
        return self._native.path(start, end)

    def random_reachable(self, start, seed):
        """A random point reachable from `start`, drawn from `seed` alone, or None off the mesh."""
        return self._native.random_reachable(start, int(seed))


class NavCrowd:
    """Agents walking to goals on a navmesh: each tick plans and steers every agent (Detour paths,
    a path corridor, avoidance), then moves them all with one World.move. Bit-identical for any
    thread count and agent order. One thread at a time calls it: a call while another thread's
    tick runs raises capsweep.Error (busy).

    NavCrowd(world, navmesh, settings=None, movement=None, threads=0): settings a dict
    (default_crowd_settings() lists them), movement a dict of movement settings (its dt is the
    tick). The world's layer mask (World.with_layers) is what planning and moving see."""

    def __init__(self, world, navmesh, settings=None, movement=None, threads=0):
        if settings is not None and not isinstance(settings, _Mapping):
            raise Error("settings must be a dict of crowd settings (default_crowd_settings() lists them)")
        self._native = _capsweep._nav_crowd(world._native, navmesh._native, dict(settings or {}),
                                            _settings(movement, "movement"), world._layers, _threads(threads))

    def add(self, body, speed=1.5, id=None, layers=ALL_LAYERS):
        """Adds an agent standing where `body` is (a capsule record or 7 numbers), idle until given
        a goal; returns its index. id (default: the index) breaks ties between agents."""
        index = self._native.agent_count
        return self._native.add(_capsule(body, "body"), _number(speed, "speed"),
                                _uint32(index if id is None else id, "id"), _mask(layers, "layers"))

    def set_goal(self, index, goal):
        """A new goal for agent `index`: planned at the next tick (no_path when unreachable)."""
        self._native.set_goal(int(index), goal)

    def tick(self):
        """One tick (the GIL released)."""
        self._native.tick()

    @property
    def agents(self):
        """Every agent now, NAV_AGENT_DTYPE records (a new array each time)."""
        out = _np.empty(self._native.agent_count, NAV_AGENT_DTYPE)
        self._native._agents(out)
        return out

    @property
    def results(self):
        """The last tick's MOVE_RESULT_DTYPE records, one per agent, as World.move gives them."""
        out = _np.empty(self._native.agent_count, MOVE_RESULT_DTYPE)
        self._native._results(out)
        return out

    def corners(self, index, max=8):
        """Agent `index`'s next path corners (at most `max`), float32 (n, 3)."""
        return self._native.corners(int(index), int(max))

    @property
    def times(self):
        """What the last tick cost, seconds: (planning, moving)."""
        return self._native.times


__all__ = ["World", "MoveCache", "load", "heightfield", "load_heightmap", "read_queries", "read_ellipsoid_queries", "read_claimed_moves", "write_results", "ELLIPSOID_QUERY_DTYPE",
           "MASKED_QUERY_DTYPE", "MASKED_ELLIPSOID_QUERY_DTYPE", "ALL_LAYERS", "NO_TRIANGLE", "NO_SPEED_LIMIT", "REASONS", "RULES", "ELLIPSOID_DTYPE", "SHAPES",
           "default_move_settings", "Error",
           "QUERY_DTYPE",
           "HIT_DTYPE", "CAPSULE_DTYPE", "AGENT_DTYPE", "MOVE_RESULT_DTYPE", "MOVE_CONTACT_DTYPE",
           "CLAIMED_MOVE_DTYPE", "VERDICT_DTYPE", "OVERLAP_DTYPE", "STATUS", "VERDICTS", "MAX_THREADS", "__version__",
           "instanced", "INSTANCE_DTYPE", "INSTANCE_POSE_DTYPE", "Tile",
           "NavMesh", "NavCrowd", "navmesh_settings", "default_crowd_settings", "NAV_AGENT_DTYPE", "NAV_STATUS"]
