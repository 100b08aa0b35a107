"""Races (issue 35) as a model: rooms, racers, the rules, places and results.  Pure: no I/O, never imports Textual.

The rules:

- **Sizes** are 3x3 .. 10x10, rectangles too (:func:`race_puzzle`), :data:`DEFAULT_SIZE` 4x4.  Up to
  :data:`MAX_RACERS` racers a room.
- A room is **quick** (anyone racing that size joins the open quick room; one is made if there is none) or
  **private** (a :data:`CODE_LENGTH`-letter code from :data:`CODE_ALPHABET`, letters without look-alikes, that
  friends type to join).
- A round's phases: ``LOBBY`` -> ``COUNTDOWN`` -> ``RACING`` -> ``DONE``.  A quick room starts its countdown by
  itself :data:`QUICK_START_SECONDS` after its second racer joined, or at once when full; a private room when its
  host starts it (any racer may once the host is gone).  Starting sets ``reveal_at`` (wall-clock epoch seconds,
  :data:`COUNTDOWN_SECONDS` ahead) and the scramble (a random state) at once, only from the lobby, so whichever
  process starts it everyone reads the same.
- Each racer's clock starts at the reveal, not at their first move: a racer's times are ms from ``reveal_at``.  A
  racer finishes when their board is solved (``finished_ms``); places go in finish-time order (then join order).
  A finish no hand could have played (``unverified``: the reason, :func:`tui.game.plausibility.implausible_race`)
  takes no place and wins nothing: it is listed after the places, marked.
  A racer who leaves or gives up during the race is DNF; one who leaves the lobby just leaves (``left``).
- A racer's heartbeat (``seen``) is written every :data:`HEARTBEAT_SECONDS`; a racer not seen for
  :data:`RECONNECT_SECONDS` during the race is DNF'd by any other racer, and one not seen for
  :data:`LOBBY_GONE_SECONDS` in the lobby leaves it.  The same player opening Race again within the window is put
  back in: their board is the scramble plus their moves so far, their clock still runs from the reveal.
- A round is ``DONE`` when every racer has finished or is DNF, or :data:`RACE_LIMIT_SECONDS` after the reveal
  (DNF for the rest): a room never waits forever.
- Rematch: after ``DONE`` a racer asks for one: the room goes to the next round (``round + 1``, ``LOBBY``), and the
  racers who accept join it.
- **Fair play**: a private room is listed (Watch, replays) only to its racers, and a race with a racer who does
  not let others watch is listed to no one else; a code joins only an open room (a lobby with someone in it; a
  race only its own racers come back to), and is free for a new room :data:`CODE_KEPT_SECONDS` after its room's
  last round opened, started or ended (a rematch asked for later is refused); a player hosts at most
  :data:`MAX_OPEN_PRIVATE_ROOMS` open private rooms; wrong codes cost a growing wait per player and per address
  (:func:`code_wait_seconds`); rooms are pruned :data:`ROOMS_KEPT_SECONDS` after their last round
  (:data:`ABANDONED_ROOM_SECONDS` for a room that never raced), their racers' results kept for race stats.
- Moves are single-tile moves, one letter each (``U D L R``, the direction the tile moves); STM counts every tile,
  MTM every run of one direction, TPS is STM per second of the racer's time (from the reveal).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum
from itertools import pairwise

from solver import ids
from solver.errors import KomaError
from solver.sliding.model import SlidingPuzzle
from tui.game.averages import seconds_text
from tui.game.speed import DIRECTIONS, line_moves, speed_puzzle

MAX_RACERS = 8
DEFAULT_SIZE = (4, 4)  # width, height
RACE_MIN_SIDE, RACE_MAX_SIDE = 3, 10  # races keep to these (speed solves alone go from 2x2 to 20x20)


def race_puzzle(width: int, height: int) -> SlidingPuzzle:
    """The puzzle of a race size (3x3 to 10x10, rectangles too); KomaError outside."""
    if not (RACE_MIN_SIDE <= width <= RACE_MAX_SIDE and RACE_MIN_SIDE <= height <= RACE_MAX_SIDE):
        raise KomaError(f"races go from {RACE_MIN_SIDE}x{RACE_MIN_SIDE} to {RACE_MAX_SIDE}x{RACE_MAX_SIDE}, "
                        f"not {width}x{height}")
    return speed_puzzle(width, height)
QUICK_START_SECONDS = 10.0  # a quick room counts down this long after its second racer joined
COUNTDOWN_SECONDS = 3.0  # from the start to the reveal
HEARTBEAT_SECONDS = 1.0  # how often a racer's process says it is there
RECONNECT_SECONDS = 30.0  # a racer not seen this long during a race is DNF
LOBBY_GONE_SECONDS = 5.0  # a racer not seen this long in the lobby has left it
RACE_LIMIT_SECONDS = 600.0  # a round is over this long after its reveal, DNF for whoever has not finished
RACE_POLL_SECONDS = 0.05  # how often a racing process reads its room when nothing wakes it (no NOTIFY, no pokes)
SAFETY_POLL_SECONDS = 1.0  # how often it reads it anyway when it is woken (PostgreSQL LISTEN/NOTIFY, SQLite pokes)
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ"  # no I or O (1 and 0 look alike)
CODE_LENGTH = 5
# Fair play on a public server (issue 54): what a room and a code cost, enforced by the store.
MAX_OPEN_PRIVATE_ROOMS = 3  # private rooms one player may host open at once (a lobby with someone in it, or a race)
NEW_LOBBY_SECONDS = 60.0  # a lobby opened this lately is open while its racers have not left it, seen or not yet
CODE_KEPT_SECONDS = 1800.0  # a private room's code is held this long after its last round opened, started or ended
ROOMS_KEPT_SECONDS = 7 * 86400.0  # a room closed this long is pruned (its racers' results are kept for their stats)
ABANDONED_ROOM_SECONDS = 3600.0  # a room that never raced is pruned this long after it opened
FREE_CODE_MISSES = 3  # wrong codes a player (or an address) may type before each next one costs a wait
MAX_CODE_WAIT_SECONDS = 3600.0  # the longest wait a wrong code costs
CODE_MISSES_FORGOTTEN_SECONDS = 86400.0  # wrong codes are forgotten after this long without one


class RacePhase(Enum):
    LOBBY = "lobby"
    COUNTDOWN = "countdown"
    RACING = "racing"
    DONE = "done"


def new_code(rng: random.Random | None = None) -> str:
    """A random private-room code: :data:`CODE_LENGTH` letters of :data:`CODE_ALPHABET`."""
    rng = rng or random.SystemRandom()
    return "".join(rng.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def code_wait_seconds(misses: int) -> float:
    """How long a player (or an address) waits before trying another code after ``misses`` wrong ones in a row:
    nothing for the first :data:`FREE_CODE_MISSES`, then 2, 4, 8… seconds, at most :data:`MAX_CODE_WAIT_SECONDS`."""
    if misses <= FREE_CODE_MISSES:
        return 0.0
    return min(MAX_CODE_WAIT_SECONDS, 2.0 ** min(misses - FREE_CODE_MISSES, 32))


def parse_code(text: str) -> str:
    """A code as typed (any case, spaces or dashes around or between) in its stored form; KomaError (one line)
    when it cannot be one."""
    code = "".join(ch for ch in (text or "").upper() if not (ch.isspace() or ch == "-"))
    if not code:
        raise KomaError("type the room's code (5 letters)")
    wrong = sorted({ch for ch in code if ch not in CODE_ALPHABET})
    if wrong:
        raise KomaError(f"a room code has only the letters {CODE_ALPHABET} (no I or O, no digits), not {''.join(wrong)}")
    if len(code) != CODE_LENGTH:
        raise KomaError(f"a room code has {CODE_LENGTH} letters, not {len(code)}")
    return code


def check_moves(moves: str, times_ms: Sequence[int]) -> None:
    """KomaError unless ``moves`` are letters of ``U D L R`` with one time each, never negative nor going back."""
    if any(move not in DIRECTIONS for move in moves):
        raise KomaError(f"race moves are letters of {DIRECTIONS}, not {moves[:20]!r}")
    if len(moves) != len(times_ms):
        raise KomaError(f"a race needs one time per tile moved: {len(moves)} moves, {len(times_ms)} times")
    if times_ms and (times_ms[0] < 0 or any(b < a for a, b in pairwise(times_ms))):
        raise KomaError("race move times are ms since the reveal: never negative and never going back")


@dataclass(frozen=True)
class Racer:
    """One racer of one round: who, their heartbeat (``seen``, epoch seconds, as of the row's last change: a
    heartbeat alone is no change a reader is sent), their single-tile moves and each move's time in ms since the
    reveal, their finish (``finished_ms``) or ``dnf``, and ``left`` (gone from the lobby before the start: not a racer
    of the round)."""

    player: str
    name: str
    joined: float
    seen: float
    moves: str = ""
    times_ms: tuple[int, ...] = ()
    finished_ms: int | None = None
    dnf: bool = False
    left: bool = False
    unverified: str | None = None  # why no hand could have played this finish (it then takes no place)

    @property
    def stm(self) -> int:
        return len(self.moves)

    @property
    def mtm(self) -> int:
        return len(line_moves(self.moves))

    @property
    def finished(self) -> bool:
        return self.finished_ms is not None

    @property
    def placed(self) -> bool:
        """Finished, and by a hand: a finisher who takes a place."""
        return self.finished_ms is not None and self.unverified is None

    @property
    def out(self) -> bool:
        """Done racing: finished, or DNF."""
        return self.finished or self.dnf

    @property
    def time_ms(self) -> int:
        """The finish time; before it, the last move's time (0 before any)."""
        if self.finished_ms is not None:
            return self.finished_ms
        return self.times_ms[-1] if self.times_ms else 0

    @property
    def tps(self) -> float | None:
        """STM per second from the reveal: to the finish, else to the last move (None before any time passed)."""
        return self.tps_at(self.time_ms)

    def tps_at(self, elapsed_ms: float) -> float | None:
        """STM per second when ``elapsed_ms`` have passed since the reveal (a live figure); the finish time once
        finished."""
        if self.finished_ms is not None:
            elapsed_ms = self.finished_ms
        return self.stm * 1000 / elapsed_ms if elapsed_ms > 0 else None

    def state(self, puzzle: SlidingPuzzle, scramble: Sequence[int]) -> tuple[int, ...]:
        """The racer's board: the scramble after their moves (KomaError if one is not legal)."""
        state = tuple(scramble)
        for move in self.moves:
            state = puzzle.apply(state, move)
        return state


