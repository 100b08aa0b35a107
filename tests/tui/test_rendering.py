"""Partial updates render only what changed: a clock tick its one line, a move its tiles and lines.

The play screen's compositor (``tui.patches.rendering.DirtyOnlyCompositor``) picks the widgets to render by
the regions that changed.  These tests spy on ``render_lines`` while the real app ticks and moves.
That what it draws is still right is checked end to end in tmux (``test_e2e_tmux``: partial
updates equal a full redraw).
"""

from __future__ import annotations

import asyncio
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st
from textual._compositor import Compositor
from textual.content import Content
from textual.geometry import Region
from textual.screen import Screen
from textual.widget import Widget
from tui_helpers import make_app, record_calls, wait_for, wait_warm

from tui.patches.rendering import FrameTimer, contains, next_boundary, overlap
from tui.play.screen import PlayScreen
from tui.widgets.board import Board
from tui.widgets.status import GameStatus

FIFTEEN = "1 2 3 4/5 6 7 8/9 10 11 12/13 14 _ 15"  # one move from solved


def spy_renders(monkeypatch) -> list[Widget]:
    """Every widget whose ``render_lines`` runs from now on, in order."""
    return record_calls(monkeypatch, Widget, "render_lines")


async def started_game(pilot) -> PlayScreen:
    """The 15-puzzle, warm, after the first move (so its clock runs)."""
    await wait_warm(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, PlayScreen)
    await pilot.press("right")
    await wait_for(pilot, lambda: screen.position == 1 and screen.clock_timer is not None, what="the first move")
    await wait_for(pilot, lambda: not screen.solver.distance_pending(screen.state), what="the new distance")
    await pilot.pause()
    return screen


async def test_a_clock_tick_renders_only_the_clock_line(tmp_path, monkeypatch):
    now = [0.0]
    app = make_app(tmp_path, "15", FIFTEEN)
    app.clock = lambda: now[0]
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await started_game(pilot)
        counters = screen.status.query_one("#counters")
        rendered = spy_renders(monkeypatch)
        now[0] = 65.0
        screen._tick()
        await wait_for(pilot, lambda: "1:05" in str(counters.render()) and rendered, what="the tick drawn")
        await pilot.pause()
        assert set(rendered) == {counters}, [type(w).__name__ for w in rendered]


async def test_a_move_renders_the_boards_lines_that_changed_not_the_panel(tmp_path, monkeypatch):
    now = [0.0]
    app = make_app(tmp_path, "15", FIFTEEN)
    app.clock = lambda: now[0]
    app.animation_level = "none"  # the tile jumps; while it slides, the board shows around it
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await started_game(pilot)
        board = screen.query_one(Board)
        rendered = spy_renders(monkeypatch)
        lines = record_calls(monkeypatch, Board, "render_line", lambda widget, y: y)
        await pilot.press("left")
        await wait_for(pilot, lambda: screen.position == 2 and not screen.solver.distance_pending(screen.state),
                       what="the second move and its distance")
        await wait_for(pilot, lambda: rendered, what="the move drawn")
        await pilot.pause()
        kinds = {type(w) for w in rendered}
        assert Board in kinds  # the board, whose lines changed
        assert GameStatus not in kinds, [(type(w).__name__, w.region) for w in rendered]  # not the panel behind
        assert lines and len(set(lines)) <= board.tile_height  # a sideways move changes one row of tiles


@pytest.mark.parametrize("owner, name", [(Screen, "_refresh_layout"), (Content, "get_height")],
                         ids=["layout pass", "wrapping"])
async def test_a_panel_line_that_stays_one_short_line_needs_no_layout_pass_and_no_wrapping(tmp_path, monkeypatch,
                                                                                           owner, name):
    app = make_app(tmp_path, "15", FIFTEEN)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await started_game(pilot)
        calls = record_calls(monkeypatch, owner, name)
        distance = screen.status.query_one("#distance")
        screen.status.distance = "[b]99[/b] moves from solved"
        await wait_for(pilot, lambda: "99 moves" in str(distance.render()), what="the new distance")
        await pilot.pause()
        assert calls == []
        screen.status.distance = "a distance line\nthat is two lines high"
        await wait_for(pilot, lambda: distance.size.height == 2, what="the taller line")
        assert calls  # a line that grows moves the lines below it (a layout pass), and may wrap (its height asked)


