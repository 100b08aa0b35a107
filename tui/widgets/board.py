"""The sliding board: the whole grid drawn by one widget with Textual's line API, for every screen that shows one.

The play screen, Speed, races, replays, Watch, the parity lab and the loop demo show a board through this widget;
its :class:`~tui.widgets.looks.Look` says which pieces a state holds, how big its tiles are drawn
(:class:`~tui.widgets.looks.TileSizing`) and what each piece draws.  A move changes the state and repaints the lines
that changed: no widget moves and nothing is laid out.  A piece that travelled slides inside the widget, drawn at
:data:`SLIDE_STEPS` places on its way over :data:`MOVE_SECONDS` (none when animations are off).

The board only draws a state and reports presses; it never decides what is legal.  It shows a cursor and a hint
and, for Ura-omote, the row letters and column digits.  Each piece's colours and border come from the stylesheet's
component classes (``board--tile``, ``board--cursor``...: see ``koma.tcss``), merged in the order
:meth:`~tui.widgets.looks.Look.parts` names them; colour-blind themes and ASCII mode (``App.-ascii``) restyle them
there.  A press (a click's or a tap's, not its release: :class:`~tui.widgets.press.PressPlays`) on a cell posts
:class:`Board.CellPressed`, on a label :class:`Board.LinePressed`; the pointer reaching another cell (where the
terminal reports motion) posts :class:`Board.PointerOver` (Speed's hover control).
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.color import Color
from textual.geometry import Offset, Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.strip import Strip
from textual.timer import Timer
from textual.widget import Widget

from tui.widgets.looks import BOX_HEIGHT, NO_EDGE, Look, PieceSpec
from tui.widgets.press import PressPlays

__all__ = ["BOX_HEIGHT", "MOVE_SECONDS", "SLIDE_STEPS", "Board"]

MOVE_SECONDS = 0.12  # one move's slide; TEXTUAL_ANIMATIONS=none makes it instant
SLIDE_STEPS = 3  # a sliding piece is drawn at this many places on its way
ROW_LABEL_WIDTH, COLUMN_LABEL_HEIGHT = 3, 1


@dataclass(frozen=True)
class Part:
    """A piece's resolved look: the ``fill`` style of its text, ``room`` that of its inside round the text (no text
    style: a reversed text leaves it as it is), its ``edge`` type ("" for none) and
    the style its edge characters are drawn in on the piece's background (``edge_style``) and on the board's
    (``edge_outer``)."""

    fill: Style
    room: Style
    edge: str
    edge_style: Style
    edge_outer: Style


class Board(PressPlays, Widget):
    """A puzzle board drawn with a :class:`Look` (see the module's docstring)."""

    COMPONENT_CLASSES = {
        "board--tile", "board--blank", "board--fence", "board--door", "board--sheep", "board--wolf", "board--big",
        "board--white", "board--black", "board--cursor", "board--hint", "board--compact-tile",
        "board--compact-cursor", "board--compact-hint", "board--label", "board--label-current", "board--label-hint",
        "board--speed-tile", "board--speed-blank", "board--speed-border", "board--loop-tile", "board--loop-blank", "board--loop-moved",
        "board--loop-jump",
    }
    DEFAULT_CSS = """
    Board { width: 1fr; height: 1fr; }
    """

    class CellPressed(Message):
        """A cell was pressed (a click or a tap: the press plays, not the release)."""

        def __init__(self, board: Board, cell: int):
            super().__init__()
            self.board, self.cell = board, cell

    class PointerOver(Message):
        """The pointer moved onto ``cell`` (None: off the board); ``held``: a button or ctrl is held."""

        def __init__(self, board: Board, cell: int | None, held: bool):
            super().__init__()
            self.board, self.cell, self.held = board, cell, held

    class LinePressed(Message):
        """A row or column label was pressed (Ura-omote)."""

        def __init__(self, board: Board, move: str):
            super().__init__()
            self.board, self.move = board, move

    cursor: reactive[int] = reactive(0, init=False)

    def __init__(self, look: Look, state, *, id: str | None = None, classes: str | None = None):
        super().__init__(id=id, classes=classes)
        self.look = look
        self.state = tuple(state)
        self.specs: list[PieceSpec] = look.specs(self.state)
        self.hint_cells: set[int] = set()
        self.hint_lines: set[str] = set()
        self.marked: int | None = None  # a cell the look marks (the loop demo's last moved tile)
        self.hidden = False  # the numbers hidden (a blindfolded Speed solve)
        self.repaints = 0  # how many times the board asked to be repainted (tests bound it)
        self._slides: dict[int, tuple[int, int]] = {}  # index of a travelling spec: the cell it left, its cell
        self._slide_step = SLIDE_STEPS
        self._slide_timer: Timer | None = None
        self._parts: dict[tuple[str, ...], Part] = {}  # the resolved component styles, until the CSS changes
        self._pieces: dict[tuple, tuple[Strip, ...]] = {}  # pieces drawn, by what they show
        self._drawn_key: tuple = ()
        self._drawn_lines: list[tuple] = []  # what each line holds (its pieces' lines and places)
        self._drawn: list[Strip] = []
        self._own_style: Style | None = None
        self._partials: dict[str, Style] = {}
        self.pointer_cell: int | None = None  # the cell under the pointer, as last told (PointerOver)

    def on_mount(self) -> None:
        least_width, least_height = self.least_size()
        if least_width or least_height:
            self.styles.min_width, self.styles.min_height = least_width, least_height

    # --- geometry --------------------------------------------------------------------------------------
    @property
    def _label_room(self) -> tuple[int, int]:
        return (ROW_LABEL_WIDTH, COLUMN_LABEL_HEIGHT) if self.look.labels else (0, 0)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        """The board's height at the tiles its width allows (``height: auto`` in a narrow layout, where the
        board sits above its panel and the stylesheet caps its share of the screen)."""
        label_w, label_h = self._label_room
        return label_h + self.look.height * self.look.sizing.height_for_width(
            (width - label_w) // self.look.width)

    def least_size(self) -> tuple[int, int]:
        """The room the whole board needs at its smallest tiles: a layout never gives it less (a small terminal
        scrolls instead of cutting the board off)."""
        label_w, label_h = self._label_room
        least_w, least_h = self.look.sizing.least
        return self.look.width * least_w + label_w, self.look.height * least_h + label_h

    def tile_size(self, size: Size | None = None) -> tuple[int, int]:
        """The cells of one tile, its gaps included (for the board at ``size``, by default its own)."""
        return self._tiles(size or self.size)[:2]

    def _tiles(self, size: Size) -> tuple[int, int, bool]:
        label_w, label_h = self._label_room
        look = self.look
        return look.sizing.tiles((size.width - label_w) // look.width, (size.height - label_h) // look.height)

    @property
    def compact(self) -> bool:
        """Whether bordered tiles would not fit: tiles are then drawn without borders, a gap column (and a gap line
        where there is room) between them, so a 10x10 board stays whole and readable at 80x24."""
        return self.compact_at(self.size)

    def compact_at(self, size: Size) -> bool:
        return self._tiles(size)[2]

    @property
    def tile_width(self) -> int:
        return self.tile_size()[0]

    @property
    def tile_height(self) -> int:
        return self.tile_size()[1]

    def origin(self, size: Size | None = None) -> Offset:
        """Where the first cell's tile stands."""
        size = size or self.size
        tw, th = self.tile_size(size)
        label_w, label_h = self._label_room
        grid_w, grid_h = label_w + self.look.width * tw, label_h + self.look.height * th
        return Offset(max(0, (size.width - grid_w) // 2) + label_w, max(0, (size.height - grid_h) // 2) + label_h)

    def cell_offset(self, cell: int) -> Offset:
        """Where ``cell``'s tile stands in the widget."""
        tw, th = self.tile_size()
        row, col = divmod(cell, self.look.width)
        return self.origin() + Offset(col * tw, row * th)

    def cell_region(self, cell: int) -> Region:
        """The cells ``cell``'s tile takes in the widget (its gaps included)."""
        tw, th = self.tile_size()
        return Region(*self.cell_offset(cell), tw, th)

    def cell_origin(self, cell: int) -> tuple[int, int]:
        """The top-left point of ``cell``'s tile in the widget."""
        return tuple(self.cell_offset(cell))  # type: ignore[return-value]

    @property
    def columns(self) -> int:
        return self.look.width

    @property
    def rows(self) -> int:
        return self.look.height

    @property
    def boxed(self) -> bool:
        """Whether the tiles are boxes (else compact cells)."""
        return not self.compact

    def piece_on(self, cell: int) -> PieceSpec:
        """The piece that covers ``cell``."""
        return next(spec for spec in self.specs if spec.covers(cell, self.look.width))

    def hinted(self) -> list[PieceSpec]:
        """The pieces the hint highlights."""
        return [spec for spec in self.specs if any(spec.covers(cell, self.look.width) for cell in self.hint_cells)]

    def text_lines(self) -> list[str]:
        """What the board draws, as plain lines (for reading it back)."""
        self.render_line(0)
        return [strip.text for strip in self._drawn]

    def cell_at(self, x: int, y: int) -> int | None:
        """The cell under the widget's point (``x``, ``y``), if any."""
        tw, th = self.tile_size()
        origin = self.origin()
        if x < origin.x or y < origin.y or not tw or not th:
            return None
        col, row = (x - origin.x) // tw, (y - origin.y) // th
        if not (0 <= col < self.look.width and 0 <= row < self.look.height):
            return None
        return row * self.look.width + col

    def line_at(self, x: int, y: int) -> str | None:
        """The row letter or column digit whose label is under (``x``, ``y``), if any."""
        if not self.look.labels:
            return None
        tw, th = self.tile_size()
        origin = self.origin()
        if origin.x - ROW_LABEL_WIDTH <= x < origin.x and origin.y <= y < origin.y + self.look.height * th:
            return chr(ord("A") + (y - origin.y) // th)
        if origin.y - COLUMN_LABEL_HEIGHT <= y < origin.y and origin.x <= x < origin.x + self.look.width * tw:
            return str((x - origin.x) // tw + 1)
        return None

    # --- presses ---------------------------------------------------------------------------------------
    def on_mouse_down(self, event: events.MouseDown) -> None:
        """A press plays at once (not the click its release makes): a tap moves as soon as a key does."""
        event.stop()
        line = self.line_at(event.x, event.y)
        if line is not None:
            self.post_message(self.LinePressed(self, line))
            return
        cell = self.cell_at(event.x, event.y)
        if cell is not None:
            if self.look.shows_cursor:
                self.cursor = cell
            self.post_message(self.CellPressed(self, cell))

    def on_mouse_move(self, event: events.MouseMove) -> None:
        """Tell when the pointer reaches another cell; moves within a cell say nothing."""
        cell = self.cell_at(event.x, event.y)
        if cell != self.pointer_cell:
            self.pointer_cell = cell
            self.post_message(self.PointerOver(self, cell, bool(event.button) or event.ctrl))

    def on_leave(self, event: events.Leave) -> None:
        self.pointer_cell = None

    # --- showing a state -------------------------------------------------------------------------------
    def show(self, state, animate: bool = True, marked: int | None = None) -> None:
        """Draw ``state`` (with ``marked`` the cell the look marks); pieces that travelled slide to their cells."""
        state = tuple(state)
        self.marked = marked
        if state == self.state:
            self._redraw()
            return
        old = self.specs
        self.state, self.specs = state, self.look.specs(state)
        self._end_slide()
        if animate and self.is_mounted and self.app.animation_level != "none" and self.look.slides and not self.look.identity_by_cell:
            self._slides = _travels(old, self.specs)
            if self._slides:
                self._slide_step = 1
                self._slide_timer = self.set_interval(MOVE_SECONDS / SLIDE_STEPS, self._slide_on)
        self._redraw()

    def _slide_on(self) -> None:
        self._slide_step += 1
        if self._slide_step >= SLIDE_STEPS:
            self._end_slide()
        self._redraw()

    def _end_slide(self) -> None:
        if self._slide_timer is not None:
            self._slide_timer.stop()
            self._slide_timer = None
        self._slides = {}
        self._slide_step = SLIDE_STEPS

    def hide_numbers(self, hidden: bool) -> None:
        """Draw the tiles without their numbers (a blindfolded solve), or with them again."""
        if hidden != self.hidden:
            self.hidden = hidden
            self._redraw()

    # --- cursor and hints ------------------------------------------------------------------------------
    def watch_cursor(self) -> None:
        self._redraw()

    def move_cursor(self, d_row: int, d_col: int) -> None:
        row, col = divmod(self.cursor, self.look.width)
        row = min(self.look.height - 1, max(0, row + d_row))
        col = min(self.look.width - 1, max(0, col + d_col))
        self.cursor = row * self.look.width + col

    def set_hint(self, cells: set[int] | None = None, lines: set[str] | None = None) -> None:
        self.hint_cells = set(cells or ())
        self.hint_lines = set(lines or ())
        self._redraw()

    # --- drawing ---------------------------------------------------------------------------------------
    def restyle(self) -> None:
        """Draw every piece again: the look changed how its pieces look (Speed's colour scheme)."""
        self._pieces, self._drawn_key = {}, ()
        self._redraw()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._parts, self._partials, self._pieces, self._drawn_key, self._own_style = {}, {}, {}, (), None

    @property
    def base_style(self) -> Style:
        """The board's own style (its background and colour), read once until the CSS changes."""
        if self._own_style is None:
            self._own_style = self.rich_style
        return self._own_style

    def _redraw(self) -> None:
        """Make the lines again and repaint those that changed (nothing if none did)."""
        if not self.is_mounted or not self.size.width:
            return
        changed = self._draw()
        if changed:
            self.repaints += 1
            self.refresh(*changed)

    def render_line(self, y: int) -> Strip:
        if self._key() != self._drawn_key:
            self._draw()
        return self._drawn[y] if y < len(self._drawn) else Strip.blank(self.size.width, self.base_style)

    def _key(self) -> tuple:
        return (self.size, self.state, self.cursor, frozenset(self.hint_cells), frozenset(self.hint_lines),
                self.marked, self.hidden, self._slide_step, tuple(self._slides.items()))

    def partial(self, name: str) -> Style:
        """Component class ``name``'s own style (its colour as the stylesheet gives it, over nothing)."""
        style = self._partials.get(name)
        if style is None:
            style = self._partials[name] = self.get_component_rich_style(name, partial=True)
        return style

    def part(self, *names: str) -> Part:
        """The look of component classes ``names`` merged in order, as Textual would draw a widget so styled on
        this board: its background over the board's, its colour (``auto`` against that background), its edge."""
        part = self._parts.get(names)
        if part is None:
            styles = self.get_component_styles(*names)
            board_style = self.base_style
            outer = Color.from_rich_color(board_style.bgcolor) if board_style.bgcolor else Color(0, 0, 0, 0)
            background = outer + styles.background if styles.has_rule("background") else outer
            color = styles.color if styles.has_rule("color") else (
                Color.from_rich_color(board_style.color) if board_style.color else Color(255, 255, 255))
            if styles.has_rule("auto_color") and styles.auto_color:
                color = background.get_contrast_text(color.a)
            room = Style(color=(background + color).rich_color, bgcolor=background.rich_color)
            fill = room + styles.text_style
            edge, edge_color = styles.border_top if styles.has_rule("border_top") else ("", Color(0, 0, 0, 0))
            edge_rich = (outer + edge_color).rich_color
            part = Part(fill, room, "" if edge in NO_EDGE else edge, Style(color=edge_rich, bgcolor=background.rich_color),
                        Style(color=edge_rich, bgcolor=outer.rich_color))
            self._parts[names] = part
        return part

    def _piece(self, spec: PieceSpec, width: int, height: int, compact: bool) -> tuple[Strip, ...]:
        """``spec``'s lines at ``width`` x ``height`` cells, drawn once per what they show."""
        width_cells = self.look.width
        cursor = self.look.shows_cursor and spec.covers(self.cursor, width_cells)
        hint = any(spec.covers(cell, width_cells) for cell in self.hint_cells)
        marked = self.marked is not None and spec.covers(self.marked, width_cells)
        key = (spec, width, height, compact, cursor, hint, marked, self.hidden)
        strips = self._pieces.get(key)
        if strips is None:
            lines = self.look.draw_piece(self, spec, width, height, compact=compact, cursor=cursor, hint=hint,
                                         marked=marked, hidden=self.hidden)
            base = self.base_style
            strips = tuple(Strip([Segment(text, style) for text, style in line]).adjust_cell_length(width, base)
                           for line in lines)
            self._pieces[key] = strips
        return strips

    def _placements(self) -> list[tuple[int, int, tuple[Strip, ...]]]:
        """Every piece and label as (x, y, its lines), the travelling pieces last (drawn over the rest)."""
        size = self.size
        tw, th, compact = self._tiles(size)
        origin = self.origin(size)
        gap_x, gap_y = self.look.sizing.gaps(th) if compact else (0, 0)
        width = self.look.width
        placed: list[tuple[int, int, tuple[Strip, ...]]] = []
        sliding: list[tuple[int, int, tuple[Strip, ...]]] = []
        for index, spec in enumerate(self.specs):
            strips = self._piece(spec, spec.span * tw - gap_x, th - gap_y, compact)
            row, col = divmod(spec.cell, width)
            x, y = origin.x + col * tw, origin.y + row * th
            slide = self._slides.get(index)
            if slide is None:
                placed.append((x, y, strips))
                continue
            if spec.kind == "blank":
                continue  # the gap a tile leaves shows the board until the slide ends
            from_row, from_col = divmod(slide[0], width)
            start_x, start_y = origin.x + from_col * tw, origin.y + from_row * th
            step = self._slide_step
            sliding.append((start_x + (x - start_x) * step // SLIDE_STEPS,
                            start_y + (y - start_y) * step // SLIDE_STEPS, strips))
        return placed + sliding + self._labels(origin, tw, th)

    def _labels(self, origin: Offset, tw: int, th: int) -> list[tuple[int, int, tuple[Strip, ...]]]:
        if not self.look.labels:
            return []
        row, col = divmod(self.cursor, self.look.width)
        out = []
        for r in range(self.look.height):
            move = chr(ord("A") + r)
            out.append((origin.x - ROW_LABEL_WIDTH, origin.y + r * th,
                        self._label(move, ROW_LABEL_WIDTH, th, current=r == row)))
        for c in range(self.look.width):
            move = str(c + 1)
            out.append((origin.x + c * tw, origin.y - COLUMN_LABEL_HEIGHT, self._label(move, tw, 1, current=c == col)))
        return out

    def _label(self, move: str, width: int, height: int, *, current: bool) -> tuple[Strip, ...]:
        """A row letter or column digit, centred in its ``width`` x ``height`` cells."""
        hint = move in self.hint_lines
        key = ("label", move, width, height, current, hint)
        strips = self._pieces.get(key)
        if strips is None:
            names = ("board--label",) + (("board--label-current",) if current else ()) + (
                ("board--label-hint",) if hint else ())
            fill = self.part(*names).fill
            base = self.base_style
            left = (width - len(move)) // 2
            top = (height - 1) // 2
            strips = tuple(Strip([Segment(" " * left, base), Segment(move, fill)]).adjust_cell_length(width, base)
                           if y == top else Strip.blank(width, base) for y in range(height))
            self._pieces[key] = strips
        return strips

    def _draw(self) -> list[Region]:
        """Make every line from the pieces' lines; the regions of the lines that changed."""
        size = self.size
        base = self.base_style
        lines: list[list[tuple[int, Strip]]] = [[] for _ in range(size.height)]
        for x, y, strips in self._placements():
            for k, strip in enumerate(strips):
                if 0 <= y + k < size.height:
                    lines[y + k].append((x, strip))
        whole = len(self._drawn) != size.height or (self._drawn and self._drawn[0].cell_length != size.width)
        changed: list[Region] = []
        drawn: list[Strip] = []
        held: list[tuple] = []
        for y, runs in enumerate(lines):
            runs.sort(key=lambda run: run[0])
            key = tuple((x, id(strip)) for x, strip in runs)
            if not whole and key == self._drawn_lines[y]:
                drawn.append(self._drawn[y])
            else:
                drawn.append(_join(runs, size.width, base))
                if not whole:
                    changed.append(_changed_span(self._drawn_lines[y], key, y, size.width))
            held.append(key)
        self._drawn, self._drawn_lines, self._drawn_key = drawn, held, self._key()
        return [size.region] if whole else changed


def _join(runs: list[tuple[int, Strip]], width: int, base: Style) -> Strip:
    """One line: each run's strip at its column over the board's background (a later run over an earlier)."""
    strips: list[Strip] = []
    column = 0
    for x, strip in runs:
        if x > column:
            strips.append(Strip.blank(x - column, base))
        elif x < column:
            strip = strip.crop(column - x)  # a sliding piece over its neighbour's edge
            x = column
        strips.append(strip)
        column = x + strip.cell_length
    return Strip.join(strips).adjust_cell_length(width, base).crop(0, width) if strips else Strip.blank(width, base)


def _changed_span(before: tuple, now: tuple, y: int, width: int) -> Region:
    """The part of line ``y`` between the first and the last run that changed."""
    if len(before) != len(now) or any(a[0] != b[0] for a, b in zip(before, now, strict=True)):
        return Region(0, y, width, 1)
    changed = [index for index, (a, b) in enumerate(zip(before, now, strict=True)) if a != b]
    left = now[changed[0]][0]
    right = now[changed[-1] + 1][0] if changed[-1] + 1 < len(now) else width
    return Region(left, y, max(1, right - left), 1)


def _travels(old: list[PieceSpec], new: list[PieceSpec]) -> dict[int, tuple[int, int]]:
    """The pieces of ``new`` that travelled from a cell of ``old``: index in ``new``: (the cell left, its cell).
    A piece that stayed on its cell stays; the others came from the nearest free cell of a piece of their code."""
    staying = {(spec.code, spec.cell) for spec in old}
    kept = {(spec.code, spec.cell) for spec in new} & staying
    free = [spec for spec in old if (spec.code, spec.cell) not in kept]
    out: dict[int, tuple[int, int]] = {}
    for index, spec in enumerate(new):
        if (spec.code, spec.cell) in kept:
            continue
        same = [p for p in free if p.code == spec.code]
        if not same:
            return {}  # a different set of pieces: drawn where they stand
        match = min(same, key=lambda p: abs(p.cell - spec.cell))
        free.remove(match)
        out[index] = (match.cell, spec.cell)
    return out
