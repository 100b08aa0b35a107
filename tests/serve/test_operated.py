"""``koma serve`` as an operated service, with real OpenSSH clients (in tmux): the admin listener (``/healthz``,
``/readyz``, ``/metrics`` read with prometheus-client's parser), JSON logs, and the SIGTERM drain.

Checked, in one run:
- ready once the warm process is; not ready while it is replaced after it died (the restart logged, counted);
- a played game shows in the metrics (games started, sessions, the screen it shows,
  the home screen's latency, a key's latency, the store's saves);
- on SIGTERM ``/readyz`` fails at once, each player reads one line saying the server is restarting and their game is
  saved, and plays on; one who quits is gone, one who stays is stopped (saved) after ``--drain-seconds``, and the
  server exits 0; the stayer's game resumes on the next server with every move;
- a game that has drawn nothing 5 s after a key is logged (``slow_frame``) and counted;
- every log line is a JSON object naming its event; refusals past 20 in 10 s are summed up, not logged one by one.
"""

from __future__ import annotations

import json
import os
import re
import signal
import time

import pytest
from admin_helpers import get, samples, value, wait_until
from serve_helpers import HAVE_ASYNCSSH, SSH, TMUX, Client, Server, moves_on, play_a_move

pytestmark = [
    pytest.mark.skipif(not HAVE_ASYNCSSH, reason="asyncssh is not installed (pip install -e '.[ssh]')"),
    pytest.mark.skipif(SSH is None or TMUX is None, reason="needs ssh and tmux (CI installs openssh-client and tmux)"),
]
DRAIN_SECONDS = 10.0


def test_metrics_health_json_logs_and_the_sigterm_drain(tmp_path):
    data = tmp_path / "data"
    options = ("--open", "--admin-port", "0", "--log-format", "json", "--drain-seconds", str(DRAIN_SECONDS))
    server = Server(data, *options)
    clients: list[Client] = []
    try:
        port = server.admin_port
        assert get(port, "/healthz") == (200, "ok\n")
        assert get(port, "/readyz") == (200, "ready\n")  # the warm process is ready (Server waited for it)

        # --- the warm process dies: not ready until its successor is, the restart logged and counted ----------
        os.kill(server.warm_pid(), signal.SIGKILL)
        status, body = wait_until(lambda: (answer := get(port, "/readyz"))[0] != 200 and answer, 10, "/readyz failing")
        assert status == 503 and "the warm process is not ready" in body
        assert value(samples(port), "koma_warm_process_up") == 0
        server.wait_for_log(r'"event": "warm_process_restart"', 30)
        server.warm_pid(2)  # the next one is ready
        wait_until(lambda: get(port, "/readyz")[0] == 200, 30, "ready again")
        assert value(samples(port), "koma_warm_restarts_total") == 1

        for user in ("ann", "bob"):
            client = Client(server, user, tmp_path)
            clients.append(client)
            client.wait_for("8-puzzle")
            client.keys("1")
        ann, bob = clients
        played = {"ann": play_a_move(ann), "bob": play_a_move(bob)}

        def counted():
            found = samples(port)
            return found if value(found, "koma_store_save_seconds_count") >= 4 else None  # each game's open and move

        found = wait_until(counted, 30, "the games' saves in the metrics")
        assert value(found, "koma_games_started_total", transport="ssh", how="warm") == 2
        assert value(found, "koma_sessions", transport="ssh", phase="playing") == 2
        assert value(found, "koma_game_screens", screen="play") == 2
        assert value(found, "koma_home_seconds_count", transport="ssh") == 2
        assert value(found, "koma_key_seconds_count", transport="ssh") >= 4  # "1", then one or two moves each
        assert value(found, "koma_warm_process_up") == 1 and value(found, "koma_ready") == 1
        assert value(found, "koma_games_memory_bytes") > 10 * 2**20
        assert value(found, "process_resident_memory_bytes") > 0

        # --- a game that draws nothing 5 s after a key: one slow_frame line, counted ----------------------
        pid = server.game_pid("bob")
        os.kill(pid, signal.SIGSTOP)
        try:
            bob.keys("Left")
            server.wait_for_log(r'"event": "slow_frame"', 30)
        finally:
            os.kill(pid, signal.SIGCONT)
        played["bob"] = play_a_move(bob)
        assert value(samples(port), "koma_slow_frames_total", transport="ssh") == 1

        # --- SIGTERM: not ready at once, every player told, the game goes on ------------------------------
        server.process.send_signal(signal.SIGTERM)
        status, body = wait_until(lambda: (answer := get(port, "/readyz"))[0] != 200 and answer, 5, "/readyz failing")
        assert status == 503 and "draining" in body
        for client in clients:
            client.wait_for(r"server is restarting", timeout=30)
        played["ann"] = play_a_move(ann)  # still playing during the drain
        ann.keys("q")
        assert ann.exit_status() == 0
        began = time.monotonic()
        assert server.process.wait(DRAIN_SECONDS + 60) == 0
        assert time.monotonic() - began > 1.0  # bob's game was left its drain time...
        assert "The Koma server is restarting" in bob.wait_for(r"connect again to carry on")  # ...then ended, saved
        server.handle.close()

        events = [json.loads(line) for line in server.text().splitlines() if line.strip()]
        assert all({"time", "event", "message"} <= set(e) for e in events)
        names = [e["event"] for e in events]
        for name in ("listening", "admin", "warm_process", "game_started", "shutting_down", "drain_started", "drain_ended",
                     "game_ended", "stopped"):
            assert name in names, (name, names)
        ended = {e["player"]: e for e in events if e["event"] == "game_ended"}
        assert ended["user:ann"]["how"] == "quit" and ended["user:bob"]["how"] == "drained"
        assert all(isinstance(e["pid"], int) for e in events if e["event"] == "game_started")

        # --- bob's game, stopped by the drain, resumes with every move on the next server ------------------
        again = Server(data, "--open", log_name="again.log")
        try:
            client = Client(again, "bob", tmp_path)
            clients.append(client)
            client.wait_for("8-puzzle")
            client.keys("1")
            assert moves_on(client.wait_for(rf"Moves {played['bob']}\b", timeout=60)) == played["bob"]
        finally:
            again.kill()
    finally:
        for client in clients:
            client.close()
        server.kill()


