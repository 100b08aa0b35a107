"""What the race screens show of a room, without being screens: each racer's line, the finish order, the results,
every racer's board (replayed once per move), the minis, and the ways the screens keep their work few (a snapshot
that only moves racers on is one message until the screen takes it; the minis drawn at most
:data:`MINIS_PER_SECOND` times a second; the clocks redrawn when what they show changes, :func:`next_clock_change`;
panel lines updated only when their text changes)."""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from rich.markup import escape
from textual.screen import Screen
from textual.timer import Timer

from tui.ascii import Static
from tui.game.averages import seconds_text
from tui.game.race_rules import RacePhase, Racer, Room
from tui.messages import RoomChanged, RoomMoved
from tui.widgets.race_minis import Mini

MINIS_PER_SECOND = 20  # the opponents' boards are redrawn at most this often, all in one repaint
MINIS_GAP_SECONDS = 1 / MINIS_PER_SECOND
TICK_SLACK_SECONDS = 0.005  # a tick comes this much after the second it shows (a timer may fire a hair early)


def next_clock_change(room: Room, now: float) -> float | None:
    """Seconds until a race screen shows something else by the clock alone: the countdown's next figure, the racing
    clocks' next whole second (counted from the reveal, :func:`running_text`), a quick room's start in whole
    seconds; None when nothing shown runs (a private room's lobby, the results)."""
    phase = room.phase_at(now)
    due = room.quick_start_at() if phase is RacePhase.LOBBY else None
    if phase is RacePhase.DONE or (phase is RacePhase.LOBBY and due is None):
        return None
    if due is not None:  # "starts in N s", N rounded: it changes as the seconds left pass a half
        return max(0.01, (due - now - 0.5) % 1.0 + TICK_SLACK_SECONDS)
    if room.reveal_at is None:
        return 1.0
    since = now - room.reveal_at  # negative in the countdown: its figures change at whole seconds before the reveal
    return max(0.01, math.floor(since) + 1 - since + TICK_SLACK_SECONDS)


