"""A rolling restart that loses nothing: two ``koma serve`` replicas behind a real HAProxy (``deploy/haproxy.cfg``,
which checks each replica's ``/readyz`` over HTTP), sharing PostgreSQL through PgBouncer, with 10 players typing
(asyncssh clients with a pty, through the balancer) while replica A, then replica B, is restarted: SIGTERM, wait
for it to exit, start it again on the same ports, wait until HAProxy has it up again.

Checked:
- on SIGTERM HAProxy takes the draining replica out (its /readyz fails at once);
- each player of the restarted replica is told the server is restarting, quits, reconnects through the balancer,
  lands on the other replica, and finds every move the game had drawn (0 accepted moves lost), back in the game
  within :data:`BACK_IN_GAME_SECONDS` of reconnecting;
- newcomers who connect all through the restarts are never refused;
- each replica exits 0.
"""

from __future__ import annotations

import asyncio
import os
import re
import statistics
import time

import pytest
from balancer_helpers import HAPROXY, Balancer
from postgres_server import free_port
from serve_helpers import HAVE_ASYNCSSH, Server

from koma_bench.serve.scenarios import HOME, LEFT, RIGHT
from koma_bench.serve.ssh import Session

pytestmark = [
    pytest.mark.skipif(not HAVE_ASYNCSSH, reason="asyncssh is not installed (pip install -e '.[ssh]')"),
    pytest.mark.skipif(HAPROXY is None, reason="HAProxy is not installed (CI installs the Debian package haproxy)"),
]
PLAYERS = 10
BACK_IN_GAME_SECONDS = 2.0
TYPING_GAP = 0.5  # two keys a second, each player (a brisk human pace)
RESTARTING = "restarting"  # the notice (its title "Server restarting"), then the server's last line
RESUME_SECONDS = 15.0
SCREEN = 60.0  # every wait on a screen is bounded by this (a loaded 2-core box)


class Player:
    """A player typing through the balancer; when told the server restarts, quits and comes back."""

    def __init__(self, name: str, port: int):
        self.name, self.port = name, port
        self.session: Session | None = None
        self.accepted = 0  # the moves the game has drawn
        self.reconnects: list[tuple[int, int, float]] = []  # (moves drawn before, moves found after, seconds back)
        self.phases: list[tuple[float, float, float]] = []  # seconds from reconnecting to: home, board, saved game shown

    async def open(self, expected: int = 0) -> tuple[Session, int, float]:
        """Connect, open the 8-puzzle (its saved game resumes): the session, the moves it shows once it shows
        ``expected`` or more (or after :data:`RESUME_SECONDS`), and the seconds from connecting to then."""
        session = Session(self.name)
        began = time.monotonic()
        await session.connect(self.port)
        await session.wait_for(HOME, 0, SCREEN)
        home = time.monotonic() - began
        session.key("1")
        await session.wait_for(r"Moves (\d+)", 0, SCREEN)
        board = time.monotonic() - began
        deadline = time.monotonic() + RESUME_SECONDS  # the saved game is read off the UI thread: it comes a moment later
        while session.moves() < expected and time.monotonic() < deadline:
            session.changed.clear()
            try:
                await asyncio.wait_for(session.changed.wait(), 0.5)
            except TimeoutError:
                pass
        self.session = session
        if expected:
            self.phases.append((home, board, time.monotonic() - began))
        return session, session.moves(), time.monotonic() - began

    async def play(self, stop: asyncio.Event) -> None:
        session, self.accepted, _ = await self.open()
        key, back = LEFT, RIGHT
        since = 0
        while not stop.is_set():
            if RESTARTING in session.text[since:]:
                session = await self.come_back(session)
                since = 0
                continue
            mark = len(session.text)
            session.key(key)
            try:
                await session.wait_for(rf"Moves {self.accepted + 1}\b", mark, 3.0)
                self.accepted += 1
                key, back = back, key
            except TimeoutError:
                if RESTARTING not in session.text and session.moves() == self.accepted:
                    key, back = back, key  # at the edge: this way moves nothing
            await asyncio.sleep(TYPING_GAP)
        await session.close()

    async def come_back(self, session: Session) -> Session:
        """Told the server restarts: wait for the last key's answer, quit (q), reconnect, resume the game."""
        await asyncio.sleep(0.5)
        self.accepted = max(self.accepted, session.moves())
        session.key("q")
        await session.close()
        again, found, seconds = await self.open(self.accepted)
        self.reconnects.append((self.accepted, found, seconds))
        self.accepted = found
        return again


async def newcomers(port: int, stop: asyncio.Event, refused: list[str], served: list[float]) -> None:
    """A new player every half second, each until their home screen shows (then gone)."""
    count = 0
    while not stop.is_set():
        count += 1
        session = Session(f"new{count}")
        began = time.monotonic()
        try:
            await session.connect(port)
            await session.wait_for(HOME, 0, SCREEN)
            served.append(time.monotonic() - began)
        except Exception as problem:
            refused.append(f"new{count}: {problem!r}: {session.text[-300:]!r}")
        finally:
            await session.close()
        await asyncio.sleep(0.5)


