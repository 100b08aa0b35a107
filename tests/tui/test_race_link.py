"""RaceLink (tui/storage/race_link.py): racers in processes racing one room on one SQLite file, each replaying a real
solution; a racer gone past the window is DNF, one back within it continues; on PostgreSQL, moves arrive by NOTIFY,
and a database stopped and started again mid-race loses nothing and is told once."""

from __future__ import annotations

import os
import random
import threading
import time
import uuid

import pytest

from koma_bench.race_links import figures, padded_solution, run_races
from tui.game.race_rules import RacePhase
from tui.storage import race_link
from tui.storage import race_rooms as race_store
from tui.storage.race_link import RaceLink
from tui.storage.store_choice import connect_store

DEADLINE = 60.0


class Seen:
    """What one link told: its snapshots and troubles (from the link's thread), waited on with a deadline."""

    def __init__(self) -> None:
        self.rooms: list = []
        self.troubles: list[str] = []
        self.backs = 0
        self.changed = threading.Condition()

    def room(self, snapshot) -> None:
        with self.changed:
            self.rooms.append(snapshot)
            self.changed.notify_all()

    def trouble(self, message: str) -> None:
        with self.changed:
            self.troubles.append(message)
            self.changed.notify_all()

    def back(self) -> None:
        with self.changed:
            self.backs += 1
            self.changed.notify_all()

    def wait_for(self, wanted, timeout: float = DEADLINE, what: str = "a snapshot"):
        with self.changed:
            assert self.changed.wait_for(lambda: self.rooms and wanted(self.rooms[-1]), timeout), (
                f"no {what} within {timeout} s: {self.rooms[-1:]}, troubles {self.troubles}")
            return self.rooms[-1]


def started(url: str, *players: str):
    """A private 3x3 room of ``players`` with a link each (the first hosts it and starts it); returns the links, what
    each saw, and the room at its reveal."""
    store = connect_store(url, players[0])
    room = store.create_private(players[0], players[0], 3, 3)
    for player in players[1:]:
        store.join_code(player, player, room.code)
    room = store.read_room(room.room)
    store.close()
    seen = {player: Seen() for player in players}
    links = {player: RaceLink(lambda p=player: connect_store(url, p), room, player, seen[player].room,
                              seen[player].trouble, on_back=seen[player].back) for player in players}
    for link in links.values():
        link.start()
    links[players[0]].ask_start()
    revealed = [seen[p].wait_for(lambda r: r.reveal_at is not None, what="start") for p in players]
    assert len({(r.reveal_at, r.scramble) for r in revealed}) == 1  # everyone reads the same start
    time.sleep(max(0.0, revealed[0].reveal_at - time.time()))
    return links, seen, revealed[0]


def play(link: RaceLink, reveal_at: float, moves: list[str], *, last: bool = True, tps: float = 40.0) -> None:
    """Send ``moves`` at ``tps``, each timed from the reveal, the first a human's reaction after it at the soonest (a
    race begun sooner is unverified); the last one finishes (when ``last``)."""
    time.sleep(max(0.0, reveal_at + 0.15 - time.time()))
    for k, move in enumerate(moves):
        time.sleep(1 / tps)
        ms = round((time.time() - reveal_at) * 1000)
        link.send(move, [ms], finished_ms=ms if last and k == len(moves) - 1 else None)


def stop_all(links) -> None:
    for link in links.values():
        link.stop()
    assert all(link.join(DEADLINE) for link in links.values())


