"""Races in the store (tui/storage/race_rooms.py) on both backends: a SQLite file and a real PostgreSQL database.

Joins, starts, pushes, DNFs and round ends are conditional writes; the last seat is raced for by two real processes.
"""

from __future__ import annotations

import multiprocessing
import random
import time

import pytest

from solver.errors import KomaError
from tui.game.race_rules import (
    CODE_ALPHABET,
    LOBBY_GONE_SECONDS,
    MAX_RACERS,
    RACE_LIMIT_SECONDS,
    RECONNECT_SECONDS,
    RacePhase,
    RaceStats,
)
from tui.game.speed import random_scramble, speed_puzzle
from tui.storage.store_choice import open_store

SCRAMBLE_3X3 = (1, 2, 3, 4, 0, 5, 7, 8, 6)  # solved by L U


def opened(url: str, player: str = "local"):
    store = open_store(url, player)
    assert not store.memory_only and store.drain_notices() == []
    return store


def set_seen(store, room: str, round_: int, player: str, seen: float) -> None:
    store.backend.query("UPDATE race_racers SET seen = ? WHERE room = ? AND round = ? AND player = ?",
                        (seen, room, round_, player))


def started_race(store, *players: str, scramble=SCRAMBLE_3X3, reveal_in: float = -0.1):
    """A private 3x3 room of ``players`` (the first its host), started with its reveal ``reveal_in`` s from now."""
    room = store.create_private(players[0], players[0].title(), 3, 3)
    for player in players[1:]:
        store.join_code(player, player.title(), room.code.lower())
    assert store.start(room.room, 0, time.time() + reveal_in, scramble)
    return store.read_room(room.room)


def test_quick_rooms_fill_by_size(database):
    store = opened(database)
    ann = store.quick_join("ann", "Ann", 4, 4)
    bob = store.quick_join("bob", "Bob", 4, 4)
    cy = store.quick_join("cy", "Cy", 5, 4)
    assert bob.room == ann.room != cy.room and ann.quick and ann.host == "ann"
    assert [r.name for r in bob.racers] == ["Ann", "Bob"] and (bob.width, bob.height, bob.phase) == (4, 4, RacePhase.LOBBY)
    assert store.quick_join("ann", "Ann", 4, 4).room == ann.room  # already in: no second seat
    assert len(store.read_room(ann.room).racers) == 2
    with pytest.raises(KomaError, match="races go from"):
        store.quick_join("dee", "Dee", 11, 4)


def test_a_quick_room_nobody_is_in_any_more_is_not_joined(database):
    store = opened(database)
    old = store.quick_join("ann", "Ann", 3, 3)
    set_seen(store, old.room, 0, "ann", time.time() - LOBBY_GONE_SECONDS - 1)
    assert store.quick_join("bob", "Bob", 3, 3).room != old.room
    lingering = store.quick_join("cy", "Cy", 4, 4)  # someone is there, but the lobby is older than any wait
    store.backend.query("UPDATE race_rounds SET opened = ? WHERE room = ?", (time.time() - 7200, lingering.room))
    assert store.quick_join("dee", "Dee", 4, 4).room != lingering.room


def test_private_rooms_join_by_code_and_refuse_bad_codes(database):
    store = opened(database)
    room = store.create_private("ann", "Ann", 3, 3)
    assert room.code is not None and len(room.code) == 5 and set(room.code) <= set(CODE_ALPHABET)
    joined = store.join_code("bob", "Bob", f" {room.code[:2].lower()}-{room.code[2:]} ")
    assert joined.room == room.room and [r.player for r in joined.racers] == ["ann", "bob"]
    other = next(c for c in ("AAAAA", "BBBBB") if c != room.code)
    for typed, says in ((other, f"no open room has the code {other}"), ("ABC0E", "not 0"), ("ABCD", "not 4"),
                        ("", "type the room")):
        with pytest.raises(KomaError, match=says):
            store.join_code("cy", "Cy", typed)
    assert store.quick_join("dee", "Dee", 3, 3).room != room.room  # a private room is never a quick one
    assert store.room_of_code(room.code) == room.room and store.room_of_code(other) is None


