"""The board: one widget per piece, placed absolutely and animated to its new cell after each move.

The board only draws a state and reports clicks; it never decides what is legal.  It sizes its
pieces to the space it has (a large board at 80x24, larger above), shows a cursor, highlights a
hint and, for Ura-omote, the row letters and column digits.
"""

from __future__ import annotations

from textual import events
from textual.dom import NoScreen
from textual.geometry import Offset, Region, Size
from textual.layout import DockArrangeResult
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from tui.ascii import Static
from tui.widgets.looks import Look, PieceSpec
from tui.widgets.press import PressPlays

MOVE_SECONDS = 0.12  # one move's animation; TEXTUAL_ANIMATIONS=none makes it instant
SLIDE_STEPS = 3  # a sliding piece is drawn at this many places on its way, not at each of the animation's frames
MAX_TILE_HEIGHT, MAX_TILE_WIDTH = 7, 17
MIN_TILE_HEIGHT, MIN_TILE_WIDTH = 3, 5
COMPACT_MAX_HEIGHT, COMPACT_MAX_WIDTH = 2, 6  # compact tiles (no border): a 10x10 board in 40x20 cells at 80x24
COMPACT_MIN_WIDTH = 3  # two digits and the gap column
ROW_LABEL_WIDTH, COLUMN_LABEL_HEIGHT = 3, 1


