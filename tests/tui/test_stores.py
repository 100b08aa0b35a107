"""The store's behaviour on both backends (SQLite and a real PostgreSQL), and how a backend is chosen.

Every behaviour test runs twice: ``sqlite`` (a file in a temporary dir) and ``postgres`` (a fresh database
on the session's PostgreSQL server, see ``tests/postgres_server.py``).  Concurrent writers are real: two
stores (two connections) for one player race in two threads, and nothing may be lost.
"""

from __future__ import annotations

import threading
import time
from dataclasses import replace

import pytest

from solver.errors import KomaError
from solver.registry import get_puzzle
from tui.game.records import Replay
from tui.game.writes import FinishGame
from tui.storage.store import SavedGame, Store
from tui.storage.store_choice import database_url, open_store, redacted

GAME = SavedGame("1 2 3/4 5 6/7 _ 8", ["L", "R", "L"], "ppk", 2, 42.5, 1)


@pytest.fixture(params=["sqlite", "postgres"])
def database(request, tmp_path):
    """A database URL of each backend; every store opened on it in a test shares it."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'koma.db'}"
    return request.getfixturevalue("postgres_url")


def opened(url: str, player: str = "user:ann"):
    """A session of ``player``: its store, and its visit recorded (as the app writes ``seen`` at each start), so
    that boards show the player's name."""
    store = open_store(url, player)
    assert not store.memory_only and store.drain_notices() == []
    store.seen()
    return store


def test_games_save_load_clear_across_sessions(database):
    store = opened(database)
    assert store.load_game("8") is None
    store.save_game("8", GAME)
    store.save_game("daily/2025-01-31/8", SavedGame("1 2 3/4 5 6/7 8 _"))
    again = opened(database)  # a second session (on another replica) sees it
    assert again.load_game("8") == GAME
    assert set(again.games_in_progress()) == {"8", "daily/2025-01-31/8"}
    assert opened(database, "user:bob").games_in_progress() == {}  # games are per player
    again.clear_game("8")
    assert store.load_game("8") is None
    assert store.drain_notices() == [] and again.drain_notices() == []


def test_stats_keep_the_best(database):
    store = opened(database)
    store.record_win("15", 60, 50, 90.0)
    store.record_win("15", 40, 36, 120.0)  # 4 over beats 10 over
    store.record_win("15", 70, 50, 80.0)  # best time only
    assert store.record_koma_finish("15").by_koma == 1
    stats = opened(database).stats("15")
    assert (stats.solved, stats.by_koma, stats.best_moves, stats.best_optimal, stats.best_seconds) == (3, 1, 40, 36, 80.0)


def test_one_daily_leaderboard_for_every_player(database):
    ann, bob, cid = opened(database, "user:ann"), opened(database, "user:bob"), opened(database, "user:cid")
    assert ann.record_daily("2025-01-31", "8", 24, 20, 50.0) == 1
    assert bob.record_daily("2025-01-31", "8", 21, 20, 90.0) == 1  # 1 over beats 4 over
    assert cid.record_daily("2025-01-31", "8", 21, 20, 60.0) == 1  # as few moves, faster
    assert ann.record_daily("2025-01-31", "8", 30, 20, 10.0) == 3  # a worse game keeps the best one
    board = opened(database, "user:dee").leaderboard("2025-01-31", "8")
    assert [(r.name, r.moves, r.seconds) for r in board] == [("cid", 21, 60.0), ("bob", 21, 90.0), ("ann", 24, 50.0)]
    assert ann.daily_result("2025-01-31", "8").excess == 4
    assert ann.leaderboard("2025-02-01", "8") == [] and ann.daily_result("2025-01-31", "15") is None