def test_a_full_room_refuses_the_ninth_and_a_started_one_a_newcomer(database):
    store = opened(database)
    room = store.create_private("p0", "P0", 3, 3)
    for k in range(1, MAX_RACERS):
        store.join_code(f"p{k}", f"P{k}", room.code)
    with pytest.raises(KomaError, match=f"room {room.code} is full"):
        store.join_code("late", "Late", room.code)
    store.leave(room.room, 0, "p3")  # a seat left in the lobby is free again
    assert len(store.join_code("late", "Late", room.code).racers) == MAX_RACERS
    assert store.start(room.room, 0, time.time() + 3, SCRAMBLE_3X3)
    with pytest.raises(KomaError, match="race has started"):
        store.join_code("p3", "P3", room.code)
    assert store.join_code("p5", "P5", room.code).phase is RacePhase.COUNTDOWN  # a racer comes back in


def test_a_start_happens_once(database):
    store = opened(database)
    room = store.create_private("ann", "Ann", 4, 4)
    first, second = (random_scramble(speed_puzzle(4, 4), random.Random(seed)) for seed in (1, 2))
    assert store.start(room.room, 0, 1000.0, first)
    assert not store.start(room.room, 0, 2000.0, second)
    read = store.read_room(room.room)
    assert (read.phase, read.reveal_at, read.scramble) == (RacePhase.COUNTDOWN, 1000.0, first)
    assert read.scramble_id is not None


def test_pushes_append_and_are_conditional(database):
    store = opened(database)
    room = started_race(store, "ann", "bob")
    assert store.push(room.room, 0, "ann", "L", [400], after=0)
    assert not store.push(room.room, 0, "ann", "L", [400], after=0)  # landed already: never twice
    assert store.push(room.room, 0, "ann", "U", [900], finished_ms=900, after=1)
    assert store.push(room.room, 0, "bob", "LR", [300, 300])
    ann, bob = store.read_room(room.room).racers
    assert (ann.moves, ann.times_ms, ann.finished_ms, ann.state(room.puzzle, room.scramble)) == (
        "LU", (400, 900), 900, room.puzzle.goal)
    assert (bob.moves, bob.times_ms, bob.finished) == ("LR", (300, 300), False)
    assert not store.push(room.room, 0, "ann", "D", [1000])  # finished: nothing more
    assert store.push(room.room, 0, "bob", "", [], dnf=True)
    assert not store.push(room.room, 0, "bob", "L", [2000])
    with pytest.raises(KomaError):
        store.push(room.room, 0, "bob", "X", [1])
    lobby = store.create_private("cy", "Cy", 3, 3)
    assert not store.push(lobby.room, 0, "cy", "L", [1])  # no moves before the start


def test_an_incremental_read_sees_only_changes(database):
    store = opened(database)
    room = started_race(store, "ann", "bob", "cy")
    first = store.read_round(room.room, 0)
    assert store.read_round(room.room, 0, since=first) is first
    store.heartbeat(room.room, 0, "bob")  # a heartbeat is no change to readers
    assert store.read_round(room.room, 0, since=first) is first
    store.push(room.room, 0, "bob", "L", [120])
    after = store.read_round(room.room, 0, since=first)
    assert after.version > first.version and after == store.read_round(room.room, 0)
    assert [r.moves for r in after.racers] == ["", "L", ""] and after.racers[0] is first.racers[0]


def test_leaving_the_lobby_frees_the_seat_and_leaving_the_race_is_a_dnf(database):
    store = opened(database)
    room = store.create_private("ann", "Ann", 3, 3)
    store.join_code("bob", "Bob", room.code)
    store.join_code("cy", "Cy", room.code)
    store.leave(room.room, 0, "cy")
    assert [r.player for r in store.read_room(room.room).racers] == ["ann", "bob"]
    store.start(room.room, 0, time.time() - 1, SCRAMBLE_3X3)
    store.push(room.room, 0, "ann", "LU", [100, 200], finished_ms=200)
    store.leave(room.room, 0, "ann")  # a finisher keeps the finish
    store.leave(room.room, 0, "bob")
    ann, bob = store.read_room(room.room).racers
    assert (ann.finished_ms, ann.dnf, bob.dnf) == (200, False, True)


