"""The long load test: 20 concurrent ssh sessions, each playing and auto-solving, held for 60 s.

Opt in with ``KOMA_LOAD=1`` (``KOMA_LOAD_SESSIONS`` and ``KOMA_LOAD_SECONDS`` change the figures); it
prints the per-game memory and the key-to-screen latency.  CI runs the small version in test_serve.py.
"""

from __future__ import annotations

import os
import statistics
import threading
import time
from pathlib import Path

import pytest
from serve_helpers import HAVE_ASYNCSSH, SSH, TMUX, Client, Server, moves_on, play_a_move

pytestmark = [
    pytest.mark.skipif(os.environ.get("KOMA_LOAD") != "1", reason="the long load test runs with KOMA_LOAD=1"),
    pytest.mark.skipif(not HAVE_ASYNCSSH, reason="asyncssh is not installed (pip install -e '.[ssh]')"),
    pytest.mark.skipif(SSH is None, reason="the OpenSSH client (ssh) is not installed"),
    pytest.mark.skipif(TMUX is None, reason="tmux is not installed"),
]


def memory_of(pid: int) -> dict[str, float]:
    """RSS, PSS (shared pages split between the games) and peak virtual size of a process, in MiB."""
    figures = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        if line.startswith(("Rss:", "Pss:")):
            figures[line.split(":")[0].lower()] = int(line.split()[1]) / 1024
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmPeak:"):
            figures["vmpeak"] = int(line.split()[1]) / 1024
    return figures


def test_twenty_sessions_held_for_a_minute(tmp_path):
    from tui.storage.store import Store

    count = int(os.environ.get("KOMA_LOAD_SESSIONS", "20"))
    hold = float(os.environ.get("KOMA_LOAD_SECONDS", "60"))
    server = Server(tmp_path / "data", "--open", "--rate-limit", "0", "--max-sessions", str(count + 2))
    players = [f"load{k:02d}" for k in range(count)]
    clients: list[Client] = []
    errors: list[str] = []
    began = time.monotonic()
    try:
        clients = [Client(server, p, tmp_path) for p in players]

        def start(client: Client) -> None:
            try:
                client.wait_for("8-puzzle", timeout=300, poll=0.5)
                client.keys("1")
                play_a_move(client, timeout=300)
                client.wait_for("from solved", timeout=300, poll=0.5)
                client.keys("s")
                client.wait_for("Solved by Koma", timeout=300, poll=0.5)
            except AssertionError as error:
                errors.append(str(error)[:2000])

        threads = [threading.Thread(target=start, args=(c,)) for c in clients]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(400)
        ready = time.monotonic() - began
        assert not errors, errors[0]
        memory = [memory_of(pid) for pid in server.game_pids()]
        assert len(memory) == count
        latencies = []
        hold_began = time.monotonic()
        while time.monotonic() - hold_began < hold:  # every session stays live; keys go round them all
            for client in clients:
                moves = moves_on(client.screen())
                latencies.append(client.timed("u", f"Moves {moves - 1}\\b"))
                latencies.append(client.timed("U", f"Moves {moves}\\b"))
        for client in clients:
            client.keys("q")
        statuses = [client.exit_status(60) for client in clients]
        assert statuses == [0] * count
        assert server.stop() == 0
    finally:
        for client in clients:
            client.close()
        server.kill()
    for player in players:  # every session's results reached the database
        assert Store(tmp_path / "data" / "koma.db", player=f"user:{player}").stats("8").by_koma == 1
    latencies.sort()
    mean = {k: statistics.mean(m[k] for m in memory) for k in memory[0]}
    print(f"\n{count} sessions: all on the home screen, played and auto-solved {ready:.1f} s after connecting")
    print(f"per game: RSS {mean['rss']:.0f} MiB, PSS {mean['pss']:.0f} MiB, peak virtual {mean['vmpeak']:.0f} MiB "
          f"(max RSS {max(m['rss'] for m in memory):.0f} MiB)")
    print(f"key to screen over {len(latencies)} keys during the {hold:.0f} s hold: median "
          f"{statistics.median(latencies) * 1000:.0f} ms, p95 {latencies[int(len(latencies) * 0.95)] * 1000:.0f} ms, "
          f"max {latencies[-1] * 1000:.0f} ms")
    assert statistics.median(latencies) < 1.0  # the server stays responsive
