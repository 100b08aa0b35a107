"""Two ``koma serve`` replicas behind HAProxy (``deploy/haproxy.cfg``: TCP, PROXY v2, health checks), sharing one
PostgreSQL through PgBouncer and one host key, with real OpenSSH clients (in tmux) playing through the balancer.

Checked, in one run (each part needs the replicas the one before set up):
- two players connecting from 127.0.0.2 and 127.0.0.3 land on different replicas, solve today's daily board,
  and both are on the one daily leaderboard (in the database and on a player's screen);
- each move is in the database within 0.5 s of the key press; the replica serving a game is SIGKILLed (the
  server and its games: nothing saves on the way out); the player reconnects, lands on the other replica
  and resumes with every move;
- the rate limit counts each client address apart (127.0.0.3 is refused, 127.0.0.2 still admitted), and the
  replica's log names the client's own address;
- every ssh checks the host key strictly against the one shared key, so landing on either replica never
  brings a host-key warning.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time

import pytest
from admin_helpers import samples, value
from balancer_helpers import HAPROXY, Balancer
from serve_helpers import HAVE_ASYNCSSH, SSH, TMUX, Client, Server, moves_on

from solver import solving as search
from solver.registry import get_puzzle
from tui.config.daily_secret import SECRET_VARIABLE, daily_secret
from tui.game.daily import daily_board

pytestmark = [
    pytest.mark.skipif(not HAVE_ASYNCSSH, reason="asyncssh is not installed (pip install -e '.[ssh]')"),
    pytest.mark.skipif(SSH is None or TMUX is None, reason="needs ssh and tmux (CI installs openssh-client and tmux)"),
    pytest.mark.skipif(HAPROXY is None, reason="HAProxy is not installed (CI installs the Debian package haproxy)"),
]
DAY = "2025-01-31"
ARROWS = {"U": "Up", "D": "Down", "L": "Left", "R": "Right"}
RATE_LIMIT = 5
STORED_WITHIN_SECONDS = 0.5


def serving(replicas: dict[str, Server], user: str, address: str) -> str:
    """The replica running ``user``'s game (waits for its log line, which must name the client's address)."""
    pattern = rf"(\S+):\d+ player user:{user}: game started"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        for name, replica in replicas.items():
            found = re.search(pattern, replica.text())
            if found:
                assert found.group(1) == address, found.group(0)
                return name
        time.sleep(0.05)
    raise AssertionError(f"no replica started a game for {user}")


def wait_stored(store, moves: int, since: float) -> float:
    """Seconds from ``since`` until the saved 8-puzzle game has ``moves`` moves (polled; bounded)."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        saved = store.load_game("8")
        if saved is not None and len(saved.moves) == moves:
            return time.monotonic() - since
        time.sleep(0.01)
    raise AssertionError(f"the game never reached {moves} moves in the database")


