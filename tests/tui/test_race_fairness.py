"""Fair play in races (issue 54) on both backends, a SQLite file and a real PostgreSQL database: private rooms stay
private, a racer's watch setting holds, codes join only open rooms and are freed, rooms and guesses cost something,
and rooms long closed are pruned with their racers' results kept."""

from __future__ import annotations

import time

import pytest

from solver.errors import KomaError
from tui.game.race_rules import (
    ABANDONED_ROOM_SECONDS,
    CODE_KEPT_SECONDS,
    FREE_CODE_MISSES,
    LOBBY_GONE_SECONDS,
    MAX_OPEN_PRIVATE_ROOMS,
    NEW_LOBBY_SECONDS,
    ROOMS_KEPT_SECONDS,
    RacePhase,
    code_wait_seconds,
)
from tui.storage import race_rooms as race_store
from tui.storage.store_choice import open_store

SCRAMBLE_3X3 = (1, 2, 3, 4, 0, 5, 7, 8, 6)  # solved by L U


def opened(url: str, player: str = "local"):
    store = open_store(url, player)
    assert not store.memory_only and store.drain_notices() == []
    return store


def raced(store, host: str, *others: str, quick: bool = False):
    """A 3x3 room of ``host`` and ``others`` (private unless ``quick``), started and revealed."""
    if quick:
        room = store.quick_join(host, host.title(), 3, 3)
        for player in others:
            assert store.quick_join(player, player.title(), 3, 3).room == room.room
    else:
        room = store.create_private(host, host.title(), 3, 3)
        for player in others:
            store.join_code(player, player.title(), room.code)
    assert store.start(room.room, 0, time.time() - 0.1, SCRAMBLE_3X3)
    return store.read_room(room.room)


def finished(store, room, *players: str):
    for k, player in enumerate(players):
        assert store.push(room.room, 0, player, "LU", [100, 200 + k], finished_ms=200 + k)
    assert store.sweep(room.room, 0) and store.read_room(room.room).phase is RacePhase.DONE


def test_watch_lists_a_private_race_only_to_its_racers(database):
    store = opened(database)
    private = raced(store, "ann", "bob")
    assert store.live_races("mallory") == []  # today's code listed it, code and all, to anyone
    assert [r.room for r in store.live_races("bob")] == [private.room]
    quick = raced(store, "cy", "dee", quick=True)
    assert [r.room for r in store.live_races("mallory")] == [quick.room]
    assert store.race_history(private.room, "mallory") == []
    assert [r.round for r in store.race_history(private.room, "ann")] == [0]


def test_a_racer_who_said_no_to_watchers_is_not_watched_in_a_race(database):
    store = opened(database)
    shy = opened(database, "cy")
    shy.seen()
    shy.set_watchable(False)
    quick = raced(store, "cy", "dee", quick=True)
    assert store.live_races("mallory") == []  # today's code ignored the setting
    assert [r.room for r in store.live_races("dee")] == [quick.room]  # a racer sees their own race
    shy.set_watchable(True)
    assert [r.room for r in store.live_races("mallory")] == [quick.room]


def test_a_code_joins_only_while_its_room_is_open(database):
    store = opened(database)
    room = raced(store, "ann", "bob")
    finished(store, room, "ann", "bob")
    with pytest.raises(KomaError, match=f"no open room has the code {room.code}"):
        store.join_code("mallory", "Mallory", room.code)  # today's code seated mallory in the ended room's rematch
    again = store.rematch(room.room, 0, "ann")  # the racers' rematch opens the room again: friends join by its code
    assert store.join_code("cy", "Cy", room.code).room == again.room
    store.backend.query("UPDATE race_racers SET seen = ? WHERE room = ?", (time.time() - LOBBY_GONE_SECONDS - 1, room.room))
    store.backend.query("UPDATE race_rounds SET opened = ? WHERE room = ?", (time.time() - NEW_LOBBY_SECONDS - 1, room.room))
    with pytest.raises(KomaError, match="no open room"):
        store.join_code("dee", "Dee", room.code)  # nobody is in the lobby any more: the room is closed


def test_a_closed_rooms_code_is_freed_for_a_new_room(database, monkeypatch):
    store = opened(database)
    room = raced(store, "ann", "bob")
    finished(store, room, "ann", "bob")
    monkeypatch.setattr(race_store, "new_code", lambda: room.code)  # every code drawn is the old room's
    with pytest.raises(KomaError, match="could not find a free room code"):
        store.create_private("cy", "Cy", 3, 3)  # held for the rematch a while
    store.backend.query("UPDATE race_rooms SET active = ? WHERE room = ?", (time.time() - CODE_KEPT_SECONDS - 1, room.room))
    reused = store.create_private("cy", "Cy", 3, 3)  # today's code never freed a code
    assert reused.code == room.code and reused.room != room.room
    assert store.join_code("dee", "Dee", room.code).room == reused.room
    with pytest.raises(KomaError, match="this room has closed"):
        store.rematch(room.room, 0, "ann")  # its code is another room's now: no lobby of the old room opens


