"""The on-disk table cache: every way a file can go wrong is detected, rebuilt or worked around."""

import errno
import multiprocessing
import os
import signal
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from solver.engines import tables
from tui import notices

VERSION = 3


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("KOMA_CACHE_DIR", str(tmp_path))
    notices.drain()
    return tmp_path / "tables"


def build_counter():
    calls = []

    def build():
        calls.append(1)
        return np.arange(100_000, dtype=np.int8) % 97

    return build, calls


def expected():
    return np.arange(100_000, dtype=np.int8) % 97


def test_build_once_then_memory_map(cache):
    build, calls = build_counter()
    first = tables.cached_table("t", VERSION, build)
    second = tables.cached_table("t", VERSION, build)
    assert len(calls) == 1
    assert isinstance(second, np.memmap) and not second.flags.writeable
    assert np.array_equal(first, expected()) and np.array_equal(second, expected())
    assert np.array_equal(np.load(cache / "t.npy", mmap_mode="r"), expected())  # still a valid .npy
    assert notices.drain() == []


@pytest.mark.parametrize("damage, reason", [
    ("truncate", "wrong size"),
    ("flip", "checksum"),
    ("header", "header"),
    ("version", "version"),
    ("trailer", "not a Koma table"),
    ("append", "wrong size"),
])
def test_damaged_files_are_rejected_and_rebuilt(cache, damage, reason):
    build, calls = build_counter()
    tables.cached_table("t", VERSION, build)
    path = cache / "t.npy"
    data = bytearray(path.read_bytes())
    if damage == "truncate":
        data = data[: len(data) // 2]
    elif damage == "flip":
        data[200] ^= 0xFF
        data[5000] ^= 0x01
    elif damage == "header":
        data[0:6] = b"NOTNPY"
    elif damage == "version":
        tables.write_table(path, expected(), VERSION + 1)
        data = bytearray(path.read_bytes())
    elif damage == "trailer":
        data[-48:-40] = b"XXXXXXXX"
    elif damage == "append":
        data += b"\0" * 16
    path.write_bytes(bytes(data))
    with pytest.raises(tables.TableError, match=reason):
        tables.read_table(path, VERSION)
    seen = []
    table = tables.cached_table("t", VERSION, build, notice=seen.append)
    assert len(calls) == 2 and np.array_equal(table, expected())
    assert len(seen) == 1 and "rebuilding" in seen[0] and "\n" not in seen[0]
    assert tables.read_table(path, VERSION) is not None  # the rebuilt file is good


def test_unwritable_cache_dir_keeps_the_table_in_memory(tmp_path, monkeypatch):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the cache directory should be")
    monkeypatch.setenv("KOMA_CACHE_DIR", str(blocker))
    build, calls = build_counter()
    seen = []
    table = tables.cached_table("t", VERSION, build, notice=seen.append)
    assert np.array_equal(table, expected()) and len(calls) == 1
    assert len(seen) == 1 and "not writable" in seen[0]


def test_disk_full_while_writing_leaves_no_partial_file(cache, monkeypatch):
    real_write = tables.write_table

    def full_disk(path, array, version):
        def boom(*args, **kwargs):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        monkeypatch.setattr(tables.os, "fsync", boom)
        try:
            real_write(path, array, version)
        finally:
            monkeypatch.undo()

    monkeypatch.setattr(tables, "write_table", full_disk)
    build, _calls = build_counter()
    seen = []
    table = tables.cached_table("t", VERSION, build, notice=seen.append)
    assert np.array_equal(table, expected())
    assert len(seen) == 1 and "could not save" in seen[0] and "No space" in seen[0]
    assert not (cache / "t.npy").exists()
    assert [p.name for p in cache.iterdir() if p.suffix == ".tmp"] == []


def _slow_build_in_child(cache_root, name, marker):
    import time
    from pathlib import Path

    from solver.engines import cache_files
    from solver.engines import tables as child_tables

    cache_files.use_tables_dir(Path(cache_root) / "tables")

    def build():
        with open(marker, "a") as handle:
            handle.write("built\n")
        time.sleep(0.5)
        return np.arange(100_000, dtype=np.int8) % 97

    child_tables.cached_table(name, VERSION, build)


def test_two_processes_building_at_once_build_once(cache, tmp_path):
    marker = tmp_path / "builds.log"
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_slow_build_in_child, args=(str(tmp_path), "shared", str(marker))) for _ in range(2)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
        assert worker.exitcode == 0
    assert marker.read_text().count("built") == 1
    assert np.array_equal(tables.read_table(cache / "shared.npy", VERSION), expected())


