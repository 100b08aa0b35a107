"""The galleries of the hardest positions: figures, histogram, paging, classes, play and cancel."""

from __future__ import annotations

import time

import pytest
from tui_helpers import SNAPSHOT_SIZES, make_app, wait_for

from solver.engines.stop import check_stop
from solver.sliding.model import SlidingPuzzle
from tui.ascii import Static
from tui.play.screen import PlayScreen
from tui.screens import gallery
from tui.screens.gallery import GalleryScreen
from tui.widgets.histogram import Histogram
from tui.widgets.mini_grid import MiniGrid


class SlowBFS(SlidingPuzzle):
    """A BFS that reports depth levels and only stops when told to."""

    def longest(self, *, stop=None, progress=None):
        depth = 0
        while True:
            check_stop(stop)
            if progress:
                progress({"depth": depth, "states": 1000 * depth})
            depth = min(depth + 1, 30)
            time.sleep(0.005)


def gallery_workers(app):
    return [w for w in app.workers if w.group == "gallery" and not w.is_finished]


async def open_gallery(pilot, tab: str | None = None) -> GalleryScreen:
    await pilot.press("g")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, GalleryScreen), what="the gallery")
    screen = pilot.app.screen
    if tab is not None:
        while screen.tab != tab:
            await pilot.press("right_square_bracket")
    await wait_for(pilot, lambda: screen.figures is not None, what="the full BFS")
    await pilot.pause()
    return screen


@pytest.mark.parametrize("tab, states, longest, count", [
    ("g-8", 181_440, 31, 2),
    ("g-goat", 5_443_200, 52, 7),
    ("g-ura-3", 192, 7, 8),
])
async def test_gallery_reaches_the_articles_figures(tmp_path, tab, states, longest, count):
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_gallery(pilot, tab)
        result = screen.figures.result
        assert (result.states, result.max_depth, len(result.positions)) == (states, longest, count)
        figures = str(screen.query_one("#gallery-figures").render())
        assert f"{states:,} states" in figures and f"longest {longest} moves" in figures
        assert f"{count} positions at {longest}" in figures
        histogram = screen.query_one(Histogram)
        assert histogram.counts[-1] == count and sum(histogram.counts) == states
        assert histogram.cursor == longest
        assert len(screen.query_one(MiniGrid).items) == count
        if tab == "g-8":
            boards = {screen.puzzle.format(p) for p in result.positions}
            assert boards == {"6 4 7/8 5 _/3 2 1", "8 6 7/2 5 4/3 _ 1"}


async def test_ura_classes_and_paging(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_gallery(pilot, "g-ura-5")
        grid = screen.query_one(MiniGrid)
        assert len(grid.items) == 4608 and grid.pages > 1
        assert "page 1/" in str(screen.query_one("#gallery-status").render())
        await pilot.press("pagedown")
        assert grid.page == 1 and grid.selected == grid.page_size
        await pilot.press("end")
        assert grid.selected == 4607 and grid.page == grid.pages - 1
        await pilot.press("c")
        assert screen.show_classes and len(grid.items) == len(screen.figures.classes) == 600
        assert sum(size for _, size in screen.figures.classes) == 4608
        assert str(screen.query_one("#gallery-status").render()).startswith("Class 1 of 600")
        await pilot.press("c")
        assert len(grid.items) == 4608


async def test_enter_plays_and_s_solves_the_selected_position(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_gallery(pilot, "g-8")
        await pilot.press("right")
        chosen = screen.selected_state()
        assert screen.puzzle.format(chosen) == "8 6 7/2 5 4/3 _ 1"
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, PlayScreen), what="the play screen")
        assert app.screen.state == chosen and app.screen.job is None and not app.screen.playback.active
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen, what="back to the gallery")
        await pilot.press("s")
        await wait_for(pilot, lambda: isinstance(app.screen, PlayScreen), what="the play screen")
        play = app.screen
        await wait_for(pilot, lambda: play.playback.active, what="the auto-solve")
        assert play.start == chosen and "31 moves (optimal" in play.message


