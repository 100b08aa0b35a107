"""The race screen: the racer's own board full size, the countdown, every opponent's board in miniature, the
finish order, the results and a rematch.  (Watching a race: :mod:`tui.screens.race_watch`; what the screens show
of a room: :mod:`tui.screens.race_views`.)

The room lives in the store; a :class:`~tui.storage.race_link.RaceLink` on its own thread reads it (and writes
this racer's moves, heartbeat and start), and hands every new snapshot to the screen
(:class:`~tui.screens.race_views.RoomNews`): one that changes the room's outline (a racer in or out, a finish, the
start, the phase) at once, with ``post_message`` (:class:`~tui.messages.RoomChanged`, a newer one replacing one not
yet handled); one that only moves opponents on with :class:`~tui.messages.RoomMoved` (at most one waiting,
however many moves come).  The screen draws:

- the own board (:class:`~tui.widgets.board.Board` in :class:`~tui.widgets.looks.SpeedLook`, keys and clicks as in speed mode) at once on
  every move; its clock runs from the reveal (:class:`~tui.game.speed.SpeedSolve` started at ``reveal_at``, on
  the wall clock every racer shares);
- the opponents (:class:`~tui.widgets.race_minis.RaceMinis`, one widget) at most :data:`MINIS_PER_SECOND` times
  a second, however many snapshots come (:class:`~tui.screens.race_views.Bounded`), and only when a snapshot
  moved them (the lines that changed only).  The minis and the panel's lines never ask for a layout (fixed sizes,
  ``layout=False``), so an opponent's move never reflows or repaints the own board;
- the clocks when what they show changes, and only then: a running clock shows whole seconds (the own one, the
  opponents'), so a race screen where nobody types redraws once a second; the countdown's 3, 2, 1 each at its
  second; a time is shown to the millisecond once it stops (a finish, a DNF, the results).  A screen whose race
  is still costs the tick of one timer a second, no more (the link's reads apart: see
  :mod:`tui.storage.race_link`).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from rich.console import Console, ConsoleOptions, RenderResult
from rich.markup import escape
from rich.measure import Measurement
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.css.scalar import Scalar
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widgets import Button, Digits

from tui.app_view import koma_app
from tui.ascii import Static, text_for
from tui.game.averages import seconds_text
from tui.game.race_rules import RacePhase, Racer, Room
from tui.game.speed import LineMove, Play, SpeedSolve
from tui.messages import RaceTrouble, RoomChanged, RoomMoved
from tui.patches.driver import hold_output
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
    next_clock_change,
    order_text,
    ordinal,
    results_text,
    running_text,
)
from tui.screens.speed import OPPOSITE, figures_line
from tui.storage.race_link import RaceLink
from tui.storage.service import Answer
from tui.widgets.board import BOX_HEIGHT, Board
from tui.widgets.keybar import KeyBar
from tui.widgets.looks import SpeedLook
from tui.widgets.race_minis import RaceMinis
from tui.widgets.status import shown_id
from tui.widgets.titlebar import TitleBar
from tui.workers import read_store

MOVE = Binding.Group("move", compact=True)
SIDE_LEAST, SIDE_MOST = 35, 60  # the panel's width beside the board (a narrow screen puts it below)
SMALLEST_TILE_WIDTH = 3  # Speed's compact tile at its narrowest: two digits and a gap
QUIT_LEAVE_SECONDS = 0.3  # how long quitting waits for the leave to be written (as the app waits for its saves)
# The countdown's place stays, blank, for the race's first second: the reveal then repaints the board and a few
# lines, and asks for no layout (a layout redraws the whole screen, and every racer's game does it at that moment:
# on a busy box the last racer would see the scramble later).  The clock's tick at the first second takes it away.
COUNTDOWN_PLACE_MS = 1000
# The reveal is drawn this long ahead, while the game's output is held, and shown at the reveal: the racers' games
# draw it at the same instant, and on a busy box the last would otherwise show it tens of milliseconds after the
# first.  (Where the output cannot be held, a headless app, the scramble is drawn at the reveal.)
DRAW_AHEAD_SECONDS = 0.25
LOOK_ELSEWHERE_SECONDS = 3.0  # how often a racer waiting alone for a quick race reads where others wait

RACE_BINDINGS: list[BindingType] = [
    Binding("up,k", "arrow('U')", "", id="race.up", group=MOVE),
    Binding("down,j", "arrow('D')", "", id="race.down", group=MOVE),
    Binding("left,h", "arrow('L')", "", id="race.left", group=MOVE),
    Binding("right,l", "arrow('R')", "move", id="race.right", group=MOVE),
    Binding("s", "start", "start", id="race.start", tooltip="Start the race (a private room's host)"),
    Binding("r", "rematch", "rematch", id="race.rematch", tooltip="Race again: the room's next round"),
    Binding("v", "replay", "replay", id="race.replay", tooltip="Replay the race: every racer's moves in real time"),
    Binding("i", "scheme", "keys", id="race.scheme", show=False, tooltip="Arrows move a tile, or the blank"),
    Binding("y", "copy_id", "copy ID", id="race.copy_id", show=False, tooltip="Copy the scramble's game ID"),
    # id .back: the browser's touch bar's back button runs it
    Binding("escape", "leave", "leave", id="race.back", tooltip="Leave the room (during the race: a DNF)"),
]


class ClockLine:
    """The racer's clock line, as wide as the panel allows: "Time 12s  STM ..." or, in a narrow panel, without
    "Time" (chosen when drawn, at the width the line gets)."""

    def __init__(self, wide: Text, narrow: Text) -> None:
        self.wide, self.narrow = wide, narrow

    def __str__(self) -> str:
        return self.wide.plain

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self.wide if self.wide.cell_len <= options.max_width else self.narrow

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement(self.narrow.cell_len, self.wide.cell_len)


class LeaveRaceScreen(ModalScreen[bool]):
    """Leave a race under way (a DNF)?  y or enter: leave; n or esc: race on.  Each answer is a button too (three
    rows high: a thumb's target on a phone's page)."""

    BINDINGS = [
        Binding("y", "answer(True)", "leave (DNF)", id="race_leave.yes"),
        Binding("n,escape", "answer(False)", "race on", id="race_leave.cancel"),
    ]

    def __init__(self) -> None:
        super().__init__(classes="dialog-screen")

    def compose(self) -> ComposeResult:
        with Vertical(id="race-leave-dialog", classes="dialog") as dialog:
            dialog.border_title = "Leave the race?"
            yield Static("The race goes on without you: you are [b]DNF[/b].")
            with Horizontal(classes="dialog-buttons"):
                yield Button(text_for(self, "y Leave (DNF)"), variant="error", id="race-leave-yes")
                yield Button(text_for(self, "n Race on"), variant="primary", id="race-leave-no")

    def on_mount(self) -> None:
        self.query_one("#race-leave-no", Button).focus()  # enter races on: a stray key never ends a race

    @on(Button.Pressed, "#race-leave-yes")
    def _yes(self) -> None:
        self.action_answer(True)

    @on(Button.Pressed, "#race-leave-no")
    def _no(self) -> None:
        self.action_answer(False)

    def action_answer(self, leave: bool) -> None:
        self.dismiss(leave)


class RaceScreen(DirtyOnlyRendering):
    """One race (see the module's docstring), from the room's lobby to its results and rematches."""

    BINDINGS = RACE_BINDINGS
    help_key = "race"

    def __init__(self, room: Room, *, ascii_only: bool = False, now: Callable[[], float] = time.time,
                 link: Callable[..., RaceLink] = RaceLink):
        """``room``: as the lobby (or a rejoin) read it; ``now``: the wall clock the racers share (epoch
        seconds); ``link``: how the screen makes its race link (tests may give one of their own)."""
        super().__init__(classes="race")
        self.room = room
        self.ascii_only = ascii_only
        self.wall_clock = now
        self.drawn_for: float | None = None  # the reveal drawn ahead: the screen shows its moment until it comes
        self.make_link = link
        self.link: RaceLink | None = None
        self.news = RoomNews(self, room)
        self.shown_outline: tuple | None = None  # the outline of the room last shown in full
        self.boards = RaceBoards()
        self.solve: SpeedSolve | None = None  # the own board once revealed
        self.sent = 0  # own moves handed to the link
        self.scheme = "tile"
        self.revealed_round: int | None = None
        self.revealed_at: float | None = None
        self.reveal_timer: Timer | None = None
        self.clock = ClockTicks(self, lambda: (self.room, self.now()), self._tick,
                                ahead=lambda: self.now() - self.wall_clock())  # a reveal drawn ahead: no tick at it
        self.minis = Bounded(self, self._draw_minis)  # the opponents, at most MINIS_PER_SECOND times a second
        self.trouble = ""
        self.left = False
        self.waiting_elsewhere: list[tuple[int, int]] = []  # quick races where others wait (a lone racer is told)
        self.looked_elsewhere_at = 0.0
        self.lines = PanelLines(self)

    # --- who and what -------------------------------------------------------------------------------------
    def now(self) -> float:
        """The time the screen shows: the wall clock, or the reveal's moment while the reveal is drawn ahead."""
        wall = self.wall_clock()
        return self.drawn_for if self.drawn_for is not None and wall < self.drawn_for else wall

    @property
    def player(self) -> str:
        return koma_app(self).player

    @property
    def me(self) -> Racer | None:
        return self.room.racer(self.player)

    @property
    def phase(self) -> RacePhase:
        return self.room.phase_at(self.now())

    def opponents(self) -> list[Racer]:
        return [r for r in self.room.racers if r.player != self.player]

    # --- layout ----------------------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield TitleBar()
        with Horizontal(id="race-body"):
            yield Board(SpeedLook(self.room.width, self.room.height, self.ascii_only), self.room.puzzle.goal,
                        id="race-board")
            with Vertical(id="race-side"):
                yield Static(id="race-title")
                yield Static(id="race-clock")
                yield Digits("", id="race-countdown")
                yield Static(id="race-code")
                yield Static(id="race-message")
                yield Static(id="race-order")
                yield RaceMinis(ascii_only=self.ascii_only, id="race-minis")
                yield Static(id="race-results")
        yield KeyBar()

    def on_mount(self) -> None:
        self.title = "Koma"
        self.sub_title = f"Race {self.room.size_label}"
        self.query_one("#race-board", Board).hide_numbers(True)
        self.query_one("#race-results").display = False
        self.query_one("#race-countdown").display = False
        self.query_one("#race-code").display = False
        self.link = self.make_link(koma_app(self).race_connect, self.room, self.player, self.news.heard,
                                   lambda reason: self.post_message(RaceTrouble(reason)),
                                   on_back=lambda: self.post_message(RaceTrouble("")))
        self.link.start()
        self.show_room(self.room)
        self.set_interval(LOOK_ELSEWHERE_SECONDS, self._look_elsewhere)
        self._look_elsewhere()

    def on_resize(self) -> None:
        self.call_after_refresh(self._fit_board)

    def _fit_board(self) -> None:
        """On a narrow screen the board goes above the panel, as tall as its tiles need: tall boxed tiles where the
        screen is tall (a phone's page: tiles a thumb can tap), else compact ones with a gap line between rows where
        there is room, so the opponents have the rest; else it fills its side, and the panel beside it leaves it the
        width of its smallest tiles at least (a 10x10 at 60 columns)."""
        board = self.query_one("#race-board", Board)
        narrow = self.has_class("-narrow")
        rows = self.room.height
        height = next((rows * tile for tile, share in ((BOX_HEIGHT * 2, 0.45), (BOX_HEIGHT, 0.45), (2, 0.5))
                       if rows * tile <= self.size.height * share), rows) if narrow else None
        if board.styles.height != (None if height is None else Scalar.parse(str(height))):
            board.styles.height = height if height is not None else "1fr"
        side = self.query_one("#race-side")
        least_board = self.room.width * SMALLEST_TILE_WIDTH
        width = None if narrow else min(max(SIDE_LEAST, round(self.size.width * 0.55)), SIDE_MOST,
                                        self.size.width - least_board)
        if side.styles.width != (None if width is None else Scalar.parse(str(width))):
            side.styles.width = width
        self._show_clock()
        self._show_order()
        if self.query_one("#race-results").display:
            self._show_results(True)

    def leave_on_quit(self) -> None:
        """The player quits Koma: they leave the room (a DNF during the race), the link given
        :data:`QUIT_LEAVE_SECONDS` to write it (a dropped game, by contrast, keeps its place for the reconnect window)."""
        link, me = self.link, self.me
        if link is None or self.left or me is None or me.out:
            return
        self.left = True
        link.leave()
        link.join(QUIT_LEAVE_SECONDS)

    def on_unmount(self) -> None:
        if self.link is not None:
            self.link.stop()
        if self.reveal_timer is not None:
            self.reveal_timer.stop()
        self.clock.stop()
        self.minis.stop()

    # --- the room's news --------------------------------------------------------------------------------------
    def on_room_changed(self, event: RoomChanged) -> None:
        self.take_room(event.room)

    def on_room_moved(self, _: RoomMoved) -> None:
        self.take_room(self.news.taking())

    def take_room(self, room: Room) -> None:
        """A snapshot from the link (at once, or with the tick): shown unless an earlier one than the room shown;
        any new snapshot ends the trouble said."""
        if newer(self.room, room):
            return
        if self.trouble:
            self.trouble = ""
            self._show_message()
        self.show_room(room)

    def on_race_trouble(self, event: RaceTrouble) -> None:
        self.trouble = event.reason
        self._show_message()

    def show_room(self, room: Room) -> None:
        """A new snapshot: a new round resets the own board; the countdown and the reveal are set on the wall
        clock; the opponents' boards are drawn within the rate bound.  A snapshot that only moves racers on (the
        same outline) marks the opponents changed, and nothing else."""
        outline = room.outline()
        if outline == self.shown_outline:
            self.room = room
            self.minis.ask()
            return
        self.shown_outline = outline
        new_round = room.round != self.room.round
        self.room = room
        if new_round:
            self.solve, self.sent, self.revealed_round, self.drawn_for = None, 0, None, None
            board = self.query_one("#race-board", Board)
            board.show(room.puzzle.goal)
            board.hide_numbers(True)
            self._show_results(False)
        now = self.now()
        if room.reveal_at is not None and self.revealed_round != room.round:
            if now >= room.reveal_at:
                self.reveal()
            elif self.reveal_timer is None:
                self.reveal_timer = self.set_timer(max(0.001, room.reveal_at - DRAW_AHEAD_SECONDS - now),
                                                   self._reveal_due)
        self._show_title()
        self._show_clock()
        self._show_message()
        self._show_code()
        self._show_order()
        self.minis.ask()
        if self.phase is RacePhase.DONE:
            self._show_results(True)
        self.refresh_bindings()
        self.clock.schedule()

    def _reveal_due(self) -> None:
        """The reveal's timer: draw the reveal ahead with the output held until its moment (:data:`DRAW_AHEAD_SECONDS`
        before it), or reveal at the moment where the output cannot be held."""
        self.reveal_timer = None
        reveal_at = self.room.reveal_at
        if reveal_at is None or self.revealed_round == self.room.round:  # the clock's tick came first
            return
        ahead = reveal_at - self.wall_clock()
        if ahead <= 0:
            self.reveal()
        elif ahead <= DRAW_AHEAD_SECONDS * 1.5 and hold_output(self.app, ahead):
            self.drawn_for = reveal_at
            self.reveal()
        else:  # a timer that fires a hair early, or an output that cannot be held: come back nearer the moment
            wait = ahead - DRAW_AHEAD_SECONDS if ahead > DRAW_AHEAD_SECONDS * 1.5 else ahead
            self.reveal_timer = self.set_timer(max(0.001, wait), self._reveal_due)

    def reveal(self) -> None:
        """The scramble shows and the own clock runs from ``reveal_at`` (a rejoin: with the moves made so far);
        once a round, whichever of the reveal's timer, the clock's tick or a snapshot comes first."""
        room = self.room
        if room.scramble is None or room.reveal_at is None or self.revealed_round == room.round:
            return
        if self.reveal_timer is not None:
            self.reveal_timer.stop()
            self.reveal_timer = None
        self.revealed_round = room.round
        self.revealed_at = self.now()  # when this racer saw the scramble (the wall clock): never before reveal_at
        solve = SpeedSolve(room.puzzle, room.scramble, self.now, started_at=room.reveal_at)
        me = self.me
        if me is not None and me.moves:  # back in a race: the board as the store has it
            solve.moves, solve.times_ms = list(me.moves), list(me.times_ms)
            solve.state = me.state(room.puzzle, room.scramble)
            solve.solved = me.finished
            solve.abandoned = me.dnf and not me.finished
        self.solve, self.sent = solve, len(solve.moves)
        board = self.query_one("#race-board", Board)
        board.show(solve.state)
        board.hide_numbers(False)
        self.query_one("#race-countdown", Digits).update(" ")  # blank, its place kept: see COUNTDOWN_PLACE_MS
        self._show_title()
        self._show_clock()
        self._show_message()
        self.minis.ask()
        self.refresh_bindings()
        self.clock.schedule()
        if not solve.over:
            koma_app(self).announce("Go: the scramble is shown.")

    # --- drawing ---------------------------------------------------------------------------------------------
    def next_tick_seconds(self) -> float | None:
        """How long until the screen shows something else by the clock alone (:func:`next_clock_change`)."""
        return next_clock_change(self.room, self.now())

    def _tick(self) -> None:
        """The clock and the countdown; the reveal if its timer has not come yet; the minis' clocks; the next tick."""
        room, now = self.room, self.now()
        if room.reveal_at is not None and self.revealed_round != room.round and now >= room.reveal_at:
            self.reveal()
        phase = self.phase
        countdown = self.query_one("#race-countdown", Digits)
        shown = room.countdown_shown(now) if phase is RacePhase.COUNTDOWN else None
        if shown is not None:
            countdown.display = True
            countdown.update(str(shown))
        elif countdown.display and not (phase is RacePhase.RACING and room.elapsed_ms(now) < COUNTDOWN_PLACE_MS):
            countdown.display = False
        if phase is RacePhase.RACING:
            self._show_clock()
            self.minis.ask()  # their clocks run
        self._show_message()
        if not self.clock.pending:  # (a reveal above has scheduled it)
            self.clock.schedule()

    def _look_elsewhere(self) -> None:
        """A racer waiting alone in a quick lobby: which sizes others wait at (read off the UI thread, every few
        seconds), so that two friends who chose different sizes find each other."""
        room, now = self.room, self.wall_clock()
        alone = room.quick and not room.round and self.phase is RacePhase.LOBBY and room.quick_start_at() is None
        if not alone or now - self.looked_elsewhere_at < LOOK_ELSEWHERE_SECONDS:
            return
        self.looked_elsewhere_at = now
        player = self.player

        def found(answer: Answer) -> None:
            if answer.known and answer.value != self.waiting_elsewhere:
                self.waiting_elsewhere = answer.value
                self._show_message()

        read_store(self, lambda store: store.quick_waiting(player), found)

    def _show_title(self) -> None:
        room = self.room
        kind = f"Room [b]{room.code}[/b]" if room.code else "Quick race"
        round_text = f" round {room.round + 1}" if room.round else ""
        scramble_id = room.scramble_id if self.revealed_round == room.round else None
        shown = f" · [dim]ID {shown_id(scramble_id)}[/dim]" if scramble_id else ""
        self.lines.set("#race-title", f"{kind}{round_text}{shown}")

    def _show_clock(self) -> None:
        room, now = self.room, self.now()
        me = self.me
        running = False
        if self.solve is not None and me is not None:
            running = not self.solve.over and not me.dnf
            elapsed = self.solve.elapsed_ms() if self.solve.over else room.elapsed_ms(now)
            if me.dnf and not self.solve.solved:
                elapsed = me.time_ms
            stm, mtm = self.solve.stm, self.solve.mtm
        else:
            elapsed = room.elapsed_ms(now) if self.revealed_round == room.round else 0
            stm = mtm = 0
            running = bool(elapsed) and self.phase is RacePhase.RACING
        clock = self.query_one("#race-clock", Static)
        figures = figures_line(stm, mtm, stm * 1000 / elapsed if elapsed and stm else None)
        shown = running_text(elapsed) if running else seconds_text(elapsed)  # running: it changes once a second
        clock.update(ClockLine(Text.assemble("Time ", (shown, "bold"), "  ", figures),
                               Text.assemble((shown, "bold"), " ", figures.replace("  ", " "))), layout=False)

    def message_text(self) -> str:
        """What the panel says of the race now (one or two lines)."""
        room, now, me = self.room, self.now(), self.me
        if self.trouble:  # the link's one line: the database away (it tries again), a rematch refused
            return escape(self.trouble)
        phase = room.phase_at(now)
        racers = f"{len(room.racers)} racer{'s' if len(room.racers) != 1 else ''}"
        if phase is RacePhase.LOBBY:
            if room.latest_round > room.round:
                return "A rematch is on: [b]r[/b] to race again."
            if not room.quick:
                if room.may_start(self.player):
                    who = "[b]s[/b] to start" if room.host_here() else "the host left: [b]s[/b] to start"
                else:
                    who = "the host starts it"
                return f"Friends type this code to join.\n{racers}; {who}."
            due = room.quick_start_at()
            if due is None:
                if room.round:
                    return "Rematch: waiting for the others to press r…"
                elsewhere = [f"{w}x{h}" for w, h in self.waiting_elsewhere if (w, h) != (room.width, room.height)]
                return (f"Waiting for another racer of {room.size_label}…"
                        + (f"\nOthers wait at {', '.join(elsewhere)}." if elsewhere else ""))
            return f"{racers}; the race starts in {max(0, round(due - now))} s."
        if phase is RacePhase.COUNTDOWN:
            return f"Get ready: {room.countdown_shown(now) or ''}"
        if phase is RacePhase.RACING:
            if me is None:
                return "Watching."
            if me.finished or (self.solve is not None and self.solve.solved):
                place = room.place_of(self.player)
                return f"[b]Solved[/b]{f': place {place}' if place else ''}. Waiting for the others…"
            if me.dnf:
                return "You are DNF. The others race on…"
            return "Race!"
        place = room.place_of(self.player)
        if room.latest_round > room.round:
            return "A rematch is on: [b]r[/b] to race again."
        if me is None:
            return "The race is over."
        return (f"[b]You finished {ordinal(place)}[/b] of {len(room.racers)}." if place
                else "[b]DNF[/b].") + "\n[b]r[/b]\u00a0rematch · [b]v[/b]\u00a0replay"

    def _show_code(self) -> None:
        """A private room's code, big, while its racers gather (what friends type to join)."""
        code = self.query_one("#race-code", Static)
        shown = self.room.code is not None and self.phase is RacePhase.LOBBY
        if shown:
            code.update(f"[b]{' '.join(self.room.code or '')}[/b]")
        if code.display != shown:
            code.display = shown

    def _show_message(self) -> None:
        self.lines.set("#race-message", self.message_text())

    def _show_order(self) -> None:
        self.lines.set("#race-order", order_text(self.room, self.query_one("#race-order").content_region.width or 40))

    def _draw_minis(self) -> None:
        opponents = self.opponents()
        self.query_one("#race-minis", RaceMinis).show(
            minis_of(self.room, opponents, self.boards, self.now()),
            empty_text="No opponent yet." if not opponents else "")

    def _show_results(self, shown: bool) -> None:
        results = self.query_one("#race-results", Static)
        if shown:
            width = self.query_one("#race-side").content_region.width  # the results may not be laid out yet
            results.update(results_text(self.room, self.player, width or 41))
        if results.display != shown:
            results.display = shown  # above the minis, which stay (the board too: the race as it ended)
            self.set_class(shown, "-done")

    # --- own moves ------------------------------------------------------------------------------------------
    def play(self, move: LineMove | None = None, cell: int | None = None) -> Play:
        """One own move (a line move, or the click on ``cell``), while racing; the board at once, the move to
        the link (which writes it with the others that come meanwhile)."""
        solve = self.solve
        if solve is None or self.phase is not RacePhase.RACING or self.me is None or self.me.out:
            return Play.ILLEGAL
        if self.drawn_for is not None and self.wall_clock() < self.drawn_for:  # the scramble is not on the screen yet
            return Play.ILLEGAL
        outcome = solve.press(cell) if cell is not None else solve.play(move) if move else Play.ILLEGAL
        if outcome is Play.ILLEGAL:
            return outcome
        self.query_one("#race-board", Board).show(solve.state)
        self._send()
        self._show_clock()
        if outcome is Play.SOLVED:
            self._show_message()
            koma_app(self).announce(f"Solved in {seconds_text(solve.times_ms[-1])}.")
        return outcome

    def _send(self) -> None:
        solve = self.solve
        if solve is None or self.link is None:
            return
        moves, times = "".join(solve.moves[self.sent:]), solve.times_ms[self.sent:]
        self.sent = len(solve.moves)
        self.link.send(moves, times, finished_ms=solve.times_ms[-1] if solve.solved else None)

    async def action_arrow(self, direction: str) -> None:
        self.play(LineMove(OPPOSITE[direction] if self.scheme == "blank" else direction))

    def on_board_cell_pressed(self, event: Board.CellPressed) -> None:
        event.stop()
        self.play(cell=event.cell)

    def action_scheme(self) -> None:
        self.scheme = "blank" if self.scheme == "tile" else "tile"
        self.notify(f"Arrows move the {self.scheme}.", timeout=2)

    # --- the room's keys ---------------------------------------------------------------------------------------
    def action_start(self) -> None:
        if self.link is None or not self.room.may_start(self.player):
            self.app.bell()
            return
        self.link.ask_start()

    def action_rematch(self) -> None:
        if self.link is None or (self.phase is not RacePhase.DONE and self.room.latest_round <= self.room.round):
            self.app.bell()
            return
        self.link.ask_rematch()

    def action_replay(self) -> None:
        if self.phase is not RacePhase.DONE or self.room.scramble is None:
            self.app.bell()
            return
        self.app.push_screen(RaceReplayScreen(self.room, ascii_only=self.ascii_only))

    def action_copy_id(self) -> None:
        scramble_id = self.room.scramble_id if self.revealed_round == self.room.round else None
        if scramble_id is None:
            self.app.bell()
            return
        self.app.copy_to_clipboard(scramble_id)
        self.notify(f"Copied the game ID {shown_id(scramble_id)}", timeout=3)

    def action_leave(self) -> None:
        me = self.me
        if self.phase in (RacePhase.COUNTDOWN, RacePhase.RACING) and me is not None and not me.out:
            self.app.push_screen(LeaveRaceScreen(), self._leave_answered)
            return
        self._leave()

    def _leave_answered(self, leave: bool | None) -> None:
        if leave:
            self._leave()

    def _leave(self) -> None:
        """Out of the room: a DNF if racing, gone from the lobby before the start; the lobby again."""
        if self.link is not None and not self.left:
            self.left = True
            me = self.me
            if me is not None and not me.out:
                self.link.leave()
        self.app.pop_screen()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        phase = self.phase
        # keys that do nothing now are not shown (the key bar of a phone's 40 columns has no room to spare)
        if action == "start":
            return self.room.may_start(self.player)
        if action == "rematch":
            return phase is RacePhase.DONE or self.room.latest_round > self.room.round
        if action == "replay":
            return phase is RacePhase.DONE
        if action in ("arrow", "scheme"):
            return phase is RacePhase.RACING
        return True
