"""Replays: a finished game is kept move by move and replayed from your stats and from the leaderboard (Pilot)."""

from __future__ import annotations

from textual.widgets import DataTable, Sparkline
from tui_helpers import make_app, wait_for, wait_warm

from solver.registry import get_puzzle
from tui.game.records import Replay
from tui.screens.leaderboard import LeaderboardScreen
from tui.screens.replay import ReplayScreen, open_replay
from tui.screens.stats import StatsScreen
from tui.storage.store import Store

NEAR_GOAL = "1 2 3/4 5 6/_ 7 8"  # two moves (L L) from solved


async def play_to_goal(pilot, screen) -> None:
    await wait_warm(pilot)  # the start's optimal length is known
    for move in ("L", "L"):
        assert screen.play(move)
        await pilot.pause()
    await wait_for(pilot, lambda: screen.won, what="the win")


async def test_a_finished_game_is_replayed_from_your_stats(tmp_path):
    store = Store(tmp_path / "koma.db", player="user:ann", name="ann")
    store.record_replay(Replay("8", "1 2 3/4 5 6/7 _ 8", ["L"], "k", 1.0, 1, by_koma=True, finished=1.0))
    app = make_app(tmp_path, "8", NEAR_GOAL, store=store)
    async with app.run_test(size=(100, 30)) as pilot:
        await play_to_goal(pilot, app.screen)
        await pilot.press("escape")
        await pilot.press("v")
        await wait_for(pilot, lambda: isinstance(app.screen, StatsScreen), what="your stats")
        table = app.screen.query_one(DataTable)
        assert table.row_count == 2
        newest, oldest = table.get_row_at(0), table.get_row_at(1)
        assert newest[2:] == ["2", "2", "+0", newest[5], "you"] and oldest[-1] == "Koma"  # Koma's game is marked
        assert app.screen.query_one(Sparkline).data == [0]  # the trend leaves Koma's game out
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ReplayScreen), what="the replay")
        replay = app.screen
        puzzle = get_puzzle("8")
        assert replay.replay.moves == ["L", "L"] and replay.replay.origins == "pp"
        for _ in range(3):  # pause (on a loaded box the short replay may end first: space then plays it again)
            await pilot.press("space")
            if replay.playback.paused:
                break
        assert replay.playback.paused
        for _ in range(replay.position):  # [ steps the paused replay back to the start
            await pilot.press("left_square_bracket")
        board_before = replay.position
        await pilot.press("right_square_bracket")
        assert replay.position == board_before + 1
        assert replay.path[replay.position] == puzzle.replay(puzzle.parse(NEAR_GOAL), ["L", "L"][:replay.position])[-1]
        await pilot.press("left_square_bracket")
        assert replay.position == board_before
        await pilot.press("space", "plus", "plus", "plus")  # play on, faster
        await wait_for(pilot, lambda: replay.position == 2 and not replay.playback.active, what="the end of the replay")
        assert puzzle.is_goal(replay.path[replay.position])
        assert "The end" in str(replay.query_one("#replay-state").render())


async def test_a_leaderboard_entry_is_replayed_and_a_koma_finish_is_marked(tmp_path, monkeypatch):
    monkeypatch.setenv("KOMA_DAY", "2025-01-31")
    path = tmp_path / "koma.db"
    other = Store(path, player="user:yan", name="yan")
    other.record_daily("2025-01-31", "8", 3, 1, 5.0)
    other.record_replay(Replay("daily/2025-01-31/8", "1 2 3/4 5 6/7 _ 8", ["R", "L", "L"], "phk", 5.0, 1))
    other.record_replay(Replay("daily/2025-01-31/8", "1 2 3/4 5 6/7 _ 8", ["L"], "k", 1.0, 1, by_koma=True))
    app = make_app(tmp_path, store=Store(path, player="user:zoe", name="zoe"))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("d")
        await wait_for(pilot, lambda: isinstance(app.screen, LeaderboardScreen), what="the leaderboard")
        await pilot.press("r")
        await wait_for(pilot, lambda: isinstance(app.screen, ReplayScreen), what="the replay")
        replay = app.screen
        assert replay.replay.moves == ["R", "L", "L"]  # the ranked game, not Koma's
        assert "yan" in str(replay.query_one("#replay-who").render())
        await wait_for(pilot, lambda: replay.position >= 1, timeout=20, what="a move")  # it plays at once
        for _ in range(3):  # pause (on a loaded box it may end first: space then plays it again)
            await pilot.press("space")
            if replay.playback.paused:
                break
        assert replay.playback.paused
        await pilot.press("space")
        await wait_for(pilot, lambda: replay.position == 3, timeout=20, what="the last move")
        assert "(Koma)" in str(replay.query_one("#replay-counters").render())  # who played the last move
        await pilot.press("escape")
        assert isinstance(app.screen, LeaderboardScreen)
    koma = Replay("8", "1 2 3/4 5 6/7 _ 8", ["L"], "k", 1.0, 1, by_koma=True, name="yan")
    app = make_app(tmp_path, store=Store(path, player="user:zoe", name="zoe"))
    async with app.run_test(size=(100, 30)) as pilot:
        open_replay(app, koma)
        await wait_for(pilot, lambda: isinstance(app.screen, ReplayScreen), what="the replay")
        await pilot.pause()
        assert "finished by Koma" in str(app.screen.query_one("#replay-who").render())


async def test_a_stored_game_that_does_not_fit_its_puzzle_is_refused_with_a_notice(tmp_path):
    app = make_app(tmp_path, store=Store(tmp_path / "koma.db", player="user:zoe", name="zoe"))
    async with app.run_test(size=(100, 30)) as pilot:
        open_replay(app, Replay("8", "1 2 3/4 5 6/7 _ 8", ["U", "U", "U"], "ppp", 1.0))  # off the board
        open_replay(app, Replay("chess", "whatever", [], "", 1.0))  # no such puzzle
        await pilot.pause()
        assert not isinstance(app.screen, ReplayScreen)
        notices = [n.message for n in app._notifications]
        assert len(notices) == 2 and all(n.startswith("This game cannot be replayed") and "\n" not in n for n in notices)
