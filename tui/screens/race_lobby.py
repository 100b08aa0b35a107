"""The race lobby: pick a size, then join the quick race of that size, make a private room, or type a friend's
room code; a race the player is still in (their connection dropped, or they stepped out) is offered first.

The lobby only asks the store (through the app's storage service, off the UI thread) and opens the race screen
with the room it answers; the race itself runs there (:mod:`tui.screens.race`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from rich.markup import escape
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Input

from solver.errors import KomaError
from tui.app_view import koma_app
from tui.ascii import Static
from tui.game.averages import seconds_text
from tui.game.players import current_address
from tui.game.race_rules import RacePhase, RaceStats, Room, parse_code
from tui.patches.rendering import DirtyOnlyRendering
from tui.screens.race import RaceScreen
from tui.screens.race_replay import RaceReplayScreen
from tui.screens.race_watch import RaceWatchScreen
from tui.screens.speed import DEFAULT_SIZE, SIZES
from tui.storage.service import Answer
from tui.storage.store import Store
from tui.widgets.keybar import KeyBar
from tui.widgets.titlebar import TitleBar
from tui.workers import read_store

AWAY = "the races cannot be reached now (the database is away); try again in a moment"
LEAVE_WRITE_SECONDS = 2.0  # back from a room left: how long the lobby waits for the leave to be written
JOIN_KEYS = {"back"}  # the keys the lobby offers while the room-code field is open (the field takes the rest)


def size_label(size: tuple[int, int]) -> str:
    return f"{size[0]}x{size[1]}"


def sizes_line(chosen: tuple[int, int]) -> str:
    """Every race size, the chosen one marked; a click (a tap) on one chooses it."""
    return " ".join(f"[@click=screen.pick_size({size[0]},{size[1]})]"
                    + (f"[reverse][b]{size_label(size)}[/b][/reverse]" if size == chosen else size_label(size)) + "[/]"
                    for size in SIZES)


def actions_text(label: str) -> str:
    """The lobby's choices, one a line, each a link (a click or a tap runs it, as its key does)."""
    return (f"[@click=screen.quick][b]enter[/b]  the quick race of {label}[/]\n"
            f"[@click=screen.private][b]c[/b]      a private room of {label}[/]\n"
            "[@click=screen.join][b]j[/b]      join a room by its code[/]\n"
            "[@click=screen.watch][b]w[/b]      watch the races on now[/]")


def refused(call: Callable[[], Room]) -> Room | KomaError:
    """The room ``call`` joins, or the store's one-line refusal (a wrong code, a full room, a race under way),
    which the lobby says as it is (the database being away stays an unknown answer)."""
    try:
        return call()
    except KomaError as problem:
        return problem


def rejoin_line(room: Room) -> str:
    kind = f"private room {room.code}" if room.code else "quick race"
    return (f"[b]Your race is still on[/b]: {room.size_label} {kind}, {len(room.racers)} racers, "
            f"{room.phase.value}.  [b]r[/b] back to it")