def test_racers_in_processes_race_one_room_and_agree(tmp_path):
    run = run_races(f"sqlite:///{tmp_path / 'koma.db'}", racers=4, tps=20.0, padding=10)
    result = figures(run)
    assert [r.error for r in run.reports] == [""] * 4 and len({r.pid for r in run.reports}) == 4
    assert result["race_results_identical"], [r.results for r in run.reports]
    assert result["race_opponent_moves_seen"] == result["race_opponent_moves_sent"] > 0  # every move reached every other
    [room] = run.stored
    assert room.phase is RacePhase.DONE and len(room.racers) == 4 and all(r.finished for r in room.racers)
    for racer in room.racers:  # each racer's moves, replayed from the scramble, solve it; the finish is the last move
        assert racer.state(room.puzzle, room.scramble) == room.puzzle.goal
        assert racer.finished_ms == racer.times_ms[-1] and list(racer.times_ms) == sorted(racer.times_ms)
    assert [p.racer.finished_ms for p in room.results()] == sorted(r.finished_ms for r in room.racers)
    assert [p.place for p in room.results()] == [1, 2, 3, 4]


def test_several_rooms_race_at_once_with_racers_sharing_processes(tmp_path):
    run = run_races(f"sqlite:///{tmp_path / 'koma.db'}", rooms=3, racers=3, tps=10.0, padding=3, processes=2)
    result = figures(run)
    assert [r.error for r in run.reports] == [""] * 9 and len({r.pid for r in run.reports}) == 2
    assert len(run.stored) == 3 and result["race_results_identical"]
    assert result["race_opponent_moves_seen"] == result["race_opponent_moves_sent"] > 0
    for room in run.stored:
        assert all(racer.state(room.puzzle, room.scramble) == room.puzzle.goal for racer in room.racers)


def test_a_quick_room_starts_by_itself(tmp_path):
    url = f"sqlite:///{tmp_path / 'koma.db'}"
    seen = {p: Seen() for p in ("ann", "bob")}
    links = {}
    for player in seen:
        room = connect_store(url, player).quick_join(player, player, 3, 3)
        links[player] = RaceLink(lambda p=player: connect_store(url, p), room, player, seen[player].room,
                                 seen[player].trouble)
        links[player].start()
    try:
        reveals = {p: s.wait_for(lambda r: r.reveal_at is not None, what="start").reveal_at for p, s in seen.items()}
        assert reveals["ann"] == reveals["bob"]
    finally:
        stop_all(links)


def test_a_racer_who_stops_heartbeating_is_dnf(tmp_path, monkeypatch):
    monkeypatch.setattr(race_store, "RECONNECT_SECONDS", 2.0)
    links, seen, room = started(f"sqlite:///{tmp_path / 'koma.db'}", "ann", "bob")
    solution = padded_solution(room.puzzle, room.scramble, 0, random.Random(1))
    try:
        play(links["bob"], room.reveal_at, solution[:2], last=False)
        links["bob"].stop()  # bob's process is gone: no leave, no more heartbeats
        assert links["bob"].join(DEADLINE)
        gone = seen["ann"].wait_for(lambda r: r.racer("bob").dnf, what="DNF of bob")
        assert gone.racer("bob").moves == "".join(solution[:2])  # what bob sent before going was kept
        play(links["ann"], room.reveal_at, solution)
        done = seen["ann"].wait_for(lambda r: r.phase is RacePhase.DONE, what="end of the round")
        assert [(p.place, p.racer.player, p.racer.dnf) for p in done.results()] == [(1, "ann", False), (None, "bob", True)]
    finally:
        stop_all(links)


