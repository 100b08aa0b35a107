"""Daily puzzles and their leaderboards: one screen per puzzle and day, ranking the day's results.

Every player gets the same board of each daily puzzle on a given (UTC) day: the board comes from a
seed derived from the date and the puzzle id.  Results rank by moves over the optimum, then by moves,
then by time; games Koma finished are never ranked (see :meth:`tui.storage.store.Store.record_daily`).
"""

from __future__ import annotations

from rich.markup import escape
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import DataTable, Sparkline

from solver.puzzle import Puzzle
from tui.app_view import koma_app
from tui.ascii import Static, text_for
from tui.game.averages import seconds_text
from tui.game.daily import daily_key, daily_puzzles, puzzle_id, shift_day, today
from tui.game.formatting import clock_text
from tui.game.records import rank_key
from tui.game.speed_events import daily_event
from tui.game.trend import daily_trend, excess_series, trend_caption
from tui.patches.rendering import DirtyOnlyRendering
from tui.play.variants import open_puzzle
from tui.screens.replay import open_replay
from tui.storage.service import Answer
from tui.storage.store import SpeedStanding, Store
from tui.widgets.keybar import KeyBar
from tui.widgets.titlebar import TitleBar
from tui.workers import read_store

SPEED_BOARD_SHOWN = 3


def speed_board_text(standing: SpeedStanding, today_shown: bool) -> str:
    """The day's speed board in a line or two: the fastest first solves, and the player's place (or why their solve
    is unverified: it is then on no board)."""
    finished = [e for e in standing.top if not e.result.dnf]
    mine = standing.mine
    unverified = "" if mine is None or mine.unverified is None else (
        f" · you: {seconds_text(mine.result.time_ms)} unverified ({escape(mine.unverified)})")
    if not finished:
        return ("[b]Speed[/b]: no time yet" + (" · s solves this board against the clock" if today_shown else "")
                + unverified)
    top = " · ".join(f"{k}. {escape(e.name)} {seconds_text(e.result.time_ms)}"
                     for k, e in enumerate(finished[:SPEED_BOARD_SHOWN], 1))
    if unverified:
        return f"[b]Speed[/b] (first solves): {top}{unverified}"
    you = "" if mine is None else (" · you: DNF" if mine.result.dnf else f" · you #{standing.my_rank}")
    return f"[b]Speed[/b] (first solves): {top}{you}"