async def test_escape_cancels_the_bfs_and_leaves_no_worker(tmp_path, monkeypatch):
    monkeypatch.setattr(gallery, "puzzle_for", lambda tab: SlowBFS(3, 3))
    monkeypatch.setattr(gallery, "_RESULTS", {})
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("g")
        await wait_for(pilot, lambda: isinstance(app.screen, GalleryScreen), what="the gallery")
        screen = app.screen
        await wait_for(pilot, lambda: screen.job is not None and screen.job.progress.get("depth", 0) > 2, what="progress by depth")
        assert "depth" in str(screen.query_one("#gallery-status").render())
        await pilot.press("escape")
        assert screen.job is None and "Cancelled" in screen.message
        await wait_for(pilot, lambda: not gallery_workers(app), timeout=2, what="the worker to stop")
        assert all(flag[0] for flag in app.stop_flags.values())
        assert app.screen is screen  # the first escape only cancels
        await pilot.press("r")  # run again, then leave: leaving cancels too
        await wait_for(pilot, lambda: screen.job is not None and screen.job.progress.get("depth", 0) > 2, what="progress again")
        await pilot.press("escape", "escape")
        await wait_for(pilot, lambda: not gallery_workers(app), timeout=2, what="the worker to stop")
        assert not isinstance(app.screen, GalleryScreen)


@pytest.mark.parametrize("size", SNAPSHOT_SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("tab", ["g-8", "g-goat", "g-ura-5"])
def test_gallery_snapshot(snap_compare, tmp_path, size, tab):
    async def run_before(pilot):
        await open_gallery(pilot, tab)
        if tab == "g-ura-5":
            await pilot.press("c", "right", "down")
        await pilot.pause(0.2)

    assert snap_compare(make_app(tmp_path), terminal_size=size, run_before=run_before)


async def test_home_lists_the_gallery_and_enter_opens_it(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(4):
            await pilot.press("down")
        assert app.screen.focused.id == "lab-gallery"
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, GalleryScreen), what="the gallery")
        await wait_for(pilot, lambda: app.screen.figures is not None, what="the full BFS")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, GalleryScreen), what="home")


# --- the 15-puzzle: the 17 positions at 80 moves, verified on request -------------------------------------
from solver.puzzle import Solution  # noqa: E402
from solver.sliding.search import hardest80  # noqa: E402


def quick_80(puzzle, board, *, stop=None, progress=None):
    """Stands in for the real 80-move search (tens of seconds without the 7-8 tables)."""
    if progress:
        progress({"phase": "search", "bound": 80, "nodes": 123_456})
    return Solution(("L",) * 80, (board, puzzle.goal), True, 123_456_789, 1.25, "ida*:pdb78")


async def open_fifteen(pilot) -> GalleryScreen:
    await pilot.press("g")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, GalleryScreen), what="the gallery")
    screen = pilot.app.screen
    while screen.tab != "g-15":
        await pilot.press("right_square_bracket")
    await pilot.pause()
    return screen


async def test_fifteen_tab_lists_the_17_positions_and_verifies_them(tmp_path, monkeypatch):
    monkeypatch.setattr(gallery, "verify_solve", quick_80)
    monkeypatch.setattr(gallery, "_VERIFIED", {})
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_fifteen(pilot)
        assert screen.job is None and not gallery_workers(app)  # no BFS for the 15-puzzle
        grid = screen.query_one(MiniGrid)
        assert len(grid.items) == 17 and len(hardest80()) == 17
        assert [board for board, _ in screen.positions()] == [board for _, board, _ in hardest80()]
        figures = str(screen.query_one("#gallery-figures").render())
        assert "Brüngger" in figures and "Korf & Schultze (2005)" in figures and "No histogram" in figures
        assert not screen.query_one(Histogram).display
        await pilot.press("right", "v")
        await wait_for(pilot, lambda: screen.job is None and 1 in gallery._VERIFIED, what="the verification")
        assert list(gallery._VERIFIED) == [1] and grid.items[1][1] == "#2 ✓" and grid.items[0][1] == "#1"
        status = str(screen.query_one("#gallery-status").render())
        assert "✓ 80 moves in 1.25 s, 123,456,789 nodes" in status
        await pilot.press("a")  # all the others
        await wait_for(pilot, lambda: screen.job is None and len(gallery._VERIFIED) == 17, what="all of them")
        assert all(caption.endswith("✓") for _, caption in grid.items)
        assert "Verified 16 of 16" in screen.message and "17 verified here" in str(
            screen.query_one("#gallery-figures").render())
        await pilot.press("enter")  # Enter plays the selected position
        await wait_for(pilot, lambda: isinstance(app.screen, PlayScreen), what="the play screen")
        assert app.screen.state == hardest80()[1][1] and app.screen.puzzle.key == "15"


