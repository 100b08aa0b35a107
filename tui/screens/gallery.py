"""The galleries of the hardest positions: one tab per puzzle and size.

Each tab runs the puzzle's full BFS (:meth:`~solver.puzzle.Puzzle.longest`, the code path of
``koma longest``) in a named, exclusive thread worker with a fresh stop flag, showing progress by
depth level.  The depth tables it reads are cached on disk by the solver, and the answers are
memoised here, so a second visit is instant.  The screen shows the figures, the per-depth
histogram and a paged grid of the positions at maximum depth (Ura-omote: optionally one per
symmetry class).  Enter plays the selected position; ``s`` plays it and starts the auto-solve.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Header, Static, Tab, Tabs

from solver.errors import Cancelled, KomaError
from solver.puzzle import LongestResult, Puzzle, new_stop_flag
from solver.registry import get_puzzle

from ..widgets.histogram import Histogram
from ..widgets.looks import look_for
from ..widgets.mini_grid import MiniGrid

# tab id -> (registry name, size, label)
TABS: dict[str, tuple[str, str | None, str]] = {
    "g-8": ("8", None, "8-puzzle"),
    "g-goat": ("goat", None, "Goat"),
    **{f"g-ura-{n}": ("ura", f"{n}x{n}", f"Ura {n}x{n}") for n in (2, 3, 4, 5, 6)},
}
CHOOSE = Binding.Group("choose", compact=True)
PAGE = Binding.Group("page", compact=True)
TAB = Binding.Group("puzzle", compact=True)


@dataclass
class Figures:
    """One puzzle's full-BFS answer, with the symmetry classes where the puzzle has them."""

    result: LongestResult
    classes: list[tuple[tuple, int]] | None


_RESULTS: dict[str, Figures] = {}  # tab id -> figures: a second visit is instant


@dataclass
class GalleryJob:
    tab: str
    puzzle: Puzzle
    stop: Any = field(default_factory=new_stop_flag)
    depth: int = 0
    states: int = 0


class GalleryProgress(Message):
    def __init__(self, job: GalleryJob, depth: int, states: int):
        super().__init__()
        self.job, self.depth, self.states = job, depth, states


class GalleryDone(Message):
    def __init__(self, job: GalleryJob, figures: Figures | None, error: str = ""):
        super().__init__()
        self.job, self.figures, self.error = job, figures, error


def puzzle_for(tab: str) -> Puzzle:
    name, size, _ = TABS[tab]
    return get_puzzle(name, size)