def test_one_player_in_two_sessions_loses_no_update(database):
    """Two sessions of one player (two connections) win and finish games at once: every count is kept."""
    sessions = [opened(database), opened(database)]
    rounds = 25
    start = threading.Barrier(2)
    failures: list[BaseException] = []

    def play(store) -> None:
        try:
            start.wait(10)
            for k in range(rounds):
                store.record_win("8", 30 + k, 20, 100.0 - k)
                store.record_koma_finish("8")
                store.record_daily("2025-01-31", "8", 30 + k, 20, 100.0 - k)
        except BaseException as problem:  # pragma: no cover - reported below
            failures.append(problem)

    threads = [threading.Thread(target=play, args=(s,)) for s in sessions]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not failures and not any(t.is_alive() for t in threads)
    stats = opened(database).stats("8")
    assert (stats.solved, stats.by_koma, stats.best_moves, stats.best_seconds) == (2 * rounds, 2 * rounds, 30, 100.0 - rounds + 1)
    assert [(r.moves, r.seconds) for r in opened(database).leaderboard("2025-01-31", "8")] == [(30, 100.0)]
    assert all(s.drain_notices() == [] for s in sessions)


def finish_record(stats_id: str, game: str, start: str, origins: str, seconds: float, *, by_koma: bool,
                  daily: str | None) -> FinishGame:
    """A finish as :meth:`tui.game.session.GameSession.finish` writes it: two moves to the goal."""
    return FinishGame(game, stats_id=stats_id, daily=daily, start=start, played=("L", "L"), origins=origins, moves=2,
                      seconds=seconds, optimal=2, hints=0, by_koma=by_koma, first=True)


def test_finished_games_keep_their_moves_for_replay(database):
    """Every first finish keeps a replay (with who played each move); a replay leads from its start to the goal."""
    puzzle = get_puzzle("8")
    start = puzzle.parse("1 2 3/4 5 6/_ 7 8")
    ann, bob = opened(database, "user:ann"), opened(database, "user:bob")
    mine = finish_record("8", "8", puzzle.format(start), "ph", 12.5, by_koma=False, daily=None)
    stats, _ = ann.finish("op-1", mine, 100.0)
    assert stats is not None and stats.solved == 1
    assert ann.finish("op-1", mine, 100.0)[0].solved == 1  # the outbox replays it: applied once
    ann.finish("op-2", replace(mine, first=False), 101.0)  # a redo that reaches the goal again is not a second game
    koma = finish_record("8", "daily/2025-01-31/8", puzzle.format(start), "pk", 3.0, by_koma=True, daily="2025-01-31")
    ann.finish("op-3", koma, 102.0)
    bob.record_replay(Replay("15", "1 2 3 4/5 6 7 8/9 10 11 12/13 14 _ 15", ["L"], "p", 1.0, 1))
    replays = opened(database, "user:ann").replays()  # another session (another replica) reads them
    assert [(r.game, r.puzzle, r.moves, r.origins, r.by_koma, r.optimal, r.seconds) for r in replays] == [
        ("8", "8", ["L", "L"], "ph", False, 2, 12.5), ("daily/2025-01-31/8", "8", ["L", "L"], "pk", True, 2, 3.0)]
    assert replays[0].excess == 0 and replays[0].name == "ann" and replays[0].finished > 0
    for replay in replays:
        assert puzzle.is_goal(puzzle.replay(puzzle.parse(replay.start), replay.moves)[-1])
    assert [r.game for r in bob.replays("user:ann", "daily/2025-01-31/8")] == ["daily/2025-01-31/8"]
    assert [r.player for r in ann.replays("user:bob")] == ["user:bob"] and ann.replays("user:cid") == []
    assert ann.drain_notices() == [] and bob.drain_notices() == []