@dataclass(frozen=True)
class Placing:
    """A racer's line of the results: ``place`` (from 1) for a finisher, None while racing or for a DNF."""

    place: int | None
    racer: Racer

    def line(self) -> str:
        """``1. Ann  12.345  STM 120  MTM 80  TPS 9.72`` (``DNF`` for the time of one who did not finish)."""
        racer = self.racer
        place = f"{self.place}." if self.place is not None else "-"
        shown = seconds_text(racer.finished_ms) if racer.finished_ms is not None else ("DNF" if racer.dnf else "…")
        tps = racer.tps
        marked = f"  unverified: {racer.unverified}" if racer.unverified and racer.finished else ""
        return (f"{place} {racer.name}  {shown}  STM {racer.stm}  MTM {racer.mtm}  "
                f"TPS {'-' if tps is None else f'{tps:.2f}'}{marked}")


@dataclass(frozen=True)
class Room:
    """One room as read at one moment, with one round's racers (``round``; ``latest_round`` is the room's newest,
    higher once someone asked for a rematch).  ``version`` grows with every change to the room, so a reader can
    tell a snapshot it has seen."""

    room: str
    code: str | None
    width: int
    height: int
    host: str
    round: int
    phase: RacePhase
    reveal_at: float | None
    scramble: tuple[int, ...] | None
    racers: tuple[Racer, ...]
    version: int = 0
    latest_round: int = field(default=-1)

    def __post_init__(self) -> None:
        if self.latest_round < self.round:
            object.__setattr__(self, "latest_round", self.round)

    # --- what it is --------------------------------------------------------------------------------------
    @property
    def quick(self) -> bool:
        return self.code is None

    @property
    def size_label(self) -> str:
        return f"{self.width}x{self.height}"

    @property
    def puzzle(self) -> SlidingPuzzle:
        return race_puzzle(self.width, self.height)

    @property
    def scramble_id(self) -> str | None:
        """The scramble's game ID (what the speed screen shows after ``ID``); None before the start."""
        return None if self.scramble is None else ids.game_id(self.puzzle, self.scramble)

    @property
    def full(self) -> bool:
        return len(self.racers) >= MAX_RACERS

    def racer(self, player: str) -> Racer | None:
        return next((r for r in self.racers if r.player == player), None)

    def outline(self) -> tuple:
        """Everything of the room but its racers' moves, move times and heartbeats: two snapshots with the same
        outline differ only in how far racers have got (what a move changes), not in who races, the phase, the
        scramble, or who has finished or is out.  A countdown the store marks racing once its reveal has passed has
        the countdown's outline: the race is the same, and a screen goes by the clock (:meth:`phase_at`), so the
        store catching up asks no screen to draw anything at the reveal."""
        phase = RacePhase.COUNTDOWN if self.phase is RacePhase.RACING else self.phase
        return (self.room, self.code, self.width, self.height, self.host, self.round, self.latest_round, phase,
                self.reveal_at, self.scramble,
                tuple((r.player, r.name, r.joined, r.finished_ms, r.dnf, r.left) for r in self.racers))

    # --- time --------------------------------------------------------------------------------------------
    def phase_at(self, now: float) -> RacePhase:
        """The phase at wall-clock ``now``: a countdown past its reveal is racing, a race past its end is done,
        whether or not the store says so yet."""
        if self.phase in (RacePhase.COUNTDOWN, RacePhase.RACING) and self.reveal_at is not None:
            if self.is_over(now):
                return RacePhase.DONE
            return RacePhase.RACING if now >= self.reveal_at else RacePhase.COUNTDOWN
        return self.phase

    def countdown_left(self, now: float) -> float | None:
        """Seconds until the reveal (0 once revealed); None before the start."""
        return None if self.reveal_at is None else max(0.0, self.reveal_at - now)

    def countdown_shown(self, now: float) -> int | None:
        """The countdown's figure (3, 2, 1) at ``now``; None before the start and from the reveal."""
        left = self.countdown_left(now)
        return math.ceil(left) if left else None

    def elapsed_ms(self, now: float) -> int:
        """ms since the reveal at ``now`` (a racer's clock); 0 before it."""
        return 0 if self.reveal_at is None else max(0, round((now - self.reveal_at) * 1000))

    def is_over(self, now: float) -> bool:
        """Whether the round is over at ``now``: done, every racer finished or DNF, or past its limit."""
        if self.phase is RacePhase.DONE:
            return True
        if self.reveal_at is None or self.phase is RacePhase.LOBBY:
            return False
        return all(r.out for r in self.racers) or now >= self.reveal_at + RACE_LIMIT_SECONDS

    def quick_start_at(self) -> float | None:
        """When a quick room in its lobby starts by itself: its second racer's join plus :data:`QUICK_START_SECONDS`,
        or at once when full (its last racer's join); None for a private room or with fewer than two racers."""
        if not self.quick or self.phase is not RacePhase.LOBBY or len(self.racers) < 2:
            return None
        joins = sorted(r.joined for r in self.racers)
        return joins[-1] if self.full else joins[1] + QUICK_START_SECONDS

    def quick_start_due(self, now: float) -> bool:
        due = self.quick_start_at()
        return due is not None and now >= due

    def host_here(self) -> bool:
        """Whether the host is a racer of this round."""
        return self.racer(self.host) is not None

    def may_start(self, player: str) -> bool:
        """Whether ``player`` may start this private room now: its host, or any of its racers once the host is gone."""
        if self.quick or self.phase is not RacePhase.LOBBY or self.racer(player) is None:
            return False
        return player == self.host or not self.host_here()

    # --- places and results --------------------------------------------------------------------------------
    def places(self) -> list[Racer]:
        """The racers in finish order (finish time, then join order), then the unverified finishers (who take no
        place), then those still racing, then the DNFs."""
        finished = sorted((r for r in self.racers if r.finished_ms is not None),
                          key=lambda r: (not r.placed, r.finished_ms, r.joined))
        racing = [r for r in self.racers if not r.out]
        return [*finished, *racing, *(r for r in self.racers if r.dnf and not r.finished)]

    def results(self) -> list[Placing]:
        """Every racer's placing, in :meth:`places` order (a place for each finisher by a hand)."""
        return [Placing(place if racer.placed else None, racer) for place, racer in enumerate(self.places(), 1)]

    def result_lines(self) -> list[str]:
        return [placing.line() for placing in self.results()]

    def place_of(self, player: str) -> int | None:
        return next((p.place for p in self.results() if p.racer.player == player), None)

    def winner(self) -> Racer | None:
        """The first finisher (by a hand) of a round that more than one raced; None otherwise."""
        first = self.places()[:1]
        return first[0] if first and first[0].placed and len(self.racers) > 1 else None


@dataclass(frozen=True)
class RaceStats:
    """A player's races: rounds raced (finished or DNF), wins (first of two or more), best time per size (``WxH``)."""

    races: int = 0
    wins: int = 0
    best_ms: dict[str, int] = field(default_factory=dict)
