"""The shared IDA* engine: iterative, explicit stacks, incremental heuristics, move pruning by an automaton.

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

``automaton`` prunes move strings (:mod:`solver.engines.move_automaton`): the engine follows it from
state 0 along its path and never plays ``m`` from a state ``s`` with ``automaton[s, m] < 0``; the least
one, :func:`~solver.engines.move_automaton.parent_pruning`, forbids undoing the last move.
Like :mod:`solver.engines.bfs`, the engine is ``inline="always"``: each puzzle keeps a thin cached
wrapper that passes its kernels in.
"""

from __future__ import annotations

import time

import numba
import numpy as np
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from solver.engines.atomic import fetch_add
from solver.engines.bfs import STOP_POLL_MASK, run_polled
from solver.engines.jit import njit
from solver.errors import Cancelled

MAX_PATH = 256
NOT_FOUND = -2
STOPPED = -1
# progress array layout, read by the polling thread while the kernel runs
P_BOUND, P_NODES, P_ITERATION, P_DONE = 0, 1, 2, 3
# what :func:`ida_iteration` adds to: every node generated (the live count), and those at or above the
# split depth, which every worker of a split search generates alike
C_NODES, C_TOP = P_NODES, 4
PROGRESS_SIZE = 5
# ``path_out`` (what a kernel gets from :func:`run_ida` and :func:`run_split`): the path found, then the search's
# stacks and a claim counter, so that no kernel allocates (each array constructor is compiled for every kernel)
STACKS = MAX_PATH + 1
CLAIM = STACKS + 3 * (MAX_PATH + 1)
WORK_SIZE = CLAIM + 1


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
def ida_iteration(try_move, undo_move, is_goal, automaton, n_moves, state, tables, h0, bound, split_depth, claim,
                  stop, halt, counters, path_out, pathmax=False):
    """One depth-first iteration of IDA*: every node with ``f <= bound``; returns ``(length, next_bound)``.

    ``length`` is the solution's length (its moves in ``path_out``), ``NOT_FOUND`` or ``STOPPED``
    (``stop[0]`` or ``halt[0]`` was set); ``next_bound`` is the smallest ``f`` above ``bound`` seen.
    ``counters[C_NODES]`` and ``counters[C_TOP]`` are increased by the nodes generated.  ``path_out`` has
    ``WORK_SIZE`` entries: the path, then the search's stacks.

    With ``split_depth > 0`` several workers share the tree: each walks the levels above
    ``split_depth`` alike, and numbers the nodes it would descend into at that depth in the order met;
    it searches below the node numbered ``c`` only when it claimed ``c`` (``fetch_add(claim, 0, 1)``),
    so every subtree is searched by exactly one worker, and a worker that finishes early claims the next.

    With ``pathmax`` (for an inconsistent heuristic: bidirectional pathmax, BPMX, of Felner et al.), a node's
    estimate is raised to a child's minus one, as moves cost 1 and can be undone; once that puts the node
    above the bound its remaining children are skipped, and on the way back it raises its parent in turn.
    In a split search, only estimates that every worker computes alike (those of nodes down to the split
    depth) raise the levels above it, so that the workers keep numbering the same nodes.
    """
    nodes = 0
    top = 0
    # per depth: the last move tried, the estimate, and the automaton's state after the path's first ``depth`` moves
    move_at = path_out[STACKS:STACKS + MAX_PATH + 1]
    h_at = path_out[STACKS + MAX_PATH + 1:STACKS + 2 * (MAX_PATH + 1)]
    seen_at = path_out[STACKS + 2 * (MAX_PATH + 1):CLAIM]
    next_bound = 1 << 60
    depth = 0
    move_at[0] = -1
    h_at[0] = h0
    seen_at[0] = 0
    numbered = 0  # nodes met at the split depth, that the search would descend into
    mine = -1  # the last number this worker claimed
    result = NOT_FOUND  # STOPPED or a solution's length once the search ends: the path is then undone move by move
    # each kernel is called from one place only (the kernels are inlined: every call site costs compile time)
    while depth >= 0:
        descended = False
        if result == NOT_FOUND:
            m = move_at[depth] + 1
            seen = seen_at[depth]
            while m < n_moves:
                if automaton[seen, m] >= 0:
                    nh = try_move(state, m, h_at[depth], bound - depth - 1, tables)
                    if nh >= 0:
                        nodes += 1
                        if depth < split_depth:
                            top += 1
                        f = depth + 1 + nh
                        if (nodes & STOP_POLL_MASK) == 0:
                            counters[C_NODES] += nodes
                            counters[C_TOP] += top
                            nodes = 0
                            top = 0
                            if stop[0] != 0 or halt[0] != 0:
                                result = STOPPED
                        if result != NOT_FOUND:
                            pass
                        elif f > bound:
                            if f < next_bound:
                                next_bound = f
                        elif nh == 0 and is_goal(state, tables):
                            path_out[depth] = m
                            result = depth + 1
                        elif depth + 1 < MAX_PATH:
                            ours = True
                            if depth + 1 == split_depth:
                                if numbered > mine:  # claim a subtree: the first number nobody has taken
                                    mine = fetch_add(claim, 0, 1)
                                ours = numbered == mine
                                numbered += 1
                            if ours:
                                move_at[depth] = m
                                path_out[depth] = m
                                depth += 1
                                move_at[depth] = -1
                                h_at[depth] = nh
                                seen_at[depth] = automaton[seen, m]
                                descended = True
                                break
                        undo_move(state, m, tables)  # out of bounds, found, stopped, too deep or another worker's
                        if result != NOT_FOUND:
                            break
                        if pathmax and f > bound and nh - 1 > h_at[depth]:
                            h_at[depth] = nh - 1
                            if depth + nh - 1 > bound:  # this node is out of bounds too: skip its other children
                                if depth + nh - 1 < next_bound:
                                    next_bound = depth + nh - 1
                                break
                m += 1
        if not descended:
            depth -= 1
            if depth >= 0:
                undo_move(state, path_out[depth], tables)
                if (result == NOT_FOUND and pathmax and depth >= split_depth
                        and h_at[depth + 1] - 1 > h_at[depth]):
                    h_at[depth] = h_at[depth + 1] - 1
                    if depth + h_at[depth] > bound:
                        if depth + h_at[depth] < next_bound:
                            next_bound = depth + h_at[depth]
                        move_at[depth] = n_moves  # no more children
    counters[C_NODES] += nodes
    counters[C_TOP] += top
    return result, next_bound


