"""Speed events: marathon and relay runs on one clock, BLD, and each event's own figures."""

from __future__ import annotations

import random

import pytest
from speed_helpers import drawn_cells
from textual.widgets import Input, OptionList
from tui_helpers import make_app, read_store, wait_for

from solver import solving as search
from solver.errors import KomaError
from tui.game import speed_events
from tui.game.averages import seconds_text
from tui.game.speed import Play, SpeedResult, speed_puzzle
from tui.game.speed_events import BY_KEY, EVENTS, Event, EventRun, SpeedSession, daily_event, event_for, event_results, marathon, relay, summary_of
from tui.screens.speed import SpeedScreen
from tui.screens.speed_event import SpeedEventScreen
from tui.screens.speed_session import SpeedSessionScreen
from tui.widgets.board import Board

RELAY = Event("relay-test", "relay", legs=2, sizes=((3, 3), (4, 3)))
KEYS = {"U": "up", "D": "down", "L": "left", "R": "right"}


class StepClock:
    def __init__(self) -> None:
        self.t = 500.0

    def __call__(self) -> float:
        return self.t


def solve_leg(run: EventRun, clock: StepClock, gap: float) -> Play:
    outcome = Play.ILLEGAL
    for move in search.solve(run.solve.puzzle, run.solve.state).moves:
        clock.t += gap
        outcome = run.play(move)
    return outcome


def test_a_relay_runs_on_one_clock_from_its_first_move():
    clock = StepClock()
    run = EventRun(RELAY, (4, 4), clock, random.Random(3))
    assert run.solve.puzzle.size_label == "3x3"
    clock.t += 20  # inspection of the first scramble is free
    first_moves = len(search.solve(run.solve.puzzle, run.solve.state).moves)
    assert solve_leg(run, clock, 0.1) is Play.LEG
    assert run.solve.puzzle.size_label == "4x3" and run.solve.started  # the next scramble: the clock runs on
    clock.t += 3.0  # looking at the 4x3 costs time
    second_moves = len(search.solve(run.solve.puzzle, run.solve.state).moves)
    assert solve_leg(run, clock, 0.1) is Play.SOLVED
    result = run.result()
    assert not result.dnf and [leg.leg for leg in result.legs] == [0, 1]
    assert result.legs[0].times_ms[0] == 0
    # gaps of 0.1 s between moves, and 3 s + 0.1 s between the first leg's last move and the second's first
    assert result.legs[1].times_ms[0] == round(((first_moves - 1) * 0.1 + 3.1) * 1000)
    assert result.time_ms == result.legs[1].times_ms[-1]
    assert result.time_ms == round(((first_moves - 1) * 0.1 + 3.1 + (second_moves - 1) * 0.1) * 1000)
    assert result.stm == first_moves + second_moves
    assert result.tps == result.stm * 1000 / result.time_ms
    assert (run.stm, run.mtm) == (result.stm, result.mtm)  # the live counts, once the run is over, are the result's


def test_the_live_counts_take_each_leg_once():
    clock = StepClock()
    run = EventRun(RELAY, (4, 4), clock, random.Random(3))
    assert (run.stm, run.mtm) == (0, 0)
    solve_leg(run, clock, 0.1)
    first = run.legs[0]
    assert (run.stm, run.mtm) == (first.stm, first.mtm)  # the second leg not begun
    run.play(search.solve(run.solve.puzzle, run.solve.state).moves[0])
    assert (run.stm, run.mtm) == (first.stm + 1, first.mtm + 1)
    assert run.abandon()  # a DNF: the leg under way is now one of the legs, counted once
    assert (run.stm, run.mtm) == (sum(leg.stm for leg in run.legs), sum(leg.mtm for leg in run.legs))
    assert run.stm == first.stm + 1


def test_giving_up_a_leg_makes_the_run_a_dnf():
    clock = StepClock()
    run = EventRun(RELAY, (4, 4), clock, random.Random(3))
    assert not run.abandon()  # nothing begun
    solve_leg(run, clock, 0.1)
    assert run.abandon() and run.over
    result = run.result()
    assert result.dnf and result.result_ms == float("inf") and len(result.legs) == 2


