"""The common puzzle interface.  The TUI and the CLI speak only this.

A state is a tuple of small ints, one per cell in reading order; each puzzle documents its codes.
A puzzle with an enumerable state space also has a perfect hash (``rank``/``unrank`` over
``0..n_ranks-1``) and numba kernels that plug into the shared engines of :mod:`solver.engines.bfs`.
"""

from __future__ import annotations

import random as _random
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from solver.errors import KomaError

State = tuple[int, ...]
ProgressCallback = Callable[[dict[str, Any]], None]


@dataclass(frozen=True)
class Solution:
    """A solution found by one method: the moves and every board from start to goal, inclusive."""

    moves: tuple[str, ...]
    path: tuple[State, ...]
    optimal: bool
    nodes: int
    seconds: float
    method: str
    note: str = ""

    @property
    def length(self) -> int:
        return len(self.moves)


@dataclass(frozen=True)
class Proof:
    """A solvability argument: the verdict plus puzzle-specific fields, renderable as text."""

    solvable: bool
    summary: str
    fields: dict[str, Any] = field(default_factory=dict)
    lines: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"solvable": self.solvable, "summary": self.summary, **self.fields, "explanation": list(self.lines)}


@dataclass(frozen=True)
class LongestResult:
    """What a full BFS from the goal says about a puzzle."""

    states: int
    max_depth: int
    positions: tuple[State, ...]
    histogram: tuple[int, ...]
    seconds: float


class Puzzle(ABC):
    """One puzzle at one size: notation, rules, solvability and solving."""

    key: str  # the CLI name, e.g. "8", "15", "sliding", "goat", "ura"
    title: str
    width: int
    height: int
    goal: State
    n_ranks: int = 0  # size of the perfect hash; 0 when the space is not enumerable

    # --- notation -------------------------------------------------------------------------
    @abstractmethod
    def parse(self, text: str) -> State:
        """Parse a board in this puzzle's notation; raise BoardError with a one-line message."""

    @abstractmethod
    def format(self, state: State) -> str:
        """The board in this puzzle's notation (what ``parse`` reads back)."""

    @property
    def size_label(self) -> str:
        return f"{self.width}x{self.height}"

    # --- rules ----------------------------------------------------------------------------
    @abstractmethod
    def moves(self, state: State) -> list[str]:
        """The names of the legal moves from ``state``."""

    @abstractmethod
    def apply(self, state: State, move: str) -> State:
        """The board after ``move``; raise KomaError if it is not legal here."""

    def is_goal(self, state: State) -> bool:
        return tuple(state) == self.goal

    def neighbours(self, state: State) -> list[tuple[str, State]]:
        return [(m, self.apply(state, m)) for m in self.moves(state)]

    def replay(self, start: State, moves: Sequence[str]) -> tuple[State, ...]:
        """Every board from ``start`` through each move (raises KomaError on an illegal move)."""
        path = [tuple(start)]
        for m in moves:
            path.append(self.apply(path[-1], m))
        return tuple(path)

    @abstractmethod
    def proof(self, state: State) -> Proof:
        """Whether ``state`` can reach the goal, with the argument."""

    # --- perfect hash -------------------------------------------------------------------------
    @property
    def enumerable(self) -> bool:
        return self.n_ranks > 0

    def rank(self, state: State) -> int:
        raise KomaError(f"{self.title} at {self.size_label} has no perfect hash")

    def unrank(self, r: int) -> State:
        raise KomaError(f"{self.title} at {self.size_label} has no perfect hash")

    def bfs_arrays(self, *, stop=None, progress: ProgressCallback | None = None):
        """One full BFS from the goal: ``(depth, queue, layer_ends)`` (see :func:`solver.engines.bfs.breadth_first`)."""
        raise KomaError(f"{self.title} at {self.size_label} is too large for a full BFS")

    def depth_table(self, *, stop=None, progress: ProgressCallback | None = None):
        """The BFS depth table from the goal (see :mod:`solver.engines.tables`)."""
        raise KomaError(f"{self.title} at {self.size_label} is too large for a full BFS")

    # --- solving (the solvers themselves live in :mod:`solver.solving`) ---------------------
    def solve_by_table(self, state: State, *, stop=None, progress=None) -> Solution:
        """Descend the depth table: each step goes to a neighbour one move closer to the goal."""
        began = time.perf_counter()
        table = self.depth_table(stop=stop, progress=progress)
        moves, path = table.descend(self, state)
        return Solution(tuple(moves), tuple(path), True, len(path), time.perf_counter() - began, "table")

    def longest(self, *, stop=None, progress: ProgressCallback | None = None) -> LongestResult:
        """States, diameter, the positions at maximum distance and the per-depth counts."""
        began = time.perf_counter()
        table = self.depth_table(stop=stop, progress=progress)
        return LongestResult(
            states=table.states,
            max_depth=table.max_depth,
            positions=tuple(self.unrank(int(r)) for r in table.ranks_at(table.max_depth)),
            histogram=tuple(table.histogram),
            seconds=time.perf_counter() - began,
        )

    # --- generation ------------------------------------------------------------------------
    def random_state(self, seed: int | None = None, distance: int | None = None) -> State:
        """A uniformly random solvable board; with ``distance``, uniform among boards exactly that far."""
        rng = _random.Random(seed)
        if distance is None:
            return self._random_solvable(rng)
        if not self.enumerable:
            raise KomaError(f"--distance needs a full depth table, which {self.title} at {self.size_label} does not have")
        table = self.depth_table()
        if not 0 <= distance <= table.max_depth:
            raise KomaError(f"distance must be between 0 and {table.max_depth} for {self.title}")
        count = table.histogram[distance]
        return self.unrank(int(table.nth_rank_at(distance, rng.randrange(count))))

    @abstractmethod
    def _random_solvable(self, rng: _random.Random) -> State:
        """A uniformly random solvable board drawn from ``rng``."""