def test_a_racer_back_within_the_window_continues(tmp_path):
    url = f"sqlite:///{tmp_path / 'koma.db'}"
    links, seen, room = started(url, "ann", "bob")
    solution = padded_solution(room.puzzle, room.scramble, 4, random.Random(2))
    try:
        play(links["bob"], room.reveal_at, solution[:5], last=False)
        seen["ann"].wait_for(lambda r: r.racer("bob").stm == 5, what="bob's first moves")
        links["bob"].stop()
        assert links["bob"].join(DEADLINE)
        back = connect_store(url, "bob").my_race("bob")  # bob opens Race again: the lobby offers this race
        assert back.room == room.room and back.racer("bob").moves == "".join(solution[:5])
        assert back.racer("bob").state(back.puzzle, back.scramble) == room.puzzle.replay(room.scramble, solution[:5])[-1]
        again = Seen()
        links["bob"] = RaceLink(lambda: connect_store(url, "bob"), back, "bob", again.room, again.trouble)
        links["bob"].start()
        play(links["bob"], room.reveal_at, solution[5:])
        finished = seen["ann"].wait_for(lambda r: r.racer("bob").finished, what="bob's finish")
        bob = finished.racer("bob")
        assert bob.moves == "".join(solution) and not bob.dnf and bob.state(room.puzzle, room.scramble) == room.puzzle.goal
        assert bob.finished_ms == bob.times_ms[-1] > bob.times_ms[4]  # the clock ran on from the reveal
        assert again.troubles == [] and seen["ann"].troubles == []
    finally:
        stop_all(links)


def test_on_postgres_moves_arrive_by_notify(postgres_url, monkeypatch):
    # no safety poll and no heartbeat within the test: only a notification can make a link read
    monkeypatch.setattr(race_link, "SAFETY_POLL_SECONDS", 600.0)
    monkeypatch.setattr(race_link, "HEARTBEAT_SECONDS", 600.0)
    links, seen, room = started(postgres_url, "ann", "bob")
    solution = padded_solution(room.puzzle, room.scramble, 3, random.Random(3))
    try:
        for k in range(1, len(solution) + 1):
            ms = round((time.time() - room.reveal_at) * 1000)
            links["bob"].send(solution[k - 1], [ms], finished_ms=ms if k == len(solution) else None)
            seen["ann"].wait_for(lambda r, k=k: r.racer("bob").stm == k, timeout=30, what=f"bob's move {k}")
        assert seen["ann"].rooms[-1].racer("bob").finished
        links["ann"].send(room.puzzle.moves(room.scramble)[0], [round((time.time() - room.reveal_at) * 1000)])
        seen["bob"].wait_for(lambda r: r.racer("ann").stm == 1, timeout=30, what="ann's move")
        assert links["ann"].hearing and links["bob"].hearing
    finally:
        stop_all(links)


def test_behind_pgbouncer_no_notification_arrives_and_the_links_poll(postgres_url, pgbouncer, monkeypatch):
    monkeypatch.setattr(race_link, "SAFETY_POLL_SECONDS", 600.0)
    monkeypatch.setattr(race_link, "HEARTBEAT_SECONDS", 600.0)
    links, seen, room = started(pgbouncer.url(postgres_url), "ann", "bob")  # transaction mode: LISTEN hears nothing
    try:
        play(links["bob"], room.reveal_at, padded_solution(room.puzzle, room.scramble, 2, random.Random(7)))
        seen["ann"].wait_for(lambda r: r.racer("bob").finished, what="bob's finish")
        assert not links["ann"].hearing and not links["bob"].hearing
    finally:
        stop_all(links)