def test_each_event_keeps_its_own_figures():
    session = SpeedSession()
    single = SpeedResult(3, 3, (0, 2, 3, 1, 5, 6, 4, 7, 8), tuple("UULL"), (0, 1, 2, 1000))
    bld = SpeedResult(3, 3, (0, 2, 3, 1, 5, 6, 4, 7, 8), tuple("UULL"), (0, 1, 2, 3000), event="bld")
    legs = [SpeedResult(3, 3, (0, 2, 3, 1, 5, 6, 4, 7, 8), tuple("UULL"), (0, 1, 2, 4000), event=RELAY.key, run="r1"),
            SpeedResult(4, 3, (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0, 11), ("L",), (9000,), event=RELAY.key, run="r1",
                        leg=1)]
    for result in [single, bld, *legs]:
        session.add(result)
    assert session.summary(BY_KEY["single"], (3, 3)).single.best == 1000
    assert session.summary(BY_KEY["bld"], (3, 3)).single.best == 3000
    runs = event_results(session.results, RELAY, (5, 5))  # a relay's sizes are its own
    assert len(runs) == 1 and runs[0].time_ms == 9000 and runs[0].stm == 5 and runs[0].mtm == 3
    assert session.summary(RELAY, (3, 3)).single.best == 9000


async def choose_event(pilot, key: str) -> None:
    """x, then the event dialog's line of ``key`` by the arrows, and enter."""
    speed = pilot.app.screen
    await pilot.press("x")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, SpeedEventScreen), what="the event dialog")
    events = pilot.app.screen.query_one(OptionList)
    while events.highlighted_option.id != key:
        await pilot.press("down")
    await pilot.press("enter")
    await wait_for(pilot, lambda: pilot.app.screen is speed and speed.event.key == key, what=f"the event {key}")
    await pilot.pause()


async def test_a_marathon_by_keys_and_its_legs_in_the_store(tmp_path):
    app = make_app(tmp_path)
    clock = app.clock = StepClock()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = SpeedScreen((3, 3), rng=random.Random(9))
        await app.push_screen(screen)
        await choose_event(pilot, "marathon5")
        assert screen.event.key == "marathon5" and "marathon x5" in str(screen.query_one("#speed-title").render())
        count = 0
        for _leg in range(5):
            for move in search.solve(screen.solve.puzzle, screen.solve.state).moves:
                clock.t += 0 if count == 0 else 0.2
                count += 1
                await pilot.press(KEYS[move])
            await pilot.pause()
        await wait_for(pilot, lambda: screen.run.over, what="the marathon")
        result = screen.run.result()
        assert len(result.legs) == 5 and not result.dnf
        assert result.time_ms == round((count - 1) * 200)  # one clock from the first move to the last
        message = str(screen.query_one("#speed-message").render())
        assert f"marathon x5 in {seconds_text(result.time_ms)}" in message and "(5 solves)" in message
        assert f"STM {count}" in message
        assert "Session 3x3: 1 solve" in str(screen.query_one("#speed-averages").render())
        stored = await read_store(pilot, lambda store: store.speed_solves("3x3"))
        assert stored == list(result.legs)


async def test_bld_hides_the_numbers_from_the_first_move_to_the_confirm(tmp_path):
    app = make_app(tmp_path)
    app.clock = StepClock()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = SpeedScreen((3, 3), rng=random.Random(4), event="bld")
        await app.push_screen(screen)
        await pilot.pause()
        board = screen.query_one("#speed-board", Board)
        numbers = ["" if value == 0 else str(value) for value in screen.solve.state]
        assert drawn_cells(board) == numbers  # inspection shows them
        moves = search.solve(screen.solve.puzzle, screen.solve.state).moves
        await pilot.press(KEYS[moves[0]])
        assert drawn_cells(board) == [""] * 9
        for move in moves[1:]:
            await pilot.press(KEYS[move])
        await pilot.pause()
        assert screen.solve.puzzle.is_goal(screen.solve.state) and not screen.run.over  # solved, not confirmed
        assert drawn_cells(board) == [""] * 9
        await pilot.press("space")  # the confirm
        await wait_for(pilot, lambda: screen.run.over, what="the solve")
        assert drawn_cells(board) == ["1", "2", "3", "4", "5", "6", "7", "8", ""]
        assert screen.last is not None and screen.last.event == "bld" and not screen.last.dnf