async def test_moves_need_no_layout_pass_and_draw_only_the_pieces_that_changed(tmp_path, monkeypatch):
    app = make_app(tmp_path, "15", FIFTEEN)
    app.animation_level = "none"
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await started_game(pilot)
        board = screen.query_one(Board)
        cursor = board.cursor  # the moves keep the gap off it
        reflows = record_calls(monkeypatch, Compositor, "reflow", lambda compositor, parent, size: parent)
        drawn = record_calls(monkeypatch, type(board.look), "draw_piece",
                             lambda look, board, spec, *rest, **marks: spec)
        repaints = board.repaints
        for _ in range(6):  # legal moves that keep away from the goal, go on, and leave the cursor's piece alone
            before, puzzle = screen.position, screen.puzzle
            move = next(m for m in puzzle.moves(screen.state) if not puzzle.is_goal(after := puzzle.apply(screen.state, m))
                        and after != screen.history.path[-2] and after[cursor] != 0)
            await pilot.press({"U": "up", "D": "down", "L": "left", "R": "right"}[move])
            await wait_for(pilot, lambda before=before: screen.position == before + 1, what=f"the move {move}")
            await pilot.pause()
        assert reflows == []  # nothing was arranged again
        assert board.repaints == repaints + 6  # one repaint of the board a move
        assert len(drawn) <= 12 and {spec.kind for spec in drawn} <= {"tile", "blank"}  # the tile and the gap a move
        assert board.state == screen.state


regions = st.builds(Region, st.integers(-5, 40), st.integers(-5, 30), st.integers(0, 40), st.integers(0, 30))


@given(regions, regions)
def test_overlap_and_contains_agree_with_textuals_cached_region_methods(a, b):
    expected = a.intersection(b)
    assert overlap(a, b) == (expected if expected else None)
    if b:
        assert contains(a, b) == a.contains_region(b)


async def test_with_animations_off_a_move_places_its_tile_at_once(tmp_path):
    app = make_app(tmp_path, "15", FIFTEEN)
    app.animation_level = "none"
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await started_game(pilot)
        board = screen.query_one(Board)
        move = next(m for m in screen.puzzle.moves(screen.state)
                    if not screen.puzzle.is_goal(screen.puzzle.apply(screen.state, m)))
        assert screen.play(move)  # synchronously: no frame has run since
        assert board._slides == {}  # nothing under way: every tile stands on its cell already
        assert board.state == screen.state


async def test_the_start_boards_id_is_worked_out_once_not_per_move(tmp_path, monkeypatch):
    from solver import ids

    app = make_app(tmp_path, "15", FIFTEEN)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await started_game(pilot)
        shown = screen.status.game_id
        calls = record_calls(monkeypatch, ids, "game_id", lambda puzzle, state: state)
        for _ in range(4):
            move = next(m for m in screen.puzzle.moves(screen.state)
                        if not screen.puzzle.is_goal(screen.puzzle.apply(screen.state, m)))
            assert screen.play(move)
        assert calls == []
        assert screen.status.game_id == shown


async def test_a_move_or_a_new_cursor_draws_only_the_pieces_that_changed(tmp_path, monkeypatch):
    app = make_app(tmp_path, "15", FIFTEEN)
    app.animation_level = "none"
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await started_game(pilot)
        board = screen.query_one(Board)
        drawn = record_calls(monkeypatch, type(board.look), "draw_piece",
                             lambda look, board, spec, *rest, **marks: (spec, marks["cursor"]))
        move = next(m for m in screen.puzzle.moves(screen.state)
                    if not screen.puzzle.is_goal(screen.puzzle.apply(screen.state, m)))
        assert screen.play(move)
        await pilot.pause()
        assert {spec.kind for spec, _ in drawn} == {"tile", "blank"} and len(drawn) == 2  # the tile and the gap
        drawn.clear()
        old = board.cursor
        board.cursor = next(cell for cell in range(16) if cell != old and screen.state[cell] and screen.state[old])
        await pilot.pause()
        assert sorted(cursor for _, cursor in drawn) == [False, True]  # the piece it left and the one it is on
        assert [spec.cell for spec, cursor in drawn if cursor] == [board.cursor]


