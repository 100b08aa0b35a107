"""Races in the store: rooms, rounds and racers' rows (the rules are :mod:`tui.game.race_rules`'s), every statement written
once for both backends.  Never imports Textual.

The store is the races' meeting place: each racer's process writes its own row and reads the room's.  Every change to
a room runs in one transaction that first bumps the room's ``version`` (on PostgreSQL that row's lock orders the
room's writers, so a version seen committed means every change up to it is), stamps the rows it changes with it
(``rev``), and on PostgreSQL notifies ``koma_race`` of the room (delivered when it commits).  So a racing process reads the room row
alone when nothing changed, and only the changed racers when something did (:meth:`RaceRooms.read_round`), each
parsed from where the last read left it (a racer's moves and times only grow: only the new ones are parsed).

Conditional writes make every decision once, whichever process makes it: a seat is taken inside the room's
transaction after counting (two processes joining the last seat: one gets it), a start only from the lobby, a push
only to a racer still racing (and, given ``after``, only onto the moves the sender knows), a DNF only of a racer
still not seen.

What a room and a code cost (issue 54; the figures are :mod:`tui.game.race_rules`'s): Watch lists a private room only to
its racers (:data:`SELECT_LIVE_RACES`), a code joins only an open room (:data:`OPEN`) and is free for a new room once
its own is closed (:data:`SELECT_HELD_CODE`); private rooms are made one at a time (the ``race-codes`` lock), at most
a few open per host; wrong codes are counted per player and per address (``code_misses``); and each new room prunes
rooms long closed, their racers' results moved to ``race_results``.

A failed statement raises :class:`~tui.storage.backend.StoreError` (one line);
a refused join raises :class:`~solver.errors.KomaError` (one line, for the player).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from solver.errors import KomaError
from tui.game.plausibility import implausible_race
from tui.game.race_rules import (
    ABANDONED_ROOM_SECONDS,
    CODE_KEPT_SECONDS,
    CODE_MISSES_FORGOTTEN_SECONDS,
    LOBBY_GONE_SECONDS,
    MAX_OPEN_PRIVATE_ROOMS,
    MAX_RACERS,
    NEW_LOBBY_SECONDS,
    RACE_LIMIT_SECONDS,
    RECONNECT_SECONDS,
    ROOMS_KEPT_SECONDS,
    RacePhase,
    Racer,
    RaceStats,
    Room,
    check_moves,
    code_wait_seconds,
    new_code,
    parse_code,
    race_puzzle,
)
from tui.game.speed import speed_puzzle
from tui.game.speed_notation import format_scramble
from tui.storage.backend import Backend, Query
from tui.storage.rows import BadRow

CHANNEL = "koma_race"  # PostgreSQL's notification channel; the payload is the room
CODE_TRIES = 50  # fresh codes tried before giving up (a clash is one in millions while few rooms exist)
PRUNED_AT_ONCE = 20  # rooms a new room prunes at most (each new room prunes some: the tables stay bounded)
QUICK_LOBBY_SECONDS = 3600.0  # a quick lobby opened longer ago is not joined (nor read: lobbies left behind pile up)
LIVE_RACES = 50
ROUND_COLUMNS = "ro.code, ro.width, ro.height, ro.host, ro.round, ro.version, rd.round, rd.phase, rd.reveal_at, rd.scramble"
SELECT_ROUND = (  # a room with one round (the newest when the round is NULL)
    f"SELECT {ROUND_COLUMNS} FROM race_rooms ro JOIN race_rounds rd ON rd.room = ro.room "
    "AND rd.round = COALESCE(CAST(? AS INTEGER), ro.round) WHERE ro.room = ?")
SELECT_ROUNDS = f"SELECT {ROUND_COLUMNS} FROM race_rooms ro JOIN race_rounds rd ON rd.room = ro.room WHERE ro.room = ? ORDER BY rd.round"
RACER_COLUMNS = "player, name, joined, seen, moves, times, finished_ms, dnf, left_lobby, unverified"
SELECT_CHANGES = (  # a room with one round, and the racers of it changed after a version (one row with none)
    f"SELECT {ROUND_COLUMNS}, " + ", ".join(f"rc.{column}" for column in RACER_COLUMNS.split(", ")) + " "
    "FROM race_rooms ro JOIN race_rounds rd ON rd.room = ro.room AND rd.round = COALESCE(CAST(? AS INTEGER), ro.round) "
    "LEFT JOIN race_racers rc ON rc.room = ro.room AND rc.round = rd.round AND rc.rev > ? WHERE ro.room = ? "
    "ORDER BY rc.joined, rc.player")
SELECT_ALL_RACERS = f"SELECT {RACER_COLUMNS}, round FROM race_racers WHERE room = ? ORDER BY round, joined, player"
BUMP = "UPDATE race_rooms SET version = version + 1 WHERE room = ? RETURNING version, round"
BUMP_AND_NOTIFY = BUMP + f", pg_notify('{CHANNEL}', room)"  # PostgreSQL: sent when the transaction commits
INSERT_ROOM = ("INSERT INTO race_rooms (room, code, width, height, host, round, version, created, active) "
               "VALUES (?, ?, ?, ?, ?, 0, 1, ?, ?)")
OPEN = (  # a room (ro, with its newest round rd) is open: a lobby with someone in it (there now, or not gone from a
    # lobby opened lately), or a race within its limit
    "((rd.phase = 'lobby' AND EXISTS (SELECT 1 FROM race_racers rc WHERE rc.room = ro.room AND rc.round = ro.round "
    "AND rc.left_lobby = 0 AND (rc.seen > ? OR rd.opened > ?))) OR (rd.phase IN ('countdown', 'racing') AND rd.reveal_at > ?))")
NEWEST = "race_rooms ro JOIN race_rounds rd ON rd.room = ro.room AND rd.round = ro.round"
SELECT_OPEN_CODE = f"SELECT ro.room FROM {NEWEST} WHERE ro.code = ? AND {OPEN} ORDER BY ro.created DESC LIMIT 1"
SELECT_HELD_CODE = f"SELECT 1 FROM {NEWEST} WHERE ro.code = ? AND ({OPEN} OR ro.active > ?) LIMIT 1"
COUNT_OPEN_PRIVATE = f"SELECT count(*) FROM {NEWEST} WHERE ro.host = ? AND ro.created > ? AND ro.code IS NOT NULL AND {OPEN}"
SELECT_PRUNABLE = f"SELECT room FROM race_rooms WHERE raced = ? AND active < ? ORDER BY active LIMIT {PRUNED_AT_ONCE}"
DELETE_ROOM = "DELETE FROM race_rooms WHERE room = ? RETURNING raced"
ARCHIVE_RACERS = (  # a pruned room's racers who raced to the end, as race stats count them (an unverified finish
    # neither wins nor puts a verified one behind it)
    "INSERT INTO race_results (player, size, finished_ms, racers, first, ended, unverified) "
    "SELECT me.player, ?, me.finished_ms, "
    "(SELECT count(*) FROM race_racers o WHERE o.room = me.room AND o.round = me.round AND o.left_lobby = 0), "
    "CASE WHEN EXISTS (SELECT 1 FROM race_racers o WHERE o.room = me.room AND o.round = me.round AND o.left_lobby = 0 "
    "AND o.finished_ms IS NOT NULL AND o.unverified IS NULL AND (me.finished_ms IS NULL OR o.finished_ms < me.finished_ms "
    "OR (o.finished_ms = me.finished_ms AND o.joined < me.joined))) THEN 0 ELSE 1 END, ?, me.unverified "
    "FROM race_racers me WHERE me.room = ? AND me.left_lobby = 0 AND (me.finished_ms IS NOT NULL OR me.dnf = 1)")
SELECT_ARCHIVED = "SELECT size, finished_ms, racers, first, unverified FROM race_results WHERE player = ?"
ACTIVE = "UPDATE race_rooms SET active = ? WHERE room = ?"
RACED = "UPDATE race_rooms SET active = ?, raced = 1 WHERE room = ?"
SELECT_ACTIVE = "SELECT active, code FROM race_rooms WHERE room = ?"
SELECT_MISSES = "SELECT misses, last, until FROM code_misses WHERE who = ?"
UPSERT_MISS = (
    "INSERT INTO code_misses (who, misses, last, until) VALUES (?, ?, ?, ?) ON CONFLICT (who) DO UPDATE SET "
    "misses = excluded.misses, last = excluded.last, until = excluded.until")
FORGET_MISSES = "DELETE FROM code_misses WHERE last < ?"
IS_MEMBER = "SELECT 1 FROM race_racers WHERE room = ? AND player = ? AND left_lobby = 0 LIMIT 1"
INSERT_ROUND = "INSERT INTO race_rounds (room, round, phase, opened) VALUES (?, ?, 'lobby', ?)"
NEXT_ROUND = "UPDATE race_rooms SET round = ? WHERE room = ?"
SELECT_PHASE = "SELECT phase, reveal_at FROM race_rounds WHERE room = ? AND round = ?"
SELECT_SEAT = "SELECT left_lobby FROM race_racers WHERE room = ? AND round = ? AND player = ?"
COUNT_SEATS = "SELECT count(*) FROM race_racers WHERE room = ? AND round = ? AND left_lobby = 0"
TAKE_SEAT = (
    "INSERT INTO race_racers (room, round, player, name, joined, seen, rev) VALUES (?, ?, ?, ?, ?, ?, ?) "
    "ON CONFLICT (room, round, player) DO UPDATE SET name = excluded.name, joined = excluded.joined, seen = excluded.seen, "
    "left_lobby = 0, rev = excluded.rev")
SEEN = "UPDATE race_racers SET seen = ? WHERE room = ? AND round = ? AND player = ? AND left_lobby = 0"
SELECT_OPEN_QUICK = (  # quick rooms of a size in their lobby with someone there now, the oldest first
    "SELECT ro.room, ro.round FROM race_rooms ro JOIN race_rounds rd ON rd.room = ro.room AND rd.round = ro.round "
    "WHERE rd.phase = 'lobby' AND rd.opened > ? AND ro.code IS NULL AND ro.width = ? AND ro.height = ? AND EXISTS (SELECT 1 FROM race_racers rc "
    "WHERE rc.room = ro.room AND rc.round = ro.round AND rc.left_lobby = 0 AND rc.seen > ?) ORDER BY ro.created LIMIT 20")
SELECT_QUICK_WAITING = (  # the sizes of the quick rooms in their lobby where another player waits now
    "SELECT DISTINCT ro.width, ro.height FROM race_rooms ro JOIN race_rounds rd ON rd.room = ro.room "
    "AND rd.round = ro.round WHERE rd.phase = 'lobby' AND rd.opened > ? AND ro.code IS NULL AND EXISTS (SELECT 1 "
    "FROM race_racers rc WHERE rc.room = ro.room AND rc.round = ro.round AND rc.left_lobby = 0 AND rc.seen > ? "
    "AND rc.player <> ?) ORDER BY ro.width, ro.height")
SELECT_LAST_SIZE = (  # the size of the room this player joined last
    "SELECT ro.width, ro.height FROM race_racers rc JOIN race_rooms ro ON ro.room = rc.room WHERE rc.player = ? "
    "ORDER BY rc.joined DESC LIMIT 1")
STILL_RACING = "room = ? AND round = ? AND left_lobby = 0 AND dnf = 0 AND finished_ms IS NULL"
PUSH_MOVES = (
    "UPDATE race_racers SET moves = moves || CAST(? AS TEXT), "
    "times = CASE WHEN times = '' THEN CAST(? AS TEXT) ELSE times || ',' || CAST(? AS TEXT) END, "
    f"finished_ms = CAST(? AS INTEGER), dnf = ?, seen = ?, rev = ? WHERE player = ? AND {STILL_RACING} "
    "AND (CAST(? AS INTEGER) IS NULL OR length(moves) = ?) AND EXISTS (SELECT 1 FROM race_rounds rd "
    "WHERE rd.room = race_racers.room AND rd.round = race_racers.round AND rd.phase IN ('countdown', 'racing')) "
    "RETURNING player, moves, times")
PUSH_OUTCOME = (
    f"UPDATE race_racers SET finished_ms = CAST(? AS INTEGER), dnf = ?, seen = ?, rev = ? WHERE player = ? AND {STILL_RACING} "
    "AND (CAST(? AS INTEGER) IS NULL OR length(moves) = ?) AND EXISTS (SELECT 1 FROM race_rounds rd "
    "WHERE rd.room = race_racers.room AND rd.round = race_racers.round AND rd.phase IN ('countdown', 'racing')) "
    "RETURNING player, moves, times")
MARK_UNVERIFIED = "UPDATE race_racers SET unverified = ? WHERE room = ? AND round = ? AND player = ?"
LEAVE_LOBBY = "UPDATE race_racers SET left_lobby = 1, rev = ? WHERE room = ? AND round = ? AND player = ? AND left_lobby = 0"
GIVE_UP = f"UPDATE race_racers SET dnf = 1, rev = ? WHERE player = ? AND {STILL_RACING}"
DNF_GONE = f"UPDATE race_racers SET dnf = 1, rev = ? WHERE seen < ? AND {STILL_RACING}"
DNF_THE_REST = f"UPDATE race_racers SET dnf = 1, rev = ? WHERE {STILL_RACING}"
PRUNE_LOBBY = "UPDATE race_racers SET left_lobby = 1, rev = ? WHERE room = ? AND round = ? AND left_lobby = 0 AND seen < ?"
SET_PHASE = "UPDATE race_rounds SET phase = ? WHERE room = ? AND round = ? AND phase = ?"
START = ("UPDATE race_rounds SET phase = 'countdown', reveal_at = ?, scramble = ? WHERE room = ? AND round = ? "
         "AND phase = 'lobby' RETURNING round")
DUE = (  # what a sweep would change: the round's phase and reveal, the racers gone, and how many still race
    "SELECT rd.phase, rd.reveal_at, "
    "(SELECT count(*) FROM race_racers rc WHERE rc.room = rd.room AND rc.round = rd.round AND rc.left_lobby = 0 "
    "AND rc.dnf = 0 AND rc.finished_ms IS NULL AND rc.seen < ?), "
    "(SELECT count(*) FROM race_racers rc WHERE rc.room = rd.room AND rc.round = rd.round AND rc.left_lobby = 0 "
    "AND rc.dnf = 0 AND rc.finished_ms IS NULL) "
    "FROM race_rounds rd WHERE rd.room = ? AND rd.round = ?")
SELECT_MY_RACE = (  # the newest round this player is still in (not out, seen within the window) that is not over
    "SELECT rc.room, rc.round FROM race_racers rc JOIN race_rounds rd ON rd.room = rc.room AND rd.round = rc.round "
    "WHERE rc.player = ? AND rc.left_lobby = 0 AND rc.dnf = 0 AND rc.finished_ms IS NULL AND rd.phase <> 'done' "
    "AND rc.seen > CASE WHEN rd.phase = 'lobby' THEN ? ELSE ? END AND (rd.reveal_at IS NULL OR rd.reveal_at > ?) "
    "ORDER BY rc.joined DESC LIMIT 1")
SELECT_LIVE_RACES = (  # what a viewer may watch: a private room only its racers, a race with a racer who said no
    # to watchers only its racers too
    "SELECT rd.room, rd.round FROM race_rounds rd JOIN race_rooms ro ON ro.room = rd.room "
    "WHERE rd.phase IN ('countdown', 'racing') AND rd.reveal_at > ? "
    "AND EXISTS (SELECT 1 FROM race_racers rc WHERE rc.room = rd.room AND rc.round = rd.round AND rc.seen > ?) "
    "AND (EXISTS (SELECT 1 FROM race_racers m WHERE m.room = rd.room AND m.player = ? AND m.left_lobby = 0) "
    "OR (ro.code IS NULL AND NOT EXISTS (SELECT 1 FROM race_racers rc JOIN players p ON p.player = rc.player "
    "WHERE rc.room = rd.room AND rc.round = rd.round AND rc.left_lobby = 0 AND p.watchable = 0))) "
    f"ORDER BY rd.reveal_at DESC LIMIT {LIVE_RACES}")
SELECT_RACES_OF = (  # every round this player raced to its end, with its size, whether they won and how many raced
    "SELECT ro.width, ro.height, me.finished_ms, me.dnf, "
    "(SELECT count(*) FROM race_racers o WHERE o.room = me.room AND o.round = me.round AND o.left_lobby = 0), "
    "NOT EXISTS (SELECT 1 FROM race_racers o WHERE o.room = me.room AND o.round = me.round AND o.left_lobby = 0 "
    "AND o.finished_ms IS NOT NULL AND o.unverified IS NULL AND (o.finished_ms < me.finished_ms "
    "OR (o.finished_ms = me.finished_ms AND o.joined < me.joined))), me.unverified "
    "FROM race_racers me JOIN race_rooms ro ON ro.room = me.room "
    "WHERE me.player = ? AND me.left_lobby = 0 AND (me.finished_ms IS NOT NULL OR me.dnf = 1)")


class RaceRooms:
    """The race methods of :class:`~tui.storage.store.Store`, over its backend's ``query`` and ``transaction``."""

    backend: Backend

    def _rows(self, table: str, rows: list[tuple], check: Callable[[tuple], Any], where: str) -> Iterator[Any]:
        raise NotImplementedError  # the store's: the rows that pass check, a damaged one skipped with a notice

    # --- joining ----------------------------------------------------------------------------------------
    def quick_join(self, player: str, name: str, width: int, height: int) -> Room:
        """Join the open quick room of ``width`` x ``height`` (the oldest with a seat and someone there), or make one."""
        race_puzzle(width, height)  # KomaError for a size races do not have
        now = time.time()
        with self.backend.transaction(f"race-quick:{width}x{height}") as query:
            for room, round_ in query(SELECT_OPEN_QUICK, (now - QUICK_LOBBY_SECONDS, width, height, now - LOBBY_GONE_SECONDS)):
                if self._take_seat(query, str(room), int(round_), player, name, now, refuse=False):
                    break
            else:
                room = self._new_room(query, None, player, name, width, height, now)
        return self._read_joined(str(room))

    def create_private(self, player: str, name: str, width: int, height: int) -> Room:
        """Make a private room with a fresh code (one no room holds: see :data:`SELECT_HELD_CODE`), its host
        ``player`` its first racer.  KomaError (one line) when the player already hosts
        :data:`~tui.game.race_rules.MAX_OPEN_PRIVATE_ROOMS` open private rooms."""
        race_puzzle(width, height)
        now = time.time()
        room = uuid.uuid4().hex
        with self.backend.transaction("race-codes") as query:  # one maker of private rooms at a time: codes and caps hold
            hosting = int(query(COUNT_OPEN_PRIVATE, (player, now - ROOMS_KEPT_SECONDS, *_open_args(now)))[0][0])
            if hosting >= MAX_OPEN_PRIVATE_ROOMS:
                raise KomaError(f"you already host {hosting} open private rooms (at most {MAX_OPEN_PRIVATE_ROOMS}): "
                                "leave one first")
            for _ in range(CODE_TRIES):
                code = new_code()
                if not query(SELECT_HELD_CODE, (code, *_open_args(now), now - CODE_KEPT_SECONDS)):
                    self._new_room(query, code, player, name, width, height, now, room)
                    break
            else:
                raise KomaError("could not find a free room code; try again")
        return self._read_joined(room)

    def join_code(self, player: str, name: str, code: str, address: str = "") -> Room:
        """Join the open private room of ``code`` (as typed).  KomaError (one line) for a code that is no open room's,
        a full room, or one whose race has started without this player; a player already in it is simply back in it.
        A code that is no open room's is a miss for ``player`` and for ``address`` (the client's, when served): past
        :data:`~tui.game.race_rules.FREE_CODE_MISSES` each miss makes them wait longer before the next code is tried."""
        code = parse_code(code)
        room = self._guess(player, address, code)
        with self.backend.transaction(f"race:{room}") as query:
            self._take_seat(query, room, None, player, name, time.time(), refuse=True, code=code)
        return self._read_joined(room)

    def _guess(self, player: str, address: str, code: str) -> str:
        """The open room of ``code``, unless its guesser must wait (KomaError); a miss is counted, and costs a wait."""
        now = time.time()
        guessers = [f"player:{player}"] + ([f"address:{address}"] if address else [])
        with self.backend.transaction(f"race-guess:{address or player}") as query:
            query(FORGET_MISSES, (now - CODE_MISSES_FORGOTTEN_SECONDS,))
            counts = {}
            for who in guessers:
                rows = query(SELECT_MISSES, (who,))
                misses, _last, until = rows[0] if rows else (0, now, 0.0)
                if float(until) > now:
                    whose = "your" if who.startswith("player:") else "your address's"
                    raise KomaError(f"too many wrong room codes ({whose} {int(misses)}); try again in "
                                    f"{max(1, round(float(until) - now))} s")
                counts[who] = int(misses)
            rows = query(SELECT_OPEN_CODE, (code, *_open_args(now)))
            if rows:
                return str(rows[0][0])
            for who, misses in counts.items():
                query(UPSERT_MISS, (who, misses + 1, now, now + code_wait_seconds(misses + 1)))
        raise KomaError(f"no open room has the code {code}")

    def room_of_code(self, code: str, *, open_only: bool = True) -> str | None:
        """The open room whose private code is ``code`` (as stored: :func:`~tui.game.race_rules.parse_code` reads a typed
        one); None when no open room has it.  ``open_only=False`` (tools and tests, never a player): the newest room
        that had it, open or not."""
        if not open_only:
            rows = self.backend.query("SELECT room FROM race_rooms WHERE code = ? ORDER BY created DESC LIMIT 1", (code,))
        else:
            rows = self.backend.query(SELECT_OPEN_CODE, (code, *_open_args(time.time())))
        return str(rows[0][0]) if rows else None

    def _read_joined(self, room: str) -> Room:
        joined = self.read_room(room)
        if joined is None:
            raise KomaError("the room could not be read back; try again")
        return joined

    def _new_room(self, query: Query, code: str | None, player: str, name: str, width: int, height: int, now: float,
                  room: str | None = None) -> str | None:
        room = room or uuid.uuid4().hex
        self._prune(query, now)
        query(INSERT_ROOM, (room, code, width, height, player, now, now))
        query(INSERT_ROUND, (room, 0, now))
        query(TAKE_SEAT, (room, 0, player, name, now, now, 1))
        return room

    @staticmethod
    def _prune(query: Query, now: float) -> int:
        """Delete up to :data:`PRUNED_AT_ONCE` rooms long closed (each new room does: the tables stay bounded), their
        racers' results kept in ``race_results``; how many went."""
        pruned = 0
        for raced, cut in ((0, now - ABANDONED_ROOM_SECONDS), (1, now - ROOMS_KEPT_SECONDS)):
            for (room,) in query(SELECT_PRUNABLE, (raced, cut)):
                gone = query("SELECT width, height FROM race_rooms WHERE room = ?", (room,))
                if not gone or not query(DELETE_ROOM, (room,)):
                    continue  # another process pruned it first
                query(ARCHIVE_RACERS, (f"{gone[0][0]}x{gone[0][1]}", now, room))
                query("DELETE FROM race_racers WHERE room = ?", (room,))
                query("DELETE FROM race_rounds WHERE room = ?", (room,))
                pruned += 1
        return pruned

    def _take_seat(self, query: Query, room: str, round_: int | None, player: str, name: str, now: float, *, refuse: bool,
                   code: str = "") -> bool:
        """Seat ``player`` in ``room``'s lobby of ``round_`` (None: its newest), or find them there or in its race.
        False, or with ``refuse`` a KomaError, when the room has moved on, started without them, or is full."""
        bumped = self._bump(query, room)  # on PostgreSQL: the room's row lock, held to the end, orders the joins
        if not bumped or (round_ is not None and int(bumped[0][1]) != round_):
            return _refused(refuse, "the room moved on; try again")
        version, round_ = int(bumped[0][0]), int(bumped[0][1])
        seat = query(SELECT_SEAT, (room, round_, player))
        phase = RacePhase(query(SELECT_PHASE, (room, round_))[0][0])
        if seat and seat[0][0] == 0:
            query(SEEN, (now, room, round_, player))
            return True  # already in (a racer coming back within the reconnect window)
        named = f"room {code}" if code else "the room"
        if phase is not RacePhase.LOBBY:
            return _refused(refuse, f"{named}'s race has {'ended' if phase is RacePhase.DONE else 'started'}; "
                                    "wait for its rematch")
        if int(query(COUNT_SEATS, (room, round_))[0][0]) >= MAX_RACERS:
            return _refused(refuse, f"{named} is full ({MAX_RACERS} racers)")
        query(TAKE_SEAT, (room, round_, player, name, now, now, version))
        return True

    def _bump(self, query: Query, room: str) -> list[tuple]:
        """The room's next version and its newest round ([] for no room): the first statement of every change."""
        return query(BUMP_AND_NOTIFY if self.backend.notifies else BUMP, (room,))

    # --- reading ----------------------------------------------------------------------------------------
    def read_room(self, room: str) -> Room | None:
        """The room with its newest round; None if there is no such room."""
        return self.read_round(room, None)

    def read_round(self, room: str, round_: int | None, since: Room | None = None) -> Room | None:
        """The room with round ``round_`` (None: the newest).  Given ``since`` (an earlier read of the same round),
        only what changed after it is read, and ``since`` itself comes back when nothing did."""
        known = since.version if since is not None and (round_ is None or since.round == round_) else -1
        rows = self.backend.query(SELECT_CHANGES, (round_, known, room))
        width = len(ROUND_COLUMNS.split(", "))
        head = next(self._rows("race_rooms", [tuple(row[:width]) for row in rows[:1]],
                               lambda row: _round_from_row(room, row), room), None)
        if head is None:
            return None
        if since is not None and known >= 0 and since.round != head.round:
            return self.read_round(room, head.round)  # the newest round is another: read it whole
        if since is not None and known >= 0 and since.version == head.version:
            return since
        racers = {r.player: r for r in (since.racers if known >= 0 and since is not None else ())}
        changed = self._rows("race_racers", [tuple(row[width:]) for row in rows if row[width] is not None],
                             lambda row: _racer_from_row(row, racers.get(str(row[0]))), f"room {room}")
        for racer in changed:
            racers[racer.player] = racer
        present = sorted((r for r in racers.values() if not r.left), key=lambda r: (r.joined, r.player))
        return _with_racers(head, tuple(present))

    def race_history(self, room: str, viewer: str | None = None) -> list[Room]:
        """Every round of ``room`` with all its racers, the first first (race replays); given ``viewer``, nothing
        of a private room they never raced in."""
        if viewer is not None and not self.backend.query(IS_MEMBER, (room, viewer)) and self.backend.query(
                "SELECT 1 FROM race_rooms WHERE room = ? AND code IS NOT NULL", (room,)):
            return []
        heads = list(self._rows("race_rooms", self.backend.query(SELECT_ROUNDS, (room,)),
                                lambda row: _round_from_row(room, row), room))
        racers: dict[int, list[Racer]] = {}
        for row in self.backend.query(SELECT_ALL_RACERS, (room,)):
            for racer in self._rows("race_racers", [tuple(row[:-1])], _racer_from_row, f"room {room}"):
                if not racer.left:
                    racers.setdefault(int(row[-1]), []).append(racer)
        return [_with_racers(head, tuple(racers.get(head.round, ()))) for head in heads]

    def live_races(self, viewer: str) -> list[Room]:
        """Rounds counting down or racing now with someone there that ``viewer`` may watch (a quick race whose
        racers all let others watch, or one they race in themselves), the latest revealed first (Watch lists them)."""
        now = time.time()
        rows = self.backend.query(SELECT_LIVE_RACES, (now - RACE_LIMIT_SECONDS, now - RECONNECT_SECONDS, viewer))
        return [room for room_id, round_ in rows if (room := self.read_round(str(room_id), int(round_))) is not None]

    def my_race(self, player: str) -> Room | None:
        """The round ``player`` can come back to: one they are still in (not finished, not DNF, seen within the
        window), that is not over; None if there is none."""
        now = time.time()
        rows = self.backend.query(SELECT_MY_RACE, (player, now - LOBBY_GONE_SECONDS, now - RECONNECT_SECONDS,
                                                   now - RACE_LIMIT_SECONDS))
        return self.read_round(str(rows[0][0]), int(rows[0][1])) if rows else None

    def quick_waiting(self, player: str) -> list[tuple[int, int]]:
        """The sizes (width, height) of the quick races where someone other than ``player`` waits now."""
        now = time.time()
        rows = self.backend.query(SELECT_QUICK_WAITING, (now - QUICK_LOBBY_SECONDS, now - LOBBY_GONE_SECONDS, player))
        return [(int(width), int(height)) for width, height in rows]

    def last_race_size(self, player: str) -> tuple[int, int] | None:
        """The size (width, height) of the last room ``player`` joined (the lobby starts on it), or None."""
        rows = self.backend.query(SELECT_LAST_SIZE, (player,))
        return (int(rows[0][0]), int(rows[0][1])) if rows else None

    def race_stats(self, player: str) -> RaceStats:
        """``player``'s rounds raced to their end, wins (first of two or more), and best time per size (an
        unverified finish counts as raced, never as a win or a time)."""
        races = wins = 0
        best: dict[str, int] = {}
        rows = [(f"{width}x{height}", finished_ms, racers, first, unverified)
                for width, height, finished_ms, _dnf, racers, first, unverified
                in self.backend.query(SELECT_RACES_OF, (player,))]
        for size, finished_ms, racers, first, unverified in rows + self.backend.query(SELECT_ARCHIVED, (player,)):
            races += 1
            if finished_ms is None or unverified is not None:
                continue
            wins += int(bool(first) and int(racers) > 1)
            best[str(size)] = min(best.get(str(size), int(finished_ms)), int(finished_ms))
        return RaceStats(races, wins, best)

    # --- racing -----------------------------------------------------------------------------------------
    def start(self, room: str, round_: int, reveal_at: float, scramble: Sequence[int]) -> bool:
        """Start ``round_``'s countdown to ``reveal_at`` with ``scramble``, only from the lobby; whether this call
        did (another process may have first: then everyone reads that one's)."""
        with self.backend.transaction(f"race:{room}") as query:
            bumped = self._bump(query, room)
            if not bumped or int(bumped[0][1]) != round_:
                return False
            head = query(SELECT_ROUND, (round_, room))
            puzzle = speed_puzzle(int(head[0][1]), int(head[0][2]))
            started = query(START, (reveal_at, format_scramble(puzzle, scramble), room, round_))
            if started:
                query(RACED, (time.time(), room))
                query(PRUNE_LOBBY, (int(bumped[0][0]), room, round_, time.time() - LOBBY_GONE_SECONDS))
        return bool(started)

    def push(self, room: str, round_: int, player: str, moves_added: str, times_added: Sequence[int],
             finished_ms: int | None = None, dnf: bool = False, *, after: int | None = None) -> bool:
        """Append ``player``'s new moves (and their times, ms since the reveal), their finish or their DNF, while they
        still race; with ``after``, only if they have exactly that many moves stored (so a write that did land is
        never appended twice).  Whether it was stored."""
        check_moves(moves_added, times_added)
        now = time.time()
        with self.backend.transaction(f"race:{room}") as query:
            bumped = self._bump(query, room)
            if not bumped:
                return False
            version = int(bumped[0][0])
            if moves_added:
                times = ",".join(str(t) for t in times_added)
                done = query(PUSH_MOVES, (moves_added, times, times, finished_ms, int(dnf), now, version, player, room,
                                          round_, after, after))
            else:
                done = query(PUSH_OUTCOME, (finished_ms, int(dnf), now, version, player, room, round_, after, after))
            if done and finished_ms is not None:
                _, moves, times = done[0]
                reason = implausible_race(str(moves), [int(t) for t in str(times).split(",")] if times else [])
                if reason is not None:
                    query(MARK_UNVERIFIED, (reason, room, round_, player))
        return bool(done)

    def heartbeat(self, room: str, round_: int, player: str) -> None:
        """``player``'s process is there (``seen`` = now); other readers do not see it as a change."""
        self.backend.query(SEEN, (time.time(), room, round_, player))

    def leave(self, room: str, round_: int, player: str) -> None:
        """``player`` leaves: from the lobby they are no racer any more; from the race they are DNF (a finisher
        keeps their finish)."""
        with self.backend.transaction(f"race:{room}") as query:
            bumped = self._bump(query, room)
            phase = query(SELECT_PHASE, (room, round_)) if bumped else []
            if not phase:
                return
            if phase[0][0] == RacePhase.LOBBY.value:
                query(LEAVE_LOBBY, (int(bumped[0][0]), room, round_, player))
            elif phase[0][0] != RacePhase.DONE.value:
                query(GIVE_UP, (int(bumped[0][0]), player, room, round_))

    def rematch(self, room: str, round_: int, player: str) -> Room:
        """After ``round_`` is over: open the next round (if no one has) and seat ``player`` in it.  KomaError (one
        line) while the round is not over, or when the next one is full or has started."""
        now = time.time()
        with self.backend.transaction(f"race:{room}") as query:
            bumped = self._bump(query, room)
            if not bumped:
                raise KomaError("no such room")
            newest = int(bumped[0][1])
            active, code = query(SELECT_ACTIVE, (room,))[0]
            if code is not None and float(active) <= now - CODE_KEPT_SECONDS:
                raise KomaError("this room has closed (its code may be another room's now); make a new private room")
            if newest == round_:
                self._close_if_over(query, room, round_, int(bumped[0][0]), now)
                if query(SELECT_PHASE, (room, round_))[0][0] != RacePhase.DONE.value:
                    raise KomaError("the race is not over yet")
                newest = round_ + 1
                query(INSERT_ROUND, (room, newest, now))
                query(NEXT_ROUND, (newest, room))
                query(ACTIVE, (now, room))
            self._take_seat(query, room, newest, player, self._name_in(query, room, round_, player), now, refuse=True)
        joined = self.read_round(room, newest)
        if joined is None:
            raise KomaError("the room could not be read back; try again")
        return joined

    @staticmethod
    def _name_in(query: Query, room: str, round_: int, player: str) -> str:
        rows = query("SELECT name FROM race_racers WHERE room = ? AND round = ? AND player = ?", (room, round_, player))
        return str(rows[0][0]) if rows else player

    def sweep(self, room: str, round_: int) -> bool:
        """The housekeeping any racer's process does every heartbeat: a lobby forgets racers gone from it; a
        countdown past its reveal is racing; racers not seen for the reconnect window are DNF; a round everyone
        finished (or left), or past its limit, is done (DNF for the rest).  One cheap read when nothing is due;
        whether it changed anything."""
        now = time.time()
        due = self.backend.query(DUE, (now - RECONNECT_SECONDS, room, round_))
        if not due or not _sweep_due(due[0], now, self.backend.query, room, round_):
            return False
        with self.backend.transaction(f"race:{room}") as query:
            bumped = self._bump(query, room)
            if not bumped:
                return False
            version = int(bumped[0][0])
            phase = RacePhase(query(SELECT_PHASE, (room, round_))[0][0])
            if phase is RacePhase.LOBBY:
                query(PRUNE_LOBBY, (version, room, round_, now - LOBBY_GONE_SECONDS))
            else:
                query(SET_PHASE + " AND reveal_at <= ?", (RacePhase.RACING.value, room, round_, RacePhase.COUNTDOWN.value, now))
                query(DNF_GONE, (version, now - RECONNECT_SECONDS, room, round_))
                self._close_if_over(query, room, round_, version, now)
        return True

    @staticmethod
    def _close_if_over(query: Query, room: str, round_: int, version: int, now: float) -> None:
        phase, reveal_at = query(SELECT_PHASE, (room, round_))[0]
        if phase not in (RacePhase.COUNTDOWN.value, RacePhase.RACING.value) or reveal_at is None:
            return
        still = int(query(f"SELECT count(*) FROM race_racers WHERE {STILL_RACING}", (room, round_))[0][0])
        if still and now < float(reveal_at) + RACE_LIMIT_SECONDS:
            return
        query(DNF_THE_REST, (version, room, round_))
        if query(SET_PHASE + " RETURNING room", (RacePhase.DONE.value, room, round_, phase)):
            query(ACTIVE, (now, room))