def test_on_postgres_a_database_outage_mid_race_is_told_once_and_loses_nothing(postgres_server, postgres_url):
    links, seen, room = started(postgres_url, "ann", "bob")
    solution = padded_solution(room.puzzle, room.scramble, 6, random.Random(4))
    try:
        play(links["bob"], room.reveal_at, solution[:4], last=False)
        seen["ann"].wait_for(lambda r: r.racer("bob").stm == 4, what="bob's first moves")
        postgres_server.stop_server()
        try:
            play(links["bob"], room.reveal_at, solution[4:10], last=False)  # kept by bob's link while it cannot write
            for player in links:
                with seen[player].changed:
                    assert seen[player].changed.wait_for(lambda p=player: seen[p].troubles, DEADLINE), player
        finally:
            postgres_server.start_server()
        play(links["bob"], room.reveal_at, solution[10:])
        done = seen["ann"].wait_for(lambda r: r.racer("bob").finished, what="bob's finish after the outage")
        bob = done.racer("bob")
        assert bob.moves == "".join(solution) and bob.state(room.puzzle, room.scramble) == room.puzzle.goal
        assert list(bob.times_ms) == sorted(bob.times_ms) and bob.finished_ms == bob.times_ms[-1]
        assert [len(seen[p].troubles) for p in links] == [1, 1] and seen["bob"].troubles == [race_link.TROUBLE]
        assert links["bob"].problem
        for player in links:  # each told it is back, once
            with seen[player].changed:
                assert seen[player].changed.wait_for(lambda p=player: seen[p].backs, DEADLINE)
        assert [seen[p].backs for p in links] == [1, 1]
        play(links["ann"], room.reveal_at, padded_solution(room.puzzle, room.scramble, 0, random.Random(5)))
        over = seen["bob"].wait_for(lambda r: r.phase is RacePhase.DONE, what="end of the round")
        assert [p.racer.player for p in over.results()] == sorted(("ann", "bob"),
                                                                 key=lambda p: over.racer(p).finished_ms)
    finally:
        stop_all(links)


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_rematch_and_leave_through_the_link(backend, tmp_path, request):
    url = f"sqlite:///{tmp_path / 'koma.db'}" if backend == "sqlite" else request.getfixturevalue("postgres_url")
    links, seen, room = started(url, "ann", "bob")
    try:
        links["bob"].ask_rematch()  # not over yet: refused, told in one line
        with seen["bob"].changed:
            assert seen["bob"].changed.wait_for(lambda: seen["bob"].troubles, DEADLINE)
        assert seen["bob"].troubles == ["the race is not over yet"]
        play(links["ann"], room.reveal_at, padded_solution(room.puzzle, room.scramble, 0, random.Random(6)))
        links["bob"].leave()  # a DNF; the round is over
        assert links["bob"].join(DEADLINE)
        over = seen["ann"].wait_for(lambda r: r.phase is RacePhase.DONE, what="end of the round")
        assert over.racer("bob").dnf
        links["ann"].ask_rematch()
        again = seen["ann"].wait_for(lambda r: r.round == 1, what="the rematch")
        assert again.phase is RacePhase.LOBBY and [r.player for r in again.racers] == ["ann"]
    finally:
        stop_all(links)


def test_a_stopped_link_ignores_sends_and_a_failing_callback_ends_it_in_one_line(tmp_path):
    url = f"sqlite:///{tmp_path / 'koma.db'}"
    links, _, room = started(url, "ann", "bob")
    stop_all(links)
    links["ann"].send(room.puzzle.moves(room.scramble)[0], [5])  # after the end: no write, no error
    assert connect_store(url, "ann").read_room(room.room).racer("ann").moves == ""

    def broken(snapshot) -> None:
        raise ValueError("the screen is gone")

    told = Seen()
    link = RaceLink(lambda: connect_store(url, "cy"), room, "cy", broken, told.trouble)
    link.start()
    connect_store(url, "ann").push(room.room, 0, "bob", room.puzzle.moves(room.scramble)[0], [10])
    assert link.join(DEADLINE)
    assert told.troubles == ["The race link stopped (the screen is gone)."]


class Counted:
    """A store for a link whose room reads and move writes are counted (and each write's moves kept)."""

    def __init__(self, url: str, player: str) -> None:
        self.url, self.player = url, player
        self.reads = 0
        self.polls = 0  # data_version asked: a poll, whether it read or not
        self.writes: list[str] = []

    def connect(self):
        store = connect_store(self.url, self.player)
        read_round, push = store.read_round, store.push

        def counted_read(*args, **kwargs):
            self.reads += 1
            return read_round(*args, **kwargs)

        def counted_push(room, round_, player, moves, *args, **kwargs):
            self.writes.append(moves)
            return push(room, round_, player, moves, *args, **kwargs)

        store.read_round, store.push = counted_read, counted_push
        data_version = store.backend.data_version

        def counted_version():
            self.polls += 1
            return data_version()

        store.backend.data_version = counted_version  # type: ignore[method-assign]
        return store