class LeaderboardScreen(DirtyOnlyRendering):
    """One daily puzzle on one day: the ranking, your result, and Enter to play today's board."""

    BINDINGS = [
        Binding("left,h", "puzzle(-1)", "", id="leaderboard.previous", group=Binding.Group("puzzle", compact=True),
                tooltip="The previous daily puzzle"),
        Binding("right,l", "puzzle(1)", "puzzle", id="leaderboard.next", group=Binding.Group("puzzle", compact=True),
                tooltip="The next daily puzzle"),
        Binding("left_square_bracket", "day(-1)", "", id="leaderboard.earlier", group=Binding.Group("day", compact=True),
                tooltip="The day before"),
        Binding("right_square_bracket", "day(1)", "day", id="leaderboard.later", group=Binding.Group("day", compact=True),
                tooltip="The day after (up to today)"),
        Binding("enter", "play", "play today", id="leaderboard.play", tooltip="Play today's board of this puzzle",
                priority=True),
        Binding("r", "replay", "replay", id="leaderboard.replay", tooltip="Replay the chosen entry's game move by move"),
        Binding("s", "speed", "speed", id="leaderboard.speed",
                tooltip="Solve today's board against the clock, for the daily speed board (sliding puzzles)"),
        Binding("escape", "back", "back", id="leaderboard.back", tooltip="Back"),
    ]

    def __init__(self, game: str | None = None, day: str | None = None):
        super().__init__(classes="leaderboard")
        self.puzzles = daily_puzzles()
        ids = [puzzle_id(p) for p in self.puzzles]
        self.index = ids.index(game) if game in ids else 0
        self.day = day or today()

    @property
    def puzzle(self) -> Puzzle:
        return self.puzzles[self.index]

    @property
    def game(self) -> str:
        return puzzle_id(self.puzzle)

    def compose(self) -> ComposeResult:
        yield TitleBar()
        with Vertical(id="leaderboard-body"):
            yield Static(id="leaderboard-title")
            yield Static(id="leaderboard-you")
            yield Static(id="leaderboard-speed")
            yield Static(id="leaderboard-trend-caption")
            yield Sparkline([], id="leaderboard-trend")
            yield DataTable(id="leaderboard-table", cursor_type="row", zebra_stripes=True)
            yield Static(id="leaderboard-hint")
        yield KeyBar()

    def on_mount(self) -> None:
        self.title = "Koma"
        self.sub_title = "daily puzzles"
        table = self.query_one(DataTable)
        table.add_columns("#", "player", "moves", "optimal", "over", "time", "hints")
        self.refresh_board()

    def on_screen_resume(self) -> None:
        self.refresh_board()

    def refresh_board(self) -> None:
        """Read the day's ranking, the player's game and trend off the UI thread; draw them when they come."""
        names = "  ".join(f"[b]{p.title} {p.size_label}[/b]" if k == self.index else f"[dim]{p.title}[/dim]"
                          for k, p in enumerate(self.puzzles))
        when = "today" if self.day == today() else self.day
        self.query_one("#leaderboard-title", Static).update(f"Daily puzzle · {when} ({self.day})\n{names}")
        self.query_one("#leaderboard-hint", Static).update(
            "[dim]ranked by moves over optimal, then moves, then time · left/right puzzle · \\[ ] day · "
            "r replay · enter play today · s speed · esc back[/dim]")
        day, game = self.day, self.game

        size = self.puzzle.size_label if self.puzzle.key in ("8", "15") else None

        def read(store: Store) -> tuple:
            saved = store.load_game(daily_key(day, game)) if day == today() else None
            speed = store.speed_standing(daily_event(day).key, size, SPEED_BOARD_SHOWN) if size else None
            return store.daily_board(day, game), saved, daily_trend(store, game, day), speed

        read_store(self, read, lambda answer: self._show_board(day, game, answer))

    def _show_board(self, day: str, game: str, answer: Answer) -> None:
        if (day, game) != (self.day, self.game):
            return  # the player moved on meanwhile
        app = koma_app(self)
        table = self.query_one(DataTable)
        table.clear()
        if not answer.known:
            self.query_one("#leaderboard-you", Static).update(
                "[dim]The leaderboard cannot be read now (the database is away); it will be back.[/dim]")
            return
        board, saved, trend, speed = answer.value
        speed_line = self.query_one("#leaderboard-speed", Static)
        speed_line.display = speed is not None
        if speed is not None:
            speed_line.update(speed_board_text(speed, day == today()))
        for rank, result in enumerate(board.top, 1):
            is_you = result.player == app.player
            name = text_for(self, result.name) + (" (you)" if is_you else "")
            table.add_row(str(rank), name, str(result.moves), "?" if result.optimal is None else str(result.optimal),
                          "?" if result.excess is None else f"+{result.excess}", clock_text(result.seconds),
                          str(result.hints), key=result.player)
        own = board.mine
        if own is not None and own.unverified is not None:
            you = (f"You ([b]{app.player_name}[/b]): {own.moves} moves in {clock_text(own.seconds)}, [b]unverified[/b]: "
                   f"{escape(own.unverified)} (not ranked).")
        elif own is not None:
            you = (f"You ([b]{app.player_name}[/b]): #{board.my_rank} of {board.total}, {own.moves} moves in "
                   f"{clock_text(own.seconds)}.")
        elif day == today():
            started = f" (in progress: {saved.position} moves)" if saved is not None and saved.position else ""
            you = f"You ([b]{app.player_name}[/b]): not solved yet{started}. Enter plays today's board."
        else:
            you = f"You ([b]{app.player_name}[/b]): no result that day."
        if not board.total:
            you += "\n[dim]No ranked results yet: be the first. (Games Koma finished are not ranked.)[/dim]"
        self.query_one("#leaderboard-you", Static).update(you)
        self.query_one("#leaderboard-trend-caption", Static).update(f"[dim]{trend_caption(trend)}[/dim]")
        sparkline = self.query_one("#leaderboard-trend", Sparkline)
        sparkline.data = excess_series(trend)
        sparkline.display = bool(sparkline.data)

    def action_puzzle(self, delta: int) -> None:
        self.index = (self.index + delta) % len(self.puzzles)
        self.refresh_board()

    def action_day(self, delta: int) -> None:
        day = shift_day(self.day, delta)
        if day > today():
            self.app.bell()
            return
        self.day = day
        self.refresh_board()

    def action_speed(self) -> None:
        if self.puzzle.key not in ("8", "15"):
            self.app.bell()
            return
        from tui.screens.speed import SpeedScreen

        self.app.push_screen(SpeedScreen((self.puzzle.width, self.puzzle.height), ascii_only=koma_app(self).ascii_only,
                                         daily=today()))

    def action_play(self) -> None:
        open_puzzle(self, self.puzzle, daily=today(), leaderboard=LeaderboardScreen)

    def action_replay(self) -> None:
        """Replay the chosen entry's ranked game (its best that day); a notice if none was kept."""
        table = self.query_one(DataTable)
        if not table.row_count:
            self.app.bell()
            return
        player = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        key = daily_key(self.day, self.game)
        read_store(self, lambda store: store.replays(player, key), self._replay_read)

    def _replay_read(self, answer: Answer) -> None:
        if not answer.known:
            self.notify("The replay cannot be read now (the database is away).", title="Replay")
            return
        kept = [r for r in answer.value if not r.by_koma]
        if not kept:
            self.notify("That game was finished before Koma kept replays.", title="Replay")
            return
        open_replay(self, min(kept, key=lambda r: rank_key(len(r.moves), r.optimal, r.seconds)))

    def action_back(self) -> None:
        self.app.pop_screen()