async def test_a_panel_line_shown_again_draws_what_it_kept_and_looks_the_same(tmp_path, monkeypatch):
    """A move back shows a distance the panel showed before: its line draws the strips it kept, not a new render."""
    from textual.visual import Visual

    app = make_app(tmp_path, "15", FIFTEEN)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await started_game(pilot)
        distance = screen.status.query_one("#distance")

        def drawn() -> list[str]:
            return [strip.text for strip in distance.render_lines(Region(0, 0, *distance.size))]

        first, second = "[b]41[/b] moves from solved", "[b]42[/b] moves from solved"
        screen.status.distance = first
        await wait_for(pilot, lambda: "41 moves" in "".join(drawn()), what="the first distance")
        first_lines = drawn()
        screen.status.distance = second
        await wait_for(pilot, lambda: "42 moves" in "".join(drawn()), what="the second distance")
        rendered: list[Widget] = []
        original = Visual.to_strips.__func__

        def to_strips(cls, widget, *args, **kwargs):
            rendered.append(widget)
            return original(cls, widget, *args, **kwargs)

        monkeypatch.setattr(Visual, "to_strips", classmethod(to_strips))
        screen.status.distance = first  # shown again
        await wait_for(pilot, lambda: "41 moves" in "".join(drawn()), what="the first distance again")
        assert drawn() == first_lines
        assert distance not in rendered
        distance.set_class(True, "-bad")  # a style change draws it anew
        distance.refresh()
        await pilot.pause()
        drawn()
        assert distance in rendered


async def test_a_slide_draws_its_tile_at_a_few_places_on_the_way_and_ends_on_its_cell(tmp_path, monkeypatch):
    """With animations on, a tile still slides inside the board, drawn at SLIDE_STEPS places on its way (each a
    repaint of the lines it crosses), and ends on its cell."""
    from tui.widgets import board as board_module

    app = make_app(tmp_path, "15", FIFTEEN)
    app.animation_level = "full"
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await started_game(pilot)
        await pilot.pause(3 * board_module.MOVE_SECONDS)
        board = screen.query_one(Board)
        steps = record_calls(monkeypatch, Board, "_draw", lambda board: board._slide_step)
        move = next(m for m in screen.puzzle.moves(screen.state) if m in "LR"
                    and not screen.puzzle.is_goal(screen.puzzle.apply(screen.state, m)))
        assert screen.play(move)
        await wait_for(pilot, lambda: not board._slides, what="the slide to end")
        await pilot.pause()
        assert 1 in steps and steps[-1] == board_module.SLIDE_STEPS  # seen on its way, then on its cell
        assert len(set(steps)) <= board_module.SLIDE_STEPS
        blank = screen.state.index(0)
        assert board.piece_on(blank).kind == "blank"


@pytest.mark.parametrize("size", [(40, 20), (80, 24)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_the_home_screen_is_restyled_whole_once_as_it_opens(tmp_path, monkeypatch, size):
    """Its breakpoint classes (-narrow, -short…) are set before its first restyle, not by a second restyle of the
    whole screen on the Resize event its first layout sends; the classes are those of the terminal's size."""
    from textual.app import App

    from tui.screens.home import HomeScreen

    restyled = record_calls(monkeypatch, App, "update_styles", lambda app, node, *rest, **options: node)
    app = make_app(tmp_path)
    async with app.run_test(size=size) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen), what="the home screen")
        await pilot.pause(0.3)
        home = app.screen
        assert sum(node is home for node in restyled) == 1
        assert home.has_class("-narrow" if size[0] < 60 else "-wide") and home.has_class("-short" if size[1] < 24 else "-tall")


# --- the frame timer ---------------------------------------------------------------------------------------------
class FakeApp:
    _exit = False

    def _handle_exception(self, error: Exception) -> None:
        raise AssertionError(f"a frame raised {error!r}")


class FakeScreen:
    app = FakeApp()