def counted_link(url: str, room, player: str) -> tuple[RaceLink, Seen, Counted]:
    seen, counted = Seen(), Counted(url, player)
    link = RaceLink(counted.connect, room, player, seen.room, seen.trouble)
    link.start()
    return link, seen, counted


def test_on_sqlite_a_poll_that_finds_nothing_new_reads_nothing(tmp_path):
    # ann races alone with a link (bob's process is silent): nothing changes in the room, so her link's polls (20 a
    # second) read nothing; a change by another connection is read at the next poll
    url = f"sqlite:///{tmp_path / 'koma.db'}"
    links, _, room = started(url, "ann", "bob")
    stop_all(links)
    ann, ann_seen, counted = counted_link(url, room, "ann")
    try:
        ann_seen.wait_for(lambda r: r.phase_at(time.time()) is RacePhase.RACING, what="the race")
        reads_before = counted.reads
        time.sleep(1.0)  # 20 polls
        assert counted.reads - reads_before <= 3  # each heartbeat's own sweep may read once; the polls none
        first = room.puzzle.moves(room.scramble)[0]
        connect_store(url, "bob").push(room.room, room.round, "bob", first, [round((time.time() - room.reveal_at) * 1000)])
        assert ann_seen.wait_for(lambda r: r.racer("bob").moves == first, what="bob's move").racer("bob").stm == 1
    finally:
        stop_all({"ann": ann})


def test_own_moves_are_written_in_groups_and_a_finish_and_a_stop_write_at_once(tmp_path):
    url = f"sqlite:///{tmp_path / 'koma.db'}"
    links, _, room = started(url, "ann", "bob")
    stop_all(links)
    ann, ann_seen, counted = counted_link(url, room, "ann")
    solution = padded_solution(room.puzzle, room.scramble, 10, random.Random(8))
    try:
        ann_seen.wait_for(lambda r: r.phase_at(time.time()) is RacePhase.RACING, what="the race")
        began = time.monotonic()
        play(ann, room.reveal_at, solution[:20], last=False, tps=100.0)  # 20 moves in 0.2 s (or more on a busy box)
        lasted = time.monotonic() - began
        store = connect_store(url, "bob")
        deadline = time.monotonic() + DEADLINE
        while store.read_room(room.room).racer("ann").stm < 20 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert store.read_room(room.room).racer("ann").moves == "".join(solution[:20])
        # one write per 50 ms at most while sending (and the last): not one per move
        assert 1 <= len(counted.writes) <= lasted / race_link.WRITE_GROUP_SECONDS + 2, (lasted, counted.writes)
        assert "".join(counted.writes) == "".join(solution[:20])
        # the finish is written at once, with the moves before it
        play(ann, room.reveal_at, solution[20:])
        done = ann_seen.wait_for(lambda r: r.racer("ann").finished, what="ann's finish")
        assert done.racer("ann").moves == "".join(solution)
    finally:
        stop_all({"ann": ann})
    # a stop writes what is unsent: bob's moves sent right before his link stops are kept
    bob, _, _ = counted_link(url, connect_store(url, "bob").read_room(room.room), "bob")
    moves = solution[:3]
    play(bob, room.reveal_at, moves, last=False, tps=1000.0)
    stop_all({"bob": bob})
    assert connect_store(url, "bob").read_room(room.room).racer("bob").moves == "".join(moves)