class Piece(PressPlays, Widget):
    """One tile or piece; ``spec`` says what it is and where it stands.

    A piece that travels looks the same: its offset changes move it without drawing it again, and its
    screen, if it can (``travelled``: see :class:`tui.patches.rendering.DirtyOnlyRendering`), moves its region
    rather than arranging every widget again.  A slide (:meth:`slide_to`) is drawn at :data:`SLIDE_STEPS` places on
    its way: the animation's other frames leave it where it stands, and draw nothing."""

    def __init__(self, spec: PieceSpec, look: Look):
        super().__init__(classes=f"piece -{spec.kind}")
        self.spec = spec
        self.look = look
        self._travelling = False
        self._drawn = False  # render() has run: before, a repaint has nothing to redraw (its first draw is to come)
        self._placed: Offset | None = None  # the offset this piece was last given (Textual resolves its own slowly)
        self._slide: tuple[Offset, Offset] | None = None  # the slide under way: from, to

    @property
    def travelled_to(self) -> Offset:
        """Where the piece stands (its offset); setting it moves the piece (also each frame of its slide)."""
        return self.offset

    @travelled_to.setter
    def travelled_to(self, offset: Offset) -> None:
        # Textual asks a widget whose offset style changes for a repaint as well as a layout (its styles'
        # refresh drops the repaint=False that the offset asks for): the repaint would draw the piece afresh
        if self._slide is not None:
            offset = self._on_the_way(offset)
        before = self._placed
        if before is None:  # not placed by this setter yet: ask Textual where it stands
            try:
                before = self.offset
            except NoScreen:  # not (or no longer) on a screen
                before = None
        if offset == before:
            return  # it stands there already: no style change, no layout, nothing to repaint
        self._travelling = True
        try:
            self.offset = offset
        finally:
            self._travelling = False
        self._placed = Offset(*offset)
        if before is None:
            return
        try:
            screen = self.screen
        except NoScreen:
            self._placed = None
            return
        travelled = getattr(screen, "travelled", None)
        if travelled is not None:
            travelled(self, self._placed - before)

    def slide_to(self, target: Offset) -> None:
        """Slide to ``target`` (animated), drawn at :data:`SLIDE_STEPS` places on the way."""
        self._slide = (self._placed if self._placed is not None else self.offset, target)
        self.animate("travelled_to", target, duration=MOVE_SECONDS)

    def place(self, target: Offset) -> None:
        """Stand at ``target`` at once (a slide under way ends there)."""
        self._slide = None
        self.travelled_to = target

    def stand_at(self, target: Offset) -> None:
        """Stand at ``target`` as the board lays its pieces out: the layout pass under way places it, so there is no
        travel to tell the screen of, and no layout to ask for where it stands (which could lay the board out anew
        in the middle of its layout)."""
        self._slide = None
        if self._placed != target:
            self._travelling = True  # it looks the same wherever it stands: no repaint
            try:
                self.offset = target
            finally:
                self._travelling = False
        self._placed = Offset(*target)

    def _on_the_way(self, offset: Offset) -> Offset:
        """Where a frame of the slide at ``offset`` draws the piece: the last of the slide's steps it has reached."""
        assert self._slide is not None
        start, end = self._slide
        if offset == end:
            self._slide = None
            return offset
        span = max(abs(end.x - start.x), abs(end.y - start.y))
        gone = max(abs(offset.x - start.x), abs(offset.y - start.y))
        step = min(SLIDE_STEPS, gone * SLIDE_STEPS // span) if span else SLIDE_STEPS
        return Offset(start.x + (end.x - start.x) * step // SLIDE_STEPS, start.y + (end.y - start.y) * step // SLIDE_STEPS)

    def refresh(self, *regions: Region, repaint: bool = True, layout: bool = False, recompose: bool = False) -> Piece:
        super().refresh(*regions, repaint=repaint and self._drawn and not self._travelling, layout=layout, recompose=recompose)
        return self

    def render(self):
        self._drawn = True
        size = self.content_size
        return self.look.draw(self.spec, size.width, size.height)

    def set_spec(self, spec: PieceSpec) -> None:
        old, self.spec = self.spec, spec
        if spec.kind != old.kind:
            self.remove_class(f"-{old.kind}")
            self.add_class(f"-{spec.kind}")
        if (spec.code, spec.span) != (old.code, old.span):
            self.refresh()  # a piece that only travelled looks the same: its offset moves it

    def covers(self, cell: int, width: int) -> bool:
        return self.spec.covers(cell, width)

    def on_mouse_down(self, event: events.MouseDown) -> None:
        """A press plays at once (not the click its release makes): a tap moves as soon as a key does."""
        event.stop()
        board = self.parent
        if isinstance(board, Board):
            col = self.spec.cell % board.look.width
            if self.spec.span > 1 and board.tile_width:
                col += min(self.spec.span - 1, event.x // board.tile_width)
            cell = (self.spec.cell // board.look.width) * board.look.width + col
            board.cursor = cell
            board.post_message(Board.CellPressed(board, cell))


class LineLabel(PressPlays, Static):
    """A row letter or column digit; pressing it plays that move."""

    def __init__(self, move: str, kind: str):
        super().__init__(move, classes=f"line-label -{kind}")
        self.move = move

    def on_mouse_down(self, event: events.MouseDown) -> None:
        event.stop()
        board = self.parent
        if isinstance(board, Board):
            board.post_message(Board.LinePressed(board, self.move))


class Board(Widget):
    """A puzzle board drawn with a :class:`Look`.

    Its pieces and labels play on a press (:class:`tui.widgets.press.PressPlays`), and the board itself takes no
    part in Textual's text selection either: a press there would start a selection and its release end one, each
    repainting the whole screen, and a tap's move would be drawn a frame later than a key's."""

    ALLOW_SELECT = False

    class CellPressed(Message):
        """A cell was pressed (a click or a tap: the press plays, not the release)."""

        def __init__(self, board: Board, cell: int):
            super().__init__()
            self.board, self.cell = board, cell

    class LinePressed(Message):
        """A row or column label was pressed (Ura-omote)."""

        def __init__(self, board: Board, move: str):
            super().__init__()
            self.board, self.move = board, move

    cursor: reactive[int] = reactive(0, init=False)

    def __init__(self, look: Look, state, *, id: str | None = None):
        super().__init__(id=id)
        self.look = look
        self.state = tuple(state)
        self.tile_width = 0
        self.tile_height = 0
        self._origin = Offset(0, 0)  # where the first cell's tile stands, worked out with the tiles' size
        self._laid_out_for = Size(0, 0)  # the size the pieces were last sized and placed for
        self.hint_cells: set[int] = set()
        self.hint_lines: set[str] = set()
        self.pieces: list[Piece] = [Piece(spec, look) for spec in look.specs(self.state)]
        self.labels: list[LineLabel] = []
        if look.labels:
            self.labels = [LineLabel(chr(ord("A") + r), "row") for r in range(look.height)]
            self.labels += [LineLabel(str(c + 1), "column") for c in range(look.width)]

    def compose(self):
        yield from self.pieces
        yield from self.labels

    def on_mount(self) -> None:
        self.styles.min_width, self.styles.min_height = self.least_size()
        self._mark()

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        """The board's height at the tiles its width allows (``height: auto`` in a narrow layout, where the
        board sits above its panel and the stylesheet caps its share of the screen)."""
        look = self.look
        label_w = ROW_LABEL_WIDTH if look.labels else 0
        label_h = COLUMN_LABEL_HEIGHT if look.labels else 0
        tw = max(MIN_TILE_WIDTH, min(MAX_TILE_WIDTH, (width - label_w) // look.width))
        return label_h + look.height * max(MIN_TILE_HEIGHT, min(MAX_TILE_HEIGHT, tw // 2 + 1))

    def least_size(self) -> tuple[int, int]:
        """The room the whole board needs at its smallest tiles, the compact ones (see :attr:`compact`): a layout
        never gives it less (a small terminal scrolls instead of cutting the board off)."""
        look = self.look
        return (look.width * COMPACT_MIN_WIDTH + (ROW_LABEL_WIDTH if look.labels else 0),
                look.height + (COLUMN_LABEL_HEIGHT if look.labels else 0))

    def on_resize(self) -> None:
        if self.size != self._laid_out_for:
            self.layout_pieces()

    def arrange(self, size: Size, optimal: bool = False) -> DockArrangeResult:
        """Textual's arrangement of the pieces, once they are sized and placed for ``size`` if it is new: the layout
        pass that gives the board its size (the first, or a resize) places the pieces too, so they are drawn once,
        where they stand, not first at Textual's default size and then again after :meth:`on_resize`."""
        if size.width and size != self._laid_out_for:
            self.layout_pieces(size)
        return super().arrange(size, optimal)

    # --- geometry ------------------------------------------------------------------------------
    def tile_size(self, size: Size | None = None) -> tuple[int, int]:
        """The cells of one tile (for the board at ``size``, by default its own): bordered boxes where they fit, else
        compact ones (see :attr:`compact`)."""
        look = self.look
        label_w = ROW_LABEL_WIDTH if look.labels else 0
        label_h = COLUMN_LABEL_HEIGHT if look.labels else 0
        width, height = size or self.size
        if self.compact_at(size or self.size):
            return (max(COMPACT_MIN_WIDTH, min(COMPACT_MAX_WIDTH, (width - label_w) // look.width)),
                    max(1, min(COMPACT_MAX_HEIGHT, (height - label_h) // look.height)))
        th = max(MIN_TILE_HEIGHT, min(MAX_TILE_HEIGHT, (height - label_h) // look.height))
        tw = max(MIN_TILE_WIDTH, min(MAX_TILE_WIDTH, (width - label_w) // look.width, 2 * th + 3))
        th = max(MIN_TILE_HEIGHT, min(th, tw // 2 + 1))
        return tw, th

    @property
    def compact(self) -> bool:
        """Whether bordered tiles would not fit: tiles are then drawn without borders, one line high, a gap column
        (and a gap line where there is room) between them, so a 10x10 board stays whole and readable at 80x24."""
        return self.compact_at(self.size)

    def compact_at(self, size: Size) -> bool:
        """:attr:`compact` for the board at ``size``."""
        look = self.look
        width = size.width - (ROW_LABEL_WIDTH if look.labels else 0)
        height = size.height - (COLUMN_LABEL_HEIGHT if look.labels else 0)
        return width // look.width < MIN_TILE_WIDTH or height // look.height < MIN_TILE_HEIGHT

    def origin(self, size: Size | None = None) -> Offset:
        look = self.look
        width, height = size or self.size
        label_w = ROW_LABEL_WIDTH if look.labels else 0
        label_h = COLUMN_LABEL_HEIGHT if look.labels else 0
        grid_w = label_w + look.width * self.tile_width
        grid_h = label_h + look.height * self.tile_height
        return Offset(max(0, (width - grid_w) // 2) + label_w, max(0, (height - grid_h) // 2) + label_h)

    def cell_offset(self, cell: int) -> Offset:
        """Where ``cell``'s tile stands (for the board's size when its pieces were last laid out)."""
        row, col = divmod(cell, self.look.width)
        return self._origin + Offset(col * self.tile_width, row * self.tile_height)

    def layout_pieces(self, size: Size | None = None) -> None:
        """Size and place every piece for the board at ``size``, by default its own (no animation)."""
        size = size or self.size
        if not size.width:
            return
        self._laid_out_for = size
        self.tile_width, self.tile_height = self.tile_size(size)
        self._origin = self.origin(size)
        compact = self.compact_at(size)
        self.set_class(compact, "-compact")
        gap_x, gap_y = (1, 1 if self.tile_height > 1 else 0) if compact else (0, 0)
        for piece in self.pieces:
            piece.styles.width = piece.spec.span * self.tile_width - gap_x
            piece.styles.height = self.tile_height - gap_y
            piece.stand_at(self.cell_offset(piece.spec.cell))
        origin = self._origin
        for label in self.labels:
            label.styles.height = 1
            if label.has_class("-row"):
                label.styles.width = ROW_LABEL_WIDTH
                row = ord(label.move) - ord("A")
                label.styles.height = self.tile_height
                label.offset = Offset(origin.x - ROW_LABEL_WIDTH, origin.y + row * self.tile_height)
            else:
                label.styles.width = self.tile_width
                col = int(label.move) - 1
                label.offset = Offset(origin.x + col * self.tile_width, origin.y - COLUMN_LABEL_HEIGHT)

    # --- showing a state -----------------------------------------------------------------------
    def show(self, state, animate: bool = True) -> None:
        """Draw ``state``; pieces that travelled slide to their new cells."""
        state = tuple(state)
        old = self.state
        self.state = state
        specs = self.look.specs(state)
        if self.look.identity_by_cell:
            for piece, spec in zip(self.pieces, specs):
                flipped = piece.spec.code != spec.code
                piece.set_spec(spec)
                if flipped and animate and state != old:
                    piece.styles.opacity = 0.25
                    piece.styles.animate("opacity", 1.0, duration=MOVE_SECONDS * 2)
            self._mark()
            return
        staying = {(p.spec.code, p.spec.cell): p for p in self.pieces}
        placed: list[tuple[Piece, PieceSpec]] = []
        pending: list[PieceSpec] = []
        for spec in specs:  # pieces that stayed put keep their widget (one lookup each: a 10x10 has 100)
            match = staying.pop((spec.code, spec.cell), None)
            if match is None:
                pending.append(spec)
            else:
                placed.append((match, spec))
        free = list(staying.values())
        for spec in pending:  # the rest travel: the nearest free widget of the same kind
            same = [p for p in free if p.spec.code == spec.code]
            if not same:  # a different set of pieces: rebuild
                self._rebuild(specs)
                return
            match = min(same, key=lambda p: abs(p.spec.cell - spec.cell))
            free.remove(match)
            placed.append((match, spec))
        animate = animate and self.app.animation_level != "none"  # else Textual's animator would jump it a frame later
        changed: list[Piece] = []
        for piece, spec in placed:
            moved = piece.spec.cell != spec.cell
            if spec != piece.spec:
                changed.append(piece)
            piece.set_spec(spec)
            if moved and self.tile_width:
                target = self.cell_offset(spec.cell)
                if animate:
                    piece.slide_to(target)
                else:
                    piece.place(target)
        self._mark(changed)  # a piece that stayed on its cell keeps its marks

    def _rebuild(self, specs: list[PieceSpec]) -> None:
        for piece in self.pieces:
            piece.remove()
        self.pieces = [Piece(spec, self.look) for spec in specs]
        self.mount_all(self.pieces)
        self.call_after_refresh(self.layout_pieces)
        self.call_after_refresh(self._mark)

    # --- cursor and hints ------------------------------------------------------------------------
    def watch_cursor(self) -> None:
        self._mark()

    def move_cursor(self, d_row: int, d_col: int) -> None:
        row, col = divmod(self.cursor, self.look.width)
        row = min(self.look.height - 1, max(0, row + d_row))
        col = min(self.look.width - 1, max(0, col + d_col))
        self.cursor = row * self.look.width + col

    def set_hint(self, cells: set[int] | None = None, lines: set[str] | None = None) -> None:
        self.hint_cells = set(cells or ())
        self.hint_lines = set(lines or ())
        self._mark()

    def _mark(self, pieces: list[Piece] | None = None) -> None:
        """Mark the cursor and the hint on ``pieces`` (those whose cells changed), or on every piece and label."""
        width = self.look.width
        for piece in self.pieces if pieces is None else pieces:
            piece.set_class(piece.covers(self.cursor, width), "-cursor")
            piece.set_class(any(piece.covers(c, width) for c in self.hint_cells), "-hint")
        if pieces is not None:
            return  # the labels follow the cursor and the hint lines, not the pieces
        row, col = divmod(self.cursor, width)
        for label in self.labels:
            label.set_class(label.move in self.hint_lines, "-hint")
            current = (label.has_class("-row") and ord(label.move) - ord("A") == row) or (
                label.has_class("-column") and int(label.move) - 1 == col)
            label.set_class(current, "-current")