def _sweep_due(row: tuple, now: float, query: Query, room: str, round_: int) -> bool:
    phase, reveal_at, gone, still = row
    if phase == RacePhase.LOBBY.value:
        cut = now - LOBBY_GONE_SECONDS
        return bool(query("SELECT 1 FROM race_racers WHERE room = ? AND round = ? AND left_lobby = 0 AND seen < ? LIMIT 1",
                          (room, round_, cut)))
    if phase == RacePhase.DONE.value or reveal_at is None:
        return False
    return (phase == RacePhase.COUNTDOWN.value and now >= float(reveal_at)) or bool(gone) or not still \
        or now >= float(reveal_at) + RACE_LIMIT_SECONDS


def _open_args(now: float) -> tuple[float, float, float]:
    """The arguments of :data:`OPEN` at ``now``."""
    return (now - LOBBY_GONE_SECONDS, now - NEW_LOBBY_SECONDS, now - RACE_LIMIT_SECONDS)


def _refused(refuse: bool, why: str) -> bool:
    if refuse:
        raise KomaError(why)
    return False


def _round_from_row(room: str, row: tuple) -> Room:
    """A room's head (its racers still to add) from :data:`SELECT_ROUND`; BadRow when damaged."""
    code, width, height, host, latest, version, round_, phase, reveal_at, scramble = row
    try:
        puzzle = speed_puzzle(int(width), int(height))
        tiles = None
        if scramble is not None:
            tiles = tuple(int(t) for t in str(scramble).replace("/", " ").split())
            if sorted(tiles) != list(range(puzzle.cells)):
                raise BadRow(f"scramble is {scramble!r}")
        return Room(room, None if code is None else str(code), puzzle.width, puzzle.height, str(host), int(round_),
                    RacePhase(phase), None if reveal_at is None else float(reveal_at), tiles, (), int(version), int(latest))
    except (KomaError, TypeError, ValueError) as problem:
        raise BadRow(str(problem)) from None


