"""The fault probe: real SSH players on ``koma serve`` while the database is frozen, stopped, crashed or locked.

Each player is an asyncssh client on an 80x24 pty (``koma_bench.serve.ssh.Session``), typing in the 15-puzzle.
While the fault lasts, every game keeps drawing (its clock and its moves), players quit, newcomers start and a
saved game is opened.  When the database is back, the ``games`` table holds every move each player saw
accepted, and a stored game that was opened during the outage was kept.  The figures (key-to-board p95, the
longest silence of any game, how long a quit took) are printed; ``KOMA_PROBE=1`` runs the faults as long as the
issue's probe does (8 s for PostgreSQL, 30 s for the SQLite lock; CI uses 8 s and 10 s).
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from koma_bench.serve.scenarios import HOME, first_move, percentile, play_moves
from koma_bench.serve.ssh import BenchServer, Session
from tui.game.records import SavedGame
from tui.storage.outbox import OUTBOX_DIR, claimed_orphans, outbox_depth, player_journals
from tui.storage.store_choice import connect_store

pytest.importorskip("asyncssh")

PROBE = os.environ.get("KOMA_PROBE") == "1"
PG_FAULT_SECONDS = 8.0
LOCK_SECONDS = 30.0 if PROBE else 10.0
PLAYERS = 4
MOVE_GAP = 0.25
SILENCE_BOUND = 3.0  # the probe's target is 1 s (printed); a game that stalls on the database is silent ~10 s
QUIT_BOUND = 10.0  # a quit never waits for the database (a normal quit takes well under a second)
DEADLINE = 120.0  # every wait on a condition: long enough for a loaded 2-core box
DRAIN_DEADLINE = 90.0  # the outbox drains within seconds of the database coming back (the server's pass is every 5 s)


def run(coroutine):
    return asyncio.run(coroutine)


async def open_saved(server: BenchServer, user: str) -> Session:
    """Connect as ``user`` and open the 15-puzzle (the saved game, if any) without moving."""
    session = Session(user)
    await session.connect(server.port)
    await session.wait_for(HOME, 0, DEADLINE)
    mark = len(session.text)
    session.key("2")
    await session.wait_for(r"Moves \d+", mark, DEADLINE)
    return session


async def open_fifteen(server: BenchServer, user: str) -> tuple[Session, str]:
    """:func:`open_saved`, then play one move; the way back."""
    session = await open_saved(server, user)
    return session, await first_move(session, DEADLINE)


async def quit_game(session: Session) -> float:
    """Press q and wait for the game to end; the seconds it took."""
    began = time.perf_counter()
    session.key("q")
    assert session.reader is not None
    await asyncio.wait_for(asyncio.shield(session.reader), DEADLINE)
    took = time.perf_counter() - began
    await session.close()
    return took


def stored_position(url: str, user: str) -> int | None:
    """The position of ``user``'s stored 15-puzzle game (None: no game stored)."""
    store = connect_store(url, f"user:{user}")
    try:
        game = store.load_game("15")
    finally:
        store.close()
    assert game is not False, f"{user}'s stored game could not be read"
    return game.position if isinstance(game, SavedGame) else None


async def wait_stored(url: str, user: str, position: int) -> None:
    deadline = time.monotonic() + DRAIN_DEADLINE
    while True:
        try:
            found = await asyncio.to_thread(stored_position, url, user)
        except Exception as problem:  # the database may still be coming back
            found = f"unreadable ({problem})"
        if found == position:
            return
        assert time.monotonic() < deadline, f"{user}: stored {found}, the player saw {position} moves accepted"
        await asyncio.sleep(0.25)


async def type_for(session: Session, seconds: float, first: str) -> list[float]:
    """Sideways moves every MOVE_GAP for about ``seconds``; the key-to-board time of each."""
    return await play_moves(session, max(1, int(seconds / MOVE_GAP)), MOVE_GAP, first)