def running_text(ms: float) -> str:
    """A running clock, in whole seconds (``12s``, ``1:02``): it changes once a second, so a screen that shows it
    redraws it once a second (a finished time is shown to the millisecond, or the tenth, instead)."""
    minutes, seconds = divmod(int(ms // 1000), 60)
    return f"{minutes}:{seconds:02d}" if minutes else f"{seconds}s"


def figures_text(racer: Racer, elapsed_ms: int) -> str:
    """A racer's moves, time and TPS for a mini (``84 12.3s 6.8``): the finish time once finished, the last
    move's for a DNF (to the tenth), else the race's clock in whole seconds (``84 12s 6.8``: redrawn once a
    second)."""
    shown_ms = racer.time_ms if racer.out else elapsed_ms
    tps = racer.tps_at(shown_ms) if racer.stm else None
    minutes, seconds = divmod(shown_ms / 1000, 60)
    if not racer.out:
        shown = running_text(shown_ms)
    else:
        shown = f"{int(minutes)}:{seconds:04.1f}" if minutes else f"{seconds:.1f}s"
    return f"{racer.stm} {shown} {'-' if tps is None else f'{tps:.1f}'}"


def title_text(room: Room, racer: Racer, places: dict[str, int | None] | None = None) -> str:
    """A mini's title: place (once finished) and name; ``places`` the room's, by player, if known already."""
    place = places.get(racer.player) if places is not None else room.place_of(racer.player)
    if place is not None:
        return f"{place}. {racer.name}"
    return f"DNF {racer.name}" if racer.dnf else racer.name


def order_text(room: Room, width: int = 80) -> str:
    """The finish order so far, ``1 ann 12.3 · 2 bob 15.0``, in ``width`` columns: whole entries only, the rest
    counted (``· +2``), never an entry cut."""
    finished = [f"{p.place} {p.racer.name} {seconds_text(p.racer.time_ms)}" for p in room.results()
                if p.place is not None]
    for shown in range(len(finished), 0, -1):
        rest = len(finished) - shown
        text = " · ".join(finished[:shown]) + (f" · +{rest}" if rest else "")
        if len(text) <= width:
            return escape(text)
    return f"+{len(finished)}" if finished else ""


def results_text(room: Room, player: str | None, width: int = 41) -> str:
    """The round's results: place, name, time, STM, MTM, TPS (the player's own line in bold), in ``width``
    columns (the names are cut to fit, down to 3 letters)."""
    counts = max(3, *(len(str(r.stm)) for r in room.racers)) if room.racers else 3
    name_width = max(3, min(12, width - (3 + 1 + 1 + 8 + 1 + counts + 1 + counts + 1 + 5)))
    lines = [f"[b]{'':3} {'racer':{name_width}} {'time':>8} {'STM':>{counts}} {'MTM':>{counts}} {'TPS':>5}[/b]"]
    for placing in room.results():
        racer = placing.racer
        time_text = seconds_text(racer.finished_ms) if racer.finished_ms is not None else "DNF"
        tps = racer.tps if racer.finished else None
        name = escape(racer.name[:name_width].ljust(name_width))
        line = (f"{(str(placing.place) + '.') if placing.place else '-':3} {name} {time_text:>8} "
                f"{racer.stm:>{counts}} {racer.mtm:>{counts}} {'-' if tps is None else f'{tps:.2f}':>5}")
        lines.append(f"[b]{line}[/b]" if racer.player == player else line)
    return "\n".join(lines)


class RaceBoards:
    """Every racer's board, replayed once per move (a snapshot brings only the moves since the last)."""

    def __init__(self) -> None:
        self._known: dict[tuple[str, int], tuple[int, tuple[int, ...]]] = {}  # (player, round): moves played, board

    def state(self, room: Room, racer: Racer) -> tuple[int, ...]:
        if room.scramble is None:
            return room.puzzle.goal
        key = (racer.player, room.round)
        played, state = self._known.get(key, (0, tuple(room.scramble)))
        if played > len(racer.moves):
            played, state = 0, tuple(room.scramble)
        puzzle = room.puzzle
        for move in racer.moves[played:]:
            state = puzzle.apply(state, move)
        self._known[key] = (len(racer.moves), state)
        return state


def minis_of(room: Room, racers: list[Racer], boards: RaceBoards, now: float) -> list[Mini]:
    """The racers' minis at ``now``: before the reveal an empty board each (the scramble is not shown yet)."""
    elapsed = room.elapsed_ms(now)
    waiting = room.phase_at(now) in (RacePhase.LOBBY, RacePhase.COUNTDOWN)
    places = {placing.racer.player: placing.place for placing in room.results()}
    out = []
    for racer in racers:
        if waiting:
            out.append(Mini(racer.name, "ready", room.width, room.height, (0,) * (room.width * room.height), "waiting"))
            continue
        look = "done" if racer.finished else "dnf" if racer.dnf else "racing"
        out.append(Mini(title_text(room, racer, places), figures_text(racer, elapsed), room.width, room.height,
                        boards.state(room, racer), look))
    return out


def newer(room: Room, than: Room) -> bool:
    """Whether snapshot ``room`` is a later one than ``than`` (a later round, or a later version of the round)."""
    return (room.round, room.version) > (than.round, than.version)


class RoomNews:
    """A race link's snapshots, handed to a screen (:meth:`heard` is the link's ``on_room``, on the link's thread).
    A snapshot whose :meth:`~tui.game.race_rules.Room.outline` changed (a racer in or out, a finish, a DNF, the start,
    the phase, a new round) is posted at once as :class:`~tui.messages.RoomChanged`; one that only moves racers on
    is kept in :attr:`latest` and told with :class:`~tui.messages.RoomMoved` unless one is waiting already (the
    screen calls :meth:`taking` before it reads :attr:`latest`): at most one message waits, however many moves
    come, and a screen whose room is still costs nothing."""

    def __init__(self, screen: Screen, room: Room) -> None:
        self.screen = screen
        self.latest = room  # the link's newest snapshot (set on the link's thread; read on the UI thread)
        self._posted = room.outline()  # the link's thread's alone
        self._waiting = False  # a RoomMoved is posted and not yet taken

    def heard(self, room: Room) -> None:
        self.latest = room
        outline = room.outline()
        if outline != self._posted:
            self._posted = outline
            self.screen.post_message(RoomChanged(room))
        elif not self._waiting:
            self._waiting = True
            self.screen.post_message(RoomMoved())

    def taking(self) -> Room:
        """The latest snapshot, for the UI thread handling a RoomMoved (a snapshot heard after this posts again)."""
        self._waiting = False  # before reading latest: a snapshot set after the read finds it False, and posts
        return self.latest


class Bounded:
    """Draws at most once per ``gap`` seconds however often it is asked: at once if the last drawing is that old,
    else once at the end of the gap (one timer, whatever the asks meanwhile).  Nothing asked, nothing drawn: an
    idle screen spends nothing here."""

    def __init__(self, screen: Screen, draw: Callable[[], None], gap: float = MINIS_GAP_SECONDS) -> None:
        self.screen, self.draw, self.gap = screen, draw, gap
        self.drawn_at = -gap  # time.monotonic() of the last drawing
        self._timer: Timer | None = None

    def ask(self) -> None:
        if self._timer is not None:
            return
        wait = self.drawn_at + self.gap - time.monotonic()
        if wait <= 0:
            self._draw()
        else:
            self._timer = self.screen.set_timer(wait, self._draw)

    def _draw(self) -> None:
        self._timer = None
        self.drawn_at = time.monotonic()
        self.draw()

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None


class ClockTicks:
    """A race screen's one clock timer: :meth:`schedule` sets it for when what the screen shows by the clock next
    changes (:func:`next_clock_change` of ``room_and_now()``), or for nothing while nothing shown runs; it calls
    ``tick``, which schedules the next.  So a screen whose race is still wakes once a second, never ten times.
    ``ahead()``: how far the time the screen shows runs ahead of the wall clock (a reveal drawn ahead), 0 otherwise."""

    def __init__(self, screen: Screen, room_and_now: Callable[[], tuple[Room, float]], tick: Callable[[], None],
                 ahead: Callable[[], float] = lambda: 0.0):
        self.screen, self.room_and_now, self.tick, self.ahead = screen, room_and_now, tick, ahead
        self.timer: Timer | None = None

    @property
    def pending(self) -> bool:
        return self.timer is not None

    def schedule(self) -> None:
        self.stop()
        seconds = next_clock_change(*self.room_and_now())
        if seconds is not None:
            self.timer = self.screen.set_timer(seconds + self.ahead(), self._fire)

    def _fire(self) -> None:
        self.timer = None
        self.tick()

    def stop(self) -> None:
        if self.timer is not None:
            self.timer.stop()
            self.timer = None


class PanelLines:
    """A screen's one-line Statics, updated only when their text changes (a snapshot or a clock tick that changes
    nothing repaints nothing), never asking for a layout (their heights are fixed)."""

    def __init__(self, screen: Screen) -> None:
        self.screen = screen
        self.shown: dict[str, str] = {}

    def set(self, selector: str, text: str) -> None:
        if self.shown.get(selector) != text:
            self.shown[selector] = text
            self.screen.query_one(selector, Static).update(text, layout=False)


def ordinal(place: int) -> str:
    return f"{place}{'th' if 10 <= place % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(place % 10, 'th')}"
