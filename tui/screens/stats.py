"""Your stats: your finished games per puzzle, the trend of moves over optimal, and a replay of any of them.

The games come from the store's replays (:meth:`~tui.storage.store.Store.replays`), so every row can be
replayed move by move (enter or r).  Games Koma finished are listed, marked, and left out of the trend.
"""

from __future__ import annotations

import time

from rich.markup import escape
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import DataTable, Sparkline

from tui.app_view import koma_app
from tui.ascii import Static
from tui.game.formatting import clock_text
from tui.game.records import Replay, Stats
from tui.game.trend import personal_caption, personal_series
from tui.game.writes import SetWatchable
from tui.patches.rendering import DirtyOnlyRendering
from tui.screens.replay import open_replay
from tui.storage.service import Answer
from tui.storage.store import Store
from tui.widgets.keybar import KeyBar
from tui.widgets.titlebar import TitleBar
from tui.workers import read_store


def finished_text(when: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.gmtime(when))


class StatsScreen(DirtyOnlyRendering):
    """One puzzle at a time (left/right): the player's stats line, trend line and finished games."""

    BINDINGS = [
        Binding("left,h", "puzzle(-1)", "", id="stats.previous", group=Binding.Group("puzzle", compact=True),
                tooltip="The previous puzzle"),
        Binding("right,l", "puzzle(1)", "puzzle", id="stats.next", group=Binding.Group("puzzle", compact=True),
                tooltip="The next puzzle"),
        Binding("enter,r", "replay", "replay", id="stats.replay", tooltip="Replay the chosen game move by move",
                priority=True),
        Binding("w", "watchable", "let others watch", id="stats.watchable",
                tooltip="Your profile: whether others may watch your games live (Watch, w on the home screen)"),
        Binding("escape", "back", "back", id="stats.back", tooltip="Back"),
    ]

    def __init__(self) -> None:
        super().__init__(classes="stats")
        self.replays: list[Replay] = []
        self.stats: dict[str, Stats] = {}
        self.watching = True
        self.puzzles: list[str] = []
        self.index = 0

    @property
    def puzzle(self) -> str | None:
        return self.puzzles[self.index] if self.puzzles else None

    def compose(self) -> ComposeResult:
        yield TitleBar()
        with Vertical(id="stats-body"):
            yield Static(id="stats-title")
            yield Static(id="stats-trend-caption")
            yield Sparkline([], id="stats-trend")
            yield DataTable(id="stats-table", cursor_type="row", zebra_stripes=True)
            yield Static("[dim]left/right puzzle · enter or r replay · w let others watch you or not · esc back[/dim]",
                         id="stats-hint")
        yield KeyBar()

    def on_mount(self) -> None:
        self.title = "Koma"
        self.sub_title = "your stats"
        self.query_one(DataTable).add_columns("finished (UTC)", "game", "moves", "optimal", "over", "time", "by")
        self.load()

    def on_screen_resume(self) -> None:
        self.load()

    def load(self) -> None:
        """Read the player's finished games again (a game may have ended since), off the UI thread, with the
        stats of every puzzle played and the watching setting; then show the puzzle chosen."""
        def read(store: Store) -> tuple:
            replays = store.replays()
            puzzles = {r.puzzle for r in replays}
            return replays, {p: store.stats(p) for p in puzzles}, store.watchable()

        read_store(self, read, self._loaded)

    def _loaded(self, answer: Answer) -> None:
        if not answer.known:
            self.query_one("#stats-title", Static).update(
                "Your stats cannot be read now (the database is away); they are safe and will be back.")
            return
        self.replays, self.stats, self.watching = answer.value
        chosen = self.puzzle
        self.puzzles = sorted({r.puzzle for r in self.replays}, key=lambda p: (len(p), p))
        self.index = self.puzzles.index(chosen) if chosen in self.puzzles else 0
        self.show_puzzle()

    def show_puzzle(self) -> None:
        app = koma_app(self)
        names = "  ".join(f"[b]{escape(p)}[/b]" if k == self.index else f"[dim]{escape(p)}[/dim]"
                          for k, p in enumerate(self.puzzles))
        watching = "others may watch your games live" if self.watching else "nobody may watch your games"
        self.query_one("#stats-title", Static).update(
            f"Your stats ([b]{escape(app.player_name)}[/b]) · {watching} (w)\n{names or 'No finished game yet: play one!'}")
        games = [r for r in self.replays if r.puzzle == self.puzzle]
        caption = personal_caption(games) if self.puzzle is not None else ""
        if self.puzzle is not None:
            stats = self.stats.get(self.puzzle) or Stats()
            best = f" · best time {clock_text(stats.best_seconds)}" if stats.best_seconds is not None else ""
            caption = f"solved {stats.solved}{best}\n{caption}"
        self.query_one("#stats-trend-caption", Static).update(f"[dim]{caption}[/dim]")
        sparkline = self.query_one("#stats-trend", Sparkline)
        sparkline.data = personal_series(games)
        sparkline.display = bool(sparkline.data)
        table = self.query_one(DataTable)
        table.clear()
        for number, replay in reversed(list(enumerate(self.replays))):  # newest first
            if replay.puzzle != self.puzzle:
                continue
            table.add_row(finished_text(replay.finished), replay.game, str(len(replay.moves)),
                          "?" if replay.optimal is None else str(replay.optimal),
                          "?" if replay.excess is None else f"+{replay.excess}", clock_text(replay.seconds),
                          "Koma" if replay.by_koma else "you", key=str(number))

    def action_watchable(self) -> None:
        """Let others watch or not: the setting is written through the outbox (it holds even while the database
        is away), and shown at once."""
        self.watching = not self.watching
        koma_app(self).storage.write(SetWatchable(self.watching))
        self.show_puzzle()

    def action_puzzle(self, delta: int) -> None:
        if not self.puzzles:
            self.app.bell()
            return
        self.index = (self.index + delta) % len(self.puzzles)
        self.show_puzzle()

    def chosen(self) -> Replay | None:
        table = self.query_one(DataTable)
        if not table.row_count:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return self.replays[int(key)] if key is not None else None

    def action_replay(self) -> None:
        replay = self.chosen()
        if replay is None:
            self.app.bell()
            return
        open_replay(self, replay)

    def action_back(self) -> None:
        self.app.pop_screen()
