"""The pattern-database engine (solver.engines.pdb) against a plain BFS, through every way of building a table."""

from __future__ import annotations

import os
import threading

import numpy as np
import pytest
from pdb_reference import brute_force_pattern

from solver.engines import pdb
from solver.engines.pdb import build_pattern, build_pattern_file, multipliers, n_placements, placement_rank
from solver.engines.pdb_space import space_of
from solver.engines.tables import Streamed, cached_table, read_table, table_path, write_streamed
from solver.errors import Cancelled

# (width, height, tiles): several goals leave the blank more than one region (a corner cut off
# by tiles 2 and its neighbour below, or a whole column)
CASES = [
    (3, 2, (1,)), (3, 2, (2, 4)), (3, 2, (1, 2, 4)), (2, 3, (1, 2)), (2, 3, (2, 3, 4)),
    (3, 3, (1, 2, 3)), (3, 3, (2, 4)), (3, 3, (2, 4, 6, 8)), (3, 3, (1, 2, 4, 5)), (3, 3, (3, 6, 7, 8)),
    (4, 2, (2, 5)), (4, 2, (2, 5, 6, 7)), (2, 4, (1, 2, 3)), (2, 4, (2, 3, 5, 6)),
    (4, 3, (2, 5, 7, 10)), (4, 3, (5, 6, 7, 8)), (3, 4, (2, 4, 6, 8, 10)), (3, 4, (1, 5, 9)),
]


@pytest.mark.parametrize("width,height,tiles", CASES)
def test_every_value_matches_a_brute_force_pattern(width, height, tiles):
    expected = brute_force_pattern(width, height, tiles)
    assert np.array_equal(build_pattern(width, height, tiles), expected)
    # windows of a few placements: many prefixes, permutation runs that straddle words
    window = 3 if width * height <= 9 else 100
    assert np.array_equal(build_pattern(width, height, tiles, window=window, threads=2), expected)


def test_new_placements_kept_apart_when_the_other_parity_has_too_few_blocks(monkeypatch):
    """The engine keeps each layer's new placements in spare rows of the planes; without enough, in an array."""
    monkeypatch.setattr(pdb, "_scratch_rows", lambda block_parity, combos: None)
    for width, height, tiles in ((3, 3, (2, 4, 6, 8)), (4, 3, (2, 5, 7, 10))):
        assert np.array_equal(build_pattern(width, height, tiles, threads=2), brute_force_pattern(width, height, tiles))


def test_goals_with_several_regions_are_covered():
    """The cases above include goals whose blank regions are several (else their point is lost)."""
    several = 0
    for width, height, tiles in CASES:
        masks, rbase, *_ = space_of(width, width * height, len(tiles))
        goal = sum(1 << (t - 1) for t in tiles)
        c = int(np.flatnonzero(masks == goal)[0])
        several += int(rbase[c + 1] - rbase[c]) > 1
    assert several >= 5


@pytest.mark.parametrize("width,height,tiles,window", [(4, 4, (1, 2, 5, 6, 7), 500), (5, 5, (1, 2, 6), 1 << 22),
                                                       (4, 3, (5, 6, 7, 8), 7)])
def test_a_file_gets_the_same_values_at_its_offset(tmp_path, width, height, tiles, window):
    size = n_placements(width * height, len(tiles))
    path = tmp_path / "table.bin"
    fd = os.open(path, os.O_RDWR | os.O_CREAT)
    try:
        os.ftruncate(fd, size + 100)
        os.pwrite(fd, b"x" * 37, 0)
        build_pattern_file(width, height, tiles, fd, 37, threads=2, window=window)
    finally:
        os.close(fd)
    data = path.read_bytes()
    assert data[:37] == b"x" * 37 and data[37 + size:] == bytes(63)
    assert np.array_equal(np.frombuffer(data[37:37 + size], np.uint8), build_pattern(width, height, tiles))


def test_threads_and_windows_do_not_change_a_4x4_table():
    tiles = (1, 5, 6, 9, 10, 13)
    one = build_pattern(4, 4, tiles)
    assert np.array_equal(build_pattern(4, 4, tiles, threads=2, window=10_000), one)
    assert one.max() < 255 and one[placement_rank(np.array([t - 1 for t in tiles]), 6, multipliers(16, 6))] == 0


def test_a_stop_cancels_a_build_at_once_and_leaves_no_thread():
    stop = np.zeros(1, np.uint8)
    seen = []

    def progress(info):
        seen.append(info)
        if info["layer"] >= 3:
            stop[0] = 1

    with pytest.raises(Cancelled):
        build_pattern(4, 4, (1, 2, 3, 4, 5, 6, 7), stop=stop, progress=progress, threads=2)
    assert seen and max(i["fraction"] for i in seen) < 0.5
    assert not [t for t in threading.enumerate() if t.name.startswith("koma-pdb")]
    with pytest.raises(Cancelled):  # already stopped: no layer runs
        build_pattern(3, 3, (1, 2), stop=np.ones(1, np.uint8))


def test_the_8_tile_pattern_stops_on_request(tmp_path):
    """The 15-puzzle's biggest build (its bit planes in their own mapping) raises Cancelled when stopped mid-way."""
    stop = np.zeros(1, np.uint8)
    fd = os.open(tmp_path / "pdb8.bin", os.O_RDWR | os.O_CREAT)
    try:
        os.ftruncate(fd, n_placements(16, 8))
        with pytest.raises(Cancelled):
            build_pattern_file(4, 4, range(1, 9), fd, 0, stop=stop, threads=2,
                               progress=lambda info: stop.__setitem__(0, int(info["layer"] >= 6)))
    finally:
        os.close(fd)
    assert not [t for t in threading.enumerate() if t.name.startswith("koma-pdb")]


def test_a_cancelled_streamed_table_leaves_no_file(tmp_path, monkeypatch):
    monkeypatch.setenv("KOMA_CACHE_DIR", str(tmp_path))
    stop = np.ones(1, np.uint8)
    size = n_placements(9, 3)

    def build():
        return Streamed(size, np.dtype(np.uint8), lambda fd, at: build_pattern_file(3, 3, (1, 2, 3), fd, at, stop=stop),
                        lambda: build_pattern(3, 3, (1, 2, 3), stop=stop))

    with pytest.raises(Cancelled):
        cached_table("streamed", 1, build)
    assert not list((tmp_path / "tables").glob("streamed*.npy*"))
    stop[0] = 0
    table = cached_table("streamed", 1, build)
    assert np.array_equal(table, brute_force_pattern(3, 3, (1, 2, 3)))
    assert np.array_equal(read_table(table_path("streamed"), 1), table)
    write_streamed(tmp_path / "again.npy", build(), 1)
    assert (tmp_path / "again.npy").read_bytes() == table_path("streamed").read_bytes()
