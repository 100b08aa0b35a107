"""The galleries of the hardest positions: one tab per puzzle and size.

Each tab runs the puzzle's full BFS (:meth:`~solver.puzzle.Puzzle.longest`, the code path of
``koma longest``) in a named, exclusive thread worker with a fresh stop flag, showing progress by
depth level.  The depth tables it reads are cached on disk by the solver, and the answers are
memoised here, so a second visit is instant.  The screen shows the figures, the per-depth
histogram and a paged grid of the positions at maximum depth (Ura-omote: optionally one per
symmetry class).  Enter plays the selected position; ``s`` plays it and starts the auto-solve.

The 15-puzzle has no such table (10^13 states): its tab shows the 17 positions at 80 moves from the
literature instead, and ``v`` (``a`` for all) verifies them with Koma's IDA* solver in the same kind
of cancellable worker, marking each one with its length, time and nodes.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import partial

from rich.markup import escape
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Tab

from solver import solving as search
from solver.errors import Cancelled, KomaError
from solver.puzzle import LongestResult, Puzzle, Solution, State
from solver.registry import get_puzzle
from solver.sliding.search import LABELS, hardest80, tables_present
from tui.ascii import Static
from tui.game.solver_jobs import SolverJob
from tui.messages import BfsFinished, JobFailed, JobProgress, PositionFailed, PositionVerified, VerificationFinished
from tui.play.variants import open_puzzle
from tui.widgets.histogram import Histogram
from tui.widgets.keybar import KeyBar
from tui.widgets.looks import look_for
from tui.widgets.mini_grid import MiniGrid
from tui.widgets.tabbed import FoldingTabs, TabbedScreen
from tui.widgets.titlebar import TitleBar
from tui.workers import Report, run_job

# tab id -> (registry name, size, label)
TABS: dict[str, tuple[str, str | None, str]] = {
    "g-8": ("8", None, "8-puzzle"),
    "g-15": ("15", None, "15-puzzle"),
    "g-goat": ("goat", None, "Goat"),
    **{f"g-ura-{n}": ("ura", f"{n}x{n}", f"Ura {n}x{n}") for n in (2, 3, 4, 5, 6)},
}
CHOOSE = Binding.Group("choose", compact=True)
PAGE = Binding.Group("page", compact=True)
TAB = Binding.Group("puzzle", compact=True)
FIFTEEN_TAB = "g-15"  # no BFS: the 17 positions at 80 moves from the literature, verified on request
HARDEST_SOURCE = ("Brüngger, Marzetta, Fukuda & Nievergelt (1999) proved that no position needs more than "
                  "80 moves; Korf & Schultze (2005) searched all 10,461,394,944,000 states and found exactly "
                  "17 at 80.")
NO_HISTOGRAM = "No histogram by depth: no table of Koma's covers 10^13 states."


@dataclass
class Figures:
    """One puzzle's full-BFS answer, with the symmetry classes where the puzzle has them."""

    result: LongestResult
    classes: list[tuple[tuple, int]] | None


_RESULTS: dict[str, Figures] = {}  # tab id -> figures: a second visit is instant


@dataclass
class Verdict:
    """One 80-move position checked by Koma's solver."""

    length: int
    seconds: float
    nodes: int
    method: str

    @property
    def ok(self) -> bool:
        return self.length == 80


_VERIFIED: dict[int, Verdict] = {}  # index in the file -> verdict: kept across visits


def verify_solve(puzzle: Puzzle, board: tuple, *, stop, progress) -> Solution:
    """Koma's optimal solver with its default (strongest present) heuristic; tests replace this."""
    return search.solve(puzzle, board, "ida", stop=stop, progress=progress)


def heuristic_note() -> str:
    if tables_present("pdb78"):
        return f"IDA* with the {LABELS['pdb78']} pattern databases: a second or two per position."
    return (f"IDA* with the {LABELS['pdb663']} pattern databases: without the 7-8 tables each position takes up "
            f"to a minute or two (build them once with `koma tables build 15 --pdb 7-8`: about 1-2 s each).")


def puzzle_for(tab: str) -> Puzzle:
    name, size, _ = TABS[tab]
    return get_puzzle(name, size)


