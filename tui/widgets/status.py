"""The play screen's side panel: title, moves and clock, distance, parity, the solver's state, a message.

Its state is in reactives, like ``GameHeader`` in Textual's ``examples/five_by_five.py``: the play
screen sets ``moves``, ``seconds``, ``distance``… and each watcher updates only its own line, so a
move redraws the lines it changed and a clock tick redraws the one line that holds the clock.
A line that holds :data:`SPIN` shows a spinner there; the spinner's timer runs only while one does.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import cast

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.reactive import reactive
from textual.strip import Strip
from textual.timer import Timer
from textual.visual import RulesMap, Visual

from solver.puzzle import Proof
from tui.ascii import Static, ascii_mode
from tui.game.formatting import clock_text, plural
from tui.game.live import PLAYER_BEAT_SECONDS
from tui.game.phase import Phase

SPIN = "{spinner}"  # replaced by the spinner's current frame
SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
ASCII_SPINNER = "|/-\\"
SPIN_SECONDS = 0.1
LOADING = "Loading your game…"


MAX_SHOWN_ID = 26  # a 10x10 board's ID has 103 characters: the panel shows its ends (y copies it whole)


def shown_id(game_id: str) -> str:
    """A game ID short enough for the panel's line: a long one keeps its start and its end, with ``…`` between."""
    if len(game_id) <= MAX_SHOWN_ID:
        return game_id
    return game_id[:MAX_SHOWN_ID - 7] + "…" + game_id[-6:]


@functools.lru_cache(maxsize=64)
def parsed(markup: str) -> Content:
    """``markup`` as Content (immutable), parsed once: a panel line often shows a text it showed before (the distance
    of a board the player went back to, the same message again)."""
    return Content.from_markup(markup)


class PanelLine(Static):
    """A line (or a few) of the panel that keeps what it drew for the last texts it showed: a text shown again (the
    distance of a board the player went back to, a move undone) draws from there instead of being rendered anew.

    A text is the same when it is the same :class:`Content` object (:func:`parsed` gives one per markup), drawn at the
    same size in the same style; a style change forgets them all."""

    KEPT = 8  # texts kept per line

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._drawn: dict[int, tuple[Visual, tuple, list[Strip]]] = {}  # by the id of the text (kept alive here)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._drawn.clear()

    def render_line(self, y: int) -> Strip:
        visual = self.visual
        if self.text_selection is not None or ascii_mode(self):  # a selection, or text made anew per render
            return super().render_line(y)
        style = self.visual_style
        width, height = self.size
        shape = (width, height, style)
        kept = self._drawn.get(id(visual))
        if kept is None or kept[0] is not visual or kept[1] != shape:
            if len(self._drawn) >= self.KEPT:
                del self._drawn[next(iter(self._drawn))]
            kept = self._drawn[id(visual)] = (visual, shape, Visual.to_strips(self, visual, width, height, style))
        strips = kept[2]
        return strips[y] if y < len(strips) else Strip.blank(width, style.rich_style)


BOARD_FIGURES = ("game-id", "counters", "distance", "parity")  # the lines a board's figures are on
YIELDING_LINES = ("game-id", "parity")  # on a small screen, hidden while the solver's line or a message speaks


