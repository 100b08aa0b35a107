"""Watch: the games being played right now (on every replica that shares the store), and one of them live.

Both screens poll the store while they are shown, and only then (see :mod:`tui.game.live`): the list
every second, the game watched every :data:`~tui.game.live.POLL_SECONDS`, so the board follows each move
within a second.  Watching is read-only: the watcher's keys go to this screen, which has no key that plays,
and the only thing it writes is its own heartbeat in the ``watchers`` table (the player's count).
"""

from __future__ import annotations

import time
import uuid

from rich.markup import escape
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.timer import Timer
from textual.widgets import DataTable

from solver.errors import KomaError
from solver.puzzle import Puzzle
from tui.app_view import koma_app
from tui.ascii import Static
from tui.game.daily import puzzle_for_id
from tui.game.formatting import clock_text, plural
from tui.game.live import HEARTBEAT_SECONDS, POLL_SECONDS, LiveGame
from tui.patches.rendering import DirtyOnlyRendering
from tui.screens.race_watch import RaceWatchScreen
from tui.storage.service import Answer
from tui.storage.store import Store
from tui.widgets.board import Board
from tui.widgets.keybar import KeyBar
from tui.widgets.looks import look_for
from tui.widgets.titlebar import TitleBar
from tui.workers import read_store

LIST_SECONDS = 1.0  # how often the list of live games is read again


def game_label(game: LiveGame) -> str:
    """The game as the list names it: the puzzle id, and the day of a daily board."""
    parts = game.game.split("/")
    return f"{parts[-1]} (daily {parts[1]})" if len(parts) == 3 else game.game


class WatchScreen(DirtyOnlyRendering):
    """The live games: player, puzzle, moves, time and watchers; enter watches the chosen one."""

    BINDINGS = [
        Binding("enter", "watch", "watch", id="watch.watch", tooltip="Watch the chosen game live", priority=True),
        Binding("x", "races", "races", id="watch.races", tooltip="The races on now, to watch one (every racer's board)"),
        Binding("escape", "back", "back", id="watch.back", tooltip="Back"),
    ]

    def __init__(self) -> None:
        super().__init__(classes="watch")
        self.games: list[LiveGame] = []
        self.timer: Timer | None = None

    def compose(self) -> ComposeResult:
        yield TitleBar()
        with Vertical(id="watch-body"):
            yield Static(id="watch-title")
            yield DataTable(id="watch-table", cursor_type="row", zebra_stripes=True)
            yield Static("[dim]enter watch live · x the races on now · esc back · your profile (v) says whether others "
                         "may watch you[/dim]",
                         id="watch-hint")
        yield KeyBar()

    def on_mount(self) -> None:
        self.title = "Koma"
        self.sub_title = "watch"
        self.query_one(DataTable).add_columns("player", "game", "moves", "time", "watching")
        self.refresh_list()
        self.timer = self.set_interval(LIST_SECONDS, self.refresh_list)

    def on_screen_suspend(self) -> None:
        if self.timer is not None:
            self.timer.pause()  # a hidden screen does no work

    def on_screen_resume(self) -> None:
        self.refresh_list()
        if self.timer is not None:
            self.timer.resume()

    def refresh_list(self) -> None:
        read_store(self, lambda store: store.live_games(), self._show_list)

    def _show_list(self, answer: Answer) -> None:
        if not answer.known:
            self.query_one("#watch-title", Static).update("[b]Watch[/b] · the live games cannot be read now (the "
                                                          "database is away)")
            return
        self.games = answer.value
        table = self.query_one(DataTable)
        chosen = self.chosen()
        table.clear()
        for game in self.games:
            you = " (you)" if game.player == koma_app(self).player else ""
            table.add_row(f"{game.name}{you}", game_label(game), str(game.saved.position), clock_text(game.saved.seconds),
                          str(game.watchers), key=f"{game.player}\n{game.game}")
        if chosen is not None and chosen in self.games:
            table.move_cursor(row=self.games.index(chosen), animate=False)
        count = f"{plural(len(self.games), 'game')} being played now" if self.games else "No game is being played right now."
        self.query_one("#watch-title", Static).update(f"[b]Watch[/b] · {count}")

    def chosen(self) -> LiveGame | None:
        table = self.query_one(DataTable)
        if not table.row_count or not self.games:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return next((g for g in self.games if f"{g.player}\n{g.game}" == key), None)

    def action_watch(self) -> None:
        game = self.chosen()
        if game is None:
            self.app.bell()
            return
        try:
            puzzle = puzzle_for_id(game.puzzle)
        except KomaError as problem:
            self.notify(str(problem), title="Watch", severity="warning")
            return
        self.app.push_screen(SpectateScreen(puzzle, game, ascii_only=koma_app(self).ascii_only))

    def action_races(self) -> None:
        self.app.push_screen(RaceWatchScreen(ascii_only=koma_app(self).ascii_only))

    def action_back(self) -> None:
        self.app.pop_screen()