async def test_fifteen_verification_reports_a_wrong_length(tmp_path, monkeypatch):
    def short(puzzle, board, *, stop=None, progress=None):
        return Solution(("L",) * 78, (board, puzzle.goal), True, 10, 0.5, "ida*:pdb663")

    monkeypatch.setattr(gallery, "verify_solve", short)
    monkeypatch.setattr(gallery, "_VERIFIED", {})
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_fifteen(pilot)
        await pilot.press("v")
        await wait_for(pilot, lambda: screen.job is None and 0 in gallery._VERIFIED, what="the verification")
        assert screen.query_one(MiniGrid).items[0][1] == "#1 ✗78"
        assert "NOT 80: 78 moves" in str(screen.query_one("#gallery-status").render())


async def test_fifteen_verification_uses_the_real_solver_and_escape_cancels(tmp_path, monkeypatch):
    """The real call, on the first 80-move position: progress by bound, then Escape stops it at once."""
    monkeypatch.setattr(gallery, "_VERIFIED", {})
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_fifteen(pilot)
        await pilot.press("v")
        job = screen.job
        await wait_for(pilot, lambda: job.progress.get("nodes", 0) > 0, timeout=60, what="progress by bound")
        status = str(screen.query_one("#gallery-status").render())
        assert "Verifying #1" in status and "bound" in status and "nodes" in status
        assert screen.query_one(MiniGrid).items[0][1] == "#1 …"
        await pilot.press("escape")
        assert screen.job is None and "cancelled" in screen.message and app.screen is screen
        await wait_for(pilot, lambda: not gallery_workers(app), timeout=5, what="the worker to stop")
        assert all(flag[0] for flag in app.stop_flags.values()) and not gallery._VERIFIED
        await pilot.press("a")  # start again, then leave: leaving cancels too
        await wait_for(pilot, lambda: gallery_workers(app), what="the worker")
        await pilot.press("escape", "escape")
        await wait_for(pilot, lambda: not gallery_workers(app), timeout=5, what="the worker to stop")
        assert not isinstance(app.screen, GalleryScreen)


@pytest.mark.parametrize("size", SNAPSHOT_SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_fifteen_gallery_snapshot(snap_compare, tmp_path, size, monkeypatch):
    monkeypatch.setattr(gallery, "verify_solve", quick_80)
    monkeypatch.setattr(gallery, "_VERIFIED", {})
    monkeypatch.setattr(gallery, "heuristic_note", lambda: "IDA* with the 6-6-3 pattern databases: without the "
                        "7-8 tables each position takes up to a minute or two.")

    async def run_before(pilot):
        screen = await open_fifteen(pilot)
        await pilot.press("right", "v")
        await wait_for(pilot, lambda: screen.job is None and 1 in gallery._VERIFIED, what="the verification")
        await pilot.pause(0.2)

    assert snap_compare(make_app(tmp_path), terminal_size=size, run_before=run_before)


async def test_the_page_count_follows_the_grids_size(tmp_path):
    """The status line's "page 1/2" is the pages the grid holds at its size now: a resize that changes them
    changes the line (it was worked out once, from the grid's size before the layout settled)."""
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_gallery(pilot, "g-goat")
        grid = screen.query_one(MiniGrid)

        def status() -> str:
            return str(screen.query_one("#gallery-status", Static).content)

        await wait_for(pilot, lambda: grid.pages == 1 and "page" not in status(), what="all 7 on one page")
        await pilot.resize_terminal(44, 24)
        await wait_for(pilot, lambda: grid.pages > 1 and f"page 1/{grid.pages}" in status(),
                       what="the narrow grid's pages in the status line")
        await pilot.resize_terminal(80, 24)
        await wait_for(pilot, lambda: grid.pages == 1 and "page" not in status(), what="one page again")
