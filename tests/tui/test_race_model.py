"""The race model (tui/game/race_rules.py): places, DNF, STM/MTM/TPS, countdown, quick start, codes, worked by hand."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from solver import ids
from solver.errors import KomaError
from solver.sliding.model import SlidingPuzzle
from tui.game.race_rules import (
    CODE_ALPHABET,
    CODE_LENGTH,
    MAX_RACERS,
    QUICK_START_SECONDS,
    RACE_LIMIT_SECONDS,
    RacePhase,
    Racer,
    Room,
    check_moves,
    new_code,
    parse_code,
)

SCRAMBLE_3X3 = (1, 2, 3, 4, 0, 5, 7, 8, 6)  # solved by L U: 5 slides left, then 6 slides up


def racer(player: str, joined: float = 0.0, **kwargs) -> Racer:
    return Racer(player, player.title(), joined, joined, **kwargs)


def room(*racers: Racer, phase: RacePhase = RacePhase.RACING, reveal_at: float | None = 1000.0, code: str | None = None,
         scramble=SCRAMBLE_3X3) -> Room:
    return Room("r1", code, 3, 3, "ann", 0, phase, reveal_at, scramble if reveal_at is not None else None, racers)


def test_stm_mtm_tps_worked_example():
    # U U L L L D: six tiles (STM 6), three runs U2 L3 D (MTM 3), finished 2.4 s after the reveal: 6 / 2.4 = 2.5 TPS
    done = racer("ann", moves="UULLLD", times_ms=(300, 500, 900, 900, 900, 2400), finished_ms=2400)
    assert (done.stm, done.mtm, done.tps) == (6, 3, 2.5)
    # still racing: TPS to the last move (4 tiles in 0.8 s), and live at 2 s (4 / 2)
    going = racer("bob", moves="URRD", times_ms=(100, 400, 400, 800))
    assert (going.stm, going.mtm, going.time_ms, going.tps, going.tps_at(2000)) == (4, 3, 800, 5.0, 2.0)
    # a finisher's live TPS is its TPS at the finish, however late it is read
    assert done.tps_at(60_000) == 2.5
    assert racer("cy").tps is None and racer("cy").tps_at(0) is None


def test_places_finish_order_then_racing_then_dnf():
    ann = racer("ann", 1.0, moves="LU", times_ms=(900, 5000), finished_ms=5000)
    bob = racer("bob", 2.0, moves="LU", times_ms=(700, 4000), finished_ms=4000)
    cy = racer("cy", 0.5, moves="LU", times_ms=(600, 4000), finished_ms=4000)  # bob's time, but joined first
    dee = racer("dee", 3.0, moves="D", times_ms=(100,), dnf=True)
    eve = racer("eve", 4.0, moves="L", times_ms=(1500,))
    race = room(ann, bob, cy, dee, eve)
    assert [r.player for r in race.places()] == ["cy", "bob", "ann", "eve", "dee"]
    assert [(p.place, p.racer.player) for p in race.results()] == [
        (1, "cy"), (2, "bob"), (3, "ann"), (None, "eve"), (None, "dee")]
    assert race.place_of("ann") == 3 and race.place_of("dee") is None
    assert race.winner() == cy
    assert race.result_lines() == [
        "1. Cy  4.000  STM 2  MTM 2  TPS 0.50",
        "2. Bob  4.000  STM 2  MTM 2  TPS 0.50",
        "3. Ann  5.000  STM 2  MTM 2  TPS 0.40",
        "- Eve  …  STM 1  MTM 1  TPS 0.67",
        "- Dee  DNF  STM 1  MTM 1  TPS 10.00",
    ]


def test_a_lone_racer_is_no_winner_and_a_dnf_only_round_has_none():
    alone = racer("ann", moves="LU", times_ms=(1, 2), finished_ms=2)
    assert room(alone).winner() is None
    assert room(racer("ann", dnf=True), racer("bob", dnf=True)).winner() is None


def test_racer_state_replays_the_scramble_and_refuses_an_illegal_move():
    puzzle = SlidingPuzzle(3, 3)
    solved = racer("ann", moves="LU", times_ms=(100, 200), finished_ms=200)
    assert solved.state(puzzle, SCRAMBLE_3X3) == puzzle.goal
    assert racer("bob", moves="L", times_ms=(5,)).state(puzzle, SCRAMBLE_3X3) == (1, 2, 3, 4, 5, 0, 7, 8, 6)
    with pytest.raises(KomaError):
        racer("cy", moves="LL", times_ms=(1, 2)).state(puzzle, SCRAMBLE_3X3)


def test_scramble_id_is_the_speed_screens_game_id():
    race = room(racer("ann"))
    assert race.scramble_id == ids.game_id(SlidingPuzzle(3, 3), SCRAMBLE_3X3) == "8-0C1Dv"
    assert room(racer("ann"), phase=RacePhase.LOBBY, reveal_at=None).scramble_id is None
    assert race.size_label == "3x3" and race.quick and not room(code="ABCDE").quick


def test_countdown_then_reveal_then_limit():
    race = room(racer("ann"), racer("bob"), phase=RacePhase.COUNTDOWN, reveal_at=1000.0)
    assert [race.countdown_shown(t) for t in (997.0, 997.2, 998.5, 999.99, 1000.0, 1004.0)] == [3, 3, 2, 1, None, None]
    assert race.phase_at(999.9) is RacePhase.COUNTDOWN and race.phase_at(1000.0) is RacePhase.RACING
    assert race.elapsed_ms(999.0) == 0 and race.elapsed_ms(1001.2341) == 1234
    assert not race.is_over(1000.0 + RACE_LIMIT_SECONDS - 0.001)
    assert race.is_over(1000.0 + RACE_LIMIT_SECONDS) and race.phase_at(1000.0 + RACE_LIMIT_SECONDS) is RacePhase.DONE
    lobby = room(racer("ann"), phase=RacePhase.LOBBY, reveal_at=None)
    assert lobby.countdown_left(5.0) is None and lobby.phase_at(5.0) is RacePhase.LOBBY and not lobby.is_over(1e12)


def test_the_store_marking_a_countdown_racing_leaves_the_outline_a_finish_or_the_end_does_not():
    """The store marks a countdown racing once its reveal has passed: the screens go by the clock, so the outline
    (what makes them draw the room anew) stays; a start, a finish and the round's end each change it."""
    counting = room(racer("ann"), racer("bob"), phase=RacePhase.COUNTDOWN)
    assert replace(counting, phase=RacePhase.RACING).outline() == counting.outline()
    assert replace(counting, phase=RacePhase.DONE).outline() != counting.outline()
    assert replace(counting, phase=RacePhase.LOBBY, reveal_at=None).outline() != counting.outline()
    finished = replace(counting, racers=(racer("ann", finished_ms=9000), racer("bob")))
    assert finished.outline() != counting.outline()


