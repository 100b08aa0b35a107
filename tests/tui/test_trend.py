"""Personal bests over time: the player's daily results as a trend line on the leaderboard screen."""

from __future__ import annotations

from textual.widgets import Sparkline
from tui_helpers import make_app, wait_for

from tui.game.trend import daily_trend, excess_series, trend_caption
from tui.screens.leaderboard import LeaderboardScreen
from tui.storage.store import Store

DAY = "2025-03-10"


def stores(tmp_path):
    path = tmp_path / "koma.db"
    return Store(path, player="user:ann", name="ann"), Store(path, player="user:ben", name="ben")


def test_the_trend_is_the_players_own_results_in_the_window_oldest_first(tmp_path):
    ann, ben = stores(tmp_path)
    ann.record_daily("2025-01-01", "8", 40, 20, 9.0)  # outside the 30 days
    ann.record_daily("2025-03-01", "8", 26, 22, 50.0)
    ann.record_daily("2025-03-01", "8", 24, 22, 70.0)  # a better result that day replaces the first
    ann.record_daily("2025-03-05", "8", 21, 20, 40.0)
    ann.record_daily("2025-03-07", "15", 50, 40, 80.0)  # another puzzle
    ann.record_daily(DAY, "8", 18, 18, 30.0)
    ben.record_daily("2025-03-06", "8", 30, 20, 10.0)  # another player
    trend = daily_trend(ann, "8", DAY)
    assert [day for day, _ in trend] == ["2025-03-01", "2025-03-05", DAY]
    assert excess_series(trend) == [2, 1, 0]
    assert trend_caption(trend) == ("Your last 30 days: 3 ranked · best +0 · latest +0 (moves over optimal, oldest first)")
    assert daily_trend(ann, "8", "2025-03-04") == trend[:1]  # the window ends on the day shown
    assert trend_caption([]) == "Your last 30 days: no ranked result yet."


async def test_the_leaderboard_draws_the_trend_line(tmp_path, monkeypatch):
    monkeypatch.setenv("KOMA_DAY", DAY)
    ann, ben = stores(tmp_path)
    for day, moves in (("2025-03-02", 25), ("2025-03-04", 23), (DAY, 21)):
        ann.record_daily(day, "8", moves, 20, 60.0)
    ben.record_daily(DAY, "8", 20, 20, 60.0)
    app = make_app(tmp_path, store=ann)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("d")
        await wait_for(pilot, lambda: isinstance(app.screen, LeaderboardScreen), what="the leaderboard")
        board = app.screen
        trend = board.query_one("#leaderboard-trend", Sparkline)
        assert list(trend.data) == [5, 3, 1] and trend.display
        assert "3 ranked · best +1 · latest +1" in str(board.query_one("#leaderboard-trend-caption").render())
        await pilot.press("right")  # the 15-puzzle: no results
        assert board.game == "15" and list(trend.data) == [] and not trend.display
        assert "no ranked result yet" in str(board.query_one("#leaderboard-trend-caption").render())
        await pilot.press("left", "left_square_bracket", "left_square_bracket")  # back to the 8-puzzle, two days earlier
        assert board.day == "2025-03-08" and list(trend.data) == [5, 3]


def test_an_unverified_daily_result_is_not_on_the_trend(tmp_path):
    """A result no hand could have set (tui.game.plausibility) is kept, but the trend line shows ranked results only."""

    bot = Store(tmp_path / "koma.db", player="user:bot")
    bot.record_daily("2025-03-06", "8", 22, 22, 0.01)  # 22 moves in 10 ms
    bot.record_daily("2025-03-07", "8", 24, 22, 20.0)
    assert bot.daily_result("2025-03-06", "8").unverified is not None
    assert [day for day, _ in daily_trend(bot, "8", "2025-03-07")] == ["2025-03-07"]