def test_a_rolling_restart_of_two_replicas_loses_no_move_and_refuses_nobody(tmp_path, pgbouncer, postgres_url,
                                                                           monkeypatch):
    monkeypatch.delenv("KOMA_DATABASE_URL", raising=False)
    database = pgbouncer.url(postgres_url)
    key = tmp_path / "ssh_host_ed25519_key"
    ports = {name: (free_port(), free_port()) for name in ("a", "b")}

    def replica(name: str, run: int) -> Server:
        ssh_port, admin_port = ports[name]
        return Server(tmp_path / name, "--open", "--proxy-protocol", "--trust-proxy", "127.0.0.1/32", "--database", database, "--host-key", str(key),
                      "--rate-limit", "0", "--port", str(ssh_port), "--admin-port", str(admin_port),
                      "--drain-seconds", "30", log_name=f"{name}-{run}.log")

    replicas = {"a": replica("a", 1), "b": replica("b", 1)}
    balancer = Balancer(tmp_path, list(replicas.values()), key)
    names = {"a": "koma-a", "b": "koma-b"}
    statuses: list[int] = []
    out_after: list[float] = []
    checks: list[str] = []
    players = [Player(f"p{k}", balancer.port) for k in range(PLAYERS)]
    refused: list[str] = []
    served: list[float] = []

    async def scenario() -> None:
        stop, newcomers_stop = asyncio.Event(), asyncio.Event()
        for name in names.values():
            await asyncio.to_thread(balancer.wait_state, name, "UP")
        typing = [asyncio.create_task(p.play(stop)) for p in players]
        arriving = asyncio.create_task(newcomers(balancer.port, newcomers_stop, refused, served))
        await asyncio.sleep(3)  # everyone is typing
        for run, name in enumerate(("a", "b"), start=2):
            old = replicas[name]
            old.process.send_signal(15)  # SIGTERM, as systemctl restart sends it
            out_after.append(await asyncio.to_thread(balancer.wait_state, names[name], "DOWN", 10))
            checks.append(balancer.states("check_status")[names[name]])  # L7STS: /readyz said 503
            statuses.append(await asyncio.to_thread(old.process.wait, 60))
            old.handle.close()
            replicas[name] = await asyncio.to_thread(replica, name, run)
            await asyncio.to_thread(balancer.wait_state, names[name], "UP", 60)
            await asyncio.sleep(2)  # players type on the restarted pair
        newcomers_stop.set()
        stop.set()
        await asyncio.gather(arriving, *typing)

    try:
        asyncio.run(asyncio.wait_for(scenario(), 600))
        load = os.getloadavg()[0]
        backs = [r for p in players for r in p.reconnects]
        lost = sum(max(0, before - after) for before, after, _ in backs)
        seconds = [s for _, _, s in backs]
        print(f"\nrolling restart: {len(backs)} reconnects, {lost} move(s) lost, back in game median "
              f"{statistics.median(seconds):.2f} s, max {max(seconds):.2f} s; out of HAProxy after "
              f"{[round(s, 2) for s in out_after]} s; {len(served)} newcomers served (median home "
              f"{statistics.median(served):.2f} s), {len(refused)} refused; moves typed {sum(p.accepted for p in players)}")
        assert statuses == [0, 0]
        assert checks == ["L7STS", "L7STS"], checks  # the HTTP check of /readyz took the draining replica out
        assert not refused, refused
        assert len(backs) >= PLAYERS  # every player was on a restarted replica once (each replica restarted once)
        assert lost == 0, [(p.name, p.reconnects) for p in players]
        assert all(after <= before + 1 for before, after, _ in backs)  # a key in flight may land: never invented
        phases = [p for player in players for p in player.phases]
        print(f"phases (median s from reconnecting): home {statistics.median(p[0] for p in phases):.2f}, board "
              f"{statistics.median(p[1] for p in phases):.2f}, saved game shown {statistics.median(p[2] for p in phases):.2f}; "
              f"load average {load:.1f} on {os.cpu_count()} cores")
        # The target holds on a box doing only this.  On a box shared past its cores (the whole suite's other workers,
        # table builds) every reconnecting player's game waits its turn for a core: the bound grows with how far past
        # its cores the box is (the whole run on this 2-core box: load 7.7, median 5.5 s, home alone 3.9 s of it).
        crowded = max(1.0, load / (os.cpu_count() or 1))
        assert statistics.median(seconds) <= BACK_IN_GAME_SECONDS * crowded, seconds
        assert max(seconds) <= BACK_IN_GAME_SECONDS * crowded * (1.5 if crowded > 1 else 1), seconds
        for name in ("a", "b"):
            assert re.search(r"draining: not ready; \d+ game\(s\) told", (tmp_path / f"{name}-1.log").read_text())
    finally:
        balancer.stop()
        for server in replicas.values():
            server.kill()