def test_live_games_watchers_and_the_watching_setting(database, monkeypatch):
    """A game saved or touched recently is live; watchers count while their heartbeat is fresh; a player who
    turns watching off is listed nowhere."""
    import tui.game.live as live

    ann, bob = opened(database, "user:ann"), opened(database, "user:bob")
    ann.save_game("15", GAME)
    ann.save_game("8", GAME)
    assert [(g.player, g.name, g.game, g.saved.position) for g in bob.live_games()] == [("user:ann", "ann", "8", 2),
                                                                                         ("user:ann", "ann", "15", 2)]
    assert bob.live_game("user:ann", "8").saved == GAME and bob.live_game("user:ann", "goat") is None
    bob.watch("w1", "user:ann", "8")
    bob.watch("w2", "user:ann", "8")
    bob.watch("w2", "user:ann", "8")  # a heartbeat, not a second watcher
    assert ann.watcher_count("8") == 2 and ann.watcher_count("15") == 0
    assert bob.live_game("user:ann", "8").watchers == 2
    bob.unwatch("w1")
    assert ann.watcher_count("8") == 1
    assert ann.watchable() and bob.watchable()
    ann.set_watchable(False)
    assert not opened(database, "user:ann").watchable() and bob.live_games() == [] and bob.live_game("user:ann", "8") is None
    ann.set_watchable(True)
    monkeypatch.setattr(live, "LIVE_SECONDS", -1.0)  # time passes: neither game was touched since
    monkeypatch.setattr(live, "WATCHER_SECONDS", -1.0)
    assert bob.live_games() == [] and ann.watcher_count("8") == 0
    monkeypatch.undo()
    real_time = time.time
    monkeypatch.setattr(time, "time", lambda: real_time() - 100)
    ann.save_game("goat", GAME)  # saved 100 s ago: its process is gone
    monkeypatch.undo()
    assert "goat" not in {g.game for g in bob.live_games()}
    ann.touch_game("goat")  # the heartbeat of a game on screen
    assert {g.game for g in bob.live_games()} == {"8", "15", "goat"}
    ann.clear_game("15")  # a finished game is no longer live
    assert "15" not in {g.game for g in bob.live_games()}
    assert ann.drain_notices() == [] and bob.drain_notices() == []


def test_a_database_url_is_checked():
    assert database_url("") is None
    assert database_url("postgresql://koma@db.example/koma") == "postgresql://koma@db.example/koma"
    assert database_url("sqlite:///tmp/k.db") == "sqlite:///tmp/k.db"
    for bad in ("mysql://x/y", "koma.db", "sqlite://"):
        with pytest.raises(KomaError):
            database_url(bad)
    assert redacted("postgresql://koma:s3cret@db:6432/koma") == "postgresql://koma:***@db:6432/koma"


def test_the_environment_selects_the_database(tmp_path, monkeypatch):
    monkeypatch.setenv("KOMA_DATABASE_URL", f"sqlite:///{tmp_path / 'chosen.db'}")
    store = open_store(player="user:ann")
    store.save_game("8", GAME)
    assert isinstance(store, Store) and (tmp_path / "chosen.db").exists()


@pytest.mark.parametrize("url", ["mysql://x/y", "postgresql://koma@127.0.0.1:1/koma?connect_timeout=2"])
def test_an_unusable_database_plays_on_unsaved(url):
    store = open_store(url, "user:ann")
    notices = store.drain_notices()
    assert store.memory_only and len(notices) == 1 and "not saved" in notices[0] and "\n" not in notices[0]
    store.save_game("8", GAME)  # the session still plays
    assert store.load_game("8") == GAME


def test_the_password_never_reaches_a_notice():
    store = open_store("postgresql://koma:s3cret@127.0.0.1:1/koma?connect_timeout=2", "user:ann")
    assert "s3cret" not in " ".join(store.drain_notices())


def test_a_games_database_url_holds_no_password_and_names_the_same_database():
    from tui.storage.store_choice import game_database_url, sqlite_path

    shared = "sqlite:////tmp/shared/koma.db"  # an empty authority: rebuilding the URL would lose it (the games then
    assert game_database_url(shared) == shared  # wrote to /shared/koma.db, a database nobody else read)
    assert sqlite_path(game_database_url(shared)) == sqlite_path(shared)
    given = "postgresql://koma:s3cret@/koma?host=/run/postgresql&port=6432&sslpassword=hush&connect_timeout=2"
    assert game_database_url(given) == "postgresql://koma@/koma?host=/run/postgresql&port=6432&connect_timeout=2"
    plain = "postgresql://koma@db.internal:6432/koma"
    assert game_database_url(plain) == plain
