"""Speed events and a session's figures per event, without the UI.

- **single**: one solve.
- **BLD** (blindfolded, as Slidysim plays it): one solve whose numbers are hidden from the first move on; it does not
  end by itself: the player confirms it (a confirm on a board that is not solved is a DNF), and the memorisation time
  (from the scramble shown to the first move) is kept beside the solve's time (from the first move to the last).
- **marathon xN**: N solves of one size in a row, one time: the clock starts on the first move of the first and
  runs on through every scramble until the last is solved.  The lengths the speedsolvers race are offered (x5, x10,
  x42, x100); any N from 2 to 1000 may be typed.
- **Slidysim's relays**, from the size chosen *down*, one time the same way (the sizes as Slidysim's leaderboard
  replays them, WxH = columns x rows): **2-N relay** every square from the smaller side down to 2x2 (5x5 4x4 3x3
  2x2), **width relay** the width down to 2 (5x5 4x5 3x5 2x5), **height relay** the height down to 2 (5x5 5x4 5x3
  5x2), and **everything-up-to relay** every size up to the one chosen, row by row (4x4 3x4 2x4 4x3 3x3 2x3 4x2 3x2
  2x2).  Their records are per starting size, as Slidysim ranks them ("6x6 relay").
- **relay AxA-BxB** (Koma's older relays, upward: 3x3-5x5 …) is no longer offered; solves stored under it still read.

Each event keeps its own records: a marathon's per length, a relay's per starting size or range (the event's key,
``marathon10``, ``rel``, ``wrel``, ``hrel``, ``eut``, ``relay3-7``, as stored; the size beside it).  A multi-solve
event is a *run* of legs (:class:`~tui.game.speed.SpeedResult` with the run's id and the leg's number); its time is
the last leg's last move, its STM and MTM the legs' sums, and a leg given up (or a BLD confirmed unsolved) makes the
whole run a DNF.
"""

from __future__ import annotations

import random
import re
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import groupby

from solver.errors import KomaError
from tui.game.averages import SessionSummary, summarize
from tui.game.plausibility import implausible_speed_solve
from tui.game.speed import MOUSE, SINGLE, LineMove, Play, SpeedResult, SpeedSolve, random_scramble, speed_puzzle

Size = tuple[int, int]


@dataclass(frozen=True)
class Event:
    """One kind of speed event: its key (as stored), its name, how many solves, of which sizes, and blind or not."""

    key: str
    title: str
    legs: int = 1
    sizes: tuple[Size, ...] = ()  # fixed sizes (an older relay); empty: the legs' sizes follow the size chosen
    blind: bool = False
    relay: str = ""  # one of RELAY_KINDS: a Slidysim relay, its legs' sizes from the size chosen (relay_sizes)

    def leg_sizes(self, size: Size) -> list[Size]:
        """The sizes of a run's legs, in order, when the player chose ``size``."""
        if self.relay:
            return relay_sizes(self.relay, size)
        return list(self.sizes) if self.sizes else [size] * self.legs

    def leg_count(self, size: Size) -> int:
        return len(self.leg_sizes(size))

    def label(self, size: Size) -> str:
        """What its records are per: the size (``4x4``; a Slidysim relay's starting size), or an older relay's
        sizes (``3x3-5x5``)."""
        if self.sizes:
            return f"{self.sizes[0][0]}x{self.sizes[0][1]}-{self.sizes[-1][0]}x{self.sizes[-1][1]}"
        return f"{size[0]}x{size[1]}"


MARATHON_LENGTHS = (5, 10, 42, 100)  # the marathons offered; any length in MARATHON_LIMITS may be typed
MARATHON_LIMITS = (2, 1000)
RELAY_RANGES = ((3, 5), (3, 7), (3, 10))  # square sizes, first and last
RELAY_LIMITS = (3, 10)  # the speed sizes
MARATHON_KEY = re.compile(r"marathon(\d+)")
RELAY_KEY = re.compile(r"relay(\d+)-(\d+)")
SQUARE_RELAY, WIDTH_RELAY, HEIGHT_RELAY, EVERYTHING_RELAY = "rel", "wrel", "hrel", "eut"  # Slidysim's leaderboard ids
RELAY_KINDS = {  # the key, as stored, and Slidysim's name of the event ("gameMode")
    SQUARE_RELAY: "2-N relay", WIDTH_RELAY: "Width relay", HEIGHT_RELAY: "Height relay",
    EVERYTHING_RELAY: "Everything-up-to relay",
}


