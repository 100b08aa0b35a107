"""Slidysim's events in Koma: relays down from the size chosen (2-N, width, height, everything-up-to), BLD confirmed by
the player with its memorisation time, and sizes from 2x2 to 20x20 where the terminal can show them."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from speed_helpers import drawn_cells
from tui_helpers import make_app, read_store, wait_for

from solver import solving as search
from solver.errors import KomaError
from tui.game import speed_events
from tui.game.speed import Play, SpeedResult, SpeedSolve, speed_puzzle
from tui.game.speed_events import (
    BLD,
    BY_KEY,
    EVENTS,
    EVERYTHING_RELAY,
    HEIGHT_RELAY,
    SQUARE_RELAY,
    WIDTH_RELAY,
    EventRun,
    event_for,
    relay_sizes,
    summary_of,
)
from tui.game.speed_interop import export_csv, export_json, read_solves
from tui.game.speed_layout import board_fits, parse_speed_size, terminal_needed, too_small
from tui.screens.speed import SpeedScreen
from tui.widgets.board import Board

KEYS = {"U": "up", "D": "down", "L": "left", "R": "right"}


class StepClock:
    def __init__(self) -> None:
        self.t = 500.0

    def __call__(self) -> float:
        return self.t


def one_move_from_goal(puzzle, rng=None) -> tuple[int, ...]:
    """The blank one left of its corner: each leg is solved by one ``L``."""
    goal = list(puzzle.goal)
    goal[-2], goal[-1] = goal[-1], goal[-2]
    return tuple(goal)


# --- the relays' sizes, as Slidysim names and orders them ------------------------------------------------------

def test_the_relays_sizes_are_slidysims_examples():
    # Slidysim's readme: 5x5 -> 4x4 -> 3x3 -> 2x2; 5x5 -> 5x4 -> 5x3 -> 5x2; 5x5 -> 4x5 -> 3x5 -> 2x5;
    # 4x4 -> 3x4 -> 2x4 -> 4x3 -> 3x3 -> 2x3 -> 4x2 -> 3x2 -> 2x2 (WxH: columns x rows)
    assert relay_sizes(SQUARE_RELAY, (5, 5)) == [(5, 5), (4, 4), (3, 3), (2, 2)]
    assert relay_sizes(HEIGHT_RELAY, (5, 5)) == [(5, 5), (5, 4), (5, 3), (5, 2)]
    assert relay_sizes(WIDTH_RELAY, (5, 5)) == [(5, 5), (4, 5), (3, 5), (2, 5)]
    assert relay_sizes(EVERYTHING_RELAY, (4, 4)) == [(4, 4), (3, 4), (2, 4), (4, 3), (3, 3), (2, 3), (4, 2), (3, 2),
                                                     (2, 2)]
    # a rectangle: the 2-N relay starts at the square of its smaller side (Slidysim's generateRelaySizes)
    assert relay_sizes(SQUARE_RELAY, (6, 3)) == [(3, 3), (2, 2)]
    assert relay_sizes(EVERYTHING_RELAY, (20, 20))[0] == (20, 20) and len(relay_sizes(EVERYTHING_RELAY, (20, 20))) == 361
    assert relay_sizes(SQUARE_RELAY, (2, 2)) == [(2, 2)]
    with pytest.raises(KomaError):
        relay_sizes("sprint", (4, 4))


def test_the_relays_are_offered_under_slidysims_names_and_their_keys_name_them_again():
    offered = {event.key: event.title for event in EVENTS if event.relay}
    assert offered == {"rel": "2-N relay", "wrel": "Width relay", "hrel": "Height relay",
                       "eut": "Everything-up-to relay"}
    for key in offered:
        assert event_for(key) is BY_KEY[key] and BY_KEY[key].label((6, 6)) == "6x6"  # records per starting size
    assert event_for("relay3-7").sizes[0] == (3, 3)  # Koma's older upward relay: stored solves still read


def test_a_2_n_relay_runs_down_to_2x2_on_one_clock(monkeypatch):
    monkeypatch.setattr(speed_events, "random_scramble", one_move_from_goal)
    clock = StepClock()
    run = EventRun(BY_KEY[SQUARE_RELAY], (4, 4), clock, random.Random(1))
    sizes, outcomes = [], []
    for _ in range(3):
        sizes.append(run.solve.puzzle.size_label)
        clock.t += 2.0
        outcomes.append(run.play("L"))
    assert sizes == ["4x4", "3x3", "2x2"] and outcomes == [Play.LEG, Play.LEG, Play.SOLVED]
    result = run.result()
    assert not result.dnf and result.stm == 3 and result.time_ms == 4000  # first move at 0, then 2 s a leg
    assert {leg.run for leg in result.legs} == {run.run} and run.run and [leg.leg for leg in result.legs] == [0, 1, 2]
    # records per starting size: the run counts at 4x4, not at the sizes it passed through
    assert summary_of(result.legs, BY_KEY[SQUARE_RELAY], (4, 4)).single.best == 4000
    assert summary_of(result.legs, BY_KEY[SQUARE_RELAY], (3, 3)).count == 0
    assert summary_of(result.legs, BY_KEY[SQUARE_RELAY], (4, 4)).count == 1


def test_a_relay_given_up_half_way_is_a_dnf_and_a_2x2_relay_is_one_solve(monkeypatch):
    monkeypatch.setattr(speed_events, "random_scramble", one_move_from_goal)
    clock = StepClock()
    run = EventRun(BY_KEY[EVERYTHING_RELAY], (3, 3), clock, random.Random(1))
    assert run.sizes == [(3, 3), (2, 3), (3, 2), (2, 2)]
    assert run.play("L") is Play.LEG
    clock.t += 1
    assert run.play("D") is Play.PLAYED and run.abandon()
    assert run.result().dnf and summary_of(run.legs, BY_KEY[EVERYTHING_RELAY], (3, 3)).dnfs == 1
    tiny = EventRun(BY_KEY[SQUARE_RELAY], (2, 2), clock, random.Random(1))
    assert tiny.run == "" and tiny.play("L") is Play.SOLVED and not tiny.result().dnf


# --- BLD: confirmed by the player, memorisation timed ----------------------------------------------------------

def bld_solve(clock: StepClock, seed: int = 5) -> SpeedSolve:
    puzzle = speed_puzzle(3, 3)
    return SpeedSolve(puzzle, puzzle.random_state(seed), clock, event=BLD, blind=True)


def test_a_bld_solve_ends_only_on_the_confirm_and_keeps_its_memorisation_time():
    clock = StepClock()
    solve = bld_solve(clock)
    solve.reveal()
    assert solve.confirm() is Play.ILLEGAL  # nothing to confirm before the first move
    clock.t += 8.25  # memorisation: the scramble shown, no move yet
    moves = search.solve(solve.puzzle, solve.state).moves
    for index, move in enumerate(moves):
        clock.t += 0 if index == 0 else 0.5
        assert solve.play(move) is Play.PLAYED  # solved, but the board does not end by itself
    assert solve.puzzle.is_goal(solve.state) and not solve.over
    clock.t += 3.0  # the player thinks before confirming
    assert solve.confirm() is Play.SOLVED and solve.over
    result = solve.result()
    assert not result.dnf and result.memo_ms == 8250
    assert result.time_ms == round((len(moves) - 1) * 500)  # from the first move to the last, memo apart
    assert result.event == BLD


def test_a_wrong_confirm_is_a_dnf():
    clock = StepClock()
    solve = bld_solve(clock, seed=6)
    solve.reveal()
    clock.t += 2.0
    move = solve.puzzle.moves(solve.state)[0]
    solve.play(move)
    assert not solve.puzzle.is_goal(solve.state)
    assert solve.confirm() is Play.DNF and solve.over
    result = solve.result()
    assert result.dnf and result.memo_ms == 2000 and result.stm == 1
    assert solve.confirm() is Play.ILLEGAL  # once over, nothing more


def test_a_solve_that_is_not_blind_ends_by_itself_and_takes_no_confirm():
    clock = StepClock()
    puzzle = speed_puzzle(3, 3)
    solve = SpeedSolve(puzzle, one_move_from_goal(puzzle), clock)
    solve.reveal()
    clock.t += 5
    assert solve.confirm() is Play.ILLEGAL
    assert solve.play("L") is Play.SOLVED and solve.result().memo_ms is None


def test_the_memorisation_time_goes_out_and_comes_back_in_csv_and_json():
    result = SpeedResult(3, 3, one_move_from_goal(speed_puzzle(3, 3)), ("L",), (0,), event=BLD, memo_ms=12345,
                         finished=1.7e9)
    for text, source in ((export_csv([result]), "csv"), (export_json([result]), "json")):
        back = read_solves(text)
        assert [parsed.result for parsed in back] == [replace(result, source=source)]
    assert "12.345" in export_csv([result])


async def test_the_store_keeps_the_memorisation_time_and_bld_records_apart_from_singles(tmp_path):
    from tui.storage.store import Store

    store = Store(tmp_path / "koma.db", player="user:ann", name="ann")
    from tui.game.speed_notation import solve_record

    puzzle = speed_puzzle(3, 3)
    bld = SpeedResult(3, 3, one_move_from_goal(puzzle), ("L",), (0,), event=BLD, memo_ms=4321)
    single = SpeedResult(3, 3, one_move_from_goal(puzzle), ("L", "R", "L"), (0, 100, 900))
    store.record_speed_solve("op-bld", solve_record(bld), 1.0)
    store.record_speed_solve("op-single", solve_record(single), 2.0)
    stored = store.speed_solves("3x3")
    assert [(r.event, r.memo_ms) for r in stored] == [(BLD, 4321), ("single", None)]
    records = {(event, statistic): record.time_ms for _size, event, record in store.speed_records("3x3")
               for statistic in [record.statistic]}
    assert records[(BLD, "single")] == 0 and records[("single", "single")] == 900


# --- the screen: a relay and a BLD played with keys -----------------------------------------------------------

async def test_a_height_relay_on_the_screen_says_each_leg_and_ends_with_its_time(tmp_path, monkeypatch):
    monkeypatch.setattr(speed_events, "random_scramble", one_move_from_goal)
    app = make_app(tmp_path)
    clock = app.clock = StepClock()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = SpeedScreen((4, 4), rng=random.Random(2), event=HEIGHT_RELAY)
        await app.push_screen(screen)
        await pilot.pause()
        assert screen.sub_title == "Speed 4x4 Height relay"
        seen = []
        for _ in range(3):
            board = screen.query_one("#speed-board", Board)
            seen.append((board.columns, board.rows))
            clock.t += 1.5
            await pilot.press("left")
            await pilot.pause()
            if not screen.run.over:
                assert f"solve {len(screen.run.legs) + 1} of 3" in str(screen.query_one("#speed-message").render())
        await wait_for(pilot, lambda: screen.run.over, what="the relay")
        assert seen == [(4, 4), (4, 3), (4, 2)]
        message = str(screen.query_one("#speed-message").render())
        assert "Height relay in 3.000" in message and "(3 solves)" in message
        stored = await read_store(pilot, lambda store: store.speed_solves())
        assert [(r.size_label, r.event, r.leg) for r in stored] == [("4x4", "hrel", 0), ("4x3", "hrel", 1),
                                                                    ("4x2", "hrel", 2)]
        assert "Session 4x4: 1 solve" in str(screen.query_one("#speed-averages").render())


async def test_bld_on_the_screen_a_wrong_confirm_is_a_dnf_with_its_memo_shown(tmp_path):
    app = make_app(tmp_path)
    clock = app.clock = StepClock()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = SpeedScreen((3, 3), rng=random.Random(8), event="bld")
        await app.push_screen(screen)
        await pilot.pause()
        clock.t += 6.5
        move = screen.solve.puzzle.moves(screen.solve.state)[0]
        await pilot.press(KEYS[move])
        await pilot.pause()
        assert not screen.solve.puzzle.is_goal(screen.solve.state)
        clock.t += 1.0
        await pilot.press("space")
        await wait_for(pilot, lambda: screen.run.over, what="the confirm")
        message = str(screen.query_one("#speed-message").render())
        assert "DNF" in message and "not solved" in message and "memo 6.500" in message
        stored = await read_store(pilot, lambda store: store.speed_solves("3x3"))
        assert len(stored) == 1 and stored[0].dnf and stored[0].memo_ms == 6500 and stored[0].event == "bld"
        await pilot.press("space")  # over: the next scramble
        assert not screen.solve.started and screen.run.legs == []


# --- sizes: 2x2 to 20x20, and the terminal each needs ---------------------------------------------------------

def test_the_terminal_a_size_needs():
    assert terminal_needed(10, 10) == (60, 13)  # the 10x10 at 60 columns, as before
    assert terminal_needed(20, 20) == (112, 23)  # three digits and a gap a tile, one line a row, the panel
    assert terminal_needed(2, 2) == (8, 5)
    assert too_small(20, 20, 200, 60) == "" and too_small(10, 10, 80, 24) == ""
    assert too_small(20, 20, 80, 24) == "A 20x20 board needs a terminal of at least 112x23 (this one is 80x24)."
    assert parse_speed_size("2x7") == (2, 7) and parse_speed_size(" 12 ") == (12, 12)
    for bad in ("1x5", "21x3", "big", "", "9999999999"):
        with pytest.raises(KomaError):
            parse_speed_size(bad)


async def test_a_size_the_terminal_cannot_show_is_refused_in_one_line(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = SpeedScreen((4, 4), rng=random.Random(1))
        await app.push_screen(screen)
        await pilot.pause()
        await pilot.press("s")
        await wait_for(pilot, lambda: app.screen is not screen, what="the size dialog")
        dialog = app.screen
        await pilot.press(*"20x20", "enter")
        await wait_for(pilot, lambda: app.screen is screen, what="the size dialog to close")
        assert dialog is not screen and screen.size_wh == (4, 4)
        assert str(screen.query_one("#speed-message").render()) == (
            "A 20x20 board needs a terminal of at least 112x23 (this one is 80x24).")
        await pilot.press("s")
        await wait_for(pilot, lambda: app.screen is not screen, what="the size dialog")
        await pilot.press(*"2x7", "enter")
        await wait_for(pilot, lambda: screen.size_wh == (2, 7), what="the 2x7")
        await wait_for(pilot, lambda: screen.query_one("#speed-board", Board).columns == 2, what="its board")
        board = screen.query_one("#speed-board", Board)
        assert (board.columns, board.rows) == (2, 7) and board_fits(2, 7, board.size.width, board.size.height)
        assert drawn_cells(board) == ["" if v == 0 else str(v) for v in screen.solve.state]


@pytest.mark.parametrize("terminal", [(200, 60), (112, 23)])
async def test_a_20x20_is_whole_and_readable_on_a_terminal_large_enough(tmp_path, terminal):
    app = make_app(tmp_path)
    async with app.run_test(size=terminal) as pilot:
        screen = SpeedScreen((20, 20), rng=random.Random(3))
        await app.push_screen(screen)
        await pilot.pause()
        board = screen.query_one("#speed-board", Board)
        assert board_fits(20, 20, board.size.width, board.size.height)
        assert app.screen.region.contains_region(board.region)
        assert drawn_cells(board) == ["" if v == 0 else str(v) for v in screen.solve.state]  # all 399, 3 digits
        tw, _th = board.tile_size()
        assert tw >= 4  # three digits and a gap


async def test_a_board_larger_than_the_terminal_says_what_it_needs(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = SpeedScreen((20, 20), rng=random.Random(3))  # opened directly at a size too large for 80x24
        await app.push_screen(screen)
        await pilot.pause()
        board = screen.query_one("#speed-board", Board)
        assert not board_fits(20, 20, board.size.width, board.size.height)
        await wait_for(pilot, lambda: "112x23" in str(screen.query_one("#speed-message").render()), what="the need")
        assert str(screen.query_one("#speed-message").render()) == (
            "A 20x20 board needs a terminal of at least 112x23 (this one is 80x24).")