class GalleryScreen(Screen):
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
        Binding("r", "rerun", "Run again", id="gallery.rerun", show=False, tooltip="Run the full BFS again"),
        Binding("escape", "escape", "back", id="gallery.escape", tooltip="Back: cancel the BFS, else return home"),
    ]

    def __init__(self, tab: str = "g-8", *, ascii_only: bool = False):
        super().__init__(classes="gallery")
        self.ascii_only = ascii_only
        self.tab = tab
        self.puzzle = puzzle_for(tab)
        self.job: GalleryJob | None = None
        self.figures: Figures | None = None
        self.show_classes = False
        self.message = ""

    def compose(self) -> ComposeResult:
        yield Header(show_clock=False, icon="*" if self.ascii_only else "駒")
        tabs = Tabs(*[Tab(label, id=tab) for tab, (_, _, label) in TABS.items()], active=self.tab, id="gallery-tabs")
        tabs.can_focus = False
        yield tabs
        with Vertical(id="gallery-body"):
            yield Static(id="gallery-figures")
            yield Histogram(ascii_only=self.ascii_only, id="gallery-histogram")
            yield Static(id="gallery-status")
            yield MiniGrid(ascii_only=self.ascii_only, id="gallery-grid")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.title = "Koma"
        self.sub_title = "the hardest positions"
        self.open_tab(self.tab)

    def on_unmount(self) -> None:
        self.cancel_job(quiet=True)

    # --- tabs ----------------------------------------------------------------------------------
    @on(Tabs.TabActivated)
    def _tab_activated(self, event: Tabs.TabActivated) -> None:
        event.stop()
        if event.tab.id and event.tab.id != self.tab:
            self.open_tab(event.tab.id)

    def action_tab(self, delta: int) -> None:
        ids = list(TABS)
        tab = ids[(ids.index(self.tab) + delta) % len(ids)]
        self.open_tab(tab)
        self.query_one(Tabs).active = tab

    def open_tab(self, tab: str) -> None:
        """Show ``tab``: from the memo at once, else start its BFS."""
        self.cancel_job(quiet=True)
        self.tab = tab
        self.puzzle = puzzle_for(tab)
        self.look = look_for(self.puzzle, self.ascii_only)
        self.figures = _RESULTS.get(tab)
        self.show_classes = False
        self.message = ""
        if self.figures is None:
            self.start_job()
        self.refresh_view()
        self.refresh_bindings()

    # --- the BFS -------------------------------------------------------------------------------
    def start_job(self) -> None:
        job = GalleryJob(self.tab, self.puzzle)
        self.job = job
        self.app.stop_flags[id(job.stop)] = job.stop
        self.run_bfs(job)

    @work(thread=True, exclusive=True, group="gallery", name="gallery-bfs")
    def run_bfs(self, job: GalleryJob) -> None:
        """The full BFS (``Puzzle.longest``), then the symmetry classes where the puzzle has them."""
        last = [0.0]

        def progress(info: dict) -> None:
            now = time.monotonic()
            if now - last[0] >= 0.05:
                last[0] = now
                self.post_message(GalleryProgress(job, int(info.get("depth", 0)), int(info.get("states", 0))))

        try:
            result = job.puzzle.longest(stop=job.stop, progress=progress)
            grouping = getattr(job.puzzle, "symmetry_classes", None)
            classes = grouping(result.positions) if grouping is not None else None
        except Cancelled:
            return
        except KomaError as error:
            self.post_message(GalleryDone(job, None, str(error)))
            return
        finally:
            self.app.stop_flags.pop(id(job.stop), None)
        if not job.stop[0]:
            self.post_message(GalleryDone(job, Figures(result, classes)))

    @on(GalleryProgress)
    def _progress(self, event: GalleryProgress) -> None:
        if event.job is self.job:
            event.job.depth, event.job.states = event.depth, event.states
            self.refresh_status()

    @on(GalleryDone)
    def _done(self, event: GalleryDone) -> None:
        if event.job is not self.job:
            return
        self.job = None
        if event.figures is None:
            self.message = f"The BFS failed: {event.error}"
        else:
            _RESULTS[event.job.tab] = event.figures
            if event.job.tab == self.tab:
                self.figures = event.figures
        self.refresh_view()
        self.refresh_bindings()

    def cancel_job(self, quiet: bool = False) -> bool:
        job = self.job
        if job is None:
            return False
        job.stop[0] = 1
        self.workers.cancel_group(self, "gallery")
        self.job = None
        if not quiet:
            self.message = "Cancelled. Press r to run the BFS again."
            self.refresh_view()
            self.refresh_bindings()
        return True

    # --- drawing -------------------------------------------------------------------------------
    def positions(self) -> list[tuple[tuple, int]]:
        """What the grid shows: (board, class size) pairs; size 1 when classes are off."""
        if self.figures is None:
            return []
        if self.show_classes and self.figures.classes is not None:
            return list(self.figures.classes)
        return [(p, 1) for p in self.figures.result.positions]

    def refresh_view(self) -> None:
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
                caption = f"#{k}" + (f" ×{size}" if self.show_classes and not self.ascii_only else
                                     f" x{size}" if self.show_classes else "")
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
        if job is not None:
            status.update(f"Full BFS from the goal… depth [b]{job.depth}[/b] · {job.states:,} states found "
                          f"[dim](esc cancels)[/dim]")
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
        from rich.markup import escape

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
        screen = self.app.open_puzzle(self.puzzle, state)
        if solve:
            self._solve_when_ready(screen, 0)

    def _solve_when_ready(self, screen, tries: int) -> None:
        if screen.is_mounted and screen.query("#solver"):
            screen.action_solve()
        elif tries < 100:
            self.app.set_timer(0.02, lambda: self._solve_when_ready(screen, tries + 1))

    def action_play_and_solve(self) -> None:
        self.action_play(solve=True)

    def action_rerun(self) -> None:
        if self.job is None:
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
        if action in ("play", "play_and_solve", "grid", "page", "ends") and self.figures is None:
            return None
        if action == "rerun" and self.job is not None:
            return None
        return True