def test_on_sqlite_an_idle_racing_link_sleeps_and_a_poke_wakes_it(tmp_path, monkeypatch):
    # no safety poll and no heartbeat within the test: only the other racer's poke can make a link read
    monkeypatch.setattr(race_link, "POKED_POLL_SECONDS", 600.0)
    monkeypatch.setattr(race_link, "HEARTBEAT_SECONDS", 600.0)
    url = f"sqlite:///{tmp_path / 'koma.db'}"
    links, _, room = started(url, "ann", "bob")
    stop_all(links)
    (ann, ann_seen, ann_counted), (bob, _, _) = counted_link(url, room, "ann"), counted_link(url, room, "bob")
    solution = padded_solution(room.puzzle, room.scramble, 2, random.Random(5))
    try:
        ann_seen.wait_for(lambda r: r.phase_at(time.time()) is RacePhase.RACING, what="the race")
        polls = ann_counted.polls
        time.sleep(1.0)  # nobody moves: 20 polls a second before, none now
        assert ann_counted.polls == polls
        for k in range(1, len(solution) + 1):  # each of bob's writes pokes ann's link, which reads it
            ms = round((time.time() - room.reveal_at) * 1000)
            bob.send(solution[k - 1], [ms], finished_ms=ms if k == len(solution) else None)
            ann_seen.wait_for(lambda r, k=k: r.racer("bob").stm == k, what=f"bob's move {k}")
        assert ann_seen.rooms[-1].racer("bob").finished
        assert ann_counted.polls - polls <= len(solution)  # a read for each poke, not a poll between
    finally:
        stop_all({"ann": ann, "bob": bob})


def test_pokes_reach_the_room_s_racers_and_a_second_link_of_a_player_polls():
    from tui.storage.race_pokes import Pokes

    room = uuid.uuid4().hex
    ann, bob = Pokes.bind("/tmp/koma.db", room, "ann"), Pokes.bind("/tmp/koma.db", room, "bob")
    assert ann is not None and bob is not None
    try:
        assert Pokes.bind("/tmp/koma.db", room, "ann") is None  # held: that link polls instead
        other_room = Pokes.bind("/tmp/koma.db", uuid.uuid4().hex, "bob")
        assert other_room is not None
        ann.poke(["bob", "cyd"])  # cyd has no socket: nothing happens
        deadline = time.monotonic() + DEADLINE
        while not bob.drain():
            assert time.monotonic() < deadline, "bob was never poked"
            time.sleep(0.01)
        assert not bob.drain() and not ann.drain() and not other_room.drain()  # one poke, to bob in this room only
        other_room.close()
    finally:
        ann.close()
        bob.close()


def test_pokes_are_socket_files_in_a_private_folder_beside_the_database_however_deep(tmp_path, monkeypatch):
    """Files, not abstract names (a game's Landlock domain is scoped away from abstract sockets): in a folder of mode
    0700 beside the database, reached however long its path (sun_path holds 108 bytes), removed on close, and one
    left by a killed link replaced."""
    import socket

    from tui.storage.race_pokes import Pokes, pokes_folder, socket_name

    deep = tmp_path / ("d" * 60) / ("e" * 60)
    deep.mkdir(parents=True)
    database = str(deep / "koma.db")
    room = uuid.uuid4().hex
    folder = pokes_folder(database)
    left = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)  # a link killed with its file in place
    os.makedirs(folder, mode=0o700)
    monkeypatch.chdir(folder)
    left.bind(socket_name(room, "ann"))
    left.close()
    ann, bob = Pokes.bind(database, room, "ann"), Pokes.bind(database, room, "bob")
    assert ann is not None and bob is not None and len(folder) > 120
    try:
        assert sorted(os.listdir(folder)) == sorted([socket_name(room, "ann"), socket_name(room, "bob")])
        assert os.stat(folder).st_mode & 0o777 == 0o700
        bob.poke(["ann"])
        deadline = time.monotonic() + DEADLINE
        while not ann.drain():
            assert time.monotonic() < deadline, "ann was never poked"
            time.sleep(0.01)
    finally:
        ann.close()
        bob.close()
    assert os.listdir(folder) == []