def test_refusals_in_a_flood_are_summed_up_not_logged_one_by_one(capsys):
    from tui.server.server_log import Throttle, log

    throttle = Throttle(burst=3, window=10.0)
    logged = [throttle.allow(now=100.0 + k * 0.01) for k in range(50)]
    assert logged == [True] * 3 + [False] * 47
    throttle.flush(now=105.0)  # the window is not over: nothing yet
    assert capsys.readouterr().err == ""
    throttle.flush(now=110.0)
    assert capsys.readouterr().err == "koma serve: 47 more refusal(s) not logged in the last 10 s\n"
    assert throttle.allow(now=110.5)
    log("a line", "event")
    assert capsys.readouterr().err == "koma serve: a line\n"


def test_a_database_outage_is_in_the_log_and_the_metrics_and_the_replica_stays_ready(tmp_path, postgres_server,
                                                                                      postgres_url, monkeypatch):
    """PostgreSQL stops while a player plays: the log says so once when it starts and once when it ends, the
    metrics show the trouble and the outbox's depth, /readyz stays 200 (the outbox takes the moves), and every
    move is in the database after it is back."""
    from tui.storage.postgres import PostgresStore

    monkeypatch.delenv("KOMA_DATABASE_URL", raising=False)
    server = Server(tmp_path / "data", "--open", "--admin-port", "0", "--log-format", "json", "--database", postgres_url)
    client = Client(server, "dee", tmp_path)
    port = server.admin_port
    try:
        client.wait_for("8-puzzle")
        client.keys("1")
        play_a_move(client)
        postgres_server.stop_server()
        try:
            played = play_a_move(client)
            played = play_a_move(client)
            server.wait_for_log(r'"event": "database_trouble"', 30)
            found = wait_until(lambda: value(f := samples(port), "koma_database_trouble") == 1 and f, 30,
                               "koma_database_trouble")
            assert value(found, "koma_store_errors_total") >= 1
            assert wait_until(lambda: value(samples(port), "koma_outbox_ops") >= 1, 30, "the outbox's depth")
            assert get(port, "/readyz") == (200, "ready\n")
        finally:
            postgres_server.start_server()
        back = json.loads(server.wait_for_log(r'\{[^\n]*"event": "database_back"[^\n]*\}', 60).group(0))
        assert back["seconds"] > 0 and "outbox_ops" in back
        wait_until(lambda: value(samples(port), "koma_database_trouble") == 0, 30, "the trouble over")
        store = PostgresStore(postgres_url, "user:dee")
        wait_until(lambda: (saved := store.load_game("8")) is not None and len(saved.moves) == played, 30,
                   "every move in the database")
        assert len(re.findall(r'"event": "database_trouble"', server.text())) == 1  # once, not once per failure
        client.keys("q")
        assert client.exit_status() == 0
        assert server.stop() == 0
    finally:
        client.close()
        server.kill()


GAMES = """
import os, sys
import tui.game_metrics as m
m.instruments()  # as the warm process makes them, before it forks
for k in range({count}):  # games forked as the warm process forks them, each saving, failing once, on a screen
    pid = os.fork()
    if pid == 0:
        m.saved(0.001 * (k % 7)); m.store_error(); m.showing("play")
        os._exit(0)
    os.waitpid(pid, 0)
    print(pid)
"""


def test_the_counts_of_ended_games_are_folded_into_one_file_and_scrape_the_same(tmp_path, monkeypatch):
    """A long-running server sees thousands of games: their metrics files are folded into one archive per type
    as they end, and a scrape says exactly what it said before."""
    import subprocess
    import sys

    from prometheus_client import CollectorRegistry, generate_latest
    from prometheus_client.multiprocess import MultiProcessCollector
    from prometheus_client.parser import text_string_to_metric_families

    from tui.server import metrics

    pids = [int(pid) for pid in subprocess.run([sys.executable, "-c", GAMES.format(count=40)], check=True, text=True,
                                               capture_output=True, env=dict(os.environ, PROMETHEUS_MULTIPROC_DIR=str(tmp_path))
                                               ).stdout.split()]
    monkeypatch.setattr(metrics, "GAMES_DIR", str(tmp_path))
    registry = CollectorRegistry()
    MultiProcessCollector(registry, path=str(tmp_path))
    for pid in pids:
        metrics.game_ended(pid)
    before = generate_latest(registry)
    assert b"koma_store_save_seconds_count 40.0" in before and b"koma_store_errors_total 40.0" in before
    assert b"koma_game_screens{" not in before  # live gauges leave with their games
    metrics.compact(metrics.ENDED[:20])
    metrics.compact(metrics.ENDED[20:])
    metrics.ENDED.clear()
    left = set(os.listdir(tmp_path))  # the archives, and the files of the process the games were forked from
    assert {"counter_archive.db", "histogram_archive.db"} <= left and len(left) == 4
    def parsed(text: bytes) -> dict:
        return {(s.name, tuple(sorted(s.labels.items()))): s.value
                for family in text_string_to_metric_families(text.decode()) for s in family.samples}

    assert parsed(generate_latest(registry)) == pytest.approx(parsed(before))  # sums added in another order