def relay_sizes(kind: str, size: Size) -> list[Size]:
    """The legs' sizes (width, height) of a Slidysim relay started at ``size``, as Slidysim's leaderboard replays them:
    2-N every square from the smaller side down to 2x2; width and height relays that side down to 2; everything-up-to
    every size up to ``size``, the height falling slowest.  KomaError for a kind that is none of RELAY_KINDS."""
    width, height = size
    if kind == SQUARE_RELAY:
        return [(n, n) for n in range(min(width, height), 1, -1)]
    if kind == WIDTH_RELAY:
        return [(w, height) for w in range(width, 1, -1)]
    if kind == HEIGHT_RELAY:
        return [(width, h) for h in range(height, 1, -1)]
    if kind == EVERYTHING_RELAY:
        return [(w, h) for h in range(height, 1, -1) for w in range(width, 1, -1)]
    raise KomaError(f"no relay is called {kind!r}: {', '.join(RELAY_KINDS)}")


def slidysim_relay(kind: str) -> Event:
    """One of Slidysim's relays (:data:`RELAY_KINDS`), its legs' sizes from the size chosen."""
    if kind not in RELAY_KINDS:
        raise KomaError(f"no relay is called {kind!r}: {', '.join(RELAY_KINDS)}")
    return Event(kind, RELAY_KINDS[kind], relay=kind)


def marathon(length: int) -> Event:
    """``length`` solves of one size on one clock; KomaError outside MARATHON_LIMITS."""
    low, high = MARATHON_LIMITS
    if not low <= length <= high:
        raise KomaError(f"a marathon is {low} to {high} solves, not {length}")
    return Event(f"marathon{length}", f"marathon x{length}", legs=length)


def relay(first: int, last: int) -> Event:
    """Every square size from ``first`` to ``last`` on one clock; KomaError outside RELAY_LIMITS."""
    low, high = RELAY_LIMITS
    if not low <= first < last <= high:
        raise KomaError(f"a relay runs from one size to a larger one, {low}x{low} to {high}x{high}: "
                        f"not {first}x{first}-{last}x{last}")
    sizes = tuple((n, n) for n in range(first, last + 1))
    return Event(f"relay{first}-{last}", "relay", legs=len(sizes), sizes=sizes)


BLD = "bld"
EVENTS = (
    Event(SINGLE, "single"),
    Event(BLD, "BLD", blind=True),
    *(marathon(length) for length in MARATHON_LENGTHS),
    *(slidysim_relay(kind) for kind in RELAY_KINDS),
)
BY_KEY = {event.key: event for event in EVENTS}
DAILY_PREFIX = "daily/"


def event_for(key: str) -> Event:
    """The event a key names (as stored): one offered, or a marathon of another length, or an older relay's range;
    KomaError for a key that names none."""
    if key in BY_KEY:
        return BY_KEY[key]
    if found := MARATHON_KEY.fullmatch(key):
        return marathon(int(found.group(1)))
    if found := RELAY_KEY.fullmatch(key):
        return relay(int(found.group(1)), int(found.group(2)))
    if key.startswith(DAILY_PREFIX):
        return daily_event(key.removeprefix(DAILY_PREFIX))
    raise KomaError(f"no speed event is called {key!r}")


def daily_event(day: str) -> Event:
    """The daily speed board's event of ``day``: one solve of the day's board (the daily puzzles' own)."""
    return Event(f"{DAILY_PREFIX}{day}", f"daily {day}")


@dataclass(frozen=True)
class EventResult:
    """One run of an event: its legs (all of them when finished)."""

    event: Event
    legs: tuple[SpeedResult, ...]

    @property
    def dnf(self) -> bool:
        if not self.legs:
            return True
        start = (self.legs[0].width, self.legs[0].height)
        return any(leg.dnf for leg in self.legs) or len(self.legs) < self.event.leg_count(start)

    @property
    def memo_ms(self) -> int | None:
        """A blindfolded run's memorisation time (None for the other events)."""
        return self.legs[0].memo_ms if self.legs else None

    @property
    def time_ms(self) -> int:
        return self.legs[-1].time_ms if self.legs else 0

    @property
    def result_ms(self) -> float:
        return float("inf") if self.dnf else float(self.time_ms)

    @property
    def stm(self) -> int:
        return sum(leg.stm for leg in self.legs)

    @property
    def mtm(self) -> int:
        return sum(leg.mtm for leg in self.legs)

    @property
    def tps(self) -> float | None:
        return self.stm * 1000 / self.time_ms if self.time_ms else None

    @property
    def unverified(self) -> str | None:
        """Why no hand could have played it (its first leg that breaks a limit of :mod:`.plausibility`); None if none."""
        return next((reason for leg in self.legs
                     if (reason := implausible_speed_solve(leg.moves, leg.times_ms, leg.dnf)) is not None), None)


def event_results(results: Iterable[SpeedResult], event: Event, size: Size) -> list[EventResult]:
    """The runs of ``event`` among ``results`` (oldest first) started at ``size`` (a relay's first leg is its starting
    size), or all of them when the event fixes its sizes."""
    mine = [r for r in results if r.event == event.key]
    # a run's legs come one after another; a solve of a one-solve event (no run id) is a run of its own
    runs = [tuple(legs) for _, legs in groupby(mine, key=lambda r: r.run or object())]
    return [EventResult(event, legs) for legs in runs if event.sizes or (legs[0].width, legs[0].height) == size]