class RaceLobbyScreen(DirtyOnlyRendering):
    """Choose a size and a room; ``r`` goes back to a race the player is still in."""

    BINDINGS = [
        Binding("left,h,minus", "size(-1)", "", id="race_lobby.smaller", group=Binding.Group("size", compact=True)),
        Binding("right,l,plus,equals_sign", "size(1)", "size", id="race_lobby.larger",
                group=Binding.Group("size", compact=True)),
        Binding("enter", "quick", "quick race", id="race_lobby.quick",
                tooltip="Join the quick race of this size (whoever is waiting for it races you)"),
        Binding("c", "private", "private room", id="race_lobby.private",
                tooltip="Make a private room: friends join it by its code"),
        Binding("j", "join", "join by code", id="race_lobby.join", tooltip="Join a friend's room by its code"),
        Binding("r", "rejoin", "back to your race", id="race_lobby.rejoin",
                tooltip="Back to the race you are still in (your clock ran on)"),
        Binding("w", "watch", "watch", id="race_lobby.watch", tooltip="Watch the races on now"),
        Binding("v", "replay", "replay", id="race_lobby.replay", tooltip="Replay your last race"),
        Binding("escape", "back", "back", id="race_lobby.back", tooltip="Back home"),
    ]

    def __init__(self, *, ascii_only: bool = False, size: tuple[int, int] = DEFAULT_SIZE):
        super().__init__(classes="race-lobby")
        self.ascii_only = ascii_only
        self.size_wh = size
        self.mine: Room | None = None  # a race the player can go back to
        self.stats = RaceStats()
        self.last_room: str | None = None  # the room of the last race opened from here (v replays it)
        self.busy = False  # a join is on its way to the store
        self.size_chosen = False  # the player chose a size here (the last race's size, read later, stays away)
        self.race: RaceScreen | None = None  # the race opened from here last
        self.typing_code = False  # the room-code field is open

    def compose(self) -> ComposeResult:
        yield TitleBar()
        with Vertical(id="lobby-body"):
            yield Static("[b]Race[/b]: one scramble, revealed to every racer at the same moment (up to 8 racers)",
                         id="lobby-title")
            yield Static(id="lobby-rejoin")
            yield Static(id="lobby-stats")
            yield Static(id="lobby-sizes")
            yield Static(id="lobby-actions")
            with Horizontal(id="lobby-join"):
                yield Static("Room code ", id="lobby-join-label")
                yield Input(placeholder="5 letters", max_length=5, id="lobby-code", disabled=True)  # until j
            yield Static(id="lobby-message")
        yield KeyBar()

    def on_mount(self) -> None:
        self.title = "Koma"
        self.sub_title = "race"
        self.query_one("#lobby-join").display = False
        self.query_one("#lobby-rejoin").display = False
        self._show_size()
        self.look_for_my_race()
        player = koma_app(self).player
        read_store(self, lambda store: store.last_race_size(player), self._found_last_size)

    def _found_last_size(self, answer: Answer) -> None:
        """The size of the player's last race (kept in the store: on any replica, on the next visit)."""
        if answer.known and answer.value in SIZES and not self.size_chosen:
            self.size_wh = answer.value
            self._show_size()

    def on_screen_resume(self) -> None:
        self.busy = False
        race, self.race = self.race, None
        link = race.link if race is not None and race.left else None
        if race is not None and link is not None:  # back from a room left: its leave is written, then the lobby reads
            if self.mine is not None and self.mine.room == race.room.room:
                self._found_my_race(Answer(None))

            async def after_the_leave() -> None:
                await asyncio.to_thread(link.join, LEAVE_WRITE_SECONDS)
                self.look_for_my_race()

            self.run_worker(after_the_leave(), group="lobby-leave")
        else:
            self.look_for_my_race()
        self.refresh_bindings()

    # --- what it shows -----------------------------------------------------------------------------------
    def _show_size(self) -> None:
        label = size_label(self.size_wh)
        self.query_one("#lobby-sizes", Static).update(f"Size  {sizes_line(self.size_wh)}")
        self._show_stats()
        self.query_one("#lobby-actions", Static).update(actions_text(label))

    def say(self, text: str) -> None:
        """One line under the choices (a bad code, the store away, a join under way)."""
        self.query_one("#lobby-message", Static).update(text)

    def look_for_my_race(self) -> None:
        """A race to go back to, and the player's race stats (both read off the UI thread)."""
        player = koma_app(self).player
        read_store(self, lambda store: store.my_race(player), self._found_my_race)
        read_store(self, lambda store: store.race_stats(player), self._found_stats)

    def _found_stats(self, answer: Answer) -> None:
        if answer.known:
            self.stats = answer.value
            self._show_stats()

    def _show_stats(self) -> None:
        stats, label = self.stats, size_label(self.size_wh)
        best = stats.best_ms.get(label)
        line = (f"Your races: {stats.races} · wins {stats.wins}"
                + (f" · best {label} {seconds_text(best)}" if best is not None else "")) if stats.races else ""
        shown = self.query_one("#lobby-stats", Static)
        shown.update(line)
        shown.display = bool(line)

    def _found_my_race(self, answer: Answer) -> None:
        self.mine = answer.value if answer.known else None
        rejoin = self.query_one("#lobby-rejoin", Static)
        rejoin.display = self.mine is not None
        if self.mine is not None:
            rejoin.update(rejoin_line(self.mine))
        self.refresh_bindings()

    # --- keys --------------------------------------------------------------------------------------------
    def action_size(self, delta: int) -> None:
        index = SIZES.index(self.size_wh) if self.size_wh in SIZES else SIZES.index(DEFAULT_SIZE)
        self.action_pick_size(*SIZES[max(0, min(len(SIZES) - 1, index + delta))])

    def action_pick_size(self, width: int, height: int) -> None:
        if (width, height) in SIZES:
            self.size_wh, self.size_chosen = (width, height), True
            self._show_size()

    def action_quick(self) -> None:
        player, name = koma_app(self).player, koma_app(self).player_name
        width, height = self.size_wh
        self._join(lambda store: refused(lambda: store.quick_join(player, name, width, height)),
                   f"Joining the quick race of {size_label(self.size_wh)}…")

    def action_private(self) -> None:
        player, name = koma_app(self).player, koma_app(self).player_name
        width, height = self.size_wh
        self._join(lambda store: refused(lambda: store.create_private(player, name, width, height)),
                   f"Making a private room of {size_label(self.size_wh)}…")

    def action_join(self) -> None:
        self.typing_code = True
        self.query_one("#lobby-join").display = True
        code = self.query_one("#lobby-code", Input)
        code.value = ""
        code.disabled = False
        code.focus()  # in koma web the page brings up a phone's keyboard for it (tui.widgets.touch)
        keyboard = " (⌨ brings up a phone's keyboard)" if koma_app(self).in_browser else ""
        self.say(f"Type the room's code{keyboard}, then enter (esc:\u00a0never\u00a0mind).")  # one phrase, not cut
        self.refresh_bindings()

    @on(Input.Submitted, "#lobby-code")
    def code_typed(self, event: Input.Submitted) -> None:
        try:
            code = parse_code(event.value)
        except KomaError as problem:
            self.say(f"[b]{escape(str(problem))}[/b]")
            return
        player, name, address = koma_app(self).player, koma_app(self).player_name, current_address()
        self._join(lambda store: refused(lambda: store.join_code(player, name, code, address)), f"Joining room {code}…")

    def _join(self, run: Callable[[Store], Room | KomaError], doing: str) -> None:
        if self.busy:
            self.app.bell()
            return
        self.busy = True
        self.say(doing)

        def joined(answer: Answer) -> None:
            self.busy = False
            if not answer.known:
                self.say(AWAY)
                return
            room = answer.value
            if isinstance(room, KomaError):
                self.say(f"[b]{escape(str(room))}[/b]")
                return
            self._close_join()
            self.say("")
            self.open_race(room)

        read_store(self, run, joined)

    def open_race(self, room: Room) -> None:
        self.last_room = room.room
        self.race = RaceScreen(room, ascii_only=self.ascii_only)
        self.app.push_screen(self.race)

    def action_replay(self) -> None:
        """The last race opened from here, replayed: its latest round that is over."""
        room_id = self.last_room
        if room_id is None:
            self.app.bell()
            return

        def replay(answer: Answer) -> None:
            if not answer.known:
                self.say(AWAY)
                return
            over = [room for room in answer.value if room.phase_at(time.time()) is RacePhase.DONE and room.racers]
            if not over:
                self.say("That race has no round over to replay yet.")
                return
            self.app.push_screen(RaceReplayScreen(over[-1], ascii_only=self.ascii_only))

        player = koma_app(self).player
        read_store(self, lambda store: store.race_history(room_id, player), replay)

    def action_rejoin(self) -> None:
        """Back to the race on offer, as the store has it now: the offer may be older than the player's last step
        (a lobby left a moment ago), and a race one is no longer in is not opened."""
        if self.mine is None or self.busy:
            self.app.bell()
            return
        player = koma_app(self).player
        self.busy = True
        self.say("Back to your race…")
        read_store(self, lambda store: store.my_race(player), self._rejoin_found)

    def _rejoin_found(self, answer: Answer) -> None:
        self.busy = False
        self._found_my_race(answer)
        if self.mine is None:
            self.say("That race is over, or you left it." if answer.known else "Your race cannot be read now; try again.")
            return
        self.say("")
        room, self.mine = self.mine, None
        self.open_race(room)

    def action_watch(self) -> None:
        self.app.push_screen(RaceWatchScreen(ascii_only=self.ascii_only))

    def _close_join(self) -> None:
        self.typing_code = False
        self.query_one("#lobby-join").display = False
        code = self.query_one("#lobby-code", Input)
        code.value = ""
        code.disabled = True
        self.refresh_bindings()

    def action_back(self) -> None:
        if self.typing_code:
            self._close_join()
            self.say("")
            return
        self.app.pop_screen()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if self.typing_code and action not in JOIN_KEYS:
            return False  # the code field takes the keys ("+", "j"…): the bar offers only esc
        if action == "rejoin":
            return self.mine is not None  # no race to go back to: the key is not shown
        if action == "replay":
            return self.last_room is not None
        return True