async def test_the_daily_speed_board_beside_the_moves_board(tmp_path, monkeypatch):
    from solver.registry import get_puzzle
    from tui.config.daily_secret import daily_secret
    from tui.game.daily import daily_board
    from tui.screens.leaderboard import LeaderboardScreen
    from tui.storage.store import Store

    monkeypatch.setenv("KOMA_DAY", "2025-01-31")
    store = Store(tmp_path / "koma.db", player="user:zoe", name="zoe")
    app = make_app(tmp_path, store=store)
    clock = app.clock = StepClock()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("d")
        await wait_for(pilot, lambda: isinstance(app.screen, LeaderboardScreen), what="the leaderboard")
        board = app.screen
        speed_line = board.query_one("#leaderboard-speed")
        await wait_for(pilot, lambda: "no time yet" in str(speed_line.render()), what="the empty speed board")
        await pilot.press("s")
        await wait_for(pilot, lambda: isinstance(app.screen, SpeedScreen), what="the speed screen")
        screen = app.screen
        assert screen.solve.scramble == daily_board(get_puzzle("8"), "2025-01-31", daily_secret())
        assert screen.event.key == "daily/2025-01-31"
        moves = search.solve(screen.solve.puzzle, screen.solve.state).moves
        for index, move in enumerate(moves):
            clock.t += 0 if index == 0 else 0.3
            await pilot.press(KEYS[move])
        await wait_for(pilot, lambda: screen.run.over, what="the daily solve")
        time_ms = round((len(moves) - 1) * 300)
        assert screen.run.result().time_ms == time_ms
        await pilot.press("space")  # the next scramble is a random one again
        assert screen.event.key == "single" and screen.solve.scramble != daily_board(get_puzzle("8"), "2025-01-31", daily_secret())
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, LeaderboardScreen), what="the leaderboard again")
        await wait_for(pilot, lambda: f"1. zoe {seconds_text(time_ms)}" in str(speed_line.render()),
                       what="the speed board with the player's time")
        assert "you #1" in str(speed_line.render())


# --- marathons of any length, relays over a range of sizes, each with its own records ------------------------

def one_move_from_goal(puzzle, rng=None) -> tuple[int, ...]:
    """A scramble one tile from solved (the blank one left of its corner): a 10x10 leg a test can solve."""
    goal = list(puzzle.goal)
    corner = len(goal) - 1
    goal[corner - 1], goal[corner] = goal[corner], goal[corner - 1]
    return tuple(goal)


def test_marathon_lengths_and_relay_ranges_are_events_of_their_own():
    assert [e.key for e in EVENTS if e.key.startswith("marathon")] == ["marathon5", "marathon10", "marathon42",
                                                                       "marathon100"]
    assert [e.title for e in EVENTS if e.relay] == ["2-N relay", "Width relay", "Height relay",
                                                    "Everything-up-to relay"]  # Slidysim's names
    assert not [e for e in EVENTS if e.sizes]  # Koma's older upward relays are read, no longer offered
    assert marathon(7).legs == 7 and marathon(7).key == "marathon7" and marathon(7).title == "marathon x7"
    assert relay(3, 7).sizes == ((3, 3), (4, 4), (5, 5), (6, 6), (7, 7)) and relay(3, 7).legs == 5
    for event in [*EVENTS, marathon(7), relay(4, 9), daily_event("2026-03-14")]:
        assert event_for(event.key) == event  # a stored key names its event again
    for bad in (lambda: marathon(1), lambda: marathon(1001), lambda: relay(5, 5), lambda: relay(2, 5),
                lambda: relay(3, 11), lambda: event_for("marathon"), lambda: event_for("sprint")):
        with pytest.raises(KomaError):
            bad()
    assert marathon(2).legs == 2 and marathon(1000).legs == 1000  # the limits themselves


def test_a_relay_to_10x10_runs_every_size_on_one_clock(monkeypatch):
    monkeypatch.setattr(speed_events, "random_scramble", one_move_from_goal)
    clock = StepClock()
    run = EventRun(relay(3, 10), (4, 4), clock, random.Random(1))
    sizes = []
    for _ in range(8):
        sizes.append(run.solve.puzzle.size_label)
        clock.t += 1.0
        outcome = run.play("L")
    assert outcome is Play.SOLVED and sizes == [f"{n}x{n}" for n in range(3, 11)]
    result = run.result()
    assert not result.dnf and len(result.legs) == 8 and result.stm == 8 and result.time_ms == 7000