class EventRun:
    """One run of an event being played: the leg under way (``solve``) and the legs done."""

    def __init__(self, event: Event, size: Size, now: Callable[[], float], rng: random.Random, *,
                 scramble: Sequence[int] | None = None):
        """``scramble``, if given, is the first leg's (a daily board); the others are random states."""
        self.event = event
        self.sizes = event.leg_sizes(size)
        self.now, self.rng = now, rng
        self.run = uuid.uuid4().hex if len(self.sizes) > 1 else ""
        self.legs: list[SpeedResult] = []
        self.solve = self._leg(0, None, scramble)

    def _leg(self, index: int, started_at: float | None, scramble: Sequence[int] | None = None) -> SpeedSolve:
        puzzle = speed_puzzle(*self.sizes[index])
        return SpeedSolve(puzzle, scramble if scramble is not None else random_scramble(puzzle, self.rng), self.now,
                          event=self.event.key, run=self.run, leg=index, started_at=started_at,
                          blind=self.event.blind)

    @property
    def over(self) -> bool:
        return len(self.legs) == len(self.sizes) or any(leg.dnf for leg in self.legs)

    @property
    def stm(self) -> int:
        """The run's STM so far: the legs done, and the leg under way unless it is done (then it is one of them)."""
        return sum(leg.stm for leg in self.legs) + (0 if self.over else self.solve.stm)

    @property
    def mtm(self) -> int:
        """The run's MTM so far, counted as :attr:`stm` is."""
        return sum(leg.mtm for leg in self.legs) + (0 if self.over else self.solve.mtm)

    def play(self, move: LineMove | str, control: str = "") -> Play:
        return self._after(self.solve.play(move, control))

    def press(self, cell: int, control: str = MOUSE) -> Play:
        return self._after(self.solve.press(cell, control))

    def hover(self, cell: int | None, *, held: bool = False) -> Play:
        return self._after(self.solve.hover(cell, held=held))

    def confirm(self) -> Play:
        """A blindfolded solve's confirm (:meth:`SpeedSolve.confirm`): SOLVED or DNF ends the run."""
        outcome = self.solve.confirm()
        if outcome is Play.DNF:
            self.legs.append(self.solve.result())
            return outcome
        return self._after(outcome)

    def _after(self, outcome: Play) -> Play:
        """A solved leg is kept; unless it was the last, the next leg's scramble shows and the clock runs on."""
        if outcome is not Play.SOLVED:
            return outcome
        self.legs.append(self.solve.result())
        if len(self.legs) < len(self.sizes):
            self.solve = self._leg(len(self.legs), self.solve.started_at)
            return Play.LEG
        return Play.SOLVED

    def abandon(self) -> bool:
        """Give up a run under way (a DNF); False if it had not started or is over."""
        if self.over or not self.solve.abandon():
            return False
        self.legs.append(self.solve.result())
        return True

    def result(self) -> EventResult:
        return EventResult(self.event, tuple(self.legs))


class SpeedSession:
    """The speed solves of one session (every leg, oldest first), their figures per event and size, and the optimal
    length of each scramble once known (``optimal[k]`` for ``results[k]``), with the solution itself where the search
    gave one (``optimal_moves[k]``: the big boards, whose search a replay should not run again)."""

    def __init__(self) -> None:
        self.results: list[SpeedResult] = []
        self.optimal: dict[int, int] = {}
        self.optimal_moves: dict[int, tuple[str, ...]] = {}  # Koma's optimal solution, where the search kept it

    def koma_solution(self, result: object) -> tuple[str, ...] | None:
        """Koma's optimal solution of ``result``'s scramble, when the search after that solve found it."""
        index = next((k for k, kept in enumerate(self.results) if kept is result), None)
        return None if index is None else self.optimal_moves.get(index)

    def add(self, result: SpeedResult) -> int:
        """Keep ``result``; its index."""
        self.results.append(result)
        return len(self.results) - 1

    def efficiency(self, index: int) -> float | None:
        """Optimal length / STM of a finished solve (1.0: an optimal solve), when the optimum is known."""
        result, optimal = self.results[index], self.optimal.get(index)
        if optimal is None or result.dnf or not result.stm:
            return None
        return optimal / result.stm

    def runs(self, event: Event, size: Size) -> list[EventResult]:
        return event_results(self.results, event, size)

    def summary(self, event: Event, size: Size) -> SessionSummary:
        """Single, mo3, ao5 … ao100, mean, std dev and counts of the event's runs (see :mod:`.averages`)."""
        return summarize([run.result_ms for run in self.runs(event, size)])


def summary_of(results: Sequence[SpeedResult], event: Event, size: Size) -> SessionSummary:
    """The figures of ``event`` among stored ``results`` (the records of every session)."""
    return summarize([run.result_ms for run in event_results(results, event, size)])