class SpectateScreen(DirtyOnlyRendering):
    """One game followed live and read-only: the board, the player's moves and time, the watchers."""

    BINDINGS = [Binding("escape", "back", "back", id="spectate.back", tooltip="Stop watching")]

    def __init__(self, puzzle: Puzzle, game: LiveGame, ascii_only: bool = False):
        super().__init__(classes=f"spectate -{puzzle.key}")
        self.puzzle, self.game = puzzle, game
        self.look = look_for(puzzle, ascii_only)
        self.watcher = uuid.uuid4().hex  # this watching session, in the watchers table
        self.shown: tuple[str, tuple[str, ...], int] | None = None  # what the board shows: start, moves, position
        self.ended = False
        self.timer: Timer | None = None
        self.last_beat = 0.0

    def compose(self) -> ComposeResult:
        yield TitleBar()
        with Horizontal(id="play-body"):
            yield Board(self.look, self.puzzle.parse(self.game.saved.start), id="board")
            with Vertical(id="side"):
                yield Static(f"[b]Watching · {self.puzzle.title}[/b]  {self.puzzle.size_label}", id="title")
                yield Static(f"{escape(self.game.name)} · {escape(game_label(self.game))}", id="spectate-who")
                yield Static(id="spectate-counters")
                yield Static("[dim]read-only: your keys never reach the player · esc stop watching[/dim]", id="spectate-state")
        yield KeyBar()

    def on_mount(self) -> None:
        self.title = "Koma"
        self.sub_title = f"watching {self.game.name}"
        self.follow(self.game)
        self.poll()
        self.timer = self.set_interval(POLL_SECONDS, self.poll)

    def on_screen_suspend(self) -> None:
        if self.timer is not None:
            self.timer.pause()
        self.unwatch()

    def unwatch(self) -> None:
        watcher = self.watcher
        read_store(self.app, lambda store: store.unwatch(watcher), lambda answer: None)

    def on_screen_resume(self) -> None:
        if self.timer is not None and not self.ended:
            self.timer.resume()

    def on_unmount(self) -> None:
        if self.timer is not None:
            self.timer.stop()
        self.unwatch()

    def poll(self) -> None:
        """Read the game again (a cheap query, off the UI thread) and show any change; beat this watcher's
        heartbeat now and then."""
        now = time.monotonic()
        beat = now - self.last_beat >= HEARTBEAT_SECONDS
        if beat:
            self.last_beat = now
        watcher, player, game = self.watcher, self.game.player, self.game.game

        def read(store: Store) -> LiveGame | None:
            if beat:
                store.watch(watcher, player, game)
            return store.live_game(player, game)

        read_store(self, read, self._polled)

    def _polled(self, answer: Answer) -> None:
        if self.ended or not answer.known:
            return  # the database is away: keep the board shown, try again at the next poll
        if answer.value is None:
            self.end()
        else:
            self.follow(answer.value)

    def follow(self, game: LiveGame) -> None:
        """Show ``game`` as last saved: the board (only if it changed), the moves, the time and the watchers."""
        self.game = game
        saved = game.saved
        key = (saved.start, tuple(saved.moves), saved.position)
        if key != self.shown:
            try:
                state = self.puzzle.replay(self.puzzle.parse(saved.start), saved.moves[:saved.position])[-1]
            except (KomaError, ValueError):
                return  # a save that does not fit the puzzle: keep the board shown
            self.query_one(Board).show(state, animate=self.shown is not None and self.shown[0] == saved.start)
            self.shown = key
        watching = f"   {plural(game.watchers, 'watcher')}" if game.watchers else ""
        self.query_one("#spectate-counters", Static).update(
            f"Moves [b]{saved.position}[/b]   Time [b]{clock_text(saved.seconds)}[/b]{watching}")

    def end(self) -> None:
        self.ended = True
        if self.timer is not None:
            self.timer.stop()
        self.unwatch()
        self.query_one("#spectate-state", Static).update(
            "The game is over, or no longer shown to watchers.\n[dim]esc back to the list[/dim]")

    def action_back(self) -> None:
        self.app.pop_screen()