def test_a_round_is_over_when_everyone_finished_or_dnf():
    ann = racer("ann", moves="LU", times_ms=(1, 2), finished_ms=2)
    assert not room(ann, racer("bob")).is_over(1001.0)
    assert room(ann, racer("bob", dnf=True)).is_over(1001.0)
    assert room(ann, racer("bob"), phase=RacePhase.DONE).is_over(0.0)


def test_quick_start_after_the_second_racer_or_at_once_when_full():
    one = room(racer("a", 100.0), phase=RacePhase.LOBBY, reveal_at=None)
    assert one.quick_start_at() is None and not one.quick_start_due(1e9)
    two = room(racer("a", 100.0), racer("b", 103.0), racer("c", 105.0), phase=RacePhase.LOBBY, reveal_at=None)
    assert two.quick_start_at() == 103.0 + QUICK_START_SECONDS
    assert not two.quick_start_due(112.9) and two.quick_start_due(113.0)
    full = room(*(racer(f"p{k}", 100.0 + k) for k in range(MAX_RACERS)), phase=RacePhase.LOBBY, reveal_at=None)
    assert full.full and full.quick_start_at() == 100.0 + MAX_RACERS - 1
    private = room(racer("a", 100.0), racer("b", 103.0), phase=RacePhase.LOBBY, reveal_at=None, code="ABCDE")
    assert private.quick_start_at() is None


def test_who_may_start_a_private_room():
    lobby = room(racer("ann"), racer("bob"), phase=RacePhase.LOBBY, reveal_at=None, code="ABCDE")
    assert lobby.may_start("ann") and not lobby.may_start("bob") and not lobby.may_start("zed")
    hostless = room(racer("bob"), racer("cy"), phase=RacePhase.LOBBY, reveal_at=None, code="ABCDE")
    assert hostless.may_start("bob") and hostless.may_start("cy")
    assert not room(racer("ann"), phase=RacePhase.LOBBY, reveal_at=None).may_start("ann")  # quick: by itself
    assert not room(racer("ann"), code="ABCDE").may_start("ann")  # started already


def test_codes():
    codes = {new_code(random.Random(seed)) for seed in range(200)}
    assert len(codes) > 190
    assert all(len(c) == CODE_LENGTH and set(c) <= set(CODE_ALPHABET) for c in codes)
    assert "I" not in CODE_ALPHABET and "O" not in CODE_ALPHABET
    assert parse_code(" abc-de ") == "ABCDE" == parse_code("AB CDE")
    for bad, says in (("ABCD0", "not 0"), ("ABCDI", "not I"), ("ABCD", "not 4"), ("ABCDEF", "not 6"), ("", "type")):
        with pytest.raises(KomaError, match=says):
            parse_code(bad)


def test_check_moves():
    check_moves("UDLR", (0, 5, 5, 9))
    for moves, times in (("UX", (1, 2)), ("UD", (1,)), ("UD", (5, 4)), ("U", (-1,))):
        with pytest.raises(KomaError):
            check_moves(moves, times)
