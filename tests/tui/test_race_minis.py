"""The opponents' minis (tui/widgets/race_minis.py): which drawing fits which room, and what each draws, read back
from the widget mounted in a real app."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult

from solver.sliding.model import SlidingPuzzle
from tui.screens.speed import SIZES
from tui.widgets.race_minis import (
    GAP_X,
    GAP_Y,
    LINES,
    Drawing,
    Mini,
    RaceMinis,
    cell_size,
    fit,
    grid_shape,
)

# the minis' room in the race screen's side panel at 80x24 and 60x24, and below the board at 40x20 (4x4)
ROOMS = {"80x24": (42, 17), "60x24": (33, 17), "40x20": (38, 4), "120x36": (58, 29)}


@pytest.mark.parametrize("room", list(ROOMS.values()), ids=list(ROOMS))
@pytest.mark.parametrize("count", range(1, 9))
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_drawing_chosen_fits_its_room(room, count, size):
    drawing = fit(count, *size, room)
    if drawing == LINES:
        # no board drawing fits: each smaller one was tried
        assert all(grid_shape(d, count, *size, room) is None for d in (Drawing("halves"), Drawing("halves", True)))
        return
    columns, rows = grid_shape(drawing, count, *size, room)
    width, height = cell_size(drawing, *size)
    assert columns * rows >= count
    assert columns * width + (columns - 1) * GAP_X <= room[0]
    assert rows * height + (rows - 1) * GAP_Y <= room[1]


def test_the_largest_drawing_that_fits_is_chosen():
    # a 4x4 in numbers is 11x4, with its caption below 13x6: two columns of them in 42, two rows in 17
    assert fit(3, 4, 4, ROOMS["80x24"]) == Drawing("numbers")
    # seven: four rows of 6 (27 lines) do not fit, nor cells beside (4 rows of 4, 19); half blocks beside their
    # caption (18x2) do, two columns of four rows: 11 lines
    assert fit(7, 4, 4, ROOMS["80x24"]) == Drawing("halves", beside=True)
    assert fit(7, 4, 4, ROOMS["80x24"], ascii_only=True) == LINES  # half blocks have no ASCII form
    # eight 10x10s at 120x36: numbers (29x12 each) one column; one character a tile (13x12) four columns, two rows
    assert fit(8, 10, 10, ROOMS["120x36"]) == Drawing("cells")
    assert fit(8, 10, 10, ROOMS["80x24"]) == LINES


class MinisApp(App):
    def __init__(self, minis: list[Mini], ascii_only: bool = False):
        super().__init__()
        self.minis, self.ascii_only = minis, ascii_only

    def compose(self) -> ComposeResult:
        yield RaceMinis(ascii_only=self.ascii_only, id="minis")

    def on_mount(self) -> None:
        self.query_one(RaceMinis).show(self.minis)


GOAL_3X3 = SlidingPuzzle(3, 3).goal
ONE_MOVE = (1, 2, 3, 4, 5, 6, 7, 0, 8)  # the goal with 8 slid right: 7 tiles home


async def shown(minis: list[Mini], size: tuple[int, int], ascii_only: bool = False) -> tuple[str, list[str]]:
    app = MinisApp(minis, ascii_only)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        widget = app.query_one(RaceMinis)
        return widget.drawing.board, widget.text_lines()


async def test_numbers_show_every_tile_and_the_caption():
    drawing, lines = await shown([Mini("1. ann", "12 3.4s 3.5", 3, 3, ONE_MOVE, "done")], (30, 10))
    assert drawing == "numbers"
    assert [line.rstrip() for line in lines[:5]] == ["1 2 3", "4 5 6", "7   8", "1. ann", "12 3.4s 3.5"]


async def test_cells_mark_the_tiles_home_one_character_each():
    goal = SlidingPuzzle(10, 10).goal
    away = (goal[1], goal[0], *goal[2:])  # tiles 1 and 2 swapped
    drawing, lines = await shown([Mini("ann", "0 0.0s -", 10, 10, goal), Mini("bob", "3 1.0s 3.0", 10, 10, away)],
                                 (30, 12))
    assert drawing == "cells"
    assert lines[0].startswith("█" * 10 + " " * 5 + "░░" + "█" * 8)  # 13 wide (the caption), a gap of 2
    assert lines[9].startswith("█" * 9 + " ")  # the blank, last
    assert lines[10].split() == ["ann", "bob"] and lines[11].split() == ["0", "0.0s", "-", "3", "1.0s", "3.0"]


async def test_ascii_cells_and_the_line_per_racer():
    minis = [Mini("ann", "1 0.5s 2.0", 3, 3, ONE_MOVE), Mini("DNF bob", "0 0.0s -", 3, 3, GOAL_3X3, "dnf")]
    drawing, lines = await shown(minis, (40, 2), ascii_only=True)
    assert drawing == "lines"
    assert lines[0].split() == ["ann", "#########.", "1", "0.5s", "2.0"]  # 7 of 8 tiles home: 9 of 10 bar cells
    assert lines[1].split() == ["DNF", "bob", "##########", "0", "0.0s", "-"]


async def test_more_racers_than_lines_say_how_many_more():
    minis = [Mini(f"r{k}", "0 0.0s -", 10, 10, SlidingPuzzle(10, 10).goal) for k in range(8)]
    drawing, lines = await shown(minis, (30, 4))
    assert drawing == "lines"
    assert [line.split()[0] for line in lines[:3]] == ["r0", "r1", "r2"]
    assert lines[3].strip() == "… and 5 more"


def racing(title: str, state: tuple[int, ...], figures: str = "0 1.0s -") -> Mini:
    return Mini(title, figures, 3, 3, state, "racing")


async def test_one_racers_move_repaints_that_racers_lines_alone():
    # four 3x3s in numbers, two columns of two (each 13x5 with its caption): bob's move changes bob's board row
    # and figures, and only those spans are repainted; the other racers' lines are the strips drawn before
    minis = [racing(name, GOAL_3X3) for name in ("ann", "bob", "cyd", "dee")]
    app = MinisApp(minis)
    async with app.run_test(size=(28, 11)) as pilot:
        await pilot.pause()
        widget = app.query_one(RaceMinis)
        assert widget.drawing == Drawing("numbers")
        before = [widget.render_line(y) for y in range(widget.size.height)]
        asked: list[tuple] = []
        refresh = widget.refresh
        widget.refresh = lambda *regions, **options: asked.append(regions) or refresh(*regions, **options)  # type: ignore[method-assign]
        minis[1] = racing("bob", ONE_MOVE, "1 1.0s 1.0")
        widget.show(minis)
        after = [widget.render_line(y) for y in range(widget.size.height)]
        cw, _ = cell_size(Drawing("numbers"), 3, 3)
        bob = (cw + GAP_X, 0)  # bob is the second column of the first row
        assert len(asked) == 1 and asked[0], asked  # a repaint of some regions, not of the whole widget
        lines = sorted(region.y for region in asked[0])
        assert lines == [2, 4]  # the board's last row (8 slid right) and the figures
        assert all(region.x == bob[0] and region.width == cw and region.height == 1 for region in asked[0])
        changed = [y for y in range(len(after)) if after[y] is not before[y]]
        assert changed == [2, 4]
        assert widget.text_lines()[2][bob[0]:bob[0] + cw].rstrip() == "7   8"
        assert [after[y].text for y in (0, 1, 3)] == [before[y].text for y in (0, 1, 3)]


class ThemedMinisApp(MinisApp):
    CSS = "RaceMinis > .race-minis--home { color: $success; }"


async def test_the_minis_take_the_new_colours_when_the_theme_changes():
    # the minis keep their styles until the CSS changes: a new theme draws them in its colours
    app = ThemedMinisApp([racing("ann", ONE_MOVE)])
    async with app.run_test(size=(28, 11)) as pilot:
        await pilot.pause()
        widget = app.query_one(RaceMinis)
        home = widget.get_component_rich_style("race-minis--home", partial=True)
        drawn = next(segment.style for segment in widget.render_line(0) if segment.text.strip() == "1")
        assert drawn.color == (widget.rich_style + home).color
        app.theme = "nord" if app.theme != "nord" else "textual-dark"
        await pilot.pause()
        await pilot.pause()
        home_now = widget.get_component_rich_style("race-minis--home", partial=True)
        assert home_now != home  # the theme does change this colour: the test below can fail
        drawn = next(segment.style for segment in widget.render_line(0) if segment.text.strip() == "1")
        assert drawn.color == (widget.rich_style + home_now).color
        assert drawn.bgcolor == widget.rich_style.bgcolor