class GameStatus(Vertical):
    """Moves, clock, distance line, parity verdict, solver line and message, one Static each."""

    game_id: reactive[str] = reactive("", init=False, repaint=False)  # the start board's game ID (see solver.ids)
    moves: reactive[int] = reactive(0, init=False, repaint=False)
    seconds: reactive[int] = reactive(0, init=False, repaint=False)  # whole seconds on the clock
    distance: reactive[str] = reactive("", init=False, repaint=False)
    proof: reactive[Proof | None] = reactive(None, init=False, repaint=False)
    solver: reactive[str] = reactive("", init=False, repaint=False)
    message: reactive[str] = reactive("", init=False, repaint=False)
    frame: reactive[int] = reactive(0, init=False, repaint=False)  # the spinner's frame
    watchers: reactive[int] = reactive(0, init=False, repaint=False)  # how many watch the game live
    saving: reactive[str] = reactive("", init=False, repaint=False)  # whether saving is delayed (one line), or back
    phase: reactive[Phase] = reactive(Phase.READY, init=False, repaint=False)  # bound to the play screen's phase

    def __init__(self, title: str, *, ascii_only: bool = False, animate_spinner: bool = True, id: str | None = None,
                 beat: Callable[[], None] | None = None):
        """``beat``, if given, is called every few seconds while the panel is shown: the game's live heartbeat
        (it sets :attr:`watchers` when the store answers)."""
        super().__init__(id=id)
        self.beat = beat
        self.beat_timer: Timer | None = None
        self.title_text = title
        self.frames = ASCII_SPINNER if ascii_only else SPINNER
        self.animate_spinner = animate_spinner
        self.spin_timer: Timer | None = None
        self.held = False

    def compose(self) -> ComposeResult:
        yield PanelLine(self.title_text, id="title")
        yield PanelLine(id="game-id")
        yield PanelLine(self._counters_text(), id="counters")
        yield PanelLine(id="saving")  # under the counters: never pushed off a small terminal by a long message
        yield PanelLine(id="distance")
        yield PanelLine(id="parity")
        yield PanelLine(id="solver")
        yield PanelLine(id="message")

    def on_mount(self) -> None:
        self.watch_proof(self.proof)
        self.watch_message(self.message)
        self.watch_saving(self.saving)
        self.watch_phase(self.phase)
        self._spun()
        self._keep_beating()

    # --- the lines -------------------------------------------------------------------------------
    def _counters_text(self) -> Content:
        """Built as Content, not markup: the clock redraws this line every second, and parsing is most of it."""
        watching = ("\n", (f"{plural(self.watchers, 'watcher')} live", "dim")) if self.watchers else ()
        return Content.assemble("Moves ", (str(self.moves), "bold"), "   Time ", (clock_text(self.seconds), "bold"), *watching)

    def _spin(self, text: str) -> str:
        return text.replace(SPIN, self.frames[self.frame % len(self.frames)])

    def _line(self, line_id: str) -> Static:
        return self.query_one(f"#{line_id}", Static)

    def line_width(self) -> int:
        """The cells a line of the panel holds (40, a phone's, before the first layout)."""
        return self._line("solver").content_size.width or 40

    def _show(self, line_id: str, markup: str) -> None:
        """Put ``markup`` on a line: a repaint when it keeps its height, a layout pass only when its height may change."""
        line = self._line(line_id)
        content = parsed(markup)
        width, height = line.content_size
        plain = content.plain
        if not plain or width <= 0:
            same_height = False
        elif height == 1 and "\n" not in plain and content.cell_length <= width:
            same_height = True  # one line that fits: one line high, no wrapping to work out
        else:
            same_height = content.get_height(cast(RulesMap, line.styles), width) == height
        line.update(content, layout=not same_height)

    def watch_game_id(self, game_id: str) -> None:
        self._show("game-id", f"[dim]ID {shown_id(game_id)} (y copies)[/dim]" if game_id else "")

    def watch_moves(self) -> None:
        self._line("counters").update(self._counters_text(), layout=False)  # always one line: no layout pass

    def watch_seconds(self) -> None:
        self._line("counters").update(self._counters_text(), layout=False)

    def watch_watchers(self) -> None:
        self._line("counters").update(self._counters_text())  # one line more or less: a layout pass

    def watch_distance(self) -> None:
        self._show("distance", self._spin(self.distance))
        self._keep_spinning()

    def watch_solver(self) -> None:
        self._show("solver", LOADING if self.phase is Phase.LOADING else self._spin(self.solver))
        self._keep_spinning()
        self._make_room()

    def watch_frame(self) -> None:
        for line_id, text in (("distance", self.distance), ("solver", self.solver)):
            if SPIN in text and not (line_id == "solver" and self.phase is Phase.LOADING):
                self._show(line_id, self._spin(text))

    def watch_proof(self, proof: Proof | None) -> None:
        parity = self._line("parity")
        if proof is None:
            parity.update("")
            return
        verdict = "[b]solvable[/b]" if proof.solvable else "[b]NOT solvable[/b]"
        self._show("parity", f"Parity: {verdict}\n[dim]{proof.summary}[/dim]")
        parity.set_class(not proof.solvable, "-bad")

    def watch_message(self, message: str) -> None:
        self._show("message", message)
        self._make_room()

    def _make_room(self) -> None:
        """While the solver's line or a message says something, the ID and parity lines yield to them, and an empty
        one of the two yields too: on a small screen (``-narrow``, where the panel shows four lines or so below the
        board) the stylesheet hides what yields, so what the player is told now is never scrolled out of sight.
        Only a change of what yields restyles."""
        busy = bool(self.solver or self.message)
        hides = {**dict.fromkeys(YIELDING_LINES, busy), "solver": not self.solver, "message": not self.message}
        for line_id, hidden in hides.items():
            line = self._line(line_id)
            if line.has_class("-yields") != hidden:
                line.set_class(hidden, "-yields")

    def watch_phase(self, phase: Phase) -> None:
        """While the saved game is read, the panel shows no board's figures (they would be replaced), one line instead.
        The lines are hidden by their own style: a class on the panel would restyle all of it."""
        for line_id in BOARD_FIGURES:
            self._line(line_id).visible = phase is not Phase.LOADING
        self.watch_solver()

    def watch_saving(self, saving: str) -> None:
        self._line("saving").set_class(bool(saving), "-shown")  # an empty line takes no room at all
        self._show("saving", saving)

    # --- the spinner -----------------------------------------------------------------------------
    def hold(self, held: bool) -> None:
        """Stop the spinner while the screen is hidden; start it again (if still wanted) when shown."""
        self.held = held
        self._keep_spinning()
        self._keep_beating()

    def _keep_beating(self) -> None:
        """The live heartbeat runs while the panel is shown, and only then."""
        if self.beat is not None and not self.held and self.beat_timer is None and self.is_mounted:
            self._beat()
            self.beat_timer = self.set_interval(PLAYER_BEAT_SECONDS, self._beat)
        elif self.held and self.beat_timer is not None:
            self.beat_timer.stop()
            self.beat_timer = None

    def _beat(self) -> None:
        if self.beat is not None:
            self.beat()

    def _spun(self) -> None:
        self._show("distance", self._spin(self.distance))
        self._show("solver", self._spin(self.solver))
        self._keep_spinning()

    def _keep_spinning(self) -> None:
        wanted = self.animate_spinner and not self.held and (SPIN in self.distance or SPIN in self.solver)
        if wanted and self.spin_timer is None and self.is_mounted:
            self.spin_timer = self.set_interval(SPIN_SECONDS, self._next_frame)
        elif not wanted and self.spin_timer is not None:
            self.spin_timer.stop()
            self.spin_timer = None

    def _next_frame(self) -> None:
        self.frame += 1
