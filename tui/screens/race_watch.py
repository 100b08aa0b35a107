"""Watching races: the races on now (on every replica that shares the store), and one of them followed live, every
racer's board, with a race link of its own as a watcher (a player who is no racer: the link only reads)."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.timer import Timer
from textual.widgets import DataTable

from tui.app_view import koma_app
from tui.ascii import Static
from tui.game.race_rules import RacePhase, Room
from tui.messages import RaceTrouble, RoomChanged, RoomMoved
from tui.patches.rendering import DirtyOnlyRendering
from tui.screens.race_replay import RaceReplayScreen
from tui.screens.race_views import (
    Bounded,
    ClockTicks,
    PanelLines,
    RaceBoards,
    RoomNews,
    minis_of,
    newer,
    order_text,
    results_text,
    running_text,
)
from tui.storage.race_link import RaceLink
from tui.storage.service import Answer
from tui.widgets.keybar import KeyBar
from tui.widgets.race_minis import RaceMinis
from tui.widgets.status import shown_id
from tui.widgets.titlebar import TitleBar
from tui.workers import read_store

LIST_SECONDS = 1.0  # the list of races is read again this often


class RaceWatchScreen(DirtyOnlyRendering):
    """The races on now: size, room, phase, racers; enter watches the chosen one (every racer's board)."""

    BINDINGS = [
        Binding("enter", "watch", "watch", id="race_watch.watch", tooltip="Watch the chosen race", priority=True),
        Binding("escape", "back", "back", id="race_watch.back", tooltip="Back"),
    ]

    def __init__(self, *, ascii_only: bool = False) -> None:
        super().__init__(classes="race-watch")
        self.ascii_only = ascii_only
        self.rooms: list[Room] = []
        self.timer: Timer | None = None

    def compose(self) -> ComposeResult:
        yield TitleBar()
        with Vertical(id="race-watch-body"):
            yield Static("[b]Races on now[/b]", id="race-watch-title")
            yield DataTable(id="race-watch-table", cursor_type="row", zebra_stripes=True)
            yield Static("[dim]enter watch · esc back[/dim]", id="race-watch-hint")
        yield KeyBar()

    def on_mount(self) -> None:
        self.title = "Koma"
        self.sub_title = "races on now"
        self.query_one(DataTable).add_columns("size", "room", "phase", "racers", "leader")
        self.refresh_list()
        self.timer = self.set_interval(LIST_SECONDS, self.refresh_list)

    def on_screen_suspend(self) -> None:
        if self.timer is not None:
            self.timer.pause()

    def on_screen_resume(self) -> None:
        self.refresh_list()
        if self.timer is not None:
            self.timer.resume()

    def refresh_list(self) -> None:
        viewer = koma_app(self).player
        read_store(self, lambda store: store.live_races(viewer), self._show_list)

    def _show_list(self, answer: Answer) -> None:
        title = self.query_one("#race-watch-title", Static)
        if not answer.known:
            title.update("[b]Races on now[/b] · they cannot be read now (the database is away)")
            return
        chosen = self.chosen()
        self.rooms = list(answer.value)
        table = self.query_one(DataTable)
        table.clear()
        for room in self.rooms:
            places = room.places()
            leader = places[0].name if places and places[0].finished else "-"
            table.add_row(room.size_label, room.code or "quick", room.phase_at(time.time()).value,
                          ", ".join(r.name for r in room.racers)[:30], leader, key=room.room)
        if chosen is not None:
            index = next((k for k, r in enumerate(self.rooms) if r.room == chosen.room), None)
            if index is not None:
                table.move_cursor(row=index, animate=False)
        count = len(self.rooms)
        title.update(f"[b]Races on now[/b] · {count} race{'s' if count != 1 else ''}" if count
                     else "[b]Races on now[/b] · none right now")

    def chosen(self) -> Room | None:
        table = self.query_one(DataTable)
        if not table.row_count or not self.rooms:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return next((r for r in self.rooms if r.room == key), None)

    def action_watch(self) -> None:
        room = self.chosen()
        if room is None:
            self.app.bell()
            return
        self.app.push_screen(RaceSpectateScreen(room, ascii_only=self.ascii_only))

    def action_back(self) -> None:
        self.app.pop_screen()


class RaceSpectateScreen(DirtyOnlyRendering):
    """One race watched: every racer's board, the clock, the finish order, then the results.  It follows the
    room with a race link of its own as a watcher (a player who is no racer: the link only reads), and draws the
    boards at the racers' rate bound."""

    BINDINGS = [
        Binding("v", "replay", "replay", id="race_spectate.replay", tooltip="Replay the race once it is over"),
        Binding("escape", "back", "back", id="race_spectate.back", tooltip="Stop watching"),
    ]

    def __init__(self, room: Room, *, ascii_only: bool = False, now: Callable[[], float] = time.time,
                 link: Callable[..., RaceLink] = RaceLink):
        super().__init__(classes="race-spectate")
        self.room = room
        self.ascii_only = ascii_only
        self.now = now
        self.make_link = link
        self.link: RaceLink | None = None
        self.news = RoomNews(self, room)
        self.watcher = f"watcher:{uuid.uuid4().hex}"  # never a racer's id: the link only reads
        self.boards = RaceBoards()
        self.clock = ClockTicks(self, lambda: (self.room, self.now()), self._tick)
        self.lines = PanelLines(self)
        self.minis = Bounded(self, self._draw_minis)  # at most MINIS_PER_SECOND times a second

    def compose(self) -> ComposeResult:
        yield TitleBar()
        with Vertical(id="race-spectate-body"):
            yield Static(id="race-spectate-title")
            yield Static(id="race-spectate-order")
            yield RaceMinis(ascii_only=self.ascii_only, id="race-spectate-minis")
            yield Static(id="race-spectate-results")
        yield KeyBar()

    def on_mount(self) -> None:
        self.title = "Koma"
        self.sub_title = f"watching a race {self.room.size_label}"
        self.query_one("#race-spectate-results").display = False
        self.link = self.make_link(koma_app(self).race_connect, self.room, self.watcher, self.news.heard,
                                   lambda reason: self.post_message(RaceTrouble(reason)),
                                   on_back=lambda: self.post_message(RaceTrouble("")))
        self.link.start()
        self.show_room(self.room)
        self.clock.schedule()

    def on_unmount(self) -> None:
        if self.link is not None:
            self.link.stop()
        self.clock.stop()
        self.minis.stop()

    def on_room_changed(self, event: RoomChanged) -> None:
        if not newer(self.room, event.room):
            self.show_room(event.room)
            self.clock.schedule()  # a start or an end changes what runs by the clock

    def on_room_moved(self, _: RoomMoved) -> None:
        room = self.news.taking()
        if not newer(self.room, room):
            self.room = room
            self.minis.ask()

    def on_race_trouble(self, event: RaceTrouble) -> None:
        if event.reason:
            self.notify(event.reason, title="Watch", severity="warning", timeout=4)

    def show_room(self, room: Room) -> None:
        self.room = room
        now = self.now()
        phase = room.phase_at(now)
        scramble_id = room.scramble_id if phase in (RacePhase.RACING, RacePhase.DONE) else None
        clock = running_text(room.elapsed_ms(now)) if phase is RacePhase.RACING else ""
        what = {RacePhase.LOBBY: "waiting for the start", RacePhase.COUNTDOWN: f"starting: {room.countdown_shown(now)}",
                RacePhase.RACING: f"racing · {clock}", RacePhase.DONE: "over"}[phase]
        self.lines.set(
            "#race-spectate-title", f"[b]Watching[/b] {room.size_label} {room.code or 'quick race'} · {what}\n"
            + (f"[dim]ID {shown_id(scramble_id)}[/dim]" if scramble_id else ""))
        self.lines.set("#race-spectate-order", order_text(room))
        self.minis.ask()
        done = phase is RacePhase.DONE
        results = self.query_one("#race-spectate-results", Static)
        if done:
            results.update(results_text(room, None))
        if results.display != done:
            results.display = done
        self.refresh_bindings()

    def _tick(self) -> None:
        """The title's clock or countdown, and the racers' running clocks, when their shown second changes."""
        self.show_room(self.room)
        self.clock.schedule()

    def _draw_minis(self) -> None:
        self.query_one("#race-spectate-minis", RaceMinis).show(
            minis_of(self.room, list(self.room.racers), self.boards, self.now()), empty_text="No racer in this room now.")

    def action_replay(self) -> None:
        if self.room.phase_at(self.now()) is not RacePhase.DONE:
            self.app.bell()
            return
        self.app.push_screen(RaceReplayScreen(self.room, ascii_only=self.ascii_only))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "replay":
            return self.room.phase_at(self.now()) is RacePhase.DONE
        return True

    def action_back(self) -> None:
        self.app.pop_screen()