def test_the_sweep_dnfs_the_gone_starts_the_race_and_ends_the_round(database):
    store = opened(database)
    room = started_race(store, "ann", "bob", "cy", reveal_in=-0.5)
    assert store.read_room(room.room).phase is RacePhase.COUNTDOWN
    assert store.sweep(room.room, 0) and store.read_room(room.room).phase is RacePhase.RACING
    assert not store.sweep(room.room, 0)  # nothing due: nothing written
    set_seen(store, room.room, 0, "cy", time.time() - RECONNECT_SECONDS - 1)
    set_seen(store, room.room, 0, "bob", time.time() - RECONNECT_SECONDS + 20)  # gone, but within the window
    assert store.sweep(room.room, 0)
    assert [r.dnf for r in store.read_room(room.room).racers] == [False, False, True]
    store.push(room.room, 0, "ann", "LU", [100, 200], finished_ms=200)
    assert store.read_room(room.room).phase is RacePhase.RACING  # bob still races
    store.push(room.room, 0, "bob", "", [], dnf=True)
    assert store.sweep(room.room, 0)
    done = store.read_room(room.room)
    assert done.phase is RacePhase.DONE and [r.player for r in done.places()] == ["ann", "bob", "cy"]
    assert done.place_of("ann") == 1 and done.winner().player == "ann"


def test_a_round_past_its_limit_is_done_with_dnf_for_the_rest(database):
    store = opened(database)
    room = started_race(store, "ann", "bob", reveal_in=-RACE_LIMIT_SECONDS + 60)
    store.push(room.room, 0, "ann", "LU", [100, 200], finished_ms=200)
    assert store.sweep(room.room, 0) and store.read_room(room.room).phase is RacePhase.RACING
    store.backend.query("UPDATE race_rounds SET reveal_at = ? WHERE room = ?", (time.time() - RACE_LIMIT_SECONDS - 1,
                                                                              room.room))
    assert store.sweep(room.room, 0)
    done = store.read_room(room.room)
    assert done.phase is RacePhase.DONE and [(r.finished_ms, r.dnf) for r in done.racers] == [(200, False), (None, True)]


def test_the_lobby_forgets_a_racer_whose_process_is_gone(database):
    store = opened(database)
    room = store.create_private("ann", "Ann", 3, 3)
    store.join_code("bob", "Bob", room.code)
    assert not store.sweep(room.room, 0)
    set_seen(store, room.room, 0, "ann", time.time() - LOBBY_GONE_SECONDS - 1)
    assert store.sweep(room.room, 0)
    lobby = store.read_room(room.room)
    assert [r.player for r in lobby.racers] == ["bob"] and lobby.may_start("bob")  # the host is gone: bob may start


def test_rematch_opens_the_next_round_and_history_keeps_both(database):
    store = opened(database)
    room = started_race(store, "ann", "bob")
    with pytest.raises(KomaError, match="not over"):
        store.rematch(room.room, 0, "ann")
    store.push(room.room, 0, "ann", "LU", [100, 200], finished_ms=200)
    store.push(room.room, 0, "bob", "L", [150])
    store.leave(room.room, 0, "bob")
    again = store.rematch(room.room, 0, "bob")  # the round ends in it (everyone out): no sweep needed
    assert (again.round, again.phase, [r.player for r in again.racers]) == (1, RacePhase.LOBBY, ["bob"])
    assert store.read_round(room.room, 0).latest_round == 1 and store.read_round(room.room, 0).phase is RacePhase.DONE
    assert [r.player for r in store.rematch(room.room, 0, "ann").racers] == ["bob", "ann"]
    assert store.join_code("cy", "Cy", room.code).round == 1  # a friend joins the rematch's lobby
    history = store.race_history(room.room)
    assert [(h.round, h.phase, [r.player for r in h.racers]) for h in history] == [
        (0, RacePhase.DONE, ["ann", "bob"]), (1, RacePhase.LOBBY, ["bob", "ann", "cy"])]
    assert history[0].racers[1].moves == "L" and history[0].scramble == SCRAMBLE_3X3


