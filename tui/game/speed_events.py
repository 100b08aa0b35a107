"""Speed events and a session's figures per event, without the UI.

- **single**: one solve.
- **BLD** (blindfolded): one solve whose numbers are hidden from the first move on (the screen hides them).
- **marathon xN**: N solves of one size in a row, one time: the clock starts on the first move of the first and
  runs on through every scramble until the last is solved.  The lengths the speedsolvers race are offered (x5, x10,
  x42, x100); any N from 2 to 1000 may be typed.
- **relay AxA-BxB**: every square size from AxA to BxB in a row (3x3-5x5, 3x3-7x7, 3x3-10x10), one time, the same way.

Each event keeps its own records: a marathon's per length, a relay's per range (the length and the range are in the
event's key, ``marathon10``, ``relay3-7``, as stored).  A multi-solve event is a *run* of legs (:class:`~tui.game.speed.SpeedResult`
with the run's id and the leg's number); its time is the last leg's last move, its STM and MTM the legs' sums, and
a leg given up makes the whole run a DNF.
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
    sizes: tuple[Size, ...] = ()  # fixed sizes (a relay); empty: every leg at the size chosen
    blind: bool = False

    def leg_sizes(self, size: Size) -> list[Size]:
        return list(self.sizes) if self.sizes else [size] * self.legs

    def label(self, size: Size) -> str:
        """What its records are per: the size (``4x4``), or a relay's sizes (``3x3-5x5``)."""
        if self.sizes:
            return f"{self.sizes[0][0]}x{self.sizes[0][1]}-{self.sizes[-1][0]}x{self.sizes[-1][1]}"
        return f"{size[0]}x{size[1]}"


MARATHON_LENGTHS = (5, 10, 42, 100)  # the marathons offered; any length in MARATHON_LIMITS may be typed
MARATHON_LIMITS = (2, 1000)
RELAY_RANGES = ((3, 5), (3, 7), (3, 10))  # square sizes, first and last
RELAY_LIMITS = (3, 10)  # the speed sizes
MARATHON_KEY = re.compile(r"marathon(\d+)")
RELAY_KEY = re.compile(r"relay(\d+)-(\d+)")


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


EVENTS = (
    Event(SINGLE, "single"),
    Event("bld", "BLD", blind=True),
    *(marathon(length) for length in MARATHON_LENGTHS),
    *(relay(first, last) for first, last in RELAY_RANGES),
)
BY_KEY = {event.key: event for event in EVENTS}
DAILY_PREFIX = "daily/"


def event_for(key: str) -> Event:
    """The event a key names (as stored): one offered, or a marathon or relay of another length or range;
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
        return any(leg.dnf for leg in self.legs) or len(self.legs) < self.event.legs

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
    """The runs of ``event`` among ``results`` (oldest first), at ``size`` unless the event fixes its sizes."""
    mine = [r for r in results if r.event == event.key and (event.sizes or (r.width, r.height) == size)]
    # a run's legs come one after another; a solve of a one-solve event (no run id) is a run of its own
    return [EventResult(event, tuple(legs)) for _, legs in groupby(mine, key=lambda r: r.run or object())]


class EventRun:
    """One run of an event being played: the leg under way (``solve``) and the legs done."""

    def __init__(self, event: Event, size: Size, now: Callable[[], float], rng: random.Random, *,
                 scramble: Sequence[int] | None = None):
        """``scramble``, if given, is the first leg's (a daily board); the others are random states."""
        self.event = event
        self.sizes = event.leg_sizes(size)
        self.now, self.rng = now, rng
        self.run = uuid.uuid4().hex if event.legs > 1 else ""
        self.legs: list[SpeedResult] = []
        self.solve = self._leg(0, None, scramble)

    def _leg(self, index: int, started_at: float | None, scramble: Sequence[int] | None = None) -> SpeedSolve:
        puzzle = speed_puzzle(*self.sizes[index])
        return SpeedSolve(puzzle, scramble if scramble is not None else random_scramble(puzzle, self.rng), self.now,
                          event=self.event.key, run=self.run, leg=index, started_at=started_at)

    @property
    def over(self) -> bool:
        return len(self.legs) == self.event.legs or any(leg.dnf for leg in self.legs)

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

    def _after(self, outcome: Play) -> Play:
        """A solved leg is kept; unless it was the last, the next leg's scramble shows and the clock runs on."""
        if outcome is not Play.SOLVED:
            return outcome
        self.legs.append(self.solve.result())
        if len(self.legs) < self.event.legs:
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
