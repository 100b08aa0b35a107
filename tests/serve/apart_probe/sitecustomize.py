"""A probe loaded into every process of a test's ``koma serve`` (through PYTHONPATH, which games inherit): inside a
game, once its store opens (so after the game confined itself), it tries what a compromised game would, and writes
what happened to ``$TMPDIR/koma-apart-probe/PID.json`` (TMPDIR is what a game inherits of the test's choosing).  Only
tests/serve/test_games_apart.py puts it on the path, and only where that folder exists does it do anything."""

from __future__ import annotations

import ctypes
import json
import os
import socket
import sys

PROBE_DIR = os.path.join(os.environ.get("TMPDIR", "/nonexistent"), "koma-apart-probe")
_kept: list[socket.socket] = []  # this game's abstract socket, held while it lives (the next game tries to reach it)
_done: list[bool] = []


def _attempt(action) -> str:
    try:
        action()
        return "done"
    except PermissionError:
        return "refused"
    except OSError as problem:
        return f"error {problem.errno}"


def _ppid(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as stat:
        return int(stat.read().rsplit(")", 1)[1].split()[1])


def _read(path: str) -> None:
    with open(path, "rb") as file:
        file.read(64)


def _ptrace(pid: int) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.ptrace(16, pid, None, None) != 0:  # PTRACE_ATTACH
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    libc.ptrace(17, pid, None, None)  # PTRACE_DETACH (never reached when refused)


def _probe() -> None:
    me = os.getpid()
    parent = os.getppid()
    cold = sys.argv[:1] != ["koma"]  # a forked game's command line is plain koma; a cold one runs tui/main.py
    server = parent if cold else _ppid(parent)
    said: dict = {"pid": me, "parent": parent, "server": server, "uid": os.getuid(),
                  "dumpable": ctypes.CDLL(None).prctl(3, 0, 0, 0, 0)}  # PR_GET_DUMPABLE
    own = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    own.bind(f"\0koma-apart-probe-{me}".encode())
    _kept.append(own)
    said["abstract to itself"] = _attempt(lambda: own.sendto(b"!", f"\0koma-apart-probe-{me}".encode()))
    said["signal itself"] = _attempt(lambda: os.kill(me, 0))
    said["server environ"] = _attempt(lambda: _read(f"/proc/{server}/environ"))
    said["server fds"] = _attempt(lambda: os.listdir(f"/proc/{server}/fd"))
    said["signal server"] = _attempt(lambda: os.kill(server, 0))
    if not cold:
        said["signal warm process"] = _attempt(lambda: os.kill(parent, 0))
        said["warm process mem"] = _attempt(lambda: _read(f"/proc/{parent}/mem"))
        said["warm process environ"] = _attempt(lambda: _read(f"/proc/{parent}/environ"))
        said["ptrace warm process"] = _attempt(lambda: _ptrace(parent))
    others = [int(name[:-5]) for name in os.listdir(PROBE_DIR) if name.endswith(".json") and name[0] != "."]
    if others:  # the game that started before this one (the test starts them one at a time)
        other = others[0]
        said["other game"] = other
        said["signal other game"] = _attempt(lambda: os.kill(other, 0))
        said["other game environ"] = _attempt(lambda: _read(f"/proc/{other}/environ"))
        said["abstract to other game"] = _attempt(lambda: own.sendto(b"!", f"\0koma-apart-probe-{other}".encode()))
    draft = os.path.join(PROBE_DIR, f".{me}.json")
    with open(draft, "w") as out:
        json.dump(said, out)
    os.rename(draft, os.path.join(PROBE_DIR, f"{me}.json"))


def _hook(event: str, _args: tuple) -> None:
    if event != "sqlite3.connect" or _done or not os.environ.get("KOMA_PLAYER"):
        return
    _done.append(True)
    try:
        _probe()
    except Exception as problem:  # the test reads this instead of waiting for nothing
        with open(os.path.join(PROBE_DIR, f"failed-{os.getpid()}.txt"), "w") as out:
            out.write(repr(problem))


if os.path.isdir(PROBE_DIR):
    sys.addaudithook(_hook)