@njit(nogil=True, inline="always")
def ida_star(heuristic, try_move, undo_move, is_goal, automaton, n_moves, state, tables, max_bound,
             stop, progress, path_out, pathmax=False):
    """Search for a shortest move sequence from ``state`` to the goal.

    Writes the moves into ``path_out`` (``WORK_SIZE`` entries, zeros) and returns ``(length, nodes)``; ``length`` is
    ``STOPPED`` if ``stop[0]`` was set and ``NOT_FOUND`` if no solution has ``f <= max_bound``.
    ``nodes`` counts every legal child generated.  ``state`` is back to the start on return.
    Between iterations ``progress`` holds the bound, the nodes so far and the iteration number.
    ``pathmax``: see :func:`ida_iteration`.
    """
    state = unowned(state)  # the caller's array outlives the search
    h0 = heuristic(state, tables)
    if is_goal(state, tables):
        progress[P_DONE] = 1
        return 0, 0
    claim = path_out[CLAIM:CLAIM + 1]  # unused: no split
    bound = h0
    iteration = 0
    while bound <= max_bound:
        progress[P_BOUND] = bound
        progress[P_ITERATION] = iteration
        length, bound = ida_iteration(try_move, undo_move, is_goal, automaton, n_moves, state, tables, h0, bound, 0,
                                      claim, stop, stop, progress, path_out, pathmax)
        if length != NOT_FOUND:
            if length >= 0:
                progress[P_DONE] = 1
            return length, progress[C_NODES]
        iteration += 1
    progress[P_DONE] = 1
    return NOT_FOUND, progress[C_NODES]


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
    path_out = np.zeros(WORK_SIZE, np.int64)
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


class SplitResult:
    """What :func:`run_split` found: ``moves`` (indices; None when it gave up), ``nodes``, ``seconds``,
    ``bound`` (the solution's length, or the lower bound proved when it gave up) and ``iterations``."""

    __slots__ = ("bound", "iterations", "moves", "nodes", "seconds")

    def __init__(self, moves: list[int] | None, nodes: int, seconds: float, bound: int, iterations: int):
        self.moves, self.nodes, self.seconds, self.bound, self.iterations = moves, nodes, seconds, bound, iterations

    @property
    def nodes_per_second(self) -> float:
        return self.nodes / self.seconds if self.seconds > 0 else float("nan")