def test_records_are_kept_per_marathon_length_and_per_relay_range():
    def run_of(event, key: str, width: int = 3, *, time_ms: int) -> list[SpeedResult]:
        """A finished run of ``event``: one move a leg, the last at ``time_ms``."""
        sizes = event.leg_sizes((width, width))
        return [SpeedResult(w, h, one_move_from_goal(speed_puzzle(w, h)), ("L",), (time_ms * leg // (len(sizes) - 1),),
                            event=event.key, run=key, leg=leg) for leg, (w, h) in enumerate(sizes)]

    stored = [*run_of(marathon(5), "a", time_ms=5000), *run_of(marathon(10), "b", time_ms=9000),
              *run_of(marathon(10), "c", time_ms=8000), *run_of(relay(3, 5), "d", time_ms=4000),
              *run_of(relay(3, 7), "e", time_ms=7000)]
    assert summary_of(stored, marathon(5), (3, 3)).count == 1
    assert summary_of(stored, marathon(5), (3, 3)).single.best == 5000
    assert summary_of(stored, marathon(10), (3, 3)).count == 2
    assert summary_of(stored, marathon(10), (3, 3)).single.best == 8000
    assert summary_of(stored, marathon(42), (3, 3)).count == 0
    assert summary_of(stored, relay(3, 5), (4, 4)).single.best == 4000
    assert summary_of(stored, relay(3, 7), (4, 4)).single.best == 7000
    assert summary_of(stored, relay(3, 10), (4, 4)).count == 0


async def test_a_typed_marathon_length_is_played_and_kept_apart_in_the_store(tmp_path):
    app = make_app(tmp_path)
    clock = app.clock = StepClock()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = SpeedScreen((3, 3), rng=random.Random(5))
        await app.push_screen(screen)
        await pilot.pause()
        for typed, error in (("1", "a marathon is 2 to 1000 solves, not 1"), ("x", "Type a number of solves.")):
            await pilot.press("x")
            await wait_for(pilot, lambda: isinstance(app.screen, SpeedEventScreen), what="the event dialog")
            app.screen.query_one(Input).focus()
            await pilot.pause()
            await pilot.press(*typed, "enter")
            await pilot.pause()
            if typed == "1":  # refused: the dialog stays, and says why
                assert isinstance(app.screen, SpeedEventScreen)
                assert error.lower() in str(app.screen.query_one("#speed-event-verdict").render()).lower()
                await pilot.press("escape")
            else:  # an integer field takes no letter: nothing typed, nothing chosen
                assert isinstance(app.screen, SpeedEventScreen)
                await pilot.press("escape")
            await wait_for(pilot, lambda: app.screen is screen, what="the speed screen")
        assert screen.event.key == "single"
        await pilot.press("x")
        await wait_for(pilot, lambda: isinstance(app.screen, SpeedEventScreen), what="the event dialog")
        app.screen.query_one(Input).focus()
        await pilot.pause()
        await pilot.press("2", "enter")
        await wait_for(pilot, lambda: app.screen is screen and screen.event.key == "marathon2", what="marathon x2")
        assert "marathon x2" in str(screen.query_one("#speed-title").render())
        for _leg in range(2):
            for move in search.solve(screen.solve.puzzle, screen.solve.state).moves:
                clock.t += 0.2
                await pilot.press(KEYS[move])
            await pilot.pause()
        await wait_for(pilot, lambda: screen.run.over, what="the marathon of 2")
        result = screen.run.result()
        assert len(result.legs) == 2 and not result.dnf
        stored = await read_store(pilot, lambda store: store.speed_solves("3x3"))
        assert stored == list(result.legs) and {leg.event for leg in stored} == {"marathon2"}
        assert summary_of(stored, marathon(2), (3, 3)).count == 1
        assert summary_of(stored, marathon(5), (3, 3)).count == 0
        await pilot.press("v")  # the session screen's records are the marathon x2's
        await wait_for(pilot, lambda: isinstance(app.screen, SpeedSessionScreen), what="the session")
        await wait_for(pilot, lambda: "Records 3x3 marathon x2: 1 solve" in
                       str(app.screen.query_one("#speed-session-records").render()), what="the records")
