"""The pure parts of ``koma bench serve-race-crowd`` (koma_bench/serve/race_crowd.py): its shape, reading the results
table off a screen (drawn by the race screen's own function), and the check of a room against the store.  The
scenario itself is a benchmark, run by ``koma bench serve-race-crowd``."""

from __future__ import annotations

import pytest
from rich.text import Text

from koma_bench.serve.race_crowd import CrowdRacer, check_room, crowd_shape, screen_results, stored_results
from solver.errors import KomaError
from tui.game.race_rules import RacePhase, Racer, Room
from tui.screens.race_views import results_text

SCRAMBLE_3X3 = (1, 2, 3, 4, 0, 5, 7, 8, 6)  # solved by L U


def finished_room(*racers: Racer, phase: RacePhase = RacePhase.DONE) -> Room:
    return Room("r1", "ABCDE", 3, 3, "user:r0-0", 0, phase, 1000.0, SCRAMBLE_3X3, racers)


def racer(k: int, moves: str = "LU", finished_ms: int | None = 2400, **kwargs) -> Racer:
    times = tuple(range(100, 100 * (len(moves) + 1), 100))
    return Racer(f"user:r0-{k}", f"r0-{k}", float(k), float(k), moves, times, finished_ms, **kwargs)


def seen(room: Room, k: int, **changes) -> CrowdRacer:
    """What racer ``k``'s screen showed of ``room`` if it agreed with the store (``changes``: where it did not)."""
    shown = CrowdRacer(f"r0-{k}", 0, host=k == 0, scramble_id=room.scramble_id or "", typed=room.racers[k].moves,
                       place=room.place_of(room.racers[k].player), rows=stored_results(room))
    for name, value in changes.items():
        setattr(shown, name, value)
    return shown


def test_crowd_shape():
    assert crowd_shape(None) == (25, 4, 3.0)
    assert crowd_shape("") == (25, 4, 3.0)
    assert crowd_shape("3x4@3") == (3, 4, 3.0)
    assert crowd_shape(" 12 x 1 @ 2.5 ") == (12, 1, 2.5)
    for bad in ("3x4", "3x9@3", "0x4@3", "3x4@0", "many"):
        with pytest.raises(KomaError, match=r"ROOMSxRACERS@TPS|at least 1 room"):
            crowd_shape(bad)


def test_the_results_table_read_off_the_screen_is_the_one_the_screen_drew():
    room = finished_room(racer(0, finished_ms=61_234), racer(1, "LU", 2_401), racer(2, "LURDLU", 9_999))
    for width in (41, 32):  # 32 columns: names cut to 5 letters, as long as the bench's names
        drawn = Text.from_markup(results_text(room, "user:r0-1", width)).plain
        assert screen_results("Time 7.239  STM 56  MTM 38\n" + drawn) == {
            "r0-1": (1, 2_401, 2, 2), "r0-2": (2, 9_999, 6, 6), "r0-0": (3, 61_234, 2, 2)}
    assert screen_results(Text.from_markup(results_text(room, None)).plain) == stored_results(room)


def test_a_room_whose_screens_agree_with_the_store_is_a_completed_race():
    room = finished_room(racer(0, finished_ms=3000), racer(1, finished_ms=2400))
    assert check_room(room, [seen(room, 0), seen(room, 1)], 2) == []


def test_what_makes_a_race_not_completed():
    room = finished_room(racer(0, finished_ms=3000), racer(1, finished_ms=2400))
    assert check_room(None, [], 2) == ["the store has no such room"]
    assert check_room(room, [seen(room, 0), seen(room, 1)], 3) == ["2 racers stored, not 3"]
    assert check_room(room, [seen(room, 0, place=1), seen(room, 1)], 2) == ["r0-0's screen said place 1, the store 2"]
    wrong_rows = dict(stored_results(room), **{"r0-1": (1, 2401, 2, 2)})
    assert "r0-1's results table" in check_room(room, [seen(room, 0), seen(room, 1, rows=wrong_rows)], 2)[0]
    assert "saw ID" in check_room(room, [seen(room, 0, scramble_id="8-x"), seen(room, 1)], 2)[0]
    assert "not the 3 it typed" in check_room(room, [seen(room, 0, typed="LUD"), seen(room, 1)], 2)[0]
    unsolved = finished_room(racer(0, "L", finished_ms=3000), racer(1, finished_ms=2400))
    assert "r0-0's stored moves do not solve the scramble" in check_room(unsolved, [seen(unsolved, 0), seen(unsolved, 1)], 2)
    dropped = finished_room(racer(0, finished_ms=None, dnf=True), racer(1, finished_ms=2400))
    assert "r0-0 did not finish" in check_room(dropped, [seen(dropped, 1)], 2)
    open_round = finished_room(racer(0, finished_ms=3000), racer(1, finished_ms=2400), phase=RacePhase.RACING)
    assert check_room(open_round, [seen(open_round, 0), seen(open_round, 1)], 2) == ["phase racing, not done"]
