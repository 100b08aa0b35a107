"""A mounted :mod:`stalling_fs` for a test: a real FUSE passthrough whose fsync stalls while a flag file exists.

:func:`stalling_mount` skips the test where FUSE cannot mount (no ``mfusepy``, no libfuse 3, no ``/dev/fuse``), and
always unmounts."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

SERVER = Path(__file__).with_name("stalling_fs.py")


@contextmanager
def stalling_mount(base: Path, deadline: float = 30.0) -> Iterator[tuple[Path, Path]]:
    """``base/root`` served at ``base/mnt``: yields (mountpoint, flag); every fsync there waits while ``flag`` exists."""
    try:
        import mfusepy  # noqa: F401
    except (ImportError, OSError) as missing:  # OSError: the package is there, libfuse is not
        pytest.skip(f"no mfusepy with libfuse here ({missing})")
    if shutil.which("fusermount3") is None or not os.path.exists("/dev/fuse"):
        pytest.skip("no FUSE here (fusermount3, /dev/fuse)")
    root, mountpoint, flag = base / "root", base / "mnt", base / "stall"
    root.mkdir()
    mountpoint.mkdir()
    server = subprocess.Popen([sys.executable, str(SERVER), str(root), str(mountpoint), str(flag)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        ends = time.monotonic() + deadline
        while not os.path.ismount(mountpoint):
            if server.poll() is not None or time.monotonic() > ends:
                pytest.skip(f"FUSE cannot mount here: {server.stderr.read().decode()[-300:] if server.stderr else ''}")
            time.sleep(0.02)
        yield mountpoint, flag
    finally:
        flag.unlink(missing_ok=True)
        subprocess.run(["fusermount3", "-u", str(mountpoint)], capture_output=True, timeout=60)
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:  # pragma: no cover
            server.kill()
            server.wait(30)