def _split_iteration(kernel, states, tables, h0: int, bound: int, split: int, stop, deadline: float | None,
                     report) -> tuple[tuple[int, list[int]] | None, bool, int, int]:
    """One iteration on every worker: ``(found (length, moves) or None, gave up, next bound, nodes)``."""
    import threading

    workers = len(states)
    claim = np.zeros(1, np.int64)
    halt = np.zeros(1, np.uint8)
    counters = [np.zeros(PROGRESS_SIZE, np.int64) for _ in range(workers)]
    paths = [np.zeros(WORK_SIZE, np.int64) for _ in range(workers)]
    results: list[tuple[int, int] | None] = [None] * workers
    failures: list[BaseException] = []

    def work(i: int) -> None:
        try:
            result = kernel(states[i], tables, h0, bound, split, claim, stop, halt, counters[i], paths[i])
            results[i] = result
            if result[0] >= 0:
                halt[0] = 1  # found: the other workers stop
        except BaseException as error:  # re-raised in the caller's thread
            failures.append(error)
            halt[0] = 1

    def nodes() -> int:  # the levels above the split depth count once
        return sum(int(c[C_NODES]) - int(c[C_TOP]) for c in counters) + max(int(c[C_TOP]) for c in counters)

    threads = [threading.Thread(target=work, args=(i,), name=f"koma-ida-{i}", daemon=True) for i in range(workers)]
    for thread in threads:
        thread.start()
    gave_up = False
    while alive := [thread for thread in threads if thread.is_alive()]:
        alive[0].join(report.interval)
        if deadline is not None and time.perf_counter() > deadline and not halt[0]:
            gave_up = True
            halt[0] = 1
        report(nodes())
    if failures:
        raise failures[0]
    for result, path in zip(results, paths):
        if result is not None and result[0] >= 0:
            return (int(result[0]), [int(m) for m in path[:result[0]]]), False, bound, nodes()
    next_bound = min((r[1] for r in results if r is not None), default=1 << 60)
    return None, gave_up, int(next_bound), nodes()


def run_split(kernel, states: list[np.ndarray], tables, h0: int, *, parity: int | None = None,
              split_depth: int = 12, max_bound: int = MAX_PATH, stop=None, progress=None,
              limit: float | None = None, interval: float = 0.1) -> SplitResult:
    """IDA* on ``len(states)`` threads that split each iteration's tree (see :func:`ida_iteration`).

    ``kernel(state, tables, h0, bound, split_depth, claim, stop, halt, counters, path_out)`` is the
    puzzle's cached wrapper of :func:`ida_iteration`; ``states`` holds one set-up copy of the start per
    worker.  When every solution's length has the parity ``parity``, bounds of the other parity are
    skipped.  ``progress`` receives ``{"bound", "lower_bound", "nodes", "iteration", "nodes_per_second",
    "seconds"}`` every ``interval`` seconds; ``lower_bound`` is proved (no shorter solution exists).  After
    ``limit`` seconds the search gives up: the result has no moves and ``bound`` is the lower bound.
    Raises :class:`~solver.errors.Cancelled` when ``stop[0]`` is set; a finished or stopped search
    leaves no thread running.
    """
    stop = np.zeros(1, np.uint8) if stop is None else stop
    split = split_depth if len(states) > 1 else 0
    began = time.perf_counter()
    deadline = None if limit is None else began + limit
    done_nodes = 0

    def fit(bound: int) -> int:
        return bound + 1 if parity is not None and (bound - parity) % 2 else bound

    class Report:
        def __init__(self, bound: int, iteration: int):
            self.bound, self.iteration, self.interval = bound, iteration, interval

        def __call__(self, nodes: int) -> None:
            if progress is not None:
                elapsed = time.perf_counter() - began
                total = done_nodes + nodes
                progress({"bound": self.bound, "lower_bound": self.bound, "nodes": total, "iteration": self.iteration,
                          "nodes_per_second": total / elapsed if elapsed > 0 else 0.0, "seconds": elapsed})

    bound = fit(h0)
    iteration = 0
    while bound <= max_bound:
        found, gave_up, next_bound, nodes = _split_iteration(kernel, states, tables, h0, bound, split, stop, deadline,
                                                             Report(bound, iteration))
        done_nodes += nodes
        seconds = time.perf_counter() - began
        if found is not None:
            return SplitResult(found[1], done_nodes, seconds, found[0], iteration + 1)
        if stop[0]:
            raise Cancelled()
        if gave_up:
            return SplitResult(None, done_nodes, seconds, bound, iteration + 1)
        bound = fit(next_bound)
        iteration += 1
    return SplitResult(None, done_nodes, time.perf_counter() - began, bound, iteration)
