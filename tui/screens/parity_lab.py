"""The parity lab: edit any board freely, solvable or not, and watch the proof change as you go.

Sliding puzzles: mark a cell with Space and swap it with another (the blank too); the proof lists
each tile with its count of smaller tiles to its right, highlights the pairs of the tile under the
cursor, and shows the blank's row, the total and the verdict; an unsolvable board offers the
article's fixes (flipLR, or swapping two tiles).  Ura-omote: Space turns one cell over; the proof
is the orbit map coloured by orbit, each orbit's pattern and why it does or does not reach
all-white.  Goat: swap pieces and move the big piece; the proof is the snake path and which ─ gets
which label.  Every verdict comes from :meth:`~solver.puzzle.Puzzle.proof`.
"""

from __future__ import annotations

import random
from typing import cast

from rich.markup import escape
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Tab

from solver.goat import notation as goat
from solver.puzzle import Puzzle
from solver.registry import get_puzzle
from solver.sliding.model import SlidingPuzzle
from tui.ascii import Static
from tui.play.variants import open_puzzle
from tui.widgets.board import Board
from tui.widgets.keybar import KeyBar
from tui.widgets.looks import look_for
from tui.widgets.tabbed import FoldingTabs, TabbedScreen
from tui.widgets.titlebar import TitleBar

# tab id -> (registry name, size, label, the article's board or None for the goal)
TABS: dict[str, tuple[str, str | None, str, str | None]] = {
    "p-8": ("8", None, "8-puzzle", "8 6 7/2 5 4/3 _ 1"),
    "p-15": ("15", None, "15-puzzle", "10 8 4 14/15 12 13 _/7 11 6 1/5 9 2 3"),
    "p-goat": ("goat", None, "Goat", "r-BB/i.dS/l-jW"),
    **{f"p-ura-{n}": ("ura", f"{n}x{n}", f"Ura {n}x{n}", "BWB/WBB/BBB" if n == 3 else None) for n in (2, 3, 4, 5, 6)},
}
ORBIT_STYLES = ("$primary", "$secondary", "$accent", "$success", "$warning", "$error")
GOAT_BIG = goat.BIG
# the proof's labelled codes: 1..9 as in the notation, 10 the big piece's right cell, 11 the ─ that ends at the bottom
GOAT_NAMES = dict(enumerate(goat.GLYPHS)) | {10: goat.GLYPHS[goat.BIG], 11: goat.GLYPHS[goat.DASH]}
CURSOR = Binding.Group("cursor", compact=True)
TAB = Binding.Group("puzzle", compact=True)


def orbit_style(label: str) -> str:
    if not label.isdigit():
        return "$text-muted"
    k = int(label)
    return ORBIT_STYLES[k % len(ORBIT_STYLES)] + (" underline" if k >= len(ORBIT_STYLES) else "")