def _racer_from_row(row: tuple, before: Racer | None = None) -> Racer:
    """A racer from its row; given ``before`` (the same racer read earlier), moves and times that only grew from
    it have only their new part parsed and checked."""
    player, name, joined, seen, moves, times, finished_ms, dnf, left, unverified = row
    try:
        times_ms = _grown_times(str(moves), str(times or ""), before)
        if times_ms is None:
            times_ms = tuple(int(t) for t in str(times).split(",")) if times else ()
            check_moves(str(moves), times_ms)
        return Racer(str(player), str(name), float(joined), float(seen), str(moves), times_ms,
                     None if finished_ms is None else int(finished_ms), bool(dnf), bool(left),
                     None if unverified is None else str(unverified))
    except (KomaError, TypeError, ValueError) as problem:
        raise BadRow(f"racer {player}: {problem}") from None


def _grown_times(moves: str, times: str, before: Racer | None) -> tuple[int, ...] | None:
    """The times of ``moves`` (``times`` as stored) when they only grew from ``before``'s: the new ones parsed and
    checked (KomaError), the rest ``before``'s; None when they did not only grow (parse them all)."""
    if before is None or not before.moves or len(moves) < before.stm or not moves.startswith(before.moves):
        return None
    added = len(moves) - before.stm
    if times.count(",") + 1 != len(moves):
        raise KomaError(f"a race needs one time per tile moved: {len(moves)} moves, {times.count(',') + 1} times")
    if not added:
        return before.times_ms
    new = tuple(int(t) for t in times.rsplit(",", added)[-added:])
    check_moves(moves[before.stm:], new)
    if new[0] < before.times_ms[-1]:
        raise KomaError("race move times are ms since the reveal: never negative and never going back")
    return before.times_ms + new


def _with_racers(head: Room, racers: tuple[Racer, ...]) -> Room:
    return Room(head.room, head.code, head.width, head.height, head.host, head.round, head.phase, head.reveal_at,
                head.scramble, racers, head.version, head.latest_round)