def test_my_race_finds_the_race_to_come_back_to(database):
    store = opened(database)
    assert store.my_race("ann") is None
    room = started_race(store, "ann", "bob")
    store.push(room.room, 0, "ann", "L", [100])
    back = store.my_race("ann")
    assert back.room == room.room and back.racer("ann").moves == "L"
    set_seen(store, room.room, 0, "ann", time.time() - RECONNECT_SECONDS - 1)
    assert store.my_race("ann") is None  # past the window
    store.push(room.room, 0, "bob", "LU", [100, 200], finished_ms=200)
    assert store.my_race("bob") is None  # finished: nothing to come back to
    assert [r.room for r in store.live_races("bob")] == [room.room]  # a racer of the private room sees it


def test_race_stats(database):
    store = opened(database)
    for finishes in ({"ann": 5000, "bob": 4000}, {"ann": 3000, "bob": 6000}, {"ann": None, "bob": 7000}):
        room = started_race(store, "ann", "bob")
        for player, ms in finishes.items():
            store.push(room.room, 0, player, "", [], finished_ms=ms, dnf=ms is None)
        assert store.sweep(room.room, 0)  # everyone out: the round is over (and ann's room no longer open)
    alone = started_race(store, "ann")
    store.push(alone.room, 0, "ann", "", [], finished_ms=1000)  # a win alone is no win, but the best time counts
    assert store.race_stats("ann") == RaceStats(races=4, wins=1, best_ms={"3x3": 1000})
    assert store.race_stats("bob") == RaceStats(races=3, wins=2, best_ms={"3x3": 4000})
    assert store.race_stats("nobody") == RaceStats()


def _take_the_last_seat(url: str, player: str, code: str, barrier, answers) -> None:
    store = open_store(url, player)
    barrier.wait(30)
    try:
        store.join_code(player, player, code)
        answers.put((player, "seated"))
    except KomaError as refused:
        answers.put((player, str(refused)))
    finally:
        store.close()


def test_two_processes_race_for_the_last_seat(database):
    store = opened(database)
    context = multiprocessing.get_context("spawn")
    for attempt in range(3):
        room = store.create_private("p0", "P0", 3, 3)
        for k in range(1, MAX_RACERS - 1):
            store.join_code(f"p{k}", f"P{k}", room.code)
        barrier, answers = context.Barrier(2), context.Queue()
        racers = [context.Process(target=_take_the_last_seat, args=(database, f"late{attempt}{n}", room.code, barrier,
                                                                      answers)) for n in range(2)]
        for process in racers:
            process.start()
        told = dict(answers.get(timeout=120) for _ in racers)
        for process in racers:
            process.join(60)
        assert sorted(told.values()) == sorted(["seated", f"room {room.code} is full ({MAX_RACERS} racers)"]), told
        seated = [p for p, said in told.items() if said == "seated"]
        assert [r.player for r in store.read_room(room.room).racers][-1:] == seated
        assert len(store.read_room(room.room).racers) == MAX_RACERS


def test_a_read_since_parses_only_what_grew_and_reads_as_a_whole_read_does(database):
    store = opened(database)
    room = started_race(store, "ann", "bob")
    seen = store.read_round(room.room, 0)
    for k, moves in enumerate(("L", "RL", "", "R", "LRL")):
        if moves:
            times = [100 * k + j for j in range(len(moves))]
            assert store.push(room.room, 0, "bob", moves, times)
        store.push(room.room, 0, "ann", "L" if k % 2 == 0 else "R", [100 * k])
        seen = store.read_round(room.room, 0, since=seen)
        assert seen == store.read_round(room.room, 0)
    assert seen.racer("bob").moves == "LRLRLRL" and seen.racer("bob").times_ms == (0, 100, 101, 300, 400, 401, 402)
    # a time that goes back (a damaged row) is refused with a notice as in a whole read: a read since keeps the
    # racer as last read well, a whole read skips them
    assert store.push(room.room, 0, "bob", "R", [5])
    assert store.read_round(room.room, 0, since=seen).racer("bob") == seen.racer("bob")
    assert any("race_racers" in notice and "going back" in notice for notice in store.drain_notices())
    assert store.read_round(room.room, 0).racer("bob") is None