class ParityLabScreen(TabbedScreen):
    """Edit a board and read its parity proof live."""

    AUTO_FOCUS = None  # the keys belong to the board editor, not to the proof's scroll view

    BINDINGS = [
        Binding("up,k", "cursor(-1,0)", "", id="parity_lab.up", group=CURSOR, tooltip="Cursor up"),
        Binding("down,j", "cursor(1,0)", "", id="parity_lab.down", group=CURSOR, tooltip="Cursor down"),
        Binding("left,h", "cursor(0,-1)", "", id="parity_lab.left", group=CURSOR, tooltip="Cursor left"),
        Binding("right,l", "cursor(0,1)", "cursor", id="parity_lab.right", group=CURSOR, tooltip="Cursor right"),
        Binding("space,enter", "edit", "edit", id="parity_lab.edit",
                tooltip="Edit: mark a cell, then swap it with the next one marked (Ura-omote: turn the cell over)"),
        Binding("b", "big", "big piece", id="parity_lab.big", tooltip="Goat: move the big piece one place along the top row"),
        Binding("f", "fix('flip')", "flipLR", id="parity_lab.flip", tooltip="Mirror the board left to right (article 000's fix)"),
        Binding("x", "fix('swap')", "swap 2", id="parity_lab.swap",
                tooltip="Swap the first two tiles in reading order (flips the parity)"),
        Binding("g", "reset('goal')", "Goal board", id="parity_lab.goal", show=False, tooltip="Start again from the goal"),
        Binding("a", "reset('article')", "Article's board", id="parity_lab.article", show=False,
                tooltip="The article's board"),
        Binding("n", "reset('random')", "random", id="parity_lab.random",
                tooltip="A random board, solvable or not"),
        Binding("p", "play", "play", id="parity_lab.play", tooltip="Play this board"),
        Binding("left_square_bracket", "tab(-1)", "", id="parity_lab.previous_puzzle", group=TAB, tooltip="Previous puzzle"),
        Binding("right_square_bracket", "tab(1)", "puzzle", id="parity_lab.next_puzzle", group=TAB, tooltip="Next puzzle"),
        Binding("escape", "escape", "back", id="parity_lab.escape", tooltip="Back: drop the mark, else return home"),
    ]

    def __init__(self, tab: str = "p-15", *, ascii_only: bool = False, seed: int | None = None):
        super().__init__(classes="parity-lab")
        self.ascii_only = ascii_only
        self.rng = random.Random(seed)
        self.tab = tab
        self.marked: int | None = None
        self.message = ""
        self._load_tab(tab)

    def _load_tab(self, tab: str) -> None:
        name, size, _, article = TABS[tab]
        self.tab = tab
        self.puzzle: Puzzle = get_puzzle(name, size)
        self.look = look_for(self.puzzle, self.ascii_only)
        self.state = tuple(self.puzzle.parse(article) if article else self.puzzle.goal)
        self.marked = None

    def compose(self) -> ComposeResult:
        yield TitleBar()
        tabs = FoldingTabs(*[Tab(label, id=tab) for tab, (_, _, label, _) in TABS.items()], active=self.tab, id="lab-tabs")
        tabs.can_focus = False
        yield tabs
        with Horizontal(id="lab-body"):
            yield Board(self.look, self.state, id="lab-board")
            with VerticalScroll(id="lab-side", can_focus=False):
                yield Static(id="lab-verdict")
                yield Static(id="lab-proof")
                yield Static(id="lab-message")
        yield KeyBar()

    def on_mount(self) -> None:
        self.title = "Koma"
        self.sub_title = "parity lab"
        self.refresh_view()

    # --- switching puzzles ------------------------------------------------------------------------
    async def open_tab(self, tab: str) -> None:
        """Another puzzle: a new board widget (the look and the size change)."""
        self._load_tab(tab)
        self.message = ""
        await self.query_one(Board).remove()
        await self.query_one("#lab-body").mount(Board(self.look, self.state, id="lab-board"), before=0)
        self.refresh_view()
        self.refresh_bindings()

    # --- editing -------------------------------------------------------------------------------------
    @property
    def sliding(self) -> bool:
        return self.puzzle.key not in ("goat", "ura")

    def set_state(self, state: tuple, what: str) -> None:
        """Show ``state`` and say how the verdict moved."""
        before = self.puzzle.proof(self.state)
        self.state = tuple(state)
        after = self.puzzle.proof(self.state)
        change = (f"{self.verdict_word(before.solvable)} → {self.verdict_word(after.solvable)}"
                  if before.solvable != after.solvable else f"still {self.verdict_word(after.solvable)}")
        if self.sliding:
            change += f" (total {before.fields['total']} → {after.fields['total']})"
        self.message = f"{what}: {change}"
        self.query_one(Board).show(self.state)
        self.refresh_view()

    @staticmethod
    def verdict_word(solvable: bool) -> str:
        return "solvable" if solvable else "NOT solvable"

    def action_cursor(self, d_row: int, d_col: int) -> None:
        self.query_one(Board).move_cursor(d_row, d_col)
        self.refresh_view()

    def action_edit(self) -> None:
        self.edit_cell(self.query_one(Board).cursor)

    @on(Board.CellPressed)
    def _cell_pressed(self, event: Board.CellPressed) -> None:
        self.edit_cell(event.cell)

    def edit_cell(self, cell: int) -> None:
        state = list(self.state)
        if self.puzzle.key == "ura":
            state[cell] ^= 1
            self.set_state(tuple(state), f"Turned {self.cell_name(cell)} over")
            return
        if self.puzzle.key == "goat" and state[cell] == GOAT_BIG:
            self.message = "The big piece moves with b (it stays in the top row)."
            self.app.bell()
            self.refresh_view()
            return
        if self.marked is None:
            self.marked = cell
            self.message = f"Marked {self.piece_name(state[cell])} at {self.cell_name(cell)}: mark another cell to swap."
            self.refresh_view()
            return
        first, self.marked = self.marked, None
        if first == cell:
            self.message = "Mark dropped."
            self.refresh_view()
            return
        a, b = state[first], state[cell]
        state[first], state[cell] = b, a
        self.set_state(tuple(state), f"Swapped {self.piece_name(a)} and {self.piece_name(b)}")

    def action_big(self) -> None:
        if self.puzzle.key != "goat":
            self.app.bell()
            return
        top = list(self.state[:4])
        left = top.index(GOAT_BIG)
        others = [v for v in top if v != GOAT_BIG]
        place = (left + 1) % 3
        others[place:place] = [GOAT_BIG, GOAT_BIG]
        self.marked = None
        self.set_state(tuple(others) + self.state[4:], "Moved the big piece")

    def action_fix(self, kind: str) -> None:
        if not self.sliding:
            self.app.bell()
            return
        self.marked = None
        if kind == "flip":
            self.set_state(cast(SlidingPuzzle, self.puzzle).flip_lr(self.state), "flipLR")
        else:
            a, b = [t for t in self.state if t != 0][:2]
            self.set_state(cast(SlidingPuzzle, self.puzzle).swap_first_tiles(self.state), f"Swapped tiles {a} and {b}")

    def action_reset(self, kind: str) -> None:
        self.marked = None
        if kind == "goal":
            self.set_state(self.puzzle.goal, "The goal")
        elif kind == "article":
            article = TABS[self.tab][3]
            self.set_state(self.puzzle.parse(article) if article else self.puzzle.goal, "The article's board")
        elif self.puzzle.key == "goat":
            self.set_state(self.puzzle.random_state(self.rng.randrange(2**32)), "A random board")
        elif self.puzzle.key == "ura":
            self.set_state(tuple(self.rng.randrange(2) for _ in self.state), "A random board")
        else:
            board = list(self.state)
            self.rng.shuffle(board)
            self.set_state(tuple(board), "A random board")

    def action_play(self) -> None:
        open_puzzle(self, self.puzzle, self.state)

    def action_escape(self) -> None:
        if self.marked is not None:
            self.marked = None
            self.message = "Mark dropped."
            self.refresh_view()
            return
        self.app.pop_screen()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "big" and self.puzzle.key != "goat":
            return False
        return not (action == "fix" and not self.sliding)

    # --- naming ----------------------------------------------------------------------------------------
    def cell_name(self, cell: int) -> str:
        row, col = divmod(cell, self.puzzle.width)
        if self.puzzle.key == "ura":
            return f"{'ABCDEF'[row]}{col + 1}"
        return f"row {row + 1}, column {col + 1}"

    def piece_name(self, code: int) -> str:
        if self.puzzle.key == "goat":
            return "the blank" if code == 0 else GOAT_NAMES.get(code, "?")
        return "the blank" if code == 0 else f"tile {code}"

    # --- the proof ----------------------------------------------------------------------------------------
    def refresh_view(self) -> None:
        proof = self.puzzle.proof(self.state)
        board = self.query_one(Board)
        board.set_hint(set() if self.marked is None else {self.marked})
        verdict = self.query_one("#lab-verdict", Static)
        verdict.update(f"[b]{escape(self.puzzle.title)} {self.puzzle.size_label}: "
                       f"{self.verdict_word(proof.solvable)}[/b]\n[dim]{escape(self.puzzle.format(self.state))}[/dim]")
        verdict.set_class(not proof.solvable, "-bad")
        if self.sliding:
            text = self.sliding_proof(proof, board.cursor)
        elif self.puzzle.key == "ura":
            text = self.ura_proof(proof, board.cursor)
        else:
            text = self.goat_proof(proof)
        self.query_one("#lab-proof", Static).update(text)
        self.query_one("#lab-message", Static).update(escape(self.message))

    def sliding_proof(self, proof, cursor: int) -> str:
        f = proof.fields
        tiles, counts = f["tiles"], f["smaller_counts"]
        focus = self.state[cursor]
        pairs = set()
        if focus:
            i = tiles.index(focus)
            pairs = {t for t in tiles[i + 1:] if t < focus}
        lines = ["[b]Smaller tiles to the right of each tile[/b]"]
        for start in range(0, len(tiles), 8):
            row_t, row_c = [], []
            for t, c in zip(tiles[start:start + 8], counts[start:start + 8]):
                cell = f"{t:>3}"
                if t == focus:
                    cell = f"[b reverse]{cell}[/]"
                elif t in pairs:
                    cell = f"[b $warning underline]{cell}[/]"
                row_t.append(cell)
                row_c.append(f"[b]{c:>3}[/]" if t == focus else f"{c:>3}")
            lines.append("tile    " + "".join(row_t))
            lines.append("smaller " + "".join(row_c))
        if focus:
            shown = " ".join(str(t) for t in tiles[tiles.index(focus) + 1:] if t < focus) or "none"
            lines.append(f"[dim]Pairs of tile {focus}: {len(pairs)} smaller to its right: {shown}[/dim]")
        else:
            lines.append("[dim]Put the cursor on a tile to see its pairs.[/dim]")
        lines.append(f"Inversions: {f['inversions']}")
        if f["width"] % 2:
            lines.append(f"Width {f['width']} is odd: the blank's row (row {f['blank_row']}) does not count.")
            lines.append(f"Total {f['total']}, {f['parity']}; the goal needs {f['required_parity']}.")
        else:
            lines.append(f"Blank's row: {f['blank_row']} (from the top)")
            lines.append(f"Total {f['inversions']} + {f['blank_row']} = [b]{f['total']}[/b], {f['parity']}; "
                         f"the goal needs {f['required_parity']}.")
        lines.append(f"[b]Verdict: {self.verdict_word(proof.solvable)}[/b]")
        if not proof.solvable:
            sliding = cast(SlidingPuzzle, self.puzzle)
            flip = sliding.proof(sliding.flip_lr(self.state))
            swap = sliding.proof(sliding.swap_first_tiles(self.state))
            a, b = [t for t in self.state if t != 0][:2]
            lines.append(f"Fixes: [b]f[/b] flipLR → {self.verdict_word(flip.solvable)} (total {flip.fields['total']}); "
                         f"[b]x[/b] swap {a} and {b} → {self.verdict_word(swap.solvable)} (total {swap.fields['total']})")
        return "\n".join(lines)

    def ura_proof(self, proof, cursor: int) -> str:
        f = proof.fields
        w = f["width"]
        mark = {0: "□", 1: "■"} if not self.ascii_only else {0: "W", 1: "B"}
        lines = ["[b]Orbit map[/b] [dim](orbit digit and colour; * free)[/dim]",
                 "    " + " ".join(f"{c + 1:<2}" for c in range(w))]
        for r, row in enumerate(f["orbit_map"]):
            cells = []
            for c, label in enumerate(row):
                text = f"{label}{mark[self.state[r * w + c]]}"
                style = orbit_style(label)
                if r * w + c == cursor:
                    style += " reverse"
                cells.append(f"[{style}]{escape(text)}[/]")
            lines.append(f" {'ABCDEF'[r]}  " + " ".join(cells))
        cursor_label = f["orbit_map"][cursor // w][cursor % w]
        for entry in f["orbits"]:
            status = {"reachable": "ok", "odd": "odd blacks", "checkerboard": "checkerboard"}[entry["status"]]
            sign = ("✓" if entry["reachable"] else "✗") if not self.ascii_only else ("ok" if entry["reachable"] else "NO")
            line = (f"[{orbit_style(entry['label'])}]{entry['label']}[/] {escape(entry['pattern'])} "
                    f"{sign} {status}  [dim]{' '.join(entry['cells'])}[/dim]")
            lines.append(line if entry["reachable"] else f"[b]{line}[/b]")
        if cursor_label.isdigit():
            entry = f["orbits"][int(cursor_label)]
            lines.append(f"[dim]Orbit {cursor_label}: {escape(entry['reason'])}.[/dim]")
        elif f["free_cells"]:
            lines.append("[dim]A free cell (middle row or column): any colour can be fixed.[/dim]")
        lines.append(f"Solvable boards: {f['count_formula']} = {f['solvable_boards']:,} of {f['all_boards']:,}.")
        lines.append(f"[b]Verdict: {self.verdict_word(proof.solvable)}[/b]")
        return "\n".join(lines)

    def goat_proof(self, proof) -> str:
        f = proof.fields
        labelled = f["labelled_board"]
        snake = f["snake_path"]
        letters = {cell: "ABCDEFGHIJKL"[k] for k, cell in enumerate(snake)}
        lines = ["[b]Snake path[/b] and the labelled pieces [dim](─ 8 ends on top, ─ 11 at the bottom)[/dim]"]
        for r in range(3):
            path = " ".join(letters[r * 4 + c] for c in range(4))
            cells = []
            for c in range(4):
                v = labelled[r * 4 + c]
                text = "." if v == 0 else str(v)
                if v in (8, 11):
                    text = f"[b $warning]{text:>2}[/]"
                else:
                    text = f"{text:>2}"
                cells.append(text)
            lines.append(f"  {path}     " + " ".join(cells))
        lines.append(f"Along the path: {' '.join(map(str, f['labelled_sequence']))}")
        lines.append(f"  {f['inversions']} inversions, even: this labelling is the reachable one")
        lines.append(f"Other way: {' '.join(map(str, f['other_labelling_sequence']))}")
        lines.append(f"  {f['other_labelling_inversions']} inversions, odd: impossible")
        lines.append(f"GOAL: {f['goal_inversions']} inversions. No move changes the parity.")
        top, bottom = f["top_dash_cell"], f["bottom_dash_cell"]
        lines.append(f"So the ─ at {self.cell_name(top)} ends on top, the one at {self.cell_name(bottom)} at the bottom.")
        lines.append(f"[b]Verdict: solvable[/b] [dim](all {f['positions']:,} positions reach GOAL)[/dim]")
        return "\n".join(lines)