def test_a_writer_killed_mid_write_never_leaves_a_readable_partial_file(cache, tmp_path):
    script = textwrap.dedent(f"""
        import os, sys, numpy as np
        from pathlib import Path
        from solver.engines import cache_files, tables
        cache_files.use_tables_dir(Path({str(tmp_path)!r}) / "tables")
        real_fsync = os.fsync
        def hang(fd):
            print("writing", flush=True)
            import time; time.sleep(60)
        tables.os.fsync = hang
        tables.cached_table("killed", {VERSION}, lambda: np.arange(100_000, dtype=np.int8) % 97)
    """)
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True,
                             cwd=os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
    assert child.stdout.readline().strip() == "writing"
    child.send_signal(signal.SIGKILL)
    child.wait(30)
    assert not (cache / "killed.npy").exists()  # only the temporary file was written
    build, calls = build_counter()
    table = tables.cached_table("killed", VERSION, build)
    assert len(calls) == 1 and np.array_equal(table, expected())


def test_the_checksum_is_read_once_per_version_of_the_file_and_damage_is_still_refused(cache, monkeypatch):
    build, calls = build_counter()
    tables.cached_table("stamped", VERSION, build)
    assert len(calls) == 1
    path = cache / "stamped.npy"
    digests = []
    file_digest = tables._file_digest
    monkeypatch.setattr(tables, "_file_digest", lambda *args: digests.append(args) or file_digest(*args))
    assert np.array_equal(tables.read_table(path, VERSION), expected())
    assert np.array_equal(tables.read_table(path, VERSION), expected())
    assert digests == []  # the stamp written after the build vouches for the file: no second read of the payload
    stat = path.stat()
    with open(path, "r+b") as handle:  # a flipped byte, the modification time put back as it was
        handle.seek(200)
        byte = handle.read(1)
        handle.seek(200)
        handle.write(bytes([byte[0] ^ 0xFF]))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    with pytest.raises(tables.TableError, match="checksum"):
        tables.read_table(path, VERSION)
    assert len(digests) == 1


def _hung_build_script(tmp_path, name, how):
    """A process that starts building table ``name`` and hangs while writing it; ``how`` it then ends."""
    return textwrap.dedent(f"""
        import os, sys, threading, time, numpy as np
        from pathlib import Path
        from solver.engines import cache_files, tables
        cache_files.use_tables_dir(Path({str(tmp_path)!r}) / "tables")
        def hang(fd):
            print("writing", flush=True)
            time.sleep(60)
        tables.os.fsync = hang
        build = lambda: tables.cached_table({name!r}, {VERSION}, lambda: np.arange(100_000, dtype=np.int8) % 97)
        if {how!r} == "quit":  # the game quits while a worker thread builds
            threading.Thread(target=build, daemon=True).start()
            sys.stdin.readline()
            sys.exit(0)
        build()
    """)


@pytest.mark.parametrize("how", ["quit", "SIGTERM", "SIGKILL"])
def test_a_build_that_is_interrupted_leaves_no_temporary_file_past_the_next_start(cache, tmp_path, how):
    from solver.tools.doctor import diagnose

    child = subprocess.Popen([sys.executable, "-c", _hung_build_script(tmp_path, "hung", how)], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True, cwd=os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
    assert child.stdout.readline().strip() == "writing"
    assert len(list(cache.glob("*.tmp"))) == 1  # the table being written
    assert tables.leftovers(cache) == []  # its writer is alive: not a leftover
    if how == "quit":
        child.stdin.write("\n")
        child.stdin.flush()
    else:
        child.send_signal(getattr(signal, how))
    child.wait(30)
    if how == "quit":
        assert list(cache.glob("*.tmp")) == []  # gone with the process that left normally
        return
    left = list(cache.glob("*.tmp"))
    assert len(left) == 1 and tables.leftovers(cache) == left  # a killed writer's file stays until the next start
    assert [entry["path"] for entry in diagnose()["leftovers"]] == [str(left[0])]  # koma doctor names it
    build, calls = build_counter()
    assert np.array_equal(tables.cached_table("other", VERSION, build), expected())  # the next start
    assert len(calls) == 1
    assert list(cache.glob("*.tmp")) == []
    assert any("interrupted" in notice for notice in notices.drain())
