"""The shared IDA* engine: iterative, explicit stacks, incremental heuristics, parent-move pruning.

A puzzle plugs in numba kernels that work on its own mutable ``state`` array and a ``tables``
value of its choosing (a tuple of arrays, typically):

* ``heuristic(state, tables) -> int``: an admissible estimate for the whole state;
* ``try_move(state, m, h, cutoff, tables) -> int``: apply move ``m`` in place and return the new
  estimate, computed incrementally from ``h``; return -1 (leaving ``state`` unchanged) when ``m``
  is not legal here.  ``cutoff`` is the largest estimate that keeps the child inside the current
  bound (``bound - depth - 1``): once a cheap part of the estimate exceeds it, the kernel may return
  that part (still a lower bound) and skip the rest, because the engine then undoes the move at once.
  It is a pruning hint, not a budget of work: only the 15-puzzle's pattern databases use it (to
  skip the mirror board's lookup); the other kernels update their estimate in one step and ignore
  it.  What limits a search is ``max_bound`` (depth) and the stop flag (time, set by the caller);
* ``undo_move(state, m, tables)``: revert a move made by ``try_move``;
* ``is_goal(state, tables) -> bool``.

``inverse[m]`` is the move that undoes ``m`` (-1 if none); the engine never plays it right after
``m``.  Like :mod:`solver.engines.bfs`, the engine is ``inline="always"``: each puzzle keeps a thin cached
wrapper that passes its kernels in.
"""

from __future__ import annotations

import time

import numba
import numpy as np
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from solver.engines.bfs import STOP_POLL_MASK, run_polled
from solver.engines.jit import njit
from solver.errors import Cancelled

MAX_PATH = 256
NOT_FOUND = -2
STOPPED = -1
# progress array layout, read by the polling thread while the kernel runs
P_BOUND, P_NODES, P_ITERATION, P_DONE = 0, 1, 2, 3
PROGRESS_SIZE = 4


@intrinsic
def _voidptr(typingctx, address):
    """An integer address as a ``void*`` (to view an array's buffer with ``numba.carray``)."""

    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], cgutils.voidptr_t)

    return types.voidptr(address), codegen


@njit(cache=True, nogil=True, inline="always")
def unowned(array):
    """A view of a C-contiguous ``array`` without a reference count, valid while ``array`` lives.

    Every kernel call inlined into a hot loop otherwise increments and decrements the array's
    reference count atomically, which measured at two thirds of an IDA* search's time.  Kernels
    may apply it to their own table arrays for the same reason.
    """
    return numba.carray(_voidptr(array.ctypes.data), array.shape, array.dtype)


@njit(nogil=True, inline="always")
def ida_star(heuristic, try_move, undo_move, is_goal, inverse, n_moves, state, tables, max_bound,
             stop, progress, path_out):
    """Search for a shortest move sequence from ``state`` to the goal.

    Writes the moves into ``path_out`` and returns ``(length, nodes)``; ``length`` is
    ``STOPPED`` if ``stop[0]`` was set and ``NOT_FOUND`` if no solution has ``f <= max_bound``.
    ``nodes`` counts every legal child generated.  ``state`` is back to the start on return.
    Between iterations ``progress`` holds the bound, the nodes so far and the iteration number.
    """
    state = unowned(state)  # the caller's array outlives the search
    h0 = heuristic(state, tables)
    nodes = 0
    if is_goal(state, tables):
        progress[P_DONE] = 1
        return 0, nodes
    move_at = np.empty(MAX_PATH + 1, np.int64)
    h_at = np.empty(MAX_PATH + 1, np.int64)
    bound = h0
    iteration = 0
    while bound <= max_bound:
        progress[P_BOUND] = bound
        progress[P_NODES] = nodes
        progress[P_ITERATION] = iteration
        next_bound = 1 << 60
        depth = 0
        move_at[0] = -1
        h_at[0] = h0
        while depth >= 0:
            m = move_at[depth] + 1
            banned = inverse[path_out[depth - 1]] if depth > 0 else -1
            descended = False
            while m < n_moves:
                if m != banned:
                    nh = try_move(state, m, h_at[depth], bound - depth - 1, tables)
                    if nh >= 0:
                        nodes += 1
                        if (nodes & STOP_POLL_MASK) == 0:
                            progress[P_NODES] = nodes
                            if stop[0] != 0:
                                undo_move(state, m, tables)
                                while depth > 0:
                                    depth -= 1
                                    undo_move(state, path_out[depth], tables)
                                return STOPPED, nodes
                        f = depth + 1 + nh
                        if f > bound:
                            if f < next_bound:
                                next_bound = f
                            undo_move(state, m, tables)
                        elif nh == 0 and is_goal(state, tables):
                            path_out[depth] = m
                            length = depth + 1
                            # restore the caller's state
                            undo_move(state, m, tables)
                            while depth > 0:
                                depth -= 1
                                undo_move(state, path_out[depth], tables)
                            progress[P_NODES] = nodes
                            progress[P_DONE] = 1
                            return length, nodes
                        elif depth + 1 >= MAX_PATH:
                            undo_move(state, m, tables)
                        else:
                            move_at[depth] = m
                            path_out[depth] = m
                            depth += 1
                            move_at[depth] = -1
                            h_at[depth] = nh
                            descended = True
                            break
                m += 1
            if not descended:
                depth -= 1
                if depth >= 0:
                    undo_move(state, path_out[depth], tables)
        bound = next_bound
        iteration += 1
    progress[P_NODES] = nodes
    progress[P_DONE] = 1
    return NOT_FOUND, nodes


class SearchResult:
    """What one IDA* run found: ``moves`` (indices), ``nodes``, ``seconds``, and the final ``bound``."""

    __slots__ = ("bound", "moves", "nodes", "seconds")

    def __init__(self, moves: list[int], nodes: int, seconds: float, bound: int):
        self.moves, self.nodes, self.seconds, self.bound = moves, nodes, seconds, bound

    @property
    def nodes_per_second(self) -> float:
        return self.nodes / self.seconds if self.seconds > 0 else float("nan")


def run_ida(kernel, state: np.ndarray, tables, *, max_bound: int = MAX_PATH, stop=None, progress=None) -> SearchResult:
    """Run a puzzle's cached IDA* wrapper ``kernel(state, tables, max_bound, stop, progress, path_out)``.

    ``progress`` is an optional callback receiving ``{"bound", "nodes", "iteration", "nodes_per_second"}``
    several times a second.  Raises :class:`~solver.errors.Cancelled` when stopped.
    """
    stop = np.zeros(1, np.uint8) if stop is None else stop
    counters = np.zeros(PROGRESS_SIZE, np.int64)
    path_out = np.zeros(MAX_PATH + 1, np.int64)
    began = time.perf_counter()

    report = None
    if progress is not None:
        def report(c):
            elapsed = time.perf_counter() - began
            progress({"bound": int(c[P_BOUND]), "nodes": int(c[P_NODES]), "iteration": int(c[P_ITERATION]),
                      "nodes_per_second": c[P_NODES] / elapsed if elapsed > 0 else 0.0})

    length, nodes = run_polled(kernel, (state, tables, max_bound, stop, counters, path_out), counters, report)
    seconds = time.perf_counter() - began
    if length == STOPPED:
        raise Cancelled()
    if length == NOT_FOUND:
        return SearchResult([], int(nodes), seconds, -1)
    return SearchResult([int(m) for m in path_out[:length]], int(nodes), seconds, int(counters[P_BOUND]))
