"""How each puzzle looks: which pieces a board shows and what each piece draws.

A *look* turns a state (the puzzle's cell codes, see the solver modules) into piece specs, and draws
one piece at a given size.  It knows the notation's codes and glyphs, never the rules: moves always
come from the :class:`~solver.puzzle.Puzzle`.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.renderables.digits import Digits

from solver.goat import notation as goat
from solver.puzzle import Puzzle

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


def look_for(puzzle, ascii_only: bool = False) -> Look:
    """The look for a puzzle, chosen by its CLI key."""
    kind = {"goat": GoatLook, "ura": UraLook}.get(puzzle.key, Look)
    return kind(puzzle.width, puzzle.height, ascii_only)
