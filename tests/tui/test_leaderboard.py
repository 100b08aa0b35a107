"""Players, daily puzzles and leaderboards: the store (migration, many writers) and the screens (Pilot)."""

from __future__ import annotations

import json
import multiprocessing
import sqlite3

from store_helpers import database_with_bad_rows
from textual.widgets import DataTable
from tui_helpers import make_app, settled, wait_for, wait_warm

from solver import solving as search
from solver.registry import get_puzzle
from tui.config.daily_secret import daily_secret
from tui.game.daily import daily_board, daily_seed, today
from tui.game.players import LOCAL_PLAYER
from tui.play.screen import PlayScreen
from tui.play.variants import DailyPlayScreen, open_puzzle
from tui.screens.leaderboard import LeaderboardScreen
from tui.storage.store import SCHEMA_VERSION, SavedGame, Store

V1_SCHEMA = """
CREATE TABLE games (puzzle TEXT PRIMARY KEY, start TEXT NOT NULL, moves TEXT NOT NULL, origins TEXT NOT NULL,
    position INTEGER NOT NULL, seconds REAL NOT NULL, hints INTEGER NOT NULL DEFAULT 0, updated REAL NOT NULL);
CREATE TABLE stats (puzzle TEXT PRIMARY KEY, solved INTEGER NOT NULL DEFAULT 0, by_koma INTEGER NOT NULL DEFAULT 0,
    best_moves INTEGER, best_optimal INTEGER, best_seconds REAL, updated REAL NOT NULL);
PRAGMA user_version = 1;
"""


def test_version_1_database_is_migrated_to_the_local_profile(tmp_path):
    path = tmp_path / "koma.db"
    db = sqlite3.connect(path)
    db.executescript(V1_SCHEMA)
    db.execute("INSERT INTO games VALUES ('8', '1 2 3/4 5 6/7 _ 8', ?, 'pk', 1, 12.5, 2, 0)", (json.dumps(["L", "R"]),))
    db.execute("INSERT INTO stats VALUES ('15', 3, 1, 40, 36, 80.0, 0)")
    db.commit()
    db.close()
    store = Store(path, player=LOCAL_PLAYER)
    assert not store.notices
    assert store.load_game("8") == SavedGame("1 2 3/4 5 6/7 _ 8", ["L", "R"], "pk", 1, 12.5, 2)
    stats = store.stats("15")
    assert (stats.solved, stats.by_koma, stats.best_moves, stats.best_optimal, stats.best_seconds) == (3, 1, 40, 36, 80.0)
    assert store.backend.query("PRAGMA user_version") == [(SCHEMA_VERSION,)]
    assert Store(path, player="user:alice").load_game("8") is None  # other players start afresh


def test_players_are_kept_apart(tmp_path, monkeypatch):
    monkeypatch.setenv("KOMA_PLAYER", "user:bob")
    monkeypatch.setenv("KOMA_PLAYER_NAME", "bob")
    bob = Store(tmp_path / "koma.db")
    assert (bob.player, bob.player_name) == ("user:bob", "bob")
    alice = Store(tmp_path / "koma.db", player="user:alice")
    bob.save_game("8", SavedGame("1 2 3/4 5 6/7 _ 8"))
    bob.record_win("8", 10, 8, 30.0)
    assert alice.load_game("8") is None and alice.stats("8").solved == 0
    assert bob.stats("8").solved == 1 and list(bob.games_in_progress()) == ["8"]


def test_daily_leaderboard_ranks_by_excess_then_moves_then_time(tmp_path):
    path = tmp_path / "koma.db"
    day = "2025-01-31"
    players = {name: Store(path, player=f"user:{name}") for name in ("ann", "ben", "cy", "dee")}
    for store in players.values():
        store.seen()  # each came (the app records it at every start): the board shows their names
    assert players["ann"].record_daily(day, "8", 22, 20, 90.0) == 1  # +2
    players["ben"].record_daily(day, "8", 20, 20, 120.0)  # optimal, slow
    players["cy"].record_daily(day, "8", 20, 20, 45.0)  # optimal, fast
    players["dee"].record_daily(day, "8", 30, None, 10.0)  # optimum unknown: last
    assert players["ann"].record_daily(day, "8", 24, 20, 5.0) == 3  # worse: the best result stays
    board = players["ann"].leaderboard(day, "8")
    assert [(r.name, r.moves, r.seconds) for r in board] == [("cy", 20, 45.0), ("ben", 20, 120.0), ("ann", 22, 90.0),
                                                             ("dee", 30, 10.0)]
    assert players["ann"].leaderboard("2025-02-01", "8") == []
    assert players["ann"].daily_result(day, "8").excess == 2


def _writer(path: str, player: str, rounds: int) -> None:
    store = Store(path, player=player)
    for k in range(rounds):
        store.save_game("8", SavedGame("1 2 3/4 5 6/7 _ 8", ["L"] * k, "p" * k, k, float(k)))
        store.record_win("8", 20 + k % 3, 20, float(k))
        store.record_daily("2025-01-31", "8", 20 + k % 3, 20, float(k))
    assert not store.notices, store.notices


