"""The Python package answers exactly what the library and the `capsweep` command answer."""
import os
import pathlib
import subprocess
import threading

import numpy as np
import pytest

import capsweep

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCENES = pathlib.Path(os.environ.get("CAPSWEEP_SCENES_DIR", ROOT / "scenes"))
BINARY = os.environ.get("CAPSWEEP_BINARY", str(ROOT / "build" / "cli" / "capsweep"))
DUNGEON = str(SCENES / "recast_dungeon.obj")


def run(*args):
    done = subprocess.run([BINARY, *map(str, args)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def dungeon():
    return capsweep.load(DUNGEON)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("cwsq")
    for workload in ("validate", "long"):
        run("queries", "--scene", DUNGEON, "--workload", workload, "--count", 2000, "--seed", 7,
            "--out", d / f"{workload}.cwsq")
        run("sweep", "--scene", DUNGEON, "--queries", d / f"{workload}.cwsq", "--out", d / f"{workload}.cwsr")
    return d


def floor():
    """A 2 m x 2 m floor at y = 0 of two triangles (counter-clockwise seen from above)."""
    vertices = np.array([[-1, 0, -1], [-1, 0, 1], [1, 0, 1], [1, 0, -1]], dtype=np.float32)
    indices = np.array([[0, 1, 2], [0, 2, 3]])
    return capsweep.World(vertices, indices)


def _struct(fields, itemsize):
    names, formats, offsets = zip(*fields)
    return np.dtype({"names": list(names), "formats": list(formats), "offsets": list(offsets), "itemsize": itemsize})


_V3 = ("<f4", (3,))
_CAPSULE = _struct([("a", _V3, 0), ("b", _V3, 12), ("radius", "<f4", 24)], 28)
_HIT = _struct([("hit", "u1", 0), ("feature", "u1", 1), ("reserved", "<u2", 2), ("t", "<f4", 4), ("normal", _V3, 8),
                ("point", _V3, 20), ("depth", "<f4", 32), ("triangle", "<u4", 36)], 40)
_ELLIPSOID = _struct([("centre", _V3, 0), ("radii", _V3, 12)], 24)
_CONTACT = _struct([("point", _V3, 0), ("normal", _V3, 12), ("triangle", "<u4", 24), ("agent", "<u4", 28)], 32)
#: Every record's bytes as docs/FORMATS.md and capsweep_c.h pin them (the dtypes of 0.5, which
#: were written out by hand): the dtypes made from the C structs must be these, field for field.
PINNED = {
    "CAPSULE_DTYPE": _CAPSULE,
    "QUERY_DTYPE": _struct([("a", _V3, 0), ("b", _V3, 12), ("radius", "<f4", 24), ("motion", _V3, 28)], 40),
    "ELLIPSOID_QUERY_DTYPE": _struct([("centre", _V3, 0), ("radii", _V3, 12), ("motion", _V3, 24)], 36),
    "MASKED_QUERY_DTYPE": _struct([("a", _V3, 0), ("b", _V3, 12), ("radius", "<f4", 24), ("motion", _V3, 28),
                                   ("layers", "<u4", 40)], 44),
    "MASKED_ELLIPSOID_QUERY_DTYPE": _struct([("centre", _V3, 0), ("radii", _V3, 12), ("motion", _V3, 24),
                                             ("layers", "<u4", 36)], 40),
    "HIT_DTYPE": _HIT,
    "ELLIPSOID_DTYPE": _ELLIPSOID,
    "AGENT_DTYPE": _struct([("capsule", _CAPSULE, 0), ("displacement", _V3, 28), ("vertical_speed", "<f4", 40),
                            ("id", "<u4", 44), ("layers", "<u4", 48), ("shape", "u1", 52), ("grounded", "u1", 53),
                            ("reserved", ("u1", (2,)), 54), ("ellipsoid", _ELLIPSOID, 56),
                            ("ground_triangle", "<u4", 80)], 84),
    "MOVE_CONTACT_DTYPE": _CONTACT,
    "MOVE_RESULT_DTYPE": _struct([("capsule", _CAPSULE, 0), ("moved", _V3, 28), ("vertical_speed", "<f4", 40),
                                  ("grounded", "u1", 44), ("flags", "u1", 45), ("contact_count", "u1", 46),
                                  ("status", "u1", 47), ("ground_normal", _V3, 48), ("ground_triangle", "<u4", 60),
                                  ("sweeps", "<u2", 64), ("shape", "u1", 66), ("reserved", "u1", 67),
                                  ("pushed", "<f4", 68), ("contacts", (_CONTACT, (4,)), 72),
                                  ("ellipsoid", _ELLIPSOID, 200)], 224),
    "CLAIMED_MOVE_DTYPE": _struct([("from", _CAPSULE, 0), ("motion", _V3, 28), ("dt", "<f4", 40),
                                   ("vertical_speed", "<f4", 44), ("grounded", "u1", 48), ("shape", "u1", 49),
                                   ("reserved", ("u1", (2,)), 50), ("layers", "<u4", 52),
                                   ("from_ellipsoid", _ELLIPSOID, 56), ("ground_triangle", "<u4", 80)], 84),
    "VERDICT_DTYPE": _struct([("kind", "u1", 0), ("status", "u1", 1), ("grounded", "u1", 2), ("in_skin", "u1", 3),
                              ("legal_fraction", "<f4", 4), ("hit", _HIT, 8), ("furthest", _CAPSULE, 48),
                              ("corrected", _CAPSULE, 76), ("allowed_horizontal", "<f4", 104),
                              ("allowed_down", "<f4", 108), ("allowed_up", "<f4", 112),
                              ("furthest_ellipsoid", _ELLIPSOID, 116), ("corrected_ellipsoid", _ELLIPSOID, 140),
                              ("reason", "u1", 164), ("next_grounded", "u1", 165), ("reserved", ("u1", (2,)), 166),
                              ("claimed", "<f4", 168), ("limit", "<f4", 172), ("next_vertical_speed", "<f4", 176),
                              ("next_ground_triangle", "<u4", 180)], 184),
    "INSTANCE_DTYPE": _struct([("id", "<u4", 0), ("prototype", "<u4", 4),
                               ("pose", _struct([("position", ("<f8", (3,)), 0), ("rotation", ("<f8", (4,)), 24)], 56), 8),
                               ("layers", "<u4", 64), ("reserved", "<u4", 68)], 72),
    "INSTANCE_POSE_DTYPE": _struct([("id", "<u4", 0), ("reserved", "<u4", 4),
                                    ("pose", _struct([("position", ("<f8", (3,)), 0), ("rotation", ("<f8", (4,)), 24)], 56),
                                     8)], 64),
    "OVERLAP_DTYPE": _struct([("clear", "u1", 0), ("overlapping", "u1", 1), ("status", "u1", 2), ("feature", "u1", 3),
                              ("distance", "<f4", 4), ("depth", "<f4", 8), ("normal", _V3, 12), ("point", _V3, 24),
                              ("point_on_axis", _V3, 36), ("triangle", "<u4", 48)], 52),
    "NAV_AGENT_DTYPE": _struct([("capsule", _CAPSULE, 0), ("speed", "<f4", 28), ("id", "<u4", 32), ("layers", "<u4", 36),
                                ("status", "u1", 40), ("returning", "u1", 41), ("reserved", ("u1", (2,)), 42),
                                ("goal", _V3, 44), ("velocity", _V3, 56), ("vertical_speed", "<f4", 68),
                                ("ground_triangle", "<u4", 72), ("replans", "<u4", 76)], 80),
}


def test_dtypes_are_the_c_structs():
    """The dtypes are registered from the C structs (PYBIND11_NUMPY_DTYPE): each is the pinned
    record, every field's name, type and offset and the size."""
    dtypes = {name: value for name, value in vars(capsweep).items() if name.endswith("_DTYPE")}
    assert set(dtypes) == set(PINNED)
    for name, dtype in dtypes.items():
        assert dtype == PINNED[name], name
        assert dtype.descr == PINNED[name].descr, name
        assert dtype.itemsize == PINNED[name].itemsize, name
        for field, (_, offset) in PINNED[name].fields.items():
            assert dtype.fields[field][1] == offset, (name, field)
        assert dtype is getattr(capsweep._capsweep, name), name  # the native module's own
    assert capsweep.QUERY_DTYPE.itemsize == 40 and capsweep.HIT_DTYPE.itemsize == 40


@pytest.mark.parametrize("workload", ["validate", "long"])
def test_sweep_gives_the_bytes_capsweep_sweep_writes(dungeon, files, workload, tmp_path):
    queries = capsweep.read_queries(files / f"{workload}.cwsq")
    expected = (files / f"{workload}.cwsr").read_bytes()
    hits = dungeon.sweep(queries)
    assert hits.dtype == capsweep.HIT_DTYPE and len(hits) == 2000
    assert hits.tobytes() == expected[16:]
    assert (hits["hit"] > 0).sum() > 100  # the set really hits things
    capsweep.write_results(tmp_path / "r.cwsr", hits)
    assert (tmp_path / "r.cwsr").read_bytes() == expected
    # The same queries as plain floats (n, 10), in CWSQ order.
    floats = queries.view(np.float32).reshape(len(queries), 10).copy()
    assert dungeon.sweep(floats).tobytes() == expected[16:]


def test_every_path_and_thread_count_gives_the_same_bytes(dungeon, files):
    queries = capsweep.read_queries(files / "validate.cwsq")
    reference = dungeon.sweep(queries).tobytes()
    for path in ("scalar", "brute"):
        assert dungeon.sweep(queries, path=path).tobytes() == reference, path
    assert dungeon.sweep(queries, threads=1).tobytes() == reference
    assert dungeon.sweep(queries[::-1].copy()).tobytes() == dungeon.sweep(queries).view()[::-1].tobytes()


def test_a_world_from_arrays_answers_a_falling_sphere():
    world = floor()
    assert world.triangle_count == 2
    # A sphere of radius 0.5 at y = 2 falling 3 m touches the floor after 1.5 m: t = 0.5.
    q = np.array([[0.2, 2, 0.1, 0.2, 2, 0.1, 0.5, 0, -3, 0]], dtype=np.float32)
    hit = world.sweep(q)[0]
    assert hit["hit"] == 1 and hit["feature"] == 1
    assert hit["t"] <= 0.5 and hit["t"] == pytest.approx(0.5, abs=1e-6)
    assert hit["normal"][1] == pytest.approx(1.0)
    assert hit["triangle"] in (0, 1)


def test_a_ray_and_a_segment_are_sweeps_of_radius_zero():
    world = floor()
    # A ray from y = 2 straight down 4 m meets the floor half way; so does a horizontal segment.
    q = np.array([[0.2, 2, 0.1, 0.2, 2, 0.1, 0, 0, -4, 0], [-0.5, 2, 0.1, 0.5, 2, 0.1, 0, 0, -4, 0]],
                 dtype=np.float32)
    hits, status = world.sweep(q, status=True)
    assert [capsweep.STATUS[s] for s in status] == ["ok", "ok"]
    for hit in hits:
        assert hit["hit"] == 1 and hit["t"] <= 0.5 and hit["t"] == pytest.approx(0.5, abs=1e-4 / 4)
        assert hit["normal"][1] == pytest.approx(1.0)
    # An agent is solid: a radius-0 agent stays put, refused.
    agents = np.zeros(1, dtype=capsweep.AGENT_DTYPE)
    agents["layers"] = capsweep.ALL_LAYERS  # every layer (a mask of 0 names none)
    agents[0]["capsule"]["a"], agents[0]["capsule"]["b"] = (0.2, 1, 0.1), (0.2, 1.5, 0.1)
    agents[0]["displacement"] = (0.1, 0, 0)
    moved = world.move(agents)
    assert capsweep.STATUS[moved[0]["status"]] == "bad_radius"


def test_ellipsoids_sweep_the_same_bytes_on_every_path():
    world = floor()
    # A flat ellipsoid (radii 1, 0.25, 2) from y = 1.25 down by 2 lands on its short radius: t = 0.5.
    q = np.array([[0.2, 1.25, 0.1, 1, 0.25, 2, 0, -2, 0], [0, 1, 0, 1, 0, 1, 0, -2, 0]], dtype=np.float32)
    hits, status = world.sweep_ellipsoid(q, status=True)
    assert [capsweep.STATUS[s] for s in status] == ["ok", "bad_radius"]
    assert hits["hit"][0] == 1 and hits["t"][0] <= 0.5 and hits["t"][0] == pytest.approx(0.5, abs=1e-6)
    assert hits["normal"][0][1] == pytest.approx(1.0) and hits["hit"][1] == 0
    for path in ("scalar", "brute"):
        assert world.sweep_ellipsoid(q, path=path).tobytes() == hits.tobytes()


def test_ellipsoid_files_give_the_bytes_capsweep_sweep_writes(dungeon, tmp_path):
    queries, answers = tmp_path / "e.cwsq", tmp_path / "e.cwsr"
    run("queries", "--scene", DUNGEON, "--workload", "long", "--shape", "ellipsoid", "--count", 3000, "--out", queries)
    run("sweep", "--scene", DUNGEON, "--queries", queries, "--out", answers)
    q = capsweep.read_ellipsoid_queries(queries)
    assert q.dtype == capsweep.ELLIPSOID_QUERY_DTYPE and len(q) == 3000
    assert dungeon.sweep_ellipsoid(q, threads=1).tobytes() == answers.read_bytes()[16:]
    with pytest.raises(capsweep.Error, match="it holds ellipsoid sweeps"):
        capsweep.read_queries(queries)


def test_layers_hide_what_a_view_does_not_see(tmp_path):
    # A floor (layer 1) and a wall at x = 2 (layer 2), from arrays and from a file with a table.
    vertices = np.array([[-5, 0, -5], [5, 0, -5], [5, 0, 5], [-5, 0, 5], [2, 0, -5], [2, 3, -5], [2, 3, 5],
                         [2, 0, 5]], dtype=np.float32)
    indices = np.array([[0, 2, 1], [0, 3, 2], [4, 5, 6], [4, 6, 7]])
    ray = np.array([[0, 1, 0, 0, 1, 0, 0, 4, 0, 0]], dtype=np.float32)
    obj, table = tmp_path / "room.obj", tmp_path / "layers.txt"
    obj.write_text("v -5 0 -5\nv 5 0 -5\nv 5 0 5\nv -5 0 5\nv 2 0 -5\nv 2 3 -5\nv 2 3 5\nv 2 0 5\n"
                   "g floor\nf 1 3 2\nf 1 4 3\ng wall\nf 5 6 7\nf 5 7 8\n")
    table.write_text("wall 2\n")
    for world in (capsweep.World(vertices, indices, layers=[1, 1, 2, 2]), capsweep.load(obj, layers=table)):
        assert world.sweep(ray)["hit"][0] == 1
        floor_only = world.with_layers(1)
        assert floor_only.sweep(ray)["hit"][0] == 0
        assert floor_only.with_layers(3).sweep(ray).tobytes() == world.sweep(ray).tobytes()
    with pytest.raises(capsweep.Error, match="at least one layer"):
        capsweep.World(vertices, indices).with_layers(0)
    with pytest.raises(capsweep.Error, match="triangle 1: its layer mask is 0"):
        capsweep.World(vertices, indices, layers=[1, 0, 1, 1])
    with pytest.raises(capsweep.Error, match="'wal' names no material, mesh or node"):
        (tmp_path / "typo.txt").write_text("wal 2\n")
        capsweep.load(obj, layers=tmp_path / "typo.txt")


def test_each_query_agent_and_claim_sees_its_own_layers(tmp_path):
    """Masks in the records: a query's own layers hide the wall as a batch's do, a zeroed mask sees
    nothing and is refused (as in C, C++ and the files), as is a mask sharing no layer with the
    view; files of versions 4 and 6 read as masked records and answer as `capsweep sweep` answers
    them."""
    vertices = np.array([[-5, 0, -5], [5, 0, -5], [5, 0, 5], [-5, 0, 5],
                         [2, 0, -5], [2, 3, -5], [2, 3, 5], [2, 0, 5]], dtype=np.float32)
    indices = np.array([[0, 2, 1], [0, 3, 2], [4, 5, 6], [4, 6, 7]])
    world = capsweep.World(vertices, indices, layers=[1, 1, 2, 2])
    rays = np.zeros(4, capsweep.MASKED_QUERY_DTYPE)
    rays["a"] = rays["b"] = (0, 1, 0)
    rays["motion"] = (4, 0, 0)
    rays["layers"] = [0, 1, 2, capsweep.ALL_LAYERS]
    hits, status = world.sweep(rays, status=True)
    assert list(hits["hit"]) == [0, 0, 1, 1]
    assert [capsweep.STATUS[s] for s in status] == ["bad_layers", "ok", "ok", "ok"]
    plain = rays[["a", "b", "radius", "motion"]].astype(capsweep.QUERY_DTYPE)
    assert world.sweep(rays[1:2]).tobytes() == world.with_layers(1).sweep(plain[1:2]).tobytes()
    hits, status = world.with_layers(1).sweep(rays, status=True)
    assert [capsweep.STATUS[s] for s in status] == ["bad_layers", "ok", "bad_layers", "ok"]
    assert list(hits["hit"]) == [0, 0, 0, 0]

    e = np.zeros(2, capsweep.MASKED_ELLIPSOID_QUERY_DTYPE)
    e["centre"], e["radii"], e["motion"] = (0, 1, 0), (0.3, 0.5, 0.3), (4, 0, 0)
    e["layers"] = [1, 2]
    assert list(world.sweep_ellipsoid(e)["hit"]) == [0, 1]

    agents = np.zeros(2, capsweep.AGENT_DTYPE)
    for i, layers in enumerate((1, 3)):
        agents[i]["capsule"]["a"], agents[i]["capsule"]["b"] = (1.0, 0.37, i * 2.0), (1.0, 1.47, i * 2.0)
        agents[i]["capsule"]["radius"] = 0.35
        agents[i]["displacement"] = (1.0, 0, 0)
        agents[i]["id"], agents[i]["layers"] = i, layers
    moved = world.move(agents)
    assert moved["capsule"]["a"][0][0] == pytest.approx(2.0, abs=1e-3)  # through the wall
    assert moved["capsule"]["a"][1][0] < 2 - 0.35  # stopped by it
    claims = np.zeros(2, capsweep.CLAIMED_MOVE_DTYPE)
    claims["from"], claims["motion"], claims["dt"] = agents["capsule"], agents["displacement"], 0.1
    claims["layers"] = agents["layers"]
    # 10 m/s: past the default limit, which this test is not about
    verdicts = world.validate(claims, max_speed=capsweep.NO_SPEED_LIMIT)
    assert [capsweep.VERDICTS[k] for k in verdicts["kind"]] == ["ok", "blocked"]

    obj, table = tmp_path / "room.obj", tmp_path / "layers.txt"
    obj.write_text("v -5 0 -5\nv 5 0 -5\nv 5 0 5\nv -5 0 5\nv 2 0 -5\nv 2 3 -5\nv 2 3 5\nv 2 0 5\n"
                   "g floor\nf 1 3 2\nf 1 4 3\ng wall\nf 5 6 7\nf 5 7 8\n")
    table.write_text("wall 2\n")
    loaded = capsweep.load(obj, layers=table)
    for shape, read, version in (("capsule", capsweep.read_queries, 4),
                                 ("ellipsoid", capsweep.read_ellipsoid_queries, 6)):
        q, r = tmp_path / f"{shape}.cwsq", tmp_path / f"{shape}.cwsr"
        run("queries", "--scene", obj, "--layers", table, "--workload", "validate", "--count", 200, "--seed", 3,
            "--shape", shape, "--mask", "1", "--out", q)
        run("sweep", "--scene", obj, "--layers", table, "--queries", q, "--out", r)
        assert q.read_bytes()[4] == version
        records = read(q)
        assert records.dtype in (capsweep.MASKED_QUERY_DTYPE, capsweep.MASKED_ELLIPSOID_QUERY_DTYPE)
        assert (records["layers"] == 1).all()
        answer = loaded.sweep(records) if shape == "capsule" else loaded.sweep_ellipsoid(records)
        assert answer.tobytes() == r.read_bytes()[16:]


def test_agents_that_pass_back_their_ground_probe_less():
    """An agent that passes back its result's grounded and ground_triangle checks that triangle
    alone instead of probing the world: on a floor it walks the same path for fewer sweeps; a
    grounded flag other than 0 or 1 is refused."""
    vertices = np.array([[-5, 0, -5], [5, 0, -5], [5, 0, 5], [-5, 0, 5],
                         [2, 0, -5], [2, 3, -5], [2, 3, 5], [2, 0, 5]], dtype=np.float32)
    world = capsweep.World(vertices, np.array([[0, 2, 1], [0, 3, 2], [4, 5, 6], [4, 6, 7]]))
    agents = np.zeros(2, capsweep.AGENT_DTYPE)
    agents["layers"] = capsweep.ALL_LAYERS  # every layer (a mask of 0 names none)
    agents["capsule"]["a"], agents["capsule"]["b"], agents["capsule"]["radius"] = (0, 0.37, 0), (0, 1.47, 0), 0.35
    agents["displacement"] = (0.1, 0, 0.02)
    agents["id"] = (0, 1)
    sweeps = np.zeros(2)
    for tick in range(30):
        moved = world.move(agents, settings={"agents_collide": 0})
        assert moved["status"].tolist() == [0, 0]
        assert moved["capsule"][0].tobytes() == moved["capsule"][1].tobytes()
        sweeps += moved["sweeps"]
        agents["capsule"] = moved["capsule"]
        agents["vertical_speed"] = moved["vertical_speed"]
        agents["grounded"][0] = moved["grounded"][0]  # agent 0 carries its ground, agent 1 probes
        agents["ground_triangle"][0] = moved["ground_triangle"][0]
    assert agents["grounded"][0] == 1 and agents["ground_triangle"][0] in (0, 1)
    assert sweeps[0] <= sweeps[1] - 25
    bad = agents.copy()
    bad["grounded"][1] = 2
    with pytest.raises(capsweep.Error, match="agent 1: grounded must be 0 or 1"):
        world.move(bad)


def test_ellipsoid_agents_move_and_their_crowds_trace_validates(tmp_path):
    """Ellipsoid agents (AGENT_DTYPE shape 1): one walks into a wall and stops a skin short of it,
    one that is no shape is refused; a mixed crowd's trace (CWSQ version 7), read as claimed moves,
    gets the verdicts `capsweep validate` gives it, every one ok."""
    vertices = np.array([[-5, 0, -5], [5, 0, -5], [5, 0, 5], [-5, 0, 5],
                         [2, 0, -5], [2, 3, -5], [2, 3, 5], [2, 0, 5]], dtype=np.float32)
    world = capsweep.World(vertices, np.array([[0, 2, 1], [0, 3, 2], [4, 5, 6], [4, 6, 7]]))
    agents = np.zeros(1, capsweep.AGENT_DTYPE)
    agents["layers"] = capsweep.ALL_LAYERS  # every layer (a mask of 0 names none)
    agents["shape"] = 1
    agents["ellipsoid"]["centre"], agents["ellipsoid"]["radii"] = (0, 0.95, 0), (0.35, 0.9, 0.35)
    agents["displacement"] = (0.1, 0, 0)
    for tick in range(40):
        moved = world.move(agents)
        assert moved["status"][0] == 0 and moved["shape"][0] == 1
        agents["ellipsoid"] = moved["ellipsoid"]
        agents["vertical_speed"] = moved["vertical_speed"]
    centre = moved["ellipsoid"]["centre"][0]
    assert 2 - 0.35 - 0.03 < centre[0] < 2 - 0.35 - 0.01  # stopped a skin (and the backoff) short
    assert moved["grounded"][0] == 1 and centre[1] - 0.9 < 0.04
    bad = agents.copy()
    bad["shape"] = 3
    with pytest.raises(capsweep.Error, match="agent 0: shape must be 0"):
        world.move(bad)

    trace, csv = tmp_path / "t.cwsq", tmp_path / "v.csv"
    run("crowd", "--scene", "@arena", "--agents", 150, "--ticks", 40, "--seed", 2, "--shape", "mixed",
        "--no-agent-collisions", "--trace", trace)
    run("validate", "--scene", "@arena", "--moves", trace, "--out", csv, "--max-speed", 2, "--rule", "straight_segment")
    moves = capsweep.read_claimed_moves(trace)
    assert moves.dtype == capsweep.CLAIMED_MOVE_DTYPE and set(moves["shape"]) == {0, 1}
    arena = tmp_path / "arena.obj"
    run("arena", "--out", arena)
    verdicts = capsweep.load(arena).validate(moves, max_speed=2, rule="straight_segment")
    kinds = [line.split(",")[1] for line in csv.read_text().splitlines()[1:]]
    assert [capsweep.VERDICTS[k] for k in verdicts["kind"]] == kinds == ["ok"] * len(moves)
    ellipsoids = moves["shape"] == 1
    np.testing.assert_array_equal(verdicts["corrected_ellipsoid"]["centre"][ellipsoids],
                                  moves["from_ellipsoid"]["centre"][ellipsoids] + moves["motion"][ellipsoids])


def test_a_mask_of_zero_names_no_layer_and_is_refused_as_everywhere():
    """A record's mask of 0 (a zeroed record's) is refused with status "bad_layers", as in C, C++,
    the files and the service; ALL_LAYERS sees every layer."""
    world = floor()
    agents = np.zeros(2, capsweep.AGENT_DTYPE)
    agents["capsule"]["a"], agents["capsule"]["b"], agents["capsule"]["radius"] = (0, 0.4, 0), (0, 1.5, 0), 0.3
    agents["capsule"]["a"][:, 2] = agents["capsule"]["b"][:, 2] = (-0.5, 0.5)  # apart
    agents["displacement"] = (0.1, 0, 0)
    agents["layers"] = [0, capsweep.ALL_LAYERS]
    moved = world.move(agents)
    assert [capsweep.STATUS[s] for s in moved["status"]] == ["bad_layers", "ok"]
    assert moved["capsule"]["a"][0][0] == 0 and moved["capsule"]["a"][1][0] > 0  # the refused one stays put
    claims = np.zeros(2, capsweep.CLAIMED_MOVE_DTYPE)
    claims["from"], claims["motion"], claims["dt"] = agents["capsule"], agents["displacement"], 0.1
    claims["layers"] = agents["layers"]
    verdicts = world.validate(claims)
    assert [capsweep.VERDICTS[k] for k in verdicts["kind"]] == ["refused", "ok"]
    assert capsweep.STATUS[verdicts["status"][0]] == "bad_layers"
    e = np.zeros(2, capsweep.MASKED_ELLIPSOID_QUERY_DTYPE)
    e["centre"], e["radii"], e["motion"] = (0, 1, 0), (0.3, 0.5, 0.3), (0, -2, 0)
    e["layers"] = [0, capsweep.ALL_LAYERS]
    hits, status = world.sweep_ellipsoid(e, status=True)
    assert list(hits["hit"]) == [0, 1] and [capsweep.STATUS[s] for s in status] == ["bad_layers", "ok"]


def test_refused_queries_get_a_miss_and_a_status():
    world = floor()
    q = np.array([[np.nan, 2, 0, 0, 2, 0, 0.5, 0, -3, 0], [0, 2, 0, 0, 2, 0, -1, 0, -3, 0],
                  [0, 2, 0, 0, 2, 0, 0.5, 0, -3, 0]], dtype=np.float32)
    hits, status = world.sweep(q, status=True)
    assert [capsweep.STATUS[s] for s in status] == ["non_finite_capsule", "bad_radius", "ok"]
    assert list(hits["hit"]) == [0, 0, 1]
    assert hits["triangle"][0] == 0xFFFFFFFF and hits["t"][0] == 1.0


def test_bad_arrays_and_arguments_are_refused_with_a_message():
    with pytest.raises(ValueError, match="triangle 1 names vertex 7"):
        capsweep.World(np.zeros((3, 3)), np.array([[0, 1, 2], [0, 1, 7]]))
    with pytest.raises(ValueError, match="triangle 0 names vertex -1"):
        capsweep.World(np.zeros((3, 3)), np.array([[0, -1, 2]]))
    with pytest.raises(ValueError, match="no triangles"):
        capsweep.World(np.zeros((3, 3)), np.zeros((0, 3), dtype=np.uint32))
    with pytest.raises(ValueError, match="triangle 0"):
        capsweep.World(np.array([[0, 0, 0], [np.nan, 0, 0], [0, 0, 1]]), np.array([[0, 1, 2]]))
    world = floor()
    with pytest.raises(ValueError, match=r"shape \(n, 10\)"):
        world.sweep(np.zeros((4, 9), dtype=np.float32))
    with pytest.raises(ValueError, match="unknown path"):
        world.sweep(np.zeros((1, 10), dtype=np.float32), path="warp")
    with pytest.raises(ValueError, match="threads"):
        world.sweep(np.zeros((1, 10), dtype=np.float32), threads=-2)
    with pytest.raises(ValueError, match="unknown movement setting 'skn'"):
        world.move(np.zeros(1, capsweep.AGENT_DTYPE), settings={"skn": 0.1})


def every_batch(world):
    """Each kind of batch, as a function of its thread count."""
    queries = np.array([[0, 2, 0, 0, 2, 0, 0.5, 0, -3, 0]], dtype=np.float32)
    ellipsoids = np.array([[0, 2, 0, 0.3, 0.5, 0.3, 0, -3, 0]], dtype=np.float32)
    capsules = np.array([[0, 2, 0, 0, 3, 0, 0.5]], dtype=np.float32)
    return [lambda t: world.sweep(queries, threads=t),
            lambda t: world.sweep_ellipsoid(ellipsoids, threads=t),
            lambda t: world.move(agents_on_the_floor(1), threads=t),
            lambda t: world.validate(np.zeros(1, capsweep.CLAIMED_MOVE_DTYPE), threads=t),
            lambda t: world.overlap(capsules, threads=t)]


def test_threads_outside_the_limit_are_refused_by_name():
    # Past 65,536 workers oneTBB used to crash the process.
    assert capsweep.MAX_THREADS == 1024
    world = floor()
    for threads in (capsweep.MAX_THREADS + 1, 65537, 2**40, -1):
        for batch in every_batch(world):
            with pytest.raises(capsweep.Error, match=rf"threads must be from 0 \(every core\) to 1024, got {threads}"):
                batch(threads)
    for batch in every_batch(world):
        batch(capsweep.MAX_THREADS)
    with pytest.raises(capsweep.Error, match="threads must be an integer"):
        world.sweep(np.zeros((1, 10), dtype=np.float32), threads="many")


def test_files_that_cannot_be_read_name_the_file(tmp_path):
    with pytest.raises(ValueError, match="/no/such/level.obj"):
        capsweep.load("/no/such/level.obj")
    bad = tmp_path / "bad.cwsq"
    bad.write_bytes(b"CWSQ\x01\x00\x00\x00\x05\x00\x00\x00\x00\x00\x00\x00")
    with pytest.raises(ValueError, match="bad.cwsq.*truncated"):
        capsweep.read_queries(bad)
    snapshot = tmp_path / "arena.cwsw"
    run("build", "--scene", "@arena", "--out", snapshot)
    assert capsweep.load(snapshot).triangle_count > 1000
    with pytest.raises(ValueError, match="snapshot"):
        capsweep.load(snapshot, scale=2)


def agents_on_the_floor(n):
    agents = np.zeros(n, capsweep.AGENT_DTYPE)
    agents["layers"] = capsweep.ALL_LAYERS  # every layer (a mask of 0 names none)
    for i in range(n):
        x, z = -0.8 + 0.4 * (i % 5), -0.8 + 0.4 * (i // 5)
        agents[i]["capsule"]["a"] = (x, 0.1 + 0.011, z)
        agents[i]["capsule"]["b"] = (x, 0.4 + 0.011, z)
        agents[i]["capsule"]["radius"] = 0.1
        agents[i]["displacement"] = (0.01, 0, 0)
        agents[i]["id"] = i
    return agents


def test_agents_walk_on_a_floor_and_a_bad_agent_stays_put():
    world = floor()
    agents = agents_on_the_floor(10)
    agents[3]["displacement"][0] = np.inf
    for tick in range(5):
        results = world.move(agents)
        assert list(results["status"]) == [0, 0, 0, 3, 0, 0, 0, 0, 0, 0]
        good = np.arange(10) != 3
        assert results["grounded"][good].all()
        np.testing.assert_allclose(results["moved"][good][:, 0], 0.01, atol=1e-4)
        assert (results["capsule"]["a"][3] == agents["capsule"]["a"][3]).all()
        agents["capsule"] = results["capsule"]
        agents["vertical_speed"] = results["vertical_speed"]
    # One thread or all: the same bytes.
    assert world.move(agents, threads=1).tobytes() == world.move(agents).tobytes()


def test_validate_and_overlap():
    world = floor()
    # A wall at x = 0.5 (two triangles facing -x).
    vertices = np.array([[-1, 0, -1], [-1, 0, 1], [1, 0, 1], [1, 0, -1],
                         [0.5, 0, -1], [0.5, 2, -1], [0.5, 2, 1], [0.5, 0, 1]], dtype=np.float32)
    world = capsweep.World(vertices, np.array([[0, 1, 2], [0, 2, 3], [4, 5, 6], [4, 6, 7]]))
    moves = np.zeros(2, capsweep.CLAIMED_MOVE_DTYPE)
    moves["layers"] = capsweep.ALL_LAYERS  # every layer (a mask of 0 names none)
    for m, dx in zip(moves, (0.2, 1.0)):
        m["from"]["a"], m["from"]["b"], m["from"]["radius"] = (-0.5, 0.15, 0), (-0.5, 0.6, 0), 0.1
        m["motion"] = (dx, 0, 0)
        m["dt"] = 0.1
    verdicts = world.validate(moves, max_speed=capsweep.NO_SPEED_LIMIT)  # 10 m/s: past the default limit
    assert [capsweep.VERDICTS[k] for k in verdicts["kind"]] == ["ok", "blocked"]
    assert capsweep.REASONS[verdicts["reason"][1]] == "noclip"
    assert verdicts["hit"]["normal"][1][0] == pytest.approx(-1.0)
    assert 0 < verdicts["legal_fraction"][1] < 1
    too_fast = world.validate(moves[:1], max_speed=1.0)
    assert capsweep.VERDICTS[too_fast["kind"][0]] == "too_fast"

    # Gravity: 0.5 m up in 0.1 s is a jump, legal from the ground at 5 m/s and not otherwise;
    # plain numbers (n, 13) carry the vertical speed and the grounded flag.
    jump = np.array([[-0.5, 0.12, 0, -0.5, 0.57, 0, 0.1, 0, 0.5, 0, 0.1, 0, 1]], dtype=np.float64)
    assert capsweep.VERDICTS[world.validate(jump)["kind"][0]] == "too_fast"
    up = world.validate(jump, jump_speed=5.0)
    assert capsweep.VERDICTS[up["kind"][0]] == "ok" and up["grounded"][0] == 1
    assert up["allowed_up"][0] >= 0.5 and up["allowed_down"][0] < 0
    jump[0, 12] = 2
    with pytest.raises(capsweep.Error, match="grounded"):
        world.validate(jump)
    records = moves[:1].copy()
    records["grounded"] = 2  # records go to the C API as they are, and it refuses them
    with pytest.raises(capsweep.Error, match="move 0: grounded must be 0 or 1"):
        world.validate(records)

    capsules = np.array([[0, 0.05, 0, 0, 0.5, 0, 0.1], [0, 1.0, 0, 0, 1.5, 0, 0.1]], dtype=np.float32)
    over = world.overlap(capsules, clearance=0.05)
    assert over["overlapping"][0] == 1 and over["depth"][0] == pytest.approx(0.05, abs=1e-5)
    assert over["clear"][1] == 1 and over["overlapping"][1] == 0


def test_batches_release_the_gil(dungeon, files):
    queries = np.concatenate([capsweep.read_queries(files / "long.cwsq")] * 5)
    expected = dungeon.sweep(queries).tobytes()
    out = [None, None]

    def work(k):
        out[k] = dungeon.sweep(queries).tobytes()

    threads = [threading.Thread(target=work, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert out == [expected, expected]


def terrain_mesh(heights, cell_x, cell_z, origin):
    """The documented triangles of a heightfield, cell by cell: half 0 (r, c), (r + 1, c),
    (r, c + 1); half 1 (r, c + 1), (r + 1, c), (r + 1, c + 1)."""
    rows, columns = heights.shape
    r, c = np.meshgrid(np.arange(rows), np.arange(columns), indexing="ij")
    v = np.stack([(origin[0] + cell_x * c.astype(np.float64)).astype(np.float32).ravel(),
                  (origin[1] + heights.astype(np.float64)).astype(np.float32).ravel(),
                  (origin[2] + cell_z * r.astype(np.float64)).astype(np.float32).ravel()], axis=1)
    s = lambda rr, cc: rr * columns + cc  # noqa: E731
    cr, cc = np.meshgrid(np.arange(rows - 1), np.arange(columns - 1), indexing="ij")
    cr, cc = cr.ravel(), cc.ravel()
    half0 = np.stack([s(cr, cc), s(cr + 1, cc), s(cr, cc + 1)], axis=1)
    half1 = np.stack([s(cr, cc + 1), s(cr + 1, cc), s(cr + 1, cc + 1)], axis=1)
    return v, np.stack([half0, half1], axis=1).reshape(-1, 3)


def test_a_heightfield_answers_like_the_mesh_of_its_documented_triangles():
    rng = np.random.default_rng(3)
    rows, columns = 41, 57
    heights = (np.sin(np.arange(columns) * 0.3)[None, :] * np.cos(np.arange(rows) * 0.2)[:, None] * 3
               + rng.random((rows, columns)) * 0.2).astype(np.float32)
    origin = (-20.0, 1.5, -10.0)
    world = capsweep.heightfield(heights, cell=(0.75, 1.25), origin=origin)
    v, i = terrain_mesh(heights, 0.75, 1.25, origin)
    mesh = capsweep.World(v, i)
    assert world.triangle_count == mesh.triangle_count == 2 * (rows - 1) * (columns - 1)
    q = np.zeros(3000, capsweep.QUERY_DTYPE)
    centre = rng.uniform([-20, 0, -10], [20, 4, 40], (3000, 3)).astype(np.float32)
    q["a"] = centre
    q["b"] = centre + [0, 1.1, 0]
    q["radius"] = 0.35
    q["motion"] = rng.uniform(-8, 8, (3000, 3))
    for path in ("simd", "scalar", "brute"):
        got, want = world.sweep(q, path=path), mesh.sweep(q, path=path)
        assert got.tobytes() == want.tobytes()
    assert (world.sweep(q)["hit"] != 0).sum() > 300
    # 16-bit samples with a scale, holes, and a mesh on top of the terrain.
    samples = (rng.random((rows, columns)) * 2000).astype(np.uint16)
    holes = np.zeros((rows - 1, columns - 1), bool)
    holes[5:9, 10:20] = True
    lifted = np.array([[0, 100, 0], [2, 100, 0], [2, 100, 2], [0, 100, 2]], np.float32)  # a 2 m floor 100 m up
    box_i = np.array([[0, 2, 1], [0, 3, 2]])
    both = capsweep.heightfield(samples, cell=1.0, height_scale=0.001, holes=holes, vertices=lifted, indices=box_i,
                                mesh_layers=[2, 2])
    assert both.triangle_count == 2 + 2 * (rows - 1) * (columns - 1)
    down = np.zeros(1, capsweep.QUERY_DTYPE)
    down["a"] = down["b"] = [0.5, 150, 0.5]
    down["motion"] = [0, -300, 0]
    assert both.sweep(down)["triangle"][0] in (0, 1)  # the floor lifted 100 m up
    assert both.with_layers(1).sweep(down)["triangle"][0] >= 2  # the terrain under it
    hole = np.zeros(1, capsweep.QUERY_DTYPE)
    hole["a"] = hole["b"] = [15.5, 50, 6.5]  # above cell (row 6, column 15): a hole
    hole["motion"] = [0, -100, 0]
    assert both.with_layers(1).sweep(hole)["hit"][0] == 0
    with pytest.raises(capsweep.Error, match="heightfield: sample \\(row 2, column 3\\) is not finite"):
        bad = heights.copy()
        bad[2, 3] = np.nan
        capsweep.heightfield(bad)
    with pytest.raises(capsweep.Error, match="holes must have one flag per cell"):
        capsweep.heightfield(heights, holes=np.zeros((3, 3)))


def test_a_heightmap_file_loads_as_the_command_builds_it(tmp_path):
    run("heightmap", "--size", 97, "--seed", 5, "--out", tmp_path / "h.png")
    run("build", "--heightmap", tmp_path / "h.png", "--cell", "2", "--height-scale", "0.001", "--origin", "-50,0,-60",
        "--out", tmp_path / "w.cwsw")
    run("queries", "--scene", tmp_path / "w.cwsw", "--workload", "long", "--count", 2000, "--out", tmp_path / "q.cwsq")
    q = capsweep.read_queries(tmp_path / "q.cwsq")
    from_png = capsweep.load_heightmap(tmp_path / "h.png", cell=2, height_scale=0.001, origin=(-50, 0, -60))
    from_snapshot = capsweep.load(tmp_path / "w.cwsw")
    assert from_png.sweep(q).tobytes() == from_snapshot.sweep(q).tobytes()
    with pytest.raises(capsweep.Error, match="a raw float32 heightmap needs its size"):
        capsweep.load_heightmap(tmp_path / "w.cwsw")


def test_move_takes_agent_records_only_as_its_docstring_says():
    world = floor()
    assert "(n, 12)" not in capsweep.World.move.__doc__ and "AGENT_DTYPE" in capsweep.World.move.__doc__
    with pytest.raises(capsweep.Error, match=r"agents: expected an array of AGENT_DTYPE records, got float32 of "
                                             r"shape \(2, 12\)"):
        world.move(np.zeros((2, 12), dtype=np.float32))
    with pytest.raises(capsweep.Error, match="are not AGENT_DTYPE"):
        world.move(np.zeros(2, capsweep.QUERY_DTYPE))
    assert len(world.move(agents_on_the_floor(2))) == 2


def test_a_wrongly_typed_or_unknown_setting_is_a_capsweep_error_naming_it():
    world = floor()
    agents = agents_on_the_floor(1)
    claims = np.zeros(1, capsweep.CLAIMED_MOVE_DTYPE)
    claims["layers"] = capsweep.ALL_LAYERS  # every layer (a mask of 0 names none)
    for settings, message in [({"skin": "thick"}, r"movement setting 'skin' must be a number, got 'thick'"),
                              ({"max_iterations": 2.5}, r"movement setting 'max_iterations' must be an integer, got 2.5"),
                              ({"agents_collide": "yes"}, r"movement setting 'agents_collide' must be true or false"),
                              ({"skn": 0.1}, r"unknown movement setting 'skn'")]:
        with pytest.raises(capsweep.Error, match=message):
            world.move(agents, settings=settings)
        with pytest.raises(capsweep.Error, match=message):
            world.validate(claims, movement=settings)
    with pytest.raises(capsweep.Error, match="settings must be a dict of movement settings"):
        world.move(agents, settings=[("skin", 0.1)])
    with pytest.raises(capsweep.Error, match="movement must be a dict of movement settings"):
        world.validate(claims, movement=0.1)
    for argument in ("tolerance", "max_speed", "jump_speed"):
        with pytest.raises(capsweep.Error, match=f"{argument} must be a number, got 'fast'"):
            world.validate(claims, **{argument: "fast"})
    with pytest.raises(capsweep.Error, match="clearance must be a number, got None"):
        world.overlap(np.zeros((1, 7), dtype=np.float32), clearance=None)
    # A refusal from the module itself, not the C API, is one too.
    with pytest.raises(capsweep.Error, match="agents and results differ in length"):
        world._native._move(agents, {}, np.empty(2, capsweep.MOVE_RESULT_DTYPE), capsweep.ALL_LAYERS, 0)


def test_the_built_in_scenes_load_by_name_as_the_command_takes_them(tmp_path):
    arena = capsweep.load("@arena")
    run("queries", "--scene", "@arena", "--workload", "validate", "--count", 1000, "--seed", 3,
        "--out", tmp_path / "q.cwsq")
    run("sweep", "--scene", "@arena", "--queries", tmp_path / "q.cwsq", "--out", tmp_path / "r.cwsr")
    hits = arena.sweep(capsweep.read_queries(tmp_path / "q.cwsq"))
    assert hits.tobytes() == (tmp_path / "r.cwsr").read_bytes()[16:]
    assert (hits["hit"] > 0).sum() > 50  # the set really hits things
    np.testing.assert_array_equal(capsweep.load("@arena", scale=2).bounds, 2 * arena.bounds)
    with pytest.raises(capsweep.Error, match="the built-in scene @arena has no named parts"):
        capsweep.load("@arena", layers=tmp_path / "layers.txt")
    with pytest.raises(capsweep.Error, match="@nowhere"):
        capsweep.load("@nowhere")


def test_a_world_shows_its_bounds_and_triangles(dungeon, files):
    vertices = np.array([[-1, 0, -1], [-1, 0, 1], [1, 0, 1], [1, 0, -1]], dtype=np.float32)
    world = floor()
    assert world.bounds.dtype == np.float32 and world.bounds.tolist() == [[-1, 0, -1], [1, 0, 1]]
    triangles = world.triangles
    assert triangles.dtype == np.float32 and triangles.shape == (2, 3, 3)
    np.testing.assert_array_equal(triangles, vertices[[[0, 1, 2], [0, 2, 3]]])
    # A scene's triangles are the world: rebuilt from them, it answers the same bytes.
    triangles = dungeon.triangles
    assert triangles.shape == (dungeon.triangle_count, 3, 3)
    np.testing.assert_array_equal(dungeon.bounds, [triangles.min(axis=(0, 1)), triangles.max(axis=(0, 1))])
    rebuilt = capsweep.World(triangles.reshape(-1, 3), np.arange(3 * len(triangles)).reshape(-1, 3))
    queries = capsweep.read_queries(files / "validate.cwsq")
    assert rebuilt.sweep(queries).tobytes() == dungeon.sweep(queries).tobytes()
    # A heightfield's: two per cell after the mesh's, as triangle indices name them.
    terrain = capsweep.heightfield(np.array([[0, 1, 2], [1, 2, 3], [2, 3, 4]], dtype=np.float32), cell=2.0)
    assert terrain.triangles.shape == (8, 3, 3) and terrain.triangle_count == 8
    np.testing.assert_array_equal(terrain.bounds, [[0, 0, 0], [4, 4, 4]])


def test_a_tolerance_that_leaves_no_body_is_refused_by_name():
    world = floor()
    claims = np.zeros(3, capsweep.CLAIMED_MOVE_DTYPE)
    claims["layers"] = capsweep.ALL_LAYERS  # every layer (a mask of 0 names none)
    claims["from"]["a"], claims["from"]["b"] = (0, 1, 0), (0, 1.5, 0)
    claims["from"]["radius"] = [0.4, 0.3, 0.4]
    claims["motion"] = (0.1, 0, 0)
    claims[2]["shape"] = 1
    claims[2]["from_ellipsoid"]["centre"] = (0, 1, 0)
    claims[2]["from_ellipsoid"]["radii"] = (0.5, 0.2, 0.5)
    with pytest.raises(capsweep.Error, match=r"tolerance 0.30* m is not below claim 1's radius 0.30* m"):
        world.validate(claims, tolerance=0.3)
    with pytest.raises(capsweep.Error, match=r"tolerance 0.20* m is not below claim 1's radius 0.20* m"):
        world.validate(claims[[0, 2]], tolerance=0.2)
    verdicts = world.validate(claims, tolerance=0.19)
    assert [capsweep.VERDICTS[k] for k in verdicts["kind"]] == ["ok", "ok", "ok"]
    # A claim refused for its own body is still judged alone (its status says why).
    claims[0]["from"]["radius"] = -1
    verdicts = world.validate(claims, tolerance=0.19)
    assert capsweep.VERDICTS[verdicts["kind"][0]] == "refused" and capsweep.STATUS[verdicts["status"][0]] == "bad_radius"


def test_the_defaults_refuse_a_speed_hack_and_bad_limits_are_refused_by_name():
    """With nothing set, max_speed is the library's 7 m/s: 3 m in 0.1 s (30 m/s) is too fast,
    with its reason and numbers; NO_SPEED_LIMIT lets it through; 0 and an unknown rule are refused."""
    world = floor()
    claims = np.zeros(1, capsweep.CLAIMED_MOVE_DTYPE)
    claims["layers"], claims["ground_triangle"] = capsweep.ALL_LAYERS, capsweep.NO_TRIANGLE
    claims["from"]["a"], claims["from"]["b"], claims["from"]["radius"] = (0, 0.32, 0), (0, 1.5, 0), 0.3
    claims["motion"], claims["dt"], claims["grounded"] = (3.0, 0, 0), 0.1, 1
    hacked = world.validate(claims)
    assert capsweep.VERDICTS[hacked["kind"][0]] == "too_fast"
    assert capsweep.REASONS[hacked["reason"][0]] in ("speed", "teleport")
    assert hacked["claimed"][0] == pytest.approx(3.0) and hacked["limit"][0] < 1.0
    assert hacked.tobytes() == world.validate(claims, max_speed=None, rule="tick_end").tobytes()
    free = world.validate(claims, max_speed=capsweep.NO_SPEED_LIMIT)
    assert capsweep.REASONS[free["reason"][0]] not in ("speed", "teleport")
    with pytest.raises(capsweep.Error, match="max_speed"):
        world.validate(claims, max_speed=0)
    with pytest.raises(capsweep.Error, match="rule must be one of tick_end, straight_segment"):
        world.validate(claims, rule="straight")


def _baked(world):
    """The world with every triangle, the instances' placed ones among them, as a static World."""
    tris = world.triangles.reshape(-1, 3)
    return capsweep.World(tris, np.arange(len(tris)).reshape(-1, 3))


def test_streamed_tiles_answer_as_the_baked_world():
    big = np.array([[-20, 0, -20], [-20, 0, 20], [20, 0, 20], [20, 0, -20]], dtype=np.float32)
    static = capsweep.World(big, np.array([[0, 1, 2], [0, 2, 3]]))
    crate = capsweep.World(np.array([[-1, 0, -1], [-1, 0, 1], [1, 0, 1], [1, 0, -1], [0, 2, 0]], dtype=np.float32),
                           np.array([[0, 1, 4], [1, 2, 4], [2, 3, 4], [3, 0, 4]]))  # a pyramid
    tiles = [capsweep.Tile(50 - k, (-12 + 2.1 * k, 0.3 * (k % 3), 1.5 * (k % 4)), crate) for k in range(12)]
    world = static.streamed(tiles)
    assert world.triangle_count == 2 + 12 * 4
    # By id: tile 39 (the last added) first.
    assert world.tile_of(1) is None and world.tile_of(2) == 39 and world.tile_of(49) == 50
    assert world.instance_of(2) is None
    rng = np.random.default_rng(5)
    q = np.zeros((3000, 10), dtype=np.float32)
    start = rng.uniform([-15, 0.4, -3], [15, 3, 8], (3000, 3))
    q[:, 0:3] = start
    q[:, 3:6] = start + [0, 1.1, 0]
    q[:, 6] = rng.uniform(0, 0.5, 3000)
    q[:, 7:10] = rng.uniform(-4, 4, (3000, 3))
    hits = world.sweep(q)
    assert hits.tobytes() == _baked(world).sweep(q, path="brute").tobytes()
    assert (hits["triangle"][hits["hit"] > 0] >= 2).sum() > 300  # the tiles are hit
    emptied = world.streamed(removed=[t.id for t in tiles])
    assert emptied.triangle_count == 2
    assert world.sweep(q).tobytes() == hits.tobytes()  # the first frame is unchanged
    with pytest.raises(capsweep.Error, match=r"removed tile 7 \(row 0\): the world has no tile of that id"):
        world.streamed(removed=[7])
    with pytest.raises(capsweep.Error, match=r"added tile 50 \(row 0\): the id is in use"):
        world.streamed([capsweep.Tile(50, (0, 0, 0), crate)])
    with pytest.raises(capsweep.Error, match="its origin is not finite"):
        static.streamed([capsweep.Tile(1, (0, float("nan"), 0), crate)])
    with pytest.raises(capsweep.Error, match="not capsweep.Tile"):
        static.streamed([crate])
    with pytest.raises(capsweep.Error, match="not a 32-bit unsigned integer"):
        capsweep.Tile(-1, (0, 0, 0), crate)


def test_instances_and_their_frames_answer_as_the_baked_world():
    big = np.array([[-20, 0, -20], [-20, 0, 20], [20, 0, 20], [20, 0, -20]], dtype=np.float32)
    static = capsweep.World(big, np.array([[0, 1, 2], [0, 2, 3]]))
    crate = capsweep.World(np.array([[-1, 0, -1], [-1, 0, 1], [1, 0, 1], [1, 0, -1], [0, 2, 0]], dtype=np.float32),
                           np.array([[0, 1, 4], [1, 2, 4], [2, 3, 4], [3, 0, 4]]))  # a pyramid
    instances = np.zeros(12, capsweep.INSTANCE_DTYPE)
    instances["id"] = np.arange(100, 112)
    instances["pose"]["position"] = [[-12 + 2.1 * k, 0.3 * (k % 3), 1.5 * (k % 4)] for k in range(12)]
    angles = np.linspace(0, 3, 12)
    instances["pose"]["rotation"] = np.stack([np.zeros(12), np.sin(angles / 2), np.zeros(12), np.cos(angles / 2)], axis=1)
    instances["layers"] = 1
    world = capsweep.instanced(static, [crate], instances)
    assert world.triangle_count == 2 + 12 * 4
    assert world.instance_of(1) is None and world.instance_of(2) == 100 and world.instance_of(49) == 111
    rng = np.random.default_rng(4)
    q = np.zeros((3000, 10), dtype=np.float32)
    start = rng.uniform([-15, 0.4, -3], [15, 3, 8], (3000, 3))
    q[:, 0:3] = start
    q[:, 3:6] = start + [0, 1.1, 0]
    q[:, 6] = rng.uniform(0, 0.5, 3000)
    q[:, 7:10] = rng.uniform(-4, 4, (3000, 3))
    hits = world.sweep(q)
    assert hits.tobytes() == _baked(world).sweep(q, path="brute").tobytes()
    assert (hits["triangle"][hits["hit"] > 0] >= 2).sum() > 300  # the instances are hit
    # The next frame from rows (id, x, y, z, qx, qy, qz, qw), and from records: the same world.
    rows = np.array([[104, 0, 1, 0, 0, 0, 0, 1], [100, 5, 0, 5, 0, np.sin(0.4), 0, np.cos(0.4)]])
    nxt = world.posed(rows)
    records = np.zeros(2, capsweep.INSTANCE_POSE_DTYPE)
    records["id"] = [104, 100]
    records["pose"]["position"] = rows[:, 1:4]
    records["pose"]["rotation"] = rows[:, 4:8]
    assert world.posed(records).sweep(q).tobytes() == nxt.sweep(q).tobytes()
    assert nxt.sweep(q).tobytes() == _baked(nxt).sweep(q, path="brute").tobytes()
    assert world.sweep(q).tobytes() == hits.tobytes()  # the first frame is unchanged
    with pytest.raises(capsweep.Error, match=r"pose 1 \(instance 7\): the world has no instance of that id"):
        world.posed(np.array([[104, 0, 1, 0, 0, 0, 0, 1], [7, 0, 0, 0, 0, 0, 0, 1]]))
    with pytest.raises(capsweep.Error, match="not a unit quaternion"):
        world.posed(np.array([[104, 0, 1, 0, 0, 0, 0, 2]]))
    with pytest.raises(capsweep.Error, match="row 0: the id -1.0 is not a 32-bit unsigned integer"):
        world.posed(np.array([[-1, 0, 1, 0, 0, 0, 0, 1]]))
    instances["id"][3] = instances["id"][4]
    with pytest.raises(capsweep.Error, match="instance 104: the id is used twice"):
        capsweep.instanced(static, [crate], instances)


def test_write_results_given_a_world_with_instances_and_tiles_names_each_hit_s_part(tmp_path):
    big = np.array([[-20, 0, -20], [-20, 0, 20], [20, 0, 20], [20, 0, -20]], dtype=np.float32)
    static = capsweep.World(big, np.array([[0, 1, 2], [0, 2, 3]]))
    crate = capsweep.World(np.array([[-1, 0, -1], [-1, 0, 1], [1, 0, 1], [1, 0, -1], [0, 2, 0]], dtype=np.float32),
                           np.array([[0, 1, 4], [1, 2, 4], [2, 3, 4], [3, 0, 4]]))  # a pyramid
    instances = np.zeros(2, capsweep.INSTANCE_DTYPE)
    instances["id"] = [7, 42]
    instances["pose"]["position"] = [[-10, 0, 0], [10, 0, 0]]
    instances["pose"]["rotation"] = [0, 0, 0, 1]
    instances["layers"] = 1
    world = capsweep.instanced(static, [crate], instances).streamed([capsweep.Tile(3, (0, 0, 10), crate)])
    # Dropped onto the floor, instances 7 and 42, tile 3; one rising into nothing.
    q = np.zeros((5, 10), dtype=np.float32)
    q[:, 0:3] = [[15, 5, 15], [-10, 5, 0], [10, 5, 0], [0, 5, 10], [0, 10, 0]]
    q[:, 3:6] = q[:, 0:3] + [0, 1, 0]
    q[:, 6] = 0.3
    q[:, 7:10] = [0, -10, 0]
    q[4, 7:10] = [0, 5, 0]
    hits = world.sweep(q)
    capsweep.write_results(tmp_path / "r.cwsr", hits, world)
    data = (tmp_path / "r.cwsr").read_bytes()
    assert data[:4] == b"CWSR" and int.from_bytes(data[4:8], "little") == 2
    record = np.dtype({"names": ["hit", "part_kind", "part_id"], "formats": [capsweep.HIT_DTYPE, "u1", "<u4"],
                       "offsets": [0, 40, 44], "itemsize": 48})
    records = np.frombuffer(data[16:], record)
    assert records["hit"].tobytes() == hits.tobytes()  # each record starts with version 1's
    assert records["part_kind"].tolist() == [1, 2, 2, 3, 0]
    assert records["part_id"].tolist() == [0xFFFFFFFF, 7, 42, 3, 0xFFFFFFFF]
    for h, kind, part in zip(hits, records["part_kind"], records["part_id"]):
        if kind == 2:
            assert world.instance_of(h["triangle"]) == part
        elif kind == 3:
            assert world.tile_of(h["triangle"]) == part
    # A world without instances or tiles: version 1, the bytes written without it.
    static_hits = static.sweep(q)
    capsweep.write_results(tmp_path / "a.cwsr", static_hits, static)
    capsweep.write_results(tmp_path / "b.cwsr", static_hits)
    assert (tmp_path / "a.cwsr").read_bytes() == (tmp_path / "b.cwsr").read_bytes()
    assert int.from_bytes((tmp_path / "a.cwsr").read_bytes()[4:8], "little") == 1
    with pytest.raises(capsweep.Error, match="world must be capsweep.World"):
        capsweep.write_results(tmp_path / "c.cwsr", hits, "level.obj")


# ---- Navigation: NavMesh and NavCrowd (through the C API, held to the command and World.move) ----

NAV_TEST = str(SCENES / "recast_nav_test.obj")
# The person of `capsweep navmesh` (radius 0.35, height 1.8), in the command's float32 arithmetic.
_R = np.float32(0.35)
_TOP = (np.float32(1.1) + np.float32(2) * _R) - _R
PERSON = np.array([0, _R, 0, 0, _TOP, 0, _R], np.float32)
# A point on the test level's main floor (the pillar's room), from which most of it is reachable.
FLOOR = (-1.47, -2.35, -3.62)


@pytest.fixture(scope="module")
def nav_level():
    world = capsweep.load(NAV_TEST)
    settings = capsweep.navmesh_settings(PERSON, {"step_height": 0.5})
    return world, capsweep.NavMesh.build(world, settings, threads=2)


def standing(feet):
    """The person standing at `feet` (a point on the mesh), a little above it: the solver settles it."""
    lift = np.float32(0.02)
    return np.array([feet[0], feet[1] + _R + lift, feet[2], feet[0], feet[1] + _TOP + lift, feet[2], _R], np.float32)


def test_navmesh_settings_follow_the_movement_settings():
    s = capsweep.navmesh_settings(PERSON, {"step_height": 0.5, "max_slope_degrees": 38.0}, layers=5)
    assert s["climb"] == 0.5 and s["max_slope_degrees"] == 38.0 and s["layers"] == 5
    assert s["agent_radius"] > PERSON[6] and s["agent_height"] > PERSON[4] - PERSON[1]
    assert capsweep.navmesh_settings(PERSON, {"step_height": 0.2})["climb"] == np.float32(0.2)


def test_navmesh_is_the_command_s_byte_for_byte(nav_level, tmp_path):
    world, mesh = nav_level
    mesh.write(tmp_path / "py.cwnm")
    out = run("navmesh", "--scene", NAV_TEST, "--out", tmp_path / "cli.cwnm", "--step-height", 0.5, "--threads", 1)
    assert (tmp_path / "py.cwnm").read_bytes() == (tmp_path / "cli.cwnm").read_bytes()
    back = capsweep.NavMesh.read(tmp_path / "cli.cwnm")
    assert back.stats["polygons"] == mesh.stats["polygons"] > 0
    assert f"{mesh.stats['polygons']} polygons" in out
    assert back.settings == mesh.settings


def test_paths_run_from_start_to_end_along_their_corners(nav_level):
    world, mesh = nav_level
    complete = 0
    for k in range(20):
        start = mesh.random_reachable(FLOOR, 1000 + k)
        end = mesh.random_reachable(start, 2000 + k)
        assert start is not None and end is not None
        corners, whole, length = mesh.path(start, end)
        assert corners.dtype == np.float32 and corners.shape[1] == 3 and len(corners) >= 2
        np.testing.assert_allclose(corners[0], start, atol=1e-4)
        if whole:
            complete += 1
            np.testing.assert_allclose(corners[-1], end, atol=1e-4)
        assert length == pytest.approx(float(np.linalg.norm(np.diff(corners, axis=0), axis=1).sum()), rel=1e-4)
        near = mesh.nearest(start + np.float32([0.2, 0.5, 0.1]))
        assert near is not None and np.linalg.norm(near - start) < 0.6
    assert complete >= 18
    assert mesh.nearest((500, 500, 500)) is None
    corners, whole, length = mesh.path((500, 500, 500), (0, 0, 0))
    assert corners.shape == (0, 3) and not whole


def test_a_crowd_tick_is_world_move_of_what_it_steered_and_the_same_in_any_order(nav_level):
    """Each tick's results are World.move's for the tick-start bodies and the velocities the
    crowd asked for; a second crowd on 2 threads with the agents reversed is the same bytes
    (40 agents: enough that the tick splits them between the 2 threads)."""
    world, mesh = nav_level
    feet, goals = [], []
    for seed in range(1000):  # 40 places 1.5 m or more apart, each with a goal 3 to 8 m away
        f = mesh.random_reachable(FLOOR, seed)
        if any(np.linalg.norm(f - p) < 1.5 for p in feet):
            continue
        g = next((g for g in (mesh.random_reachable(f, 100 * seed + k) for k in range(100))
                  if 3 <= np.linalg.norm(g - f) <= 8), None)
        if g is not None:
            feet.append(f)
            goals.append(g)
        if len(feet) == 40:
            break
    n = len(feet)
    assert n == 40
    one = capsweep.NavCrowd(world, mesh, threads=1)
    two = capsweep.NavCrowd(world, mesh, threads=2)
    for i in range(n):
        assert one.add(standing(feet[i]), 1.5, id=i) == i
        one.set_goal(i, goals[i])
    for k, i in enumerate(reversed(range(n))):
        two.add(standing(feet[i]), 1.5, id=i)
        two.set_goal(k, goals[i])
    dt = capsweep.default_move_settings()["dt"]
    for tick in range(60):
        before = one.agents
        one.tick()
        two.tick()
        after = one.agents
        agents = np.zeros(n, capsweep.AGENT_DTYPE)
        agents["capsule"] = before["capsule"]
        agents["displacement"] = after["velocity"] * np.float32(dt)
        agents["vertical_speed"] = before["vertical_speed"]
        agents["id"], agents["layers"] = before["id"], before["layers"]
        agents["grounded"] = before["ground_triangle"] != capsweep.NO_TRIANGLE
        agents["ground_triangle"] = np.where(agents["grounded"] == 1, before["ground_triangle"], 0)
        assert world.move(agents, threads=1).tobytes() == one.results.tobytes(), f"tick {tick}"
        assert two.agents[::-1].tobytes() == after.tobytes(), f"tick {tick}"
    statuses = {capsweep.NAV_STATUS[s] for s in one.agents["status"]}
    assert statuses <= {"walking", "arrived"}
    moved = np.linalg.norm(one.agents["capsule"]["a"] - np.array([standing(f)[:3] for f in feet]), axis=1)
    assert (moved > 0.5).sum() >= n * 3 // 4  # 60 ticks: 1.5 m at full speed
    assert len(one.corners(0, 4)) <= 4
    planning, moving = one.times
    assert planning >= 0 and moving > 0


def test_a_call_while_another_thread_ticks_the_crowd_is_refused_as_busy(nav_level):
    """tick frees the GIL: a call on the same crowd from another thread meanwhile (add would
    reallocate what the tick reads) raises capsweep.Error naming it busy, and the crowd works on."""
    world, mesh = nav_level
    crowd = capsweep.NavCrowd(world, mesh, threads=1)
    for seed in range(300):
        f = mesh.random_reachable(FLOOR, seed)
        crowd.add(standing(f), 1.5, id=seed)
        crowd.set_goal(seed, mesh.random_reachable(f, 7 * seed + 1))
    stop = threading.Event()

    def ticking():
        while not stop.is_set():
            crowd.tick()

    worker = threading.Thread(target=ticking)
    worker.start()
    refusals = []
    try:
        for _ in range(20000):
            try:
                crowd.add(standing(FLOOR), 1.5, id=9999)
                crowd.agents
            except capsweep.Error as e:
                refusals.append(str(e))
                if len(refusals) >= 3:
                    break
    finally:
        stop.set()
        worker.join()
    assert refusals and all("busy" in r for r in refusals), refusals
    crowd.tick()
    assert len(crowd.agents) >= 300


def two_floors():
    """Two 10 m x 10 m floors 5 m apart: no polygon joins them."""
    v = np.array([[0, 0, 0], [0, 0, 10], [10, 0, 10], [10, 0, 0],
                  [15, 0, 0], [15, 0, 10], [25, 0, 10], [25, 0, 0]], np.float32)
    return capsweep.World(v, np.array([[0, 1, 2], [0, 2, 3], [4, 5, 6], [4, 6, 7]]))


def test_an_unreachable_goal_is_no_path_and_the_agent_waits():
    world = two_floors()
    mesh = capsweep.NavMesh.build(world, capsweep.navmesh_settings(PERSON), threads=1)
    crowd = capsweep.NavCrowd(world, mesh)
    crowd.add(standing((2, 0, 2)), id=1)
    crowd.set_goal(0, (20, 0, 5))
    for _ in range(20):
        crowd.tick()
    agent = crowd.agents[0]
    assert capsweep.NAV_STATUS[agent["status"]] == "no_path"
    assert np.all(agent["velocity"] == 0)
    assert agent["capsule"]["a"][0] == np.float32(2) and agent["capsule"]["a"][2] == np.float32(2)


def test_navigation_refusals_name_the_input(nav_level, tmp_path):
    world, mesh = nav_level
    mesh.write(tmp_path / "good.cwnm")
    data = bytearray((tmp_path / "good.cwnm").read_bytes())
    data[len(data) // 2] ^= 0x10
    (tmp_path / "bad.cwnm").write_bytes(bytes(data))
    with pytest.raises(capsweep.Error, match="bad.cwnm: checksum"):
        capsweep.NavMesh.read(tmp_path / "bad.cwnm")
    with pytest.raises(capsweep.Error, match="missing.cwnm"):
        capsweep.NavMesh.read(tmp_path / "missing.cwnm")
    with pytest.raises(capsweep.Error, match="radius"):
        capsweep.navmesh_settings([0, 0.35, 0, 0, 1.45, 0, 0])
    with pytest.raises(capsweep.Error, match="unknown movement setting 'stepheight'"):
        capsweep.navmesh_settings(PERSON, {"stepheight": 0.5})
    settings = dict(mesh.settings, cell_size=0.0)
    with pytest.raises(capsweep.Error, match="cs_navmesh_build: .*cell_size"):
        capsweep.NavMesh.build(world, settings)
    with pytest.raises(capsweep.Error, match="unknown crowd setting 'speed'"):
        capsweep.NavCrowd(world, mesh, {"speed": 2})
    with pytest.raises(capsweep.Error, match="max_neighbours"):
        capsweep.NavCrowd(world, mesh, {"max_neighbours": 0})
    crowd = capsweep.NavCrowd(world, mesh)
    with pytest.raises(capsweep.Error, match="wider than the navmesh"):
        crowd.add([0, 1, 0, 0, 2, 0, 2.0])
    crowd.add(standing(FLOOR))
    with pytest.raises(capsweep.Error, match="agent 3 of 1"):
        crowd.set_goal(3, (0, 0, 0))
    with pytest.raises(capsweep.Error, match="goal"):
        crowd.set_goal(0, (0, float("nan"), 0))
    with pytest.raises(capsweep.Error, match="goal: expected 3 numbers"):
        crowd.set_goal(0, (0, 0))
    with pytest.raises(capsweep.Error, match="no tick"):
        crowd.results
    with pytest.raises(capsweep.Error, match="point: expected 3 numbers"):
        mesh.nearest("here")


def test_a_move_cache_gives_the_records_of_moves_without_one():
    """A MoveCache passed to every tick of a walking crowd: each tick's records are the bytes of
    World.move without it; anything else as the cache is refused by name."""
    vertices = np.array([[-20, 0, -20], [20, 0, -20], [20, 0, 20], [-20, 0, 20],
                         [3, 0, -20], [3, 3, -20], [3, 3, 20], [3, 0, 20]], dtype=np.float32)
    world = capsweep.World(vertices, np.array([[0, 2, 1], [0, 3, 2], [4, 5, 6], [4, 6, 7]]))
    agents = np.zeros(40, capsweep.AGENT_DTYPE)
    agents["layers"] = capsweep.ALL_LAYERS
    for i in range(len(agents)):
        z = -18.0 + i * 0.9
        agents[i]["capsule"]["a"], agents[i]["capsule"]["b"] = (-5.0, 0.37, z), (-5.0, 1.47, z)
    agents["capsule"]["radius"] = 0.35
    agents["displacement"] = (0.15, 0, 0.01)
    agents["id"] = np.arange(len(agents))
    cache = capsweep.MoveCache()
    for tick in range(80):  # into the wall at x = 3 and along it
        kept = world.move(agents, cache=cache)
        plain = world.move(agents)
        assert kept.tobytes() == plain.tobytes(), tick
        agents["capsule"] = kept["capsule"]
        agents["vertical_speed"] = kept["vertical_speed"]
        agents["grounded"] = kept["grounded"]
        agents["ground_triangle"] = kept["ground_triangle"]
    assert (agents["capsule"]["a"][:, 0] < 3 - 0.35).all()
    with pytest.raises(capsweep.Error, match="cache must be a capsweep.MoveCache"):
        world.move(agents, cache={})
