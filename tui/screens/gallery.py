"""The galleries of the hardest positions: one tab per puzzle and size.

Each tab runs the puzzle's full BFS (:meth:`~solver.puzzles.base.Puzzle.longest`, the code path of
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
from textual.widgets import Tab, Tabs

from solver import search
from solver.errors import KomaError
from solver.puzzles.base import LongestResult, Puzzle, Solution
from solver.puzzles.registry import get_puzzle
from solver.search.sliding import LABELS, hardest80, tables_present

from ..app_view import koma_app
from ..ascii import Static
from ..game.jobs import SolverJob
from ..messages import JobDone, JobFailed, JobProgress
from ..widgets.histogram import Histogram
from ..widgets.keybar import KeyBar
from ..widgets.looks import look_for
from ..widgets.mini_grid import MiniGrid
from ..widgets.titlebar import TitleBar
from .jobs import Report, run_job
from .tabbed import TabbedScreen

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
        self.job: SolverJob | None = None  # the BFS ("bfs") or the 15-puzzle's verification ("verify")
        self.figures: Figures | None = None
        self.show_classes = False
        self.message = ""

    def compose(self) -> ComposeResult:
        yield TitleBar()
        tabs = Tabs(*[Tab(label, id=tab) for tab, (_, _, label) in TABS.items()], active=self.tab, id="gallery-tabs")
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

    # --- the BFS -------------------------------------------------------------------------------
    def start_job(self) -> None:
        self.job = SolverJob("bfs")
        run_job(self, self.job, partial(self._bfs, self.tab, self.puzzle), group="gallery", interval=0.05)

    @staticmethod
    def _bfs(tab: str, puzzle: Puzzle, job: SolverJob, report: Report) -> tuple[str, Figures]:
        """In a thread: the full BFS (``Puzzle.longest``), then the symmetry classes where the puzzle has them."""
        result = puzzle.longest(stop=job.stop, progress=report)
        grouping = getattr(puzzle, "symmetry_classes", None)
        return tab, Figures(result, grouping(result.positions) if grouping is not None else None)

    @on(JobProgress)
    def _progress(self, event: JobProgress) -> None:
        if event.job is self.job:
            event.job.progress = event.info
            self.refresh_status()

    @on(JobFailed)
    def _failed(self, event: JobFailed) -> None:
        if event.job is not self.job:
            return
        if event.job.kind == "verify":
            event.job.done += 1
            self.message = f"Position #{event.part + 1} failed: {event.error}"
            if self.fifteen:
                self.refresh_view()
            return
        self.job = None
        self.message = f"The BFS failed: {event.error}"
        self.refresh_view()
        self.refresh_bindings()

    @on(JobDone)
    def _done(self, event: JobDone) -> None:
        if event.job is not self.job:
            return
        if event.job.kind == "verify":
            self._verified(event)
            return
        self.job = None
        tab, figures = event.result
        _RESULTS[tab] = figures
        if tab == self.tab:
            self.figures = figures
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
        self.job = SolverJob("verify", items=indices, progress={"index": indices[0], "bound": 0, "nodes": 0})
        self.message = ""
        run_job(self, self.job, partial(self._verify, self.puzzle), group="gallery")
        self.refresh_view()
        self.refresh_bindings()

    def _verify(self, puzzle: Puzzle, job: SolverJob, report: Report) -> None:
        """In a thread: solve each chosen 80-move position optimally, one after another; a verdict per position."""
        rows = hardest80()

        def progress(info: dict) -> None:
            if info.get("phase", "search") == "search":  # not the table build's progress
                report({"index": index, "bound": int(info.get("bound", 0)), "nodes": int(info.get("nodes", 0))})

        for index in job.items:
            self.post_message(JobProgress(job, {"index": index, "bound": 0, "nodes": 0}))
            try:
                solution = verify_solve(puzzle, rows[index][1], stop=job.stop, progress=progress)
            except KomaError as error:
                self.post_message(JobFailed(job, error, index))
                continue
            if job.cancelled:
                return
            self.post_message(JobDone(job, Verdict(solution.length, solution.seconds, solution.nodes, solution.method), index))

    def _verified(self, event: JobDone) -> None:
        job = event.job
        if event.part < 0:  # the end of the job
            self.job = None
            verdicts = [_VERIFIED[k] for k in job.items if k in _VERIFIED]
            good = sum(v.ok for v in verdicts)
            self.message = (f"Verified {good} of {len(job.items)}: "
                            + ("each needs exactly 80 moves." if good == len(job.items) else "see the marks."))
            self.refresh_bindings()
        else:
            job.done += 1
            _VERIFIED[event.part] = event.result
        if self.fifteen:
            self.refresh_view()

    def cancel_job(self, quiet: bool = False) -> bool:
        job = self.job
        if job is None:
            return False
        job.cancel()
        self.workers.cancel_group(self, "gallery")
        self.job = None
        if not quiet and job.kind == "verify":
            self.message = "Verification cancelled. Press v (a: all) to verify again."
            self.refresh_view()
            self.refresh_bindings()
        elif not quiet:
            self.message = "Cancelled. Press r to run the BFS again."
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
        job = self.job
        if job is not None and job.kind == "verify" and job.progress.get("index") == index and index in job.items[job.done:]:
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
        job = self.job
        if job is not None and job.kind == "verify":
            figures = job.progress
            where = f" ({job.done + 1} of {len(job.items)})" if len(job.items) > 1 else ""
            status.update(f"Verifying #{figures.get('index', 0) + 1}{where}… bound [b]{figures.get('bound', 0)}[/b] · "
                          f"{figures.get('nodes', 0):,} nodes · "
                          f"{time.monotonic() - job.began:.0f} s [dim](esc cancels)[/dim]")
            return
        if job is not None:
            status.update(f"Full BFS from the goal… depth [b]{job.progress.get('depth', 0)}[/b] · "
                          f"{job.progress.get('states', 0):,} states found "
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
        koma_app(self).open_puzzle(self.puzzle, state, solve=solve)

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
