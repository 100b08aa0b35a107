"""How each puzzle looks: which pieces a board shows, how big its tiles are and what each piece draws.

A *look* turns a state (the puzzle's cell codes, see the solver modules) into piece specs, and draws
one piece at a given size as lines of styled text for :class:`~tui.widgets.board.Board`.  It knows the
notation's codes and glyphs, never the rules: moves always come from the :class:`~solver.puzzle.Puzzle`.
Speed's boxes (:class:`SpeedLook`) and the loop demo's arrows (:class:`LoopLook`) are looks too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.renderables.digits import Digits

from solver.goat import notation as goat
from solver.puzzle import Puzzle
from solver.sliding.loop import JUMP_POSITIONS, LOOP_ARROWS, LOOP_CELLS
from tui.game.speed_layout import label_digits
from tui.game.speed_schemes import PLAIN, board_groups, group_colours, group_mark, text_colour
from tui.themes import COLORBLIND


class Board(Protocol):
    """What a look reads of the board it draws for (:class:`tui.widgets.board.Board`, which imports the looks)."""

    @property
    def app(self) -> Any: ...

    @property
    def base_style(self) -> Style: ...

    def partial(self, name: str) -> Style: ...

    def part(self, *names: str) -> Any: ...

# Textual's border characters (top, middle, bottom rows; left, centre, right) for the edges the stylesheet gives pieces
EDGES = {
    "round": (("╭", "─", "╮"), ("│", " ", "│"), ("╰", "─", "╯")),
    "solid": (("┌", "─", "┐"), ("│", " ", "│"), ("└", "─", "┘")),
    "heavy": (("┏", "━", "┓"), ("┃", " ", "┃"), ("┗", "━", "┛")),
    "double": (("╔", "═", "╗"), ("║", " ", "║"), ("╚", "═", "╝")),
    "ascii": (("+", "-", "+"), ("|", " ", "|"), ("+", "-", "+")),
    "tall": (("▊", "▔", "▎"), ("▊", " ", "▎"), ("▊", "▁", "▎")),
}
# which background each column of an edge stands on, as Textual draws it: 0 the piece's, 1 the board's, 2 the board's
# reversed over the edge colour (the left column of a ``tall`` edge)
EDGE_PLACES = {"tall": (2, 0, 1)}
NO_EDGE = ("", "none", "hidden", "blank")

Runs = list[tuple[str, Style]]  # a line of a piece: runs of text, each in its style
BOX_HEIGHT = 3  # the smallest boxed tile: a border round one line


class TileSizing:
    """How big tiles are drawn, from the cells a tile could have: bordered boxes where they fit (a box no wider than
    about twice its height), else compact ones (no border, a gap column and, where there is room, a gap line)."""

    least = (3, 1)  # a compact tile: two digits and its gap column, one line
    box_least, box_most = (5, BOX_HEIGHT), (17, 7)
    compact_most = (6, 2)
    square = True  # boxes keep about twice as wide as high

    def tiles(self, width: int, height: int) -> tuple[int, int, bool]:
        """(width, height, compact) of a tile given ``width`` x ``height`` cells for each."""
        (least_w, least_h), (most_w, most_h) = self.box_least, self.box_most
        if width < least_w or height < least_h:
            return (max(self.least[0], min(self.compact_most[0], width)),
                    max(1, min(self.compact_most[1], height)), True)
        th = max(least_h, min(most_h, height))
        if not self.square:
            return min(most_w, width), th, False
        tw = max(least_w, min(most_w, width, 2 * th + 3))
        return tw, max(least_h, min(th, tw // 2 + 1)), False

    def height_for_width(self, width: int) -> int:
        """A tile's height where its width is ``width`` cells and its height is free (``height: auto``)."""
        tw = max(self.box_least[0], min(self.box_most[0], width))
        return max(self.box_least[1], min(self.box_most[1], tw // 2 + 1))

    def gaps(self, height: int) -> tuple[int, int]:
        """The gap column and line a compact tile ``height`` lines high leaves (they are part of its cells)."""
        return 1, 1 if height > 1 else 0


class SpeedSizing(TileSizing):
    """Speed's tiles: boxes up to 12x5 from 6x3, else compact cells of the number's ``digits`` and one gap column (two
    where there is room: 4x2 up to 10x10, 5x2 past it, to the 20x20); the board takes what it is given."""

    least = (0, 0)
    box_least, box_most = (6, BOX_HEIGHT), (12, 5)
    square = False

    def __init__(self, digits: int = 2):
        self.compact_least = digits + 1
        self.compact_most = (digits + 2, 2)

    def tiles(self, width: int, height: int) -> tuple[int, int, bool]:
        tile_width, tile_height, compact = super().tiles(width, height)
        return (max(self.compact_least, tile_width) if compact else tile_width), tile_height, compact

    def gaps(self, height: int) -> tuple[int, int]:
        return 0, 0  # Speed's compact cells draw their own gap


class FixedSizing(TileSizing):
    """Tiles of one size whatever the room (the loop demo's 8x3 boxes)."""

    def __init__(self, width: int, height: int):
        self.size = (width, height)
        self.least = self.size

    def tiles(self, width: int, height: int) -> tuple[int, int, bool]:
        return self.size[0], self.size[1], False

    def height_for_width(self, width: int) -> int:
        return self.size[1]


def render_lines(board: Board, renderable: Any, width: int, height: int, fill: Style,
                 room: Style) -> list[list[Segment]]:
    """``renderable`` drawn in ``width`` x ``height`` cells in ``fill``, centred both ways as ``content-align: center
    middle`` and ``text-align: center`` do (the room round it in ``room``): a text's lines each centred apart, another
    renderable as a block."""
    if not renderable or width <= 0 or height <= 0:
        return [[] for _ in range(max(0, height))]
    console = board.app.console
    if isinstance(renderable, Text):
        base = fill + console.get_style(renderable.style)
        lines = [[Segment(seg.text, base + seg.style if isinstance(seg.style, Style) else base)
                  for seg in line.render(console)] for line in renderable.split("\n", allow_blank=True)]
        block = False
    else:
        options = console.options.update(width=width, height=None, no_wrap=True, overflow="crop")
        lines = console.render_lines(renderable, options, style=fill, pad=False)
        block = True
    lines = [Segment.adjust_line_length(line, min(width, Segment.get_line_length(line)), fill) for line in lines]
    while lines and not Segment.get_line_length(lines[-1]):
        lines.pop()
    lines = lines[:height]
    widest = max((Segment.get_line_length(line) for line in lines), default=0)
    out: list[list[Segment]] = [[] for _ in range((height - len(lines)) // 2)]
    for line in lines:
        left = (width - (widest if block else Segment.get_line_length(line))) // 2
        out.append(([Segment(" " * left, room)] if left else []) + line)
    out.extend([] for _ in range(height - len(out)))
    return out


GOAT_CLASSES = ("blank", "fence", "fence", "fence", "fence", "sheep", "wolf", "door", "fence", "big")  # code -> CSS kind


@dataclass(frozen=True)
class PieceSpec:
    """One piece on the board: its kind (``code``), top-left ``cell`` and width in cells."""

    code: int
    cell: int
    span: int = 1
    kind: str = "tile"  # CSS class: tile, blank, fence, door, sheep, wolf, big, white, black

    def covers(self, cell: int, width: int) -> bool:
        row, col = divmod(self.cell, width)
        return cell // width == row and col <= cell % width < col + self.span


class Look:
    """The sliding-tile look: numbered boxes and a blank."""

    arrows_move = True  # arrows slide a piece into the blank; False: arrows move the cursor
    labels = False  # row letters and column digits around the board
    blank_code = 0
    identity_by_cell = False  # True: a piece never travels (Ura-omote cells)
    shows_cursor = True
    slides = True  # a piece that travelled slides to its cell; False: it is drawn there at once
    sizing: TileSizing = TileSizing()

    def __init__(self, width: int, height: int, ascii_only: bool = False):
        self.width, self.height, self.ascii = width, height, ascii_only

    def specs(self, state) -> list[PieceSpec]:
        return [PieceSpec(v, i, 1, "blank" if v == self.blank_code else "tile") for i, v in enumerate(state)]

    def draw(self, spec: PieceSpec, width: int, height: int):
        """The piece's content for a ``width`` x ``height`` content area."""
        if spec.kind == "blank":
            return ""
        label = str(spec.code)
        if not self.ascii and height >= 3 and width >= Digits.get_width(label) + 1:
            return Digits(label)
        return Text(label, style="bold")

    def parts(self, spec: PieceSpec, *, compact: bool, cursor: bool, hint: bool) -> tuple[str, ...]:
        """The board's component classes that style ``spec``, merged in this order (a later one wins)."""
        marks = ("cursor",) * cursor + ("hint",) * hint
        prefix = "board--compact-" if compact else "board--"
        return (f"board--{spec.kind}",) + (("board--compact-tile",) if compact and spec.kind == "tile" else ()) + tuple(
            prefix + mark for mark in marks)

    def draw_piece(self, board: Board, spec: PieceSpec, width: int, height: int, *, compact: bool, cursor: bool,
                   hint: bool, marked: bool, hidden: bool) -> list[Runs]:
        """``spec`` as ``height`` lines of ``width`` cells: its edge (none when compact) round what :meth:`draw`
        gives, styled as the stylesheet styles its :meth:`parts`."""
        part = board.part(*self.parts(spec, compact=compact, cursor=cursor, hint=hint))
        edge = "" if compact else part.edge
        inner_w, inner_h = (width - 2, height - 2) if edge else (width, height)
        content = render_lines(board, self.draw(spec, inner_w, inner_h), inner_w, inner_h, part.fill, part.room)
        body = [[(seg.text, seg.style or part.fill) for seg in line] for line in content]
        body = [_pad(line, inner_w, part.room) for line in body]
        if not edge:
            return body
        places = EDGE_PLACES.get(edge, (0, 0, 0))
        styles = (part.edge_style, part.edge_outer, part.edge_outer + Style(reverse=True))
        (top, middle, bottom) = EDGES[edge]

        def edged(chars: tuple[str, str, str], inside: Runs | None) -> Runs:
            left, centre, right = chars
            runs: Runs = [(left, styles[places[0]])]
            runs += inside if inside is not None else [(centre * inner_w, styles[places[1]])]
            return runs + [(right, styles[places[2]])]

        return [edged(top, None)] + [edged(middle, line) for line in body] + [edged(bottom, None)]

    def move_for_cell(self, puzzle: Puzzle, state: tuple, cell: int) -> str | None:
        """The legal move that carries the piece on ``cell`` into the blank, if any (the puzzle says what is legal)."""
        piece = next((spec for spec in self.specs(state) if spec.covers(cell, self.width)), None)
        if piece is None or piece.kind == "blank":
            return None
        covered = range(piece.cell, piece.cell + piece.span)
        for move in puzzle.moves(state):
            after = puzzle.apply(state, move)
            if any(after[c] != state[c] for c in covered):
                return move
        return None

    def line_moves_for_cell(self, puzzle: Puzzle, state: tuple, cell: int) -> list[str]:
        """The moves that slide the piece on ``cell`` into the blank: one when it is next to the blank; for a
        piece further along the blank's row or column, the whole line between them moves (one move per piece,
        nearest first); none when it cannot get there in a straight line."""
        move = self.move_for_cell(puzzle, state, cell)
        if move is not None:
            return [move]
        blanks = [i for i, v in enumerate(state) if v == self.blank_code]
        if len(blanks) != 1 or self.identity_by_cell:
            return []
        row, col = divmod(cell, self.width)
        blank_row, blank_col = divmod(blanks[0], self.width)
        if (row == blank_row) == (col == blank_col):  # not in the blank's line (or the blank itself)
            return []
        step = (1 if cell > blanks[0] else -1) * (1 if row == blank_row else self.width)
        moves: list[str] = []
        for between in range(blanks[0] + step, cell + step, step):
            move = self.move_for_cell(puzzle, state, between)
            if move is None:
                return []
            moves.append(move)
            state = puzzle.apply(state, move)
        return moves

    def rows_text(self, state) -> list[str]:
        """The board read row by row, for a screen reader: ``row 1: 5, 3, blank, 8``."""
        return [f"row {r + 1}: " + ", ".join(self.cell_name(state, r * self.width + c) for c in range(self.width))
                for r in range(self.height)]

    def cell_name(self, state, cell: int) -> str:
        return "blank" if state[cell] == self.blank_code else str(state[cell])

    def move_text(self, before, move: str) -> str:
        """A played move in a few words, for a screen reader: ``5 left``."""
        blank = next((i for i, v in enumerate(before) if v == self.blank_code), None)
        step = {"U": self.width, "D": -self.width, "L": 1, "R": -1}.get(move)
        direction = {"U": "up", "D": "down", "L": "left", "R": "right"}.get(move, move)
        if blank is None or step is None or not 0 <= blank + step < len(before):
            return f"moved {direction}"
        return f"{self.cell_name(before, blank + step)} {direction}"

    def hint(self, puzzle: Puzzle, state: tuple, move: str) -> tuple[set[int], set[str], str]:
        """How to show a hinted ``move``: the cells and row/column labels to highlight, and what to say."""
        after = puzzle.apply(state, move)
        changed = {i for i in range(len(state)) if after[i] != state[i]}
        if self.identity_by_cell:
            return changed, {move}, f"turn {'row' if move.isalpha() else 'column'} {move} over"
        direction = {"U": "up", "D": "down", "L": "left", "R": "right"}.get(move, move)
        return {i for i in changed if state[i] != self.blank_code}, set(), f"move the highlighted piece {direction}"

    def mini(self, state) -> str:
        """A few lines for a preview."""
        w = self.width
        cells = [("." if v == 0 else str(v)).rjust(2) for v in state]
        return "\n".join(" ".join(cells[r * w:(r + 1) * w]) for r in range(self.height))


class GoatLook(Look):
    """Goat: fences drawn as lines that join up across pieces, 羊 and 狼 as wide glyphs, the big piece."""

    def specs(self, state) -> list[PieceSpec]:
        out = []
        skip = False
        for i, v in enumerate(state):
            if skip:
                skip = False
                continue
            if v == goat.BIG:
                out.append(PieceSpec(v, i, 2, "big"))
                skip = True
            else:
                out.append(PieceSpec(v, i, 1, GOAT_CLASSES[v]))
        return out

    def draw(self, spec: PieceSpec, width: int, height: int):
        if spec.kind == "blank":
            return ""
        if self.ascii:
            letter = goat.ASCII[spec.code]
            return Text(letter + letter if spec.code == goat.BIG else letter, style="bold")
        if spec.code in (goat.SHEEP, goat.WOLF, goat.BIG):
            return Text(goat.GLYPHS[spec.code], style="bold")
        return Text("\n".join(fence_art(goat.GLYPHS[spec.code], width, height)))

    def cell_name(self, state, cell: int) -> str:
        return {goat.SHEEP: "sheep", goat.WOLF: "wolf", goat.BIG: "big piece", goat.DOOR: "door"}.get(
            state[cell], "blank" if state[cell] == self.blank_code else "fence")

    def mini(self, state) -> str:
        if not self.ascii:
            return goat.format_unicode(state)
        return "\n".join(" ".join(goat.ASCII[v] for v in state[r * self.width:(r + 1) * self.width]) for r in range(self.height))


def fence_art(glyph: str, width: int, height: int) -> list[str]:
    """The fence glyph scaled to fill a piece: its strokes run from the centre to the edges they touch."""
    cx, cy = (width - 1) // 2, (height - 1) // 2
    up = glyph in "│└┘‖"
    down = glyph in "│┌‖"
    left = glyph in "─┘"
    right = glyph in "─┌└"
    vertical = "║" if glyph == "‖" else "│"
    lines = []
    for y in range(height):
        row = []
        for x in range(width):
            ch = " "
            if x == cx and y == cy:
                ch = "║" if glyph == "‖" else glyph
            elif y == cy and ((x < cx and left) or (x > cx and right)):
                ch = "─"
            elif x == cx and ((y < cy and up) or (y > cy and down)):
                ch = vertical
            row.append(ch)
        lines.append("".join(row))
    return lines


class UraLook(Look):
    """Ura-omote: white (front) and black (back) cells, rows lettered A.. and columns numbered 1.."""

    arrows_move = False
    labels = True
    blank_code = -1
    identity_by_cell = True

    def specs(self, state) -> list[PieceSpec]:
        return [PieceSpec(v, i, 1, "black" if v else "white") for i, v in enumerate(state)]

    def cell_name(self, state, cell: int) -> str:
        return "black" if state[cell] else "white"

    def move_text(self, before, move: str) -> str:
        return f"{'row' if move.isalpha() else 'column'} {move} turned over"

    def draw(self, spec: PieceSpec, width: int, height: int):
        if self.ascii:
            return Text("B" if spec.code else "W", style="bold")
        return Text("●" if spec.code else "○")

    def mini(self, state) -> str:
        w = self.width
        marks = ("W", "B") if self.ascii else ("□", "■")
        return "\n".join(" ".join(marks[v] for v in state[r * w:(r + 1) * w]) for r in range(self.height))


def _pad(line: Runs, width: int, style: Style) -> Runs:
    used = sum(len(text) if text.isascii() else Segment(text).cell_length for text, _ in line)
    return line + [(" " * (width - used), style)] if used < width else line


class SpeedLook(Look):
    """Speed's board: tiles boxed up to 12x5 with the number on the middle line (never big digits), else compact
    cells with the number at the right and a gap column; the numbers hide in a blindfolded solve.

    With a colour ``scheme`` (:mod:`tui.game.speed_schemes`) each tile takes its layer's colour, the Okabe-Ito palette
    in the colour-blind theme, and in ASCII mode its layer's letter too (in its box's top edge, or its gap column);
    hidden numbers hide the layers as well.  :meth:`colour_by` changes the scheme (then :meth:`Board.restyle`)."""

    shows_cursor = False
    slides = False
    sizing: TileSizing = SpeedSizing()

    def __init__(self, width: int, height: int, ascii_only: bool = False, *, scheme: str = PLAIN):
        super().__init__(width, height, ascii_only)
        self.sizing = SpeedSizing(label_digits(width, height))
        self._layer_styles: dict[bool, tuple[Style, ...]] = {}  # per colour-blind theme or not
        self.colour_by(scheme)

    def colour_by(self, scheme: str) -> None:
        self.scheme = scheme
        self.groups = board_groups(scheme, self.width, self.height)  # each tile value's layer (None: none)
        self._layer_styles = {}

    def _layer(self, board: Board, spec: PieceSpec, hidden: bool) -> tuple[Style | None, str]:
        """The style of ``spec``'s layer (None: the stylesheet's tile) and its ASCII mark ("" when none)."""
        group = self.groups[spec.code] if spec.kind == "tile" and spec.code < len(self.groups) else None
        if group is None or hidden:
            return None, ""
        colour_blind = board.app.theme == COLORBLIND.name
        styles = self._layer_styles.get(colour_blind)
        if styles is None:
            count = max((g for g in self.groups if g is not None), default=-1) + 1
            styles = self._layer_styles[colour_blind] = tuple(
                Style(bgcolor=colour, color=text_colour(colour), bold=True)
                for colour in group_colours(count, colour_blind=colour_blind))
        return styles[group], group_mark(group) if self.ascii else ""

    def draw_piece(self, board: Board, spec: PieceSpec, width: int, height: int, *, compact: bool, cursor: bool,
                   hint: bool, marked: bool, hidden: bool) -> list[Runs]:
        tile, blank, edge = (board.partial(f"board--speed-{part}") for part in ("tile", "blank", "border"))
        label = "" if spec.kind == "blank" or hidden else str(spec.code)
        layer, mark = self._layer(board, spec, hidden)
        if layer is not None:
            tile = edge = layer
        if compact:
            gap = (mark or " ", board.base_style)
            return [[(label.rjust(width - 1), blank if spec.kind == "blank" else tile), gap]] + [
                [] for _ in range(height - 1)]
        if spec.kind == "blank":
            return [[(" " * width, blank)] for _ in range(height)]
        tl, tr, bl, br, h, v = ("+", "+", "+", "+", "-", "|") if self.ascii else ("╭", "╮", "╰", "╯", "─", "│")
        top = (mark + h * (width - 3)) if mark else h * (width - 2)
        lines: list[Runs] = [[(tl + top + tr, edge)]]
        for k in range(1, height - 1):
            lines.append([(v, edge), ((label if k == height // 2 else "").center(width - 2), tile), (v, edge)])
        return lines + [[(bl + h * (width - 2) + br, edge)]]


JUMP_CELLS = frozenset(r * 4 + c for r, c in (LOOP_CELLS[i] for i in JUMP_POSITIONS))
ASCII_ARROWS = str.maketrans("↓←↑→", "v<^>")


class LoopLook(Look):
    """The 15-puzzle with article 003's loop drawn over it: each cell's arrow, the jump cells boxed twice, the tile
    that moved last (the board's ``marked`` cell) highlighted."""

    shows_cursor = False
    slides = False
    sizing: TileSizing = FixedSizing(8, 3)

    def __init__(self, ascii_only: bool = False):
        super().__init__(4, 4, ascii_only)

    def draw_piece(self, board: Board, spec: PieceSpec, width: int, height: int, *, compact: bool, cursor: bool,
                   hint: bool, marked: bool, hidden: bool) -> list[Runs]:
        cell, value = spec.cell, spec.code
        jump = cell in JUMP_CELLS
        if self.ascii:
            tl = tr = bl = br = "+"
            h, v = ("=", "#") if jump else ("-", "|")
        else:
            tl, tr, bl, br, h, v = ("╔", "╗", "╚", "╝", "═", "║") if jump else ("╭", "╮", "╰", "╯", "─", "│")
        arrow = LOOP_ARROWS[cell].translate(ASCII_ARROWS) if self.ascii else LOOP_ARROWS[cell]
        base = board.base_style
        style = base + board.partial("board--loop-moved" if marked else "board--loop-blank" if value == 0 else
                                     "board--loop-tile")
        border = base + board.partial("board--loop-jump") if jump else style
        return [[(tl + h * (width - 2) + tr, border)],
                [(v, border), (f" {'' if value == 0 else value:>2} {arrow} ", style), (v, border)],
                [(bl + h * (width - 2) + br, border)]]


def look_for(puzzle, ascii_only: bool = False) -> Look:
    """The look for a puzzle, chosen by its CLI key."""
    kind = {"goat": GoatLook, "ura": UraLook}.get(puzzle.key, Look)
    return kind(puzzle.width, puzzle.height, ascii_only)