def kill_replica(replica: Server) -> None:
    """SIGKILL the replica and its games at once, as when its box dies: nothing saves on the way out."""
    games = replica.game_pids()
    replica.process.send_signal(signal.SIGKILL)
    for pid in games:
        try:
            os.killpg(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    replica.process.wait(10)


def test_replicas_behind_haproxy_share_players_and_survive_a_kill(tmp_path, pgbouncer, postgres_url, monkeypatch):
    from tui.storage.postgres import PostgresStore

    monkeypatch.setenv("KOMA_DAY", DAY)
    monkeypatch.delenv("KOMA_DATABASE_URL", raising=False)
    secret = tmp_path / "daily-secret"  # the replicas' daily boards come from one secret, as the README says
    secret.write_text("5e" * 32 + "\n")
    monkeypatch.setenv(SECRET_VARIABLE, str(secret))
    database = pgbouncer.url(postgres_url)
    key = tmp_path / "ssh_host_ed25519_key"
    replicas = {name: Server(tmp_path / name, "--open", "--proxy-protocol", "--trust-proxy", "127.0.0.1/32", "--database", database,
                             "--host-key", str(key), "--rate-limit", str(RATE_LIMIT), "--admin-port", "0",
                             log_name=f"{name}.log") for name in ("a", "b")}
    balancer = Balancer(tmp_path, list(replicas.values()), key)  # its ssh checks the host key strictly
    clients: list[Client] = []

    def connect(user: str, address: str) -> Client:
        client = Client(balancer, user, tmp_path, "-b", address)
        clients.append(client)
        client.wait_for("8-puzzle", timeout=120)  # the home screen
        return client

    try:
        # --- one daily leaderboard for players on both replicas ---------------------------------------
        puzzle = get_puzzle("8")
        solution = search.solve(puzzle, daily_board(puzzle, DAY, daily_secret()))
        for user, address in (("bob", "127.0.0.2"), ("cat", "127.0.0.3")):
            client = connect(user, address)
            client.keys("d")  # the daily puzzles' leaderboard, the 8-puzzle first
            client.wait_for("ranked by moves over optimal")  # the leaderboard (the home screen says "Daily puzzles" too)
            client.keys("Enter")
            client.wait_for(r"Moves 0", timeout=60)
            for played, move in enumerate(solution.moves, 1):  # at a hand's pace: each move seen before the next
                client.keys(ARROWS[move])
                if played < solution.length:
                    client.wait_for(rf"Moves {played}\b", timeout=60)
            client.wait_for(r"rank #\d", timeout=60)
        assert {serving(replicas, "bob", "127.0.0.2"), serving(replicas, "cat", "127.0.0.3")} == {"a", "b"}
        for replica in replicas.values():  # every connection is logged with the client's own address
            assert re.search(r"127\.0\.0\.[23]:\d+: connected through 127\.0\.0\.1:\d+", replica.text())
        board = PostgresStore(postgres_url, "user:test").leaderboard(DAY, "8")
        assert sorted(r.name for r in board) == ["bob", "cat"] and all(r.moves == solution.length for r in board)
        clients[0].keys("b")  # bob's leaderboard shows cat, who played on the other replica
        assert "cat" in clients[0].wait_for(r"cat")

        # --- a game resumes on the other replica after its replica is SIGKILLed ----------------------
        # (tmux sessions are closed only once a newer one runs: a tmux server left with none exits, racing the next)
        ann = connect("ann", "127.0.0.2")
        for client in clients[:2]:
            client.close()
        first = serving(replicas, "ann", "127.0.0.2")
        ann.keys("1")
        ann.wait_for(r"Moves 0", timeout=60)
        store = PostgresStore(postgres_url, "user:ann")
        wait_stored(store, 0, time.monotonic())  # the new game is saved as it opens
        state = puzzle.parse(store.load_game("8").start)
        delays = []
        for played in (1, 2):
            move = next(m for m in puzzle.moves(state) if m in ARROWS)
            began = time.monotonic()
            ann.keys(ARROWS[move])
            delays.append(wait_stored(store, played, began))
            state = puzzle.apply(state, move)
            assert moves_on(ann.wait_for(f"Moves {played}")) == played
        print(f"\nmove stored (key press to database, through PgBouncer): {[round(d, 3) for d in delays]} s")
        assert max(delays) < STORED_WITHIN_SECONDS
        moves_before = store.load_game("8").moves
        kill_replica(replicas[first])
        other = "b" if first == "a" else "a"
        again = connect("ann", "127.0.0.2")
        ann.close()
        assert serving({other: replicas[other]}, "ann", "127.0.0.2") == other
        again.keys("1")
        assert moves_on(again.wait_for(r"Moves 2")) == 2  # the game resumed, with its moves
        assert store.load_game("8").moves == moves_before

        # --- the rate limit sees each client's own address ------------------------------------------
        survivor = replicas[other]

        def knock(address: str) -> subprocess.CompletedProcess:
            return subprocess.run(balancer.ssh("dan", "-T", "-b", address), input="", capture_output=True, text=True,
                                  timeout=60)

        for _ in range(RATE_LIMIT + 1):
            if "too many connections from 127.0.0.3" in knock("127.0.0.3").stderr:
                break
        else:
            raise AssertionError(f"127.0.0.3 was never rate-limited:\n{survivor.text()[-3000:]}")
        survivor.wait_for_log(r"127\.0\.0\.3:\d+: refused \(too many connections from 127\.0\.0\.3")
        assert value(samples(survivor.admin_port), "koma_refusals_total", transport="ssh", reason="rate_limit") >= 1
        admitted = knock("127.0.0.2")  # another address: still welcome (a terminal game, so one line and exit 1)
        assert "terminal game" in admitted.stdout + admitted.stderr, admitted
        assert "127.0.0.1: refused" not in survivor.text()  # the balancer's own address is never the one limited
    finally:
        for client in clients:
            client.close()
        balancer.stop()
        for replica in replicas.values():
            replica.kill()