def report(what: str, latencies: list[float], silences: list[float], quits: list[float] = ()) -> None:
    drawn = [x for x in latencies if x != float("inf")]
    print(f"\n{what}: {len(latencies)} keys, key-to-board p95 {1000 * percentile(drawn, 0.95):.0f} ms, "
          f"max {1000 * max(drawn, default=0):.0f} ms; longest silence {max(silences, default=0):.2f} s"
          + (f"; quits {', '.join(f'{q:.2f}' for q in quits)} s" if quits else ""))


@pytest.fixture(scope="module")
def served(postgres_server):
    """One ``koma serve`` on a fresh PostgreSQL database for the module's players."""
    url = postgres_server.new_database()
    server = BenchServer("--database", url)
    try:
        run(server.started())
        run(server.wait_for_log(r"warm process ready", 180))
        yield server, url
    finally:
        server.stop()


async def outbox_empty(server: BenchServer) -> None:
    deadline = time.monotonic() + DRAIN_DEADLINE
    while (depth := outbox_depth(Path(server.folder.name) / "data" / OUTBOX_DIR)) != (0, 0):
        assert time.monotonic() < deadline, f"the outbox still holds {depth} (ops, journals)"
        await asyncio.sleep(0.25)


def checkpoint(url: str) -> None:
    """The test server runs with synchronous_commit off: flush what it acknowledged before crashing it."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute("CHECKPOINT")


def test_frozen_postgres_freezes_no_game_and_loses_nothing(postgres_server, served):
    server, url = served

    async def probe() -> None:
        players = [await open_fifteen(server, f"freeze-{k}") for k in range(PLAYERS)]
        pids = postgres_server.all_pids()
        for pid in pids:
            os.kill(pid, signal.SIGSTOP)
        try:
            began = time.perf_counter()
            latencies = await asyncio.gather(*(type_for(s, PG_FAULT_SECONDS, back) for s, back in players))
            ended = time.perf_counter()
        finally:
            for pid in pids:
                os.kill(pid, signal.SIGCONT)
        silences = [s.longest_silence(began, ended) for s, _ in players]
        keys = [x for one in latencies for x in one]
        report(f"PostgreSQL frozen {PG_FAULT_SECONDS:g} s, {PLAYERS} players typing", keys, silences)
        assert all(x != float("inf") for x in keys), "a move typed during the freeze was never drawn"
        assert max(silences) < SILENCE_BOUND, f"a game drew nothing for {max(silences):.1f} s during the freeze"
        seen = {s.user: s.moves() for s, _ in players}
        quits = await asyncio.gather(*(quit_game(s) for s, _ in players))
        assert max(quits) < QUIT_BOUND
        for user, moves in seen.items():
            await wait_stored(url, user, moves)

    run(probe())


async def quiet_log_mark(server: BenchServer) -> int:
    """Where this test's part of the shared server's log starts: once an earlier test's outage has been told over
    (its "database back" line can come a drainer's pass after that test ended, on a loaded box)."""
    deadline = time.monotonic() + DRAIN_DEADLINE
    while (text := server.text()).count("database trouble") != text.count("database back after"):
        assert time.monotonic() < deadline, text[-3000:]
        await asyncio.sleep(0.25)
    return len(text)


@pytest.mark.parametrize("mode", ["fast", "immediate"])
def test_stopped_or_crashed_postgres_loses_no_move(postgres_server, served, mode):
    """Stopped (``pg_ctl stop -m fast``) or crashed (``-m immediate``) for 8 s: a player quits during the
    outage, a newcomer starts during it, a stored game is opened during it; nothing is lost, nothing replaced."""
    server, url = served
    tag = mode[0]

    async def probe() -> None:
        log_mark = await quiet_log_mark(server)
        keeper, back = await open_fifteen(server, f"keeper-{tag}")  # a stored game of 6 moves, opened in the outage
        await play_moves(keeper, 5, MOVE_GAP, back)
        kept = keeper.moves()
        await quit_game(keeper)
        await wait_stored(url, f"keeper-{tag}", kept)
        stayer, stayer_back = await open_fifteen(server, f"stayer-{tag}")
        quitter, quitter_back = await open_fifteen(server, f"quitter-{tag}")
        checkpoint(url)
        await asyncio.to_thread(postgres_server.stop_server, mode)
        restarted = False
        try:
            began = time.perf_counter()

            async def newcomer() -> tuple[Session, list[float]]:
                session, way = await open_fifteen(server, f"newcomer-{tag}")
                return session, await type_for(session, PG_FAULT_SECONDS / 4, way)

            async def quitter_plays() -> tuple[list[float], float]:
                typed = await type_for(quitter, PG_FAULT_SECONDS / 2, quitter_back)
                return typed, await quit_game(quitter)

            async def keeper_returns() -> Session:
                return await open_saved(server, f"keeper-{tag}")

            stayer_typed, (quitter_typed, quit_seconds), (new, new_typed), reopened = await asyncio.gather(
                type_for(stayer, PG_FAULT_SECONDS * 0.75, stayer_back), quitter_plays(), newcomer(), keeper_returns())
            silence = stayer.longest_silence(began, time.perf_counter())
            for key in (LEFT_KEY, RIGHT_KEY, LEFT_KEY):  # moves on a new game that must not replace the stored one
                reopened.key(key)
            left = PG_FAULT_SECONDS - (time.perf_counter() - began)
            if left > 0:
                await asyncio.sleep(left)  # the outage lasts its full length
            await asyncio.to_thread(postgres_server.start_server)
            restarted = True
        finally:
            if not restarted:
                postgres_server.start_server()
        seen = {"stayer": stayer.moves(), "quitter": quitter.moves(), "newcomer": new.moves()}
        keys = stayer_typed + quitter_typed + new_typed
        report(f"PostgreSQL {mode} stop {PG_FAULT_SECONDS:g} s", keys, [silence], [quit_seconds])
        assert all(x != float("inf") for x in keys), "a move typed during the outage was never drawn"
        assert silence < SILENCE_BOUND, f"a game drew nothing for {silence:.1f} s during the outage"
        assert quit_seconds < QUIT_BOUND
        for session in (stayer, new, reopened):
            await quit_game(session)
        for who, moves in seen.items():
            await wait_stored(url, f"{who}-{tag}", moves)
        await outbox_empty(server)  # every game's journal is in the database now, the reopened game's too
        assert await asyncio.to_thread(stored_position, url, f"keeper-{tag}") == kept  # the stored game was kept
        again = await open_saved(server, f"keeper-{tag}")  # and it is the one the player gets back
        await again.wait_for(rf"Moves {kept}\b", 0, DEADLINE)
        await quit_game(again)
        deadline = time.monotonic() + DEADLINE
        while "database back after" not in server.text()[log_mark:]:
            assert time.monotonic() < deadline, server.text()[log_mark:][-3000:]
            await asyncio.sleep(0.25)
        told = server.text()[log_mark:]
        assert told.count("database trouble") == 1 and told.count("database back after") == 1, told[-3000:]

    run(probe())


LEFT_KEY, RIGHT_KEY = "\x1b[D", "\x1b[C"


def test_a_locked_sqlite_file_freezes_no_game_and_loses_nothing():
    """Another process holds ``koma.db`` under ``BEGIN EXCLUSIVE`` (30 s in the probe): games keep drawing,
    a player who quits during the lock loses nothing."""
    server = BenchServer()
    try:
        run(server.started())
        run(server.wait_for_log(r"warm process ready", 180))
        database = Path(server.folder.name) / "data" / "koma.db"
        url = f"sqlite:///{database}"

        async def probe() -> None:
            players = [await open_fifteen(server, f"lock-{k}") for k in range(2)]
            deadline = time.monotonic() + DEADLINE
            while not database.exists():
                assert time.monotonic() < deadline, "koma.db was never made"
                await asyncio.sleep(0.1)
            locker = subprocess.Popen(
                [sys.executable, "-c", "import sqlite3, sys\n"
                 f"db = sqlite3.connect({str(database)!r}, isolation_level=None, timeout=30)\n"
                 "db.execute('BEGIN EXCLUSIVE'); print('locked', flush=True); sys.stdin.read()"],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            try:
                assert locker.stdout is not None and locker.stdout.readline().strip() == "locked"
                began = time.perf_counter()
                (stayer, stayer_back), (quitter, quitter_back) = players

                async def quitter_plays() -> tuple[list[float], float]:
                    typed = await type_for(quitter, 5.0, quitter_back)
                    return typed, await quit_game(quitter)

                stayer_typed, (quitter_typed, quit_seconds) = await asyncio.gather(
                    type_for(stayer, LOCK_SECONDS - 1, stayer_back), quitter_plays())
                left = LOCK_SECONDS - (time.perf_counter() - began)
                if left > 0:
                    await asyncio.sleep(left)
                ended = time.perf_counter()
            finally:
                assert locker.stdin is not None
                locker.stdin.close()
                locker.wait(30)
            silence = stayer.longest_silence(began, min(ended, began + LOCK_SECONDS - 1))
            report(f"SQLite locked {LOCK_SECONDS:g} s", stayer_typed + quitter_typed, [silence], [quit_seconds])
            assert all(x != float("inf") for x in stayer_typed + quitter_typed)
            assert silence < SILENCE_BOUND, f"a game drew nothing for {silence:.1f} s during the lock"
            assert quit_seconds < QUIT_BOUND
            seen = {"lock-0": stayer.moves(), "lock-1": quitter.moves()}
            await quit_game(stayer)
            for user, moves in seen.items():
                await wait_stored(url, user, moves)

        run(probe())
    finally:
        server.stop()


def claim_ended_journal(outbox: Path, user: str) -> int | None:
    """Once the ended game's process is gone: hold its journal as a drainer's pass does (the fd holding the lock), or
    None if nothing was left in it (the database took every move first, or the server's drainer wrote it)."""
    deadline = time.monotonic() + DEADLINE
    while player_journals(outbox, f"user:{user}"):
        for _path, fd in claimed_orphans(outbox, f"user:{user}"):
            return fd
        assert time.monotonic() < deadline, f"{user}'s journal was never released"
        time.sleep(0.01)
    return None


@pytest.mark.parametrize("attempt", range(3))
def test_a_reconnect_after_an_outage_shows_the_moves_the_table_holds(postgres_server, served, attempt):
    """Issue 50's probe: a player's game quits during an outage; they reconnect during it and open the saved game
    (from the outbox), play 4 moves in the outage and 3 after it, quit, and reconnect while the ended game's journal
    is held (as a drainer's pass holds it).  The reconnect shows every move; the table holds them once drained."""
    server, url = served
    user = f"resumer-{attempt}"
    outbox = Path(server.folder.name) / "data" / OUTBOX_DIR

    async def probe() -> None:
        await quiet_log_mark(server)
        first, back = await open_fifteen(server, user)
        await play_moves(first, 3, MOVE_GAP, back)
        await wait_stored(url, user, first.moves())
        checkpoint(url)
        await asyncio.to_thread(postgres_server.stop_server)
        restarted = False
        try:
            await play_moves(first, 2, MOVE_GAP, back)
            saved = first.moves()
            await quit_game(first)
            again = await open_saved(server, user)  # during the outage: the game from the outbox
            await again.wait_for(rf"Moves {saved}\b", 0, DEADLINE)
            way = await first_move(again, DEADLINE)
            await play_moves(again, 3, MOVE_GAP, way)
            await asyncio.to_thread(postgres_server.start_server)
            restarted = True
        finally:
            if not restarted:
                postgres_server.start_server()
        await play_moves(again, 3, 0.05, way)  # and quits at once: the writer, waiting to try again, has not yet
        played = again.moves()
        assert played == saved + 7
        await quit_game(again)
        held = await asyncio.to_thread(claim_ended_journal, outbox, user)
        try:
            reconnect = await open_saved(server, user)
            shown = reconnect.moves()
        finally:
            if held is not None:
                os.close(held)
        await quit_game(reconnect)
        await wait_stored(url, user, played)
        print(f"\n{user}: played {played}, the reconnect showed {shown}; "
              + ("the ended game's journal held" if held is not None else "nothing was left in its journal"))
        assert shown == played, f"the reconnect showed Moves {shown}; {played} were played and the table holds them"

    run(probe())