class GalleryScreen(TabbedScreen):
    """The hardest positions of every puzzle: figures, histogram, and a browsable grid."""

    BINDINGS = [
        Binding("up,k", "grid(-1,0)", "", id="gallery.up", group=CHOOSE, tooltip="Select the board above"),
        Binding("down,j", "grid(1,0)", "", id="gallery.down", group=CHOOSE, tooltip="Select the board below"),
        Binding("left,h", "grid(0,-1)", "", id="gallery.left", group=CHOOSE, tooltip="Select the board on the left"),
        Binding("right,l", "grid(0,1)", "choose", id="gallery.right", group=CHOOSE,
                tooltip="Select the board on the right"),
        Binding("pageup", "page(-1)", "", id="gallery.page_up", group=PAGE, tooltip="Previous page of positions"),
        Binding("pagedown", "page(1)", "page", id="gallery.page_down", group=PAGE, tooltip="Next page of positions"),
        Binding("home", "ends(0)", "First position", id="gallery.first", show=False, tooltip="First position"),
        Binding("end", "ends(1)", "Last position", id="gallery.last", show=False, tooltip="Last position"),
        Binding("left_square_bracket", "tab(-1)", "", id="gallery.previous_puzzle", group=TAB,
                tooltip="Previous puzzle"),
        Binding("right_square_bracket", "tab(1)", "puzzle", id="gallery.next_puzzle", group=TAB,
                tooltip="Next puzzle"),
        Binding("comma", "depth(-1)", "Previous depth", id="gallery.depth_down", show=False,
                tooltip="Histogram: read out the previous depth"),
        Binding("full_stop", "depth(1)", "Next depth", id="gallery.depth_up", show=False,
                tooltip="Histogram: read out the next depth"),
        Binding("c", "classes", "classes", id="gallery.classes",
                tooltip="Ura-omote: one position per symmetry class, or all positions"),
        Binding("enter", "play", "play", id="gallery.play", tooltip="Play the selected position"),
        Binding("s", "play_and_solve", "solve", id="gallery.solve",
                tooltip="Play the selected position and start the optimal auto-solve at once"),
        Binding("v", "verify(0)", "verify", id="gallery.verify",
                tooltip="15-puzzle: verify the selected 80-move position with Koma's solver"),
        Binding("a", "verify(1)", "Verify all", id="gallery.verify_all", show=False,
                tooltip="15-puzzle: verify every 80-move position not verified yet, one after another"),
        Binding("r", "rerun", "Run again", id="gallery.rerun", show=False, tooltip="Run the full BFS again"),
        Binding("escape", "escape", "back", id="gallery.escape", tooltip="Back: cancel the BFS, else return home"),
    ]

    def __init__(self, tab: str = "g-8", *, ascii_only: bool = False):
        super().__init__(classes="gallery")
        self.ascii_only = ascii_only
        self.tab = tab
        self.puzzle = puzzle_for(tab)
        self.bfs_job: SolverJob | None = None  # the full BFS under way
        self.verify_job: SolverJob | None = None  # the 15-puzzle's verification under way (never both)
        self.figures: Figures | None = None
        self.show_classes = False
        self.message = ""

    def compose(self) -> ComposeResult:
        yield TitleBar()
        tabs = FoldingTabs(*[Tab(label, id=tab) for tab, (_, _, label) in TABS.items()], active=self.tab, id="gallery-tabs")
        tabs.can_focus = False
        yield tabs
        with Vertical(id="gallery-body"):
            yield Static(id="gallery-figures")
            yield Histogram(ascii_only=self.ascii_only, id="gallery-histogram")
            yield Static(id="gallery-status")
            yield MiniGrid(ascii_only=self.ascii_only, id="gallery-grid")
        yield KeyBar()

    def on_mount(self) -> None:
        self.title = "Koma"
        self.sub_title = "the hardest positions"
        self.open_tab(self.tab)

    def on_unmount(self) -> None:
        self.cancel_job(quiet=True)

    # --- tabs ----------------------------------------------------------------------------------
    def open_tab(self, tab: str) -> None:
        """Show ``tab``: from the memo at once, else start its BFS."""
        self.cancel_job(quiet=True)
        self.tab = tab
        self.puzzle = puzzle_for(tab)
        self.look = look_for(self.puzzle, self.ascii_only)
        self.figures = _RESULTS.get(tab)
        self.show_classes = False
        self.message = ""
        self.query_one(Histogram).display = not self.fifteen
        if self.figures is None and not self.fifteen:
            self.start_job()
        self.refresh_view()
        self.refresh_bindings()

    @property
    def fifteen(self) -> bool:
        return self.tab == FIFTEEN_TAB

    @property
    def job(self) -> SolverJob | None:
        """The job under way, the BFS or the verification, if any."""
        return self.bfs_job if self.bfs_job is not None else self.verify_job

    # --- the BFS -------------------------------------------------------------------------------
    def start_job(self) -> None:
        tab = self.tab
        self.bfs_job = SolverJob("bfs")
        run_job(self, self.bfs_job, partial(self._bfs, self.puzzle), group="gallery", interval=0.05,
                answer=lambda job, found: BfsFinished(job, tab, *found))

    @staticmethod
    def _bfs(puzzle: Puzzle, job: SolverJob, report: Report) -> tuple[LongestResult, list[tuple[State, int]] | None]:
        """In a thread: the full BFS (``Puzzle.longest``), then the symmetry classes where the puzzle has them."""
        result = puzzle.longest(stop=job.stop, progress=report)
        grouping = getattr(puzzle, "symmetry_classes", None)
        return result, (grouping(result.positions) if grouping is not None else None)

    @on(JobProgress)
    def _progress(self, event: JobProgress) -> None:
        if event.job is self.job:
            event.job.progress = event.info
            self.refresh_status()

    @on(BfsFinished)
    def _bfs_finished(self, event: BfsFinished) -> None:
        if event.job is not self.bfs_job:
            return
        self.bfs_job = None
        figures = _RESULTS[event.tab] = Figures(event.result, event.classes)
        if event.tab == self.tab:
            self.figures = figures
        self.refresh_view()
        self.refresh_bindings()

    @on(JobFailed)
    def _failed(self, event: JobFailed) -> None:
        if event.job is self.bfs_job:
            self.bfs_job = None
            self.message = f"The BFS failed: {event.error}"
        elif event.job is self.verify_job:  # not one position's failure (PositionFailed): the verification's own
            self.verify_job = None
            self.message = f"The verification failed: {event.error}"
        else:
            return
        self.refresh_view()
        self.refresh_bindings()

    # --- the 15-puzzle's verification ------------------------------------------------------------
    def action_verify(self, every: int) -> None:
        if not self.fifteen or self.job is not None:
            self.app.bell()
            return
        rows = hardest80()
        if every:
            indices = [k for k in range(len(rows)) if k not in _VERIFIED] or list(range(len(rows)))
        else:
            indices = [min(self.query_one(MiniGrid).selected, len(rows) - 1)]
        self.verify_job = SolverJob("verify", items=indices, progress={"index": indices[0], "bound": 0, "nodes": 0})
        self.message = ""
        run_job(self, self.verify_job, partial(self._verify, self.puzzle), group="gallery", answer=VerificationFinished)
        self.refresh_view()
        self.refresh_bindings()

    def _verify(self, puzzle: Puzzle, job: SolverJob, report: Report) -> list[int]:
        """In a thread: solve each chosen 80-move position optimally, one after another; a message per position."""
        rows = hardest80()

        def progress(info: dict) -> None:
            if info.get("phase", "search") == "search":  # not the table build's progress
                report({"index": index, "bound": int(info.get("bound", 0)), "nodes": int(info.get("nodes", 0))})

        for index in job.items:
            self.post_message(JobProgress(job, {"index": index, "bound": 0, "nodes": 0}))
            try:
                solution = verify_solve(puzzle, rows[index][1], stop=job.stop, progress=progress)
            except KomaError as error:
                self.post_message(PositionFailed(job, index, error))
                continue
            if job.cancelled:
                raise Cancelled()
            self.post_message(PositionVerified(job, index, solution))
        return list(job.items)

    @on(PositionVerified)
    def _position_verified(self, event: PositionVerified) -> None:
        if event.job is not self.verify_job:
            return
        event.job.done += 1
        s = event.solution
        _VERIFIED[event.index] = Verdict(s.length, s.seconds, s.nodes, s.method)
        if self.fifteen:
            self.refresh_view()

    @on(PositionFailed)
    def _position_failed(self, event: PositionFailed) -> None:
        if event.job is not self.verify_job:
            return
        event.job.done += 1
        self.message = f"Position #{event.index + 1} failed: {event.error}"
        if self.fifteen:
            self.refresh_view()

    @on(VerificationFinished)
    def _verification_finished(self, event: VerificationFinished) -> None:
        if event.job is not self.verify_job:
            return
        self.verify_job = None
        good = sum(_VERIFIED[k].ok for k in event.indices if k in _VERIFIED)
        self.message = (f"Verified {good} of {len(event.indices)}: "
                        + ("each needs exactly 80 moves." if good == len(event.indices) else "see the marks."))
        self.refresh_bindings()
        if self.fifteen:
            self.refresh_view()

    def cancel_job(self, quiet: bool = False) -> bool:
        job, verifying = self.job, self.verify_job is not None
        if job is None:
            return False
        job.cancel()
        self.workers.cancel_group(self, "gallery")
        self.bfs_job = self.verify_job = None
        if not quiet:
            self.message = ("Verification cancelled. Press v (a: all) to verify again." if verifying else
                            "Cancelled. Press r to run the BFS again.")
            self.refresh_view()
            self.refresh_bindings()
        return True

    # --- drawing -------------------------------------------------------------------------------
    def positions(self) -> list[tuple[tuple, int]]:
        """What the grid shows: (board, class size) pairs; size 1 when classes are off."""
        if self.fifteen:
            return [(board, 1) for _, board, _ in hardest80()]
        if self.figures is None:
            return []
        if self.show_classes and self.figures.classes is not None:
            return list(self.figures.classes)
        return [(p, 1) for p in self.figures.result.positions]

    def mark(self, index: int) -> str:
        """The caption's mark: ✓ (80 moves), ✗ and the length found, … while it runs, else nothing."""
        verdict = _VERIFIED.get(index)
        job = self.verify_job
        if job is not None and job.progress.get("index") == index and index in job.items[job.done:]:
            return " …"
        if verdict is None:
            return ""
        if verdict.ok:
            return " ✓"
        return f" ✗{verdict.length}"

    def refresh_fifteen(self) -> None:
        rows = hardest80()
        good = sum(1 for k in range(len(rows)) if k in _VERIFIED and _VERIFIED[k].ok)
        title = f"[b]{self.puzzle.title} {self.puzzle.size_label}[/b]"
        self.query_one("#gallery-figures", Static).update(
            f"{title}  longest [b]80[/b] moves · [b]{len(rows)}[/b] positions at 80 · "
            f"[b]{good}[/b] verified here\n{HARDEST_SOURCE}\n[dim]{NO_HISTOGRAM}\n"
            f"v verifies the selected position, a all of them: {escape(heuristic_note())}[/dim]")
        self.query_one(MiniGrid).set_items(
            [(self.look.mini(board), f"#{index}{self.mark(k)}") for k, (index, board, _) in enumerate(rows)],
            selected=self.query_one(MiniGrid).selected)
        self.refresh_status()

    def refresh_view(self) -> None:
        if self.fifteen:
            self.refresh_fifteen()
            return
        figures = self.figures
        title = f"[b]{self.puzzle.title} {self.puzzle.size_label}[/b]"
        histogram = self.query_one(Histogram)
        grid = self.query_one(MiniGrid)
        if figures is None:
            self.query_one("#gallery-figures", Static).update(f"{title}  [dim]full BFS from the goal[/dim]")
            histogram.set_counts([])
            grid.set_items([], empty_text="")
        else:
            r = figures.result
            at_max = len(r.positions)
            text = (f"{title}  [b]{r.states:,}[/b] states · longest [b]{r.max_depth}[/b] moves · "
                    f"[b]{at_max:,}[/b] position{'s' if at_max != 1 else ''} at {r.max_depth}")
            if figures.classes is not None:
                text += f" · {len(figures.classes):,} symmetry class{'es' if len(figures.classes) != 1 else ''}"
            self.query_one("#gallery-figures", Static).update(text)
            histogram.set_counts(r.histogram)
            entries = self.positions()
            items = []
            for k, (state, size) in enumerate(entries, 1):
                caption = f"#{k}" + (f" ×{size}" if self.show_classes else "")
                items.append((self.look.mini(state), caption))
            grid.set_items(items)
        self.refresh_status()

    def selected_state(self) -> tuple | None:
        entries = self.positions()
        if not entries:
            return None
        return entries[min(self.query_one(MiniGrid).selected, len(entries) - 1)][0]

    def refresh_status(self) -> None:
        status = self.query_one("#gallery-status", Static)
        job = self.verify_job
        if job is not None:
            figures = job.progress
            where = f" ({job.done + 1} of {len(job.items)})" if len(job.items) > 1 else ""
            status.update(f"Verifying #{figures.get('index', 0) + 1}{where}… bound [b]{figures.get('bound', 0)}[/b] · "
                          f"{figures.get('nodes', 0):,} nodes · "
                          f"{time.monotonic() - job.began:.0f} s [dim](esc cancels)[/dim]")
            return
        bfs = self.bfs_job
        if bfs is not None:
            status.update(f"Full BFS from the goal… depth [b]{bfs.progress.get('depth', 0)}[/b] · "
                          f"{bfs.progress.get('states', 0):,} states found "
                          f"[dim](esc cancels)[/dim]")
            return
        state = self.selected_state()
        if self.fifteen and state is not None:
            selected = self.query_one(MiniGrid).selected
            verdict = _VERIFIED.get(selected)
            if verdict is None:
                told = "v: verify it"
            else:
                told = (f"{'✓' if verdict.ok else 'NOT 80:'} "
                        f"{verdict.length} moves in {verdict.seconds:.2f} s, {verdict.nodes:,} nodes "
                        f"({verdict.method})")
            status.update(f"Position {selected + 1} of {len(self.positions())}: "
                          f"[b]{escape(self.puzzle.format(state))}[/b]\n{escape(told)}"
                          + (f"\n{escape(self.message)}" if self.message else ""))
            return
        if self.message:
            status.update(self.message)
            return
        state = self.selected_state()
        if state is None:
            status.update("")
            return
        grid = self.query_one(MiniGrid)
        count = len(self.positions())
        what = "class" if self.show_classes else "position"
        page = f" · page {grid.page + 1}/{grid.pages}" if grid.pages > 1 else ""
        hint = " · c: classes" if self.figures and self.figures.classes is not None and not self.show_classes else ""
        status.update(f"{what.capitalize()} {grid.selected + 1:,} of {count:,}{page}: "
                      f"[b]{escape(self.puzzle.format(state))}[/b]{hint}")

    @on(MiniGrid.Selected)
    def _selected(self, event: MiniGrid.Selected) -> None:
        self.refresh_status()

    @on(MiniGrid.Resized)
    def _resized(self, event: MiniGrid.Resized) -> None:
        self.refresh_status()  # "page 1/2" counts the pages the grid's size holds

    # --- actions -------------------------------------------------------------------------------
    def action_grid(self, d_row: int, d_col: int) -> None:
        self.query_one(MiniGrid).move(d_row, d_col)

    def action_page(self, delta: int) -> None:
        self.query_one(MiniGrid).turn_page(delta)

    def action_ends(self, last: int) -> None:
        grid = self.query_one(MiniGrid)
        grid.select(len(grid.items) - 1 if last else 0)

    def action_depth(self, delta: int) -> None:
        self.query_one(Histogram).move_cursor(delta)

    def action_classes(self) -> None:
        if self.figures is None or self.figures.classes is None:
            self.app.bell()
            return
        self.show_classes = not self.show_classes
        self.refresh_view()

    def action_play(self, solve: bool = False) -> None:
        state = self.selected_state()
        if state is None:
            self.app.bell()
            return
        open_puzzle(self, self.puzzle, state, solve=solve)

    def action_play_and_solve(self) -> None:
        self.action_play(solve=True)

    def action_rerun(self) -> None:
        if self.job is None and not self.fifteen:
            _RESULTS.pop(self.tab, None)
            self.figures = None
            self.message = ""
            self.start_job()
            self.refresh_view()

    def action_escape(self) -> None:
        if self.cancel_job():
            return
        self.app.pop_screen()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "classes" and (self.figures is None or self.figures.classes is None):
            return False if self.puzzle.key != "ura" else None
        if action == "verify":
            return (None if self.job is not None else True) if self.fifteen else False
        if action in ("play", "play_and_solve", "grid", "page", "ends") and self.figures is None and not self.fifteen:
            return None
        if action == "rerun" and (self.job is not None or self.fifteen):
            return None if not self.fifteen else False
        return True