def test_many_concurrent_writers_lose_nothing(tmp_path):
    path = str(tmp_path / "koma.db")
    Store(path)  # create it first: the writers then only write
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_writer, args=(path, f"user:p{n}" if n % 2 else "user:shared", 40))
               for n in range(6)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(120)
        assert worker.exitcode == 0
    shared = Store(path, player="user:shared")
    assert shared.stats("8").solved == 3 * 40  # three processes counted wins for one player, none lost
    for n in (1, 3, 5):
        store = Store(path, player=f"user:p{n}")
        assert store.stats("8").solved == 40 and store.load_game("8").position == 39
    assert len(shared.leaderboard("2025-01-31", "8", limit=None)) == 4


def test_daily_board_is_the_same_for_everyone_and_changes_daily():
    puzzle = get_puzzle("8")
    secret = daily_secret()
    assert daily_board(puzzle, "2025-01-31", secret) == daily_board(get_puzzle("8"), "2025-01-31", secret)
    assert daily_board(puzzle, "2025-01-31", secret) != daily_board(puzzle, "2025-02-01", secret)
    assert daily_seed("2025-01-31", "8", secret) != daily_seed("2025-01-31", "15", secret)
    assert puzzle.proof(daily_board(puzzle, "2025-01-31", secret)).solvable


def you(board: LeaderboardScreen) -> str:
    return str(board.query_one("#leaderboard-you").render())


async def test_daily_game_is_ranked_and_shown(tmp_path, monkeypatch):
    monkeypatch.setenv("KOMA_DAY", "2025-01-31")
    store = Store(tmp_path / "koma.db", player="user:zoe", name="zoe")
    yan = Store(tmp_path / "koma.db", player="user:yan", name="yan")
    yan.seen()
    yan.record_daily("2025-01-31", "8", 30, 20, 5.0)
    clock = [0.0]
    app = make_app(tmp_path, store=store, clock=lambda: clock[0])
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("d")
        await wait_for(pilot, lambda: isinstance(app.screen, LeaderboardScreen), what="the leaderboard")
        board = app.screen
        table = board.query_one(DataTable)  # the board is read off the UI thread: it fills in when the store answers
        await wait_for(pilot, lambda: table.row_count == 1 and "not solved yet" in you(board), what="the day's board")
        assert table.get_row_at(0)[1] == "yan" and "zoe" in you(board)
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, DailyPlayScreen), what="the daily game")
        screen = app.screen
        assert screen.start == daily_board(get_puzzle("8"), today(), daily_secret()) and screen.daily == "2025-01-31"
        await wait_warm(pilot)
        solution = search.solve(screen.puzzle, screen.state)
        for move in solution.moves:  # the player plays the optimal moves at a human pace (4 a second): ranked first
            assert screen.play(move)
            clock[0] += 0.25
        await wait_for(pilot, lambda: screen.won, what="the win")
        assert "Solved in" in screen.message  # told at once; the rank follows when the store has recorded the finish
        await wait_for(pilot, lambda: "rank [b]#1[/b]" in screen.message, what="the daily rank")
        await pilot.press("b")
        await wait_for(pilot, lambda: isinstance(app.screen, LeaderboardScreen), what="the leaderboard")
        board = app.screen
        await wait_for(pilot, lambda: board.query_one(DataTable).row_count == 2 and "#1 of 2" in you(board),
                       what="the board with the player's result")
        assert [board.query_one(DataTable).get_row_at(k)[1] for k in (0, 1)] == ["zoe (you)", "yan"]
        await pilot.press("right")
        assert board.game == "15"
        await wait_for(pilot, lambda: board.query_one(DataTable).row_count == 0, what="the 15-puzzle's empty board")
        await pilot.press("right_square_bracket")  # no days after today
        assert board.day == "2025-01-31"
        await pilot.press("left_square_bracket")
        assert board.day == "2025-01-30"
        await settled(pilot)
    store = Store(tmp_path / "koma.db", player="user:zoe")  # a later session sees what this one recorded
    assert store.stats("8").solved == 1 and store.load_game("daily/2025-01-31/8") is None


