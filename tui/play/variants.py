"""The play screen's variants: Ura-omote's keys, and the daily boards with their leaderboard key."""

from __future__ import annotations

from solver.puzzle import Puzzle
from tui.app_view import koma_app
from tui.game.session import Saver
from tui.play.keys import DAILY_BINDINGS, URA_BINDINGS
from tui.play.screen import PlayScreen


class UraPlayScreen(PlayScreen):
    """Ura-omote: A.. turn a row over, 1.. a column; arrows move the cursor, Enter/Space turn its lines."""

    BINDINGS = URA_BINDINGS


class DailyPlayScreen(PlayScreen):
    """A daily board: the same for every player that day; b shows the day's leaderboard."""

    BINDINGS = DAILY_BINDINGS

    def action_leaderboard(self) -> None:
        koma_app(self).action_leaderboard(self.stats_id, self.daily)


class DailyUraPlayScreen(UraPlayScreen):
    BINDINGS = DAILY_BINDINGS
    action_leaderboard = DailyPlayScreen.action_leaderboard


def play_screen_for(puzzle: Puzzle, saver: Saver, **options) -> PlayScreen:
    if options.get("daily"):
        return (DailyUraPlayScreen if puzzle.key == "ura" else DailyPlayScreen)(puzzle, saver, **options)
    return (UraPlayScreen if puzzle.key == "ura" else PlayScreen)(puzzle, saver, **options)