def frame_timer(frames: list[float], period: float = 0.05) -> FrameTimer:
    return FrameTimer(FakeScreen(), lambda: frames.append(asyncio.get_running_loop().time()), period)  # type: ignore[arg-type]


def due_in(timer: FrameTimer) -> float:
    """How long until the frame asked for is drawn (0: the loop's next turn)."""
    handle = timer._handle
    assert handle is not None, "no frame asked for"
    return handle.when() - asyncio.get_running_loop().time() if isinstance(handle, asyncio.TimerHandle) else 0.0


def test_the_schedule_is_textuals_a_late_tick_puts_the_next_one_to_two_periods_on():
    assert next_boundary(0.0, 1, 1.0, 1.1) == 2  # on time: the next period
    assert next_boundary(0.0, 1, 1.0, 2.0) == 2
    assert next_boundary(0.0, 1, 1.0, 5.3) == 7  # late (a resume long after the tick): 1.7 periods on
    assert next_boundary(0.0, 1, 1.0, 5.95) == 7  # 1.05 periods on
    assert next_boundary(10.0, 4, 0.5, 11.2) == 5


async def test_a_frame_comes_on_textuals_schedule_the_first_a_period_after_the_first_ask():
    frames: list[float] = []
    timer = frame_timer(frames, period=10.0)
    timer.resume()  # a new screen: its widgets mount meanwhile, and their changes go in one frame
    handle = timer._handle
    assert isinstance(handle, asyncio.TimerHandle) and timer.start is not None
    assert handle.when() == pytest.approx(timer.start + 10.0, abs=0.01)
    timer.resume()  # asked again meanwhile: still the one frame, at the same time
    assert timer._handle is handle
    timer.pause()
    timer.start -= 10.0  # the tick has come: at once
    timer.resume()
    assert due_in(timer) == 0
    await asyncio.sleep(0)
    assert len(frames) == 1 and timer.drawn == 1 and timer._handle is None
    assert timer.next_at == pytest.approx(timer.start + 20.0)  # and the next tick a period on
    timer.resume()
    assert 9 < due_in(timer) <= 10


async def test_the_players_input_is_drawn_at_once_whatever_the_schedule():
    frames: list[float] = []
    timer = frame_timer(frames, period=10.0)
    timer.resume()  # an opponent's move: ten seconds to the tick
    assert due_in(timer) > 9
    tick = timer.next_at
    timer.answer_input()
    timer.resume()  # what the key changed: at once, the frame waiting for the tick taken back
    assert due_in(timer) == 0
    await asyncio.sleep(0)
    assert len(frames) == 1 and not timer.input_waiting
    timer.resume()  # the input answered: the schedule's tick stands
    assert timer.next_at == tick and due_in(timer) > 9


async def test_a_paused_frame_timer_draws_nothing_and_nothing_once_the_app_exits():
    frames: list[float] = []
    timer = frame_timer(frames, period=0.0)
    timer.resume()
    timer.pause()
    await asyncio.sleep(0)  # (a frame asked for at once runs before this turn of the loop ends)
    assert frames == [] and timer._handle is None
    timer.screen.app = FakeApp()
    timer.screen.app._exit = True
    timer.resume()
    await asyncio.sleep(0)
    assert frames == [] and timer._handle is None


async def test_a_key_in_the_real_app_is_drawn_at_once_not_at_the_schedules_next_tick(tmp_path):
    """The play screen takes the frame timer; a key is drawn without waiting for the schedule's next tick (an hour
    away here, so that waiting for it could not pass)."""
    app = make_app(tmp_path, "15", FIFTEEN)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_warm(pilot)
        screen = pilot.app.screen
        timer = screen._update_timer
        assert isinstance(timer, FrameTimer)
        timer.pause()
        timer.period = 3600.0
        timer.start, timer.count = time.monotonic(), 1  # the next tick an hour away
        drawn = timer.drawn
        await pilot.press("right")
        await wait_for(pilot, lambda: screen.position == 1, what="the move")
        await wait_for(pilot, lambda: timer.drawn > drawn, what="the move's frame, at once")
        screen.refresh()  # no input: this change waits for the tick
        await wait_for(pilot, lambda: timer._handle is not None, what="a frame asked for")
        assert due_in(timer) > 3000
