"""Speed solves in the store, on both backends (SQLite and a real PostgreSQL): kept once per write, read back
whole (scramble, moves, every tile's time), per player and size; a damaged row is skipped with a notice."""

from __future__ import annotations

from dataclasses import replace

from tui.game.speed import SpeedResult
from tui.game.speed_notation import solve_record
from tui.storage.store_choice import open_store

SOLVE = SpeedResult(3, 3, (0, 2, 3, 1, 5, 6, 4, 7, 8), tuple("UULL"), (0, 200, 350, 500))
DNF = SpeedResult(3, 3, (0, 2, 3, 1, 5, 6, 4, 7, 8), tuple("U"), (0,), dnf=True)
BIG = SpeedResult(4, 5, tuple([*range(1, 19), 0, 19]), ("L",), (0,))


def test_speed_solves_are_kept_once_and_read_back_whole(database):
    store = open_store(database, "user:ann")
    store.record_speed_solve("op-1", solve_record(SOLVE), 100.0)
    store.record_speed_solve("op-1", solve_record(SOLVE), 100.0)  # the outbox replays a write: recorded once
    store.record_speed_solve("op-2", solve_record(BIG), 101.0)
    store.record_speed_solve("op-3", solve_record(DNF), 102.0)
    again = open_store(database, "user:ann")  # another session (or replica)
    assert again.speed_solves("3x3") == [SOLVE, DNF]
    assert again.speed_solves() == [SOLVE, BIG, DNF]
    assert again.speed_solves("3x3", limit=1) == [DNF]  # the newest
    assert open_store(database, "user:bob").speed_solves() == []
    assert store.drain_notices() == [] and again.drain_notices() == []


def test_a_damaged_speed_row_is_skipped_with_a_notice(tmp_path):
    store = open_store(f"sqlite:///{tmp_path / 'koma.db'}", "user:ann")
    store.record_speed_solve("op-1", solve_record(SOLVE), 100.0)
    record = replace(solve_record(SOLVE), times="0,200")  # two times for four tiles
    store.record_speed_solve("op-2", record, 101.0)
    assert store.speed_solves() == [SOLVE]
    notices = store.drain_notices()
    assert len(notices) == 1 and "speed_solves" in notices[0] and "one time per tile" in notices[0]


def test_a_speed_board_ranks_each_player_s_first_solve(database):
    ann, bob, cy = (open_store(database, p, n) for p, n in (("user:ann", "ann"), ("user:bob", "bob"), ("user:cy", "cy")))
    for store in (ann, bob, cy):
        store.seen()
    day = "daily/2025-01-31"
    first = SpeedResult(3, 3, SOLVE.scramble, SOLVE.moves, (0, 100, 200, 900), event=day)
    faster_again = SpeedResult(3, 3, SOLVE.scramble, SOLVE.moves, (0, 1, 2, 300), event=day)  # known by then
    ann.record_speed_solve("a1", solve_record(first), 10.0)
    ann.record_speed_solve("a2", solve_record(faster_again), 11.0)
    bob.record_speed_solve("b1", solve_record(SpeedResult(3, 3, SOLVE.scramble, ("U",), (0,), dnf=True, event=day)),
                           12.0)
    cy.record_speed_solve("c1", solve_record(SpeedResult(3, 3, SOLVE.scramble, SOLVE.moves, (0, 1, 2, 500),
                                                         event=day)), 13.0)
    cy.record_speed_solve("c2", solve_record(SOLVE), 14.0)  # another event: not on this board
    board = ann.speed_board(day, "3x3")
    assert [(e.name, e.result.time_ms, e.result.dnf) for e in board] == [("cy", 500, False), ("ann", 900, False),
                                                                          ("bob", 0, True)]
    assert ann.speed_board(day, "4x4") == []
