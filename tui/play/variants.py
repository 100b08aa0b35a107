"""The play screen's variants (Ura-omote's keys, the daily boards with their leaderboard key), and how a screen
opens one: :func:`open_puzzle`."""

from __future__ import annotations

from collections.abc import Callable

from textual.message_pump import MessagePump
from textual.screen import Screen

from solver.puzzle import Puzzle
from tui.app_view import koma_app
from tui.config.daily_secret import daily_secret
from tui.game.daily import daily_board
from tui.game.session import Saver
from tui.play.keys import DAILY_BINDINGS, URA_BINDINGS
from tui.play.screen import PlayScreen

# The screen a daily board's leaderboard key opens, made from the board's game and day (the leaderboard screen
# that opened the daily board gives its own class: the play screens never import the screens above them)
LeaderboardOpener = Callable[[str, str], Screen]


class UraPlayScreen(PlayScreen):
    """Ura-omote: A.. turn a row over, 1.. a column; arrows move the cursor, Enter/Space turn its lines."""

    BINDINGS = URA_BINDINGS


class DailyPlayScreen(PlayScreen):
    """A daily board: the same for every player that day; b shows the day's leaderboard (when one was given)."""

    BINDINGS = DAILY_BINDINGS

    def __init__(self, puzzle: Puzzle, saver: Saver, *, leaderboard: LeaderboardOpener | None = None, **options):
        super().__init__(puzzle, saver, **options)
        self.leaderboard = leaderboard

    def action_leaderboard(self) -> None:
        if self.leaderboard is None or self.daily is None:
            self.app.bell()
            return
        self.app.push_screen(self.leaderboard(self.stats_id, self.daily))


class DailyUraPlayScreen(DailyPlayScreen, UraPlayScreen):
    """Ura-omote on a daily board (its keys: the play screen's, Ura-omote's, then the daily board's)."""


def play_screen_for(puzzle: Puzzle, saver: Saver, **options) -> PlayScreen:
    if options.get("daily"):
        return (DailyUraPlayScreen if puzzle.key == "ura" else DailyPlayScreen)(puzzle, saver, **options)
    options.pop("leaderboard", None)
    return (UraPlayScreen if puzzle.key == "ura" else PlayScreen)(puzzle, saver, **options)


def open_puzzle(node: MessagePump, puzzle: Puzzle, start: tuple | None = None, *, daily: str | None = None,
                solve: bool = False, leaderboard: LeaderboardOpener | None = None) -> PlayScreen:
    """Open ``puzzle``'s play screen over ``node``'s screen: a given board, else the saved game (the screen reads
    it), else a random board.  With ``daily`` (a day), the day's board of the puzzle, or the player's game on it in
    progress (``leaderboard`` opens its leaderboard).  With ``solve``, Koma starts solving it at once."""
    app = koma_app(node)
    if daily:
        start = daily_board(puzzle, daily, daily_secret())
    screen = play_screen_for(puzzle, app.storage, start=start, ascii_only=app.ascii_only, daily=daily, solve=solve,
                             leaderboard=leaderboard)
    node.app.push_screen(screen)
    return screen