def test_open_private_rooms_per_player_are_capped(database):
    store = opened(database)
    other = opened(database, "mallory")  # another process (replica) of the same player
    rooms = [(store if k % 2 else other).create_private("mallory", "Mallory", 3, 3) for k in range(MAX_OPEN_PRIVATE_ROOMS)]
    with pytest.raises(KomaError, match=f"you already host {MAX_OPEN_PRIVATE_ROOMS} open private rooms"):
        store.create_private("mallory", "Mallory", 3, 3)
    assert store.create_private("ann", "Ann", 3, 3).code  # others are not held back
    store.leave(rooms[0].room, 0, "mallory")  # an empty lobby is closed
    assert other.create_private("mallory", "Mallory", 4, 4).code


def misses_of(store, who: str) -> tuple[int, float]:
    misses, until = store.backend.query("SELECT misses, until FROM code_misses WHERE who = ?", (who,))[0]
    return int(misses), float(until)


def wrong_code(store, player: str, address: str, code: str = "ZZZZZ") -> str:
    with pytest.raises(KomaError) as refused:
        store.join_code(player, player, code, address)
    return str(refused.value)


def test_wrong_codes_cost_a_growing_wait_per_player_and_per_address(database):
    first, second = opened(database, "mallory"), opened(database, "mallory")  # two games of one player
    for k in range(FREE_CODE_MISSES):
        assert "no open room" in wrong_code(first if k % 2 else second, "mallory", "203.0.113.9")
    assert "no open room" in wrong_code(first, "mallory", "203.0.113.9")  # one more miss: now it costs a wait
    assert misses_of(first, "player:mallory")[0] == FREE_CODE_MISSES + 1
    room = first.create_private("ann", "Ann", 3, 3)
    said = wrong_code(second, "mallory", "198.51.100.7", room.code)  # the other game, from elsewhere, the right code
    assert said.startswith("too many wrong room codes (your 4); try again in "), said
    said = wrong_code(second, "mallory2", "203.0.113.9", room.code)  # another player from the same address
    assert said.startswith("too many wrong room codes (your address's 4)"), said
    assert second.join_code("bob", "Bob", room.code, "192.0.2.1").room == room.room  # the rest are not held back
    for who in ("player:mallory", "address:203.0.113.9"):
        first.backend.query("UPDATE code_misses SET until = 0 WHERE who = ?", (who,))
    before = time.time()
    wrong_code(first, "mallory", "203.0.113.9")
    misses, until = misses_of(first, "player:mallory")
    assert misses == FREE_CODE_MISSES + 2 and until - before >= code_wait_seconds(misses) > code_wait_seconds(misses - 1) > 0


def test_rooms_long_closed_are_pruned_and_their_results_kept(database):
    store = opened(database)
    room = raced(store, "ann", "bob")
    finished(store, room, "bob", "ann")
    lobby = store.create_private("cy", "Cy", 3, 3)  # made and never raced
    stats = store.race_stats("ann"), store.race_stats("bob")
    assert stats[1].wins == 1 and stats[0].races == 1
    now = time.time()
    store.backend.query("UPDATE race_rooms SET active = ? WHERE room = ?", (now - ROOMS_KEPT_SECONDS - 1, room.room))
    store.backend.query("UPDATE race_rooms SET active = ? WHERE room = ?", (now - ABANDONED_ROOM_SECONDS - 1, lobby.room))
    store.quick_join("dee", "Dee", 3, 3)  # a new room prunes the old ones (today's code kept every row forever)
    for table in ("race_rooms", "race_rounds", "race_racers"):
        assert store.backend.query(f"SELECT count(*) FROM {table} WHERE room IN (?, ?)", (room.room, lobby.room)) == [(0,)]
    assert (store.race_stats("ann"), store.race_stats("bob")) == stats
    assert store.backend.query("SELECT count(*) FROM race_results") == [(2,)]


def test_the_room_queries_read_by_index(tmp_path):
    """The queries a code, a cap, a prune and Watch run use an index (SQLite's plan), never a scan of every room."""
    store = opened(f"sqlite:///{tmp_path / 'koma.db'}")
    now = time.time()
    plans = {
        "open code": (race_store.SELECT_OPEN_CODE, ("ABCDE", now, now, now)),
        "held code": (race_store.SELECT_HELD_CODE, ("ABCDE", now, now, now, now)),
        "hosting": (race_store.COUNT_OPEN_PRIVATE, ("ann", now, now, now, now)),
        "prunable": (race_store.SELECT_PRUNABLE, (1, now)),
        "misses": (race_store.SELECT_MISSES, ("player:ann",)),
        "watch": (race_store.SELECT_LIVE_RACES, (now, now, "ann")),
    }
    for what, (sql, args) in plans.items():
        plan = " | ".join(str(row[-1]) for row in store.backend.query("EXPLAIN QUERY PLAN " + sql, args))
        assert plan.startswith("SEARCH") and " SCAN " not in f" {plan}", (what, plan)
    assert "(raced=? AND active<?)" in plan_of(store, race_store.SELECT_PRUNABLE, (0, now))
    assert "(phase=? AND reveal_at>?)" in plan_of(store, race_store.SELECT_LIVE_RACES, (now, now, "ann"))


def plan_of(store, sql: str, args: tuple) -> str:
    return " | ".join(str(row[-1]) for row in store.backend.query("EXPLAIN QUERY PLAN " + sql, args))