async def test_a_daily_game_no_hand_could_play_is_unverified_and_off_the_board(tmp_path, monkeypatch):
    """The probe's bot: the day's 8-puzzle solved optimally, every key in one write (here: on a clock that does not
    move, as in one read); its player is told why it is unverified, and the board others see leaves it out."""
    monkeypatch.setenv("KOMA_DAY", "2025-01-31")
    bot = Store(tmp_path / "koma.db", player="user:bot", name="bot")
    app = make_app(tmp_path, store=bot)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("d")
        await wait_for(pilot, lambda: isinstance(app.screen, LeaderboardScreen), what="the leaderboard")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, DailyPlayScreen), what="the daily game")
        screen = app.screen
        await wait_warm(pilot)
        for move in search.solve(screen.puzzle, screen.state).moves:
            assert screen.play(move)
        await wait_for(pilot, lambda: screen.won, what="the win")
        await wait_for(pilot, lambda: "unverified" in screen.message, what="the unverified result")
        assert "you rank" not in screen.message and "moves in 0 ms" in screen.message
        await pilot.press("b")
        await wait_for(pilot, lambda: isinstance(app.screen, LeaderboardScreen), what="the leaderboard")
        board = app.screen
        await wait_for(pilot, lambda: "unverified" in you(board), what="the player's own unverified result")
        assert board.query_one(DataTable).row_count == 0 and "not ranked" in you(board)
    yan = Store(tmp_path / "koma.db", player="user:yan", name="yan")
    assert yan.leaderboard("2025-01-31", "8") == [] and yan.daily_result("2025-01-31", "8") is None
    kept = bot.daily_result("2025-01-31", "8")
    assert kept is not None and kept.seconds == 0.0 and "moves in 0 ms" in (kept.unverified or "")
    assert bot.record_daily("2025-01-31", "8", kept.moves + 2, kept.optimal, 9.0) == 1  # a hand's game replaces it
    assert [r.name for r in yan.leaderboard("2025-01-31", "8")] == ["bot"]


async def test_auto_solved_daily_game_is_not_ranked(tmp_path, monkeypatch):
    monkeypatch.setenv("KOMA_DAY", "2025-01-31")
    store = Store(tmp_path / "koma.db", player="user:kim", name="kim")
    app = make_app(tmp_path, store=store)
    async with app.run_test(size=(100, 30)) as pilot:
        open_puzzle(app, get_puzzle("8"), daily="2025-01-31")
        await pilot.pause()
        screen = app.screen
        await wait_warm(pilot)
        await pilot.press("left" if "L" in screen.puzzle.moves(screen.state) else "right")
        await pilot.press("n")  # no new board on a daily
        assert "daily board" in screen.message
        await pilot.press("s")
        await wait_for(pilot, lambda: screen.won, what="Koma's finish")
        assert "Solved by Koma" in screen.message
        await settled(pilot)
    store = Store(tmp_path / "koma.db", player="user:kim")
    assert store.leaderboard("2025-01-31", "8") == [] and store.stats("8").by_koma == 1


async def test_a_daily_game_in_progress_resumes(tmp_path, monkeypatch):
    monkeypatch.setenv("KOMA_DAY", "2025-01-31")
    store = Store(tmp_path / "koma.db", player="user:lee")
    app = make_app(tmp_path, store=store)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = open_puzzle(app, get_puzzle("8"), daily="2025-01-31")
        await pilot.pause()
        await wait_for(pilot, lambda: not screen.held_game.awaiting_saved_game, what="the saved game's read")
        move = screen.puzzle.moves(screen.state)[0]
        assert screen.play(move)
        await settled(pilot)
    again = make_app(tmp_path, store=Store(tmp_path / "koma.db", player="user:lee"))
    async with again.run_test(size=(100, 30)) as pilot:
        screen = open_puzzle(again, get_puzzle("8"), daily="2025-01-31")
        await wait_for(pilot, lambda: not screen.held_game.awaiting_saved_game, what="the saved game's read")
        assert screen.history.moves == [move] and screen.position == 1
        assert isinstance(screen, PlayScreen)
    assert Store(tmp_path / "koma.db", player="user:lee").load_game("8") is None  # the puzzle's own game untouched


async def test_wrong_typed_results_do_not_stop_the_leaderboard(tmp_path, monkeypatch):
    monkeypatch.setenv("KOMA_DAY", "2025-01-31")
    path = database_with_bad_rows(tmp_path / "koma.db", SCHEMA_VERSION)  # optimal = 'x', seconds = 'slow'
    app = make_app(tmp_path, store=Store(path, player="user:zoe", name="zoe"))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("d")
        await wait_for(pilot, lambda: isinstance(app.screen, LeaderboardScreen), what="the leaderboard")
        board = app.screen
        table = board.query_one(DataTable)
        await wait_for(pilot, lambda: table.row_count == 1, what="the board's one good result")
        assert table.get_row_at(0)[1] == "user:c"

        def damaged() -> int:
            return sum("damaged row of results" in n.message for n in app._notifications)

        await wait_for(pilot, lambda: damaged() == 2, what="a notice per damaged row")
        await pilot.press("left_square_bracket")
        await wait_for(pilot, lambda: board.day == "2025-01-30" and table.row_count == 0, what="the day before")
        await pilot.press("right_square_bracket")  # read again: still one row, no new notice
        assert board.day == "2025-01-31"
        await wait_for(pilot, lambda: table.row_count == 1, what="the board read again")
        await settled(pilot)
        assert table.get_row_at(0)[1] == "user:c" and damaged() == 2
