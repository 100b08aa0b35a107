"""Additive pattern databases for sliding puzzles, built by a numba BFS in the abstract space.

A pattern is a set of ``k`` tiles.  Its database holds, for every placement of those tiles on the
board's ``n`` cells, the fewest moves *of pattern tiles* that bring them home, the other tiles
being indistinguishable and moving for free (Korf & Felner's disjoint, additive databases: the
values of a partition of the tiles add up to an admissible estimate).

A placement is ranked as a partial permutation: tile ``i`` of the pattern, at cell ``p_i``, has the
digit ``p_i`` minus the number of earlier tiles on smaller cells, and the rank is
``sum(digit_i * mult_i)`` with ``mult_i = (n-1-i)! / (n-k)!``; there are ``n! / (n-k)!`` ranks.  The
database is one uint8 per rank.

The BFS runs over (placement, blank region) states: the blank wanders through its connected
region of non-pattern cells at no cost, so each region is one state, and a placement's value is
the layer where the first of its regions is reached.  The regions depend only on *which* cells the
pattern occupies (its combination, ranked in colex order), not on the order of the tiles on them
(a permutation of the ``k`` slots, the occupied cells in increasing order, ranked
lexicographically).  So a state is (combination, region, permutation), and the states of one
(combination, region), a *block*, are ``k!`` consecutive bits.  Moving a tile into the region
leads every state of a block to one other block: sideways (or vertically past no pattern tile)
the tiles keep their order, so the permutation is unchanged and a whole block is handled with
word operations; vertically past other pattern tiles, the moving tile's slot shifts, a fixed map
of the permutations (one per pair of slots, precomputed).  Every move changes the parity of the
sum of the occupied cells' rows and columns, so layers alternate between the two parities of
combinations.

The workspace is two bit planes, ``reached`` and ``new`` (the last layer), 2 bits per state:
356 MB for the 15-puzzle's 8-tile pattern (1.43 G states), 48 MB for a 5x5 6-tile one.  A layer
*pulls*: each worker takes blocks of the parity about to be reached (handed out through an
atomic counter, so no two workers write one block), clears their old ``new`` bits and ORs in
the frontier of each neighbouring block through that move's map, from the frontier's side or,
when that is larger, from the target's unreached side.  Then the layer's placements are
*emitted*: a streaming pass marks, per combination, the placements first reached (some region in
``new``, none reached before; kept in spare rows of ``new``, blocks of the other parity whose
frontier is spent), then windows of consecutive ranks (the placements whose first ``d`` tiles sit
on given cells: per combination, a run of consecutive permutations) write their values.  A window's values go into an array, or into a file
with positional writes (:func:`build_pattern_file`), so the result never needs to be in memory.
"""

from __future__ import annotations

import itertools
import os
import threading
from math import factorial

import numpy as np

from solver.engines.atomic import fetch_add
from solver.engines.bits import low_zeros, ones
from solver.engines.jit import njit
from solver.engines.pdb_space import multipliers, perms_of, space_of, words_per_block
from solver.engines.ranking import nth_set_bit, popcount
from solver.errors import Cancelled

UNREACHED = 255
# progress counters while building: layer, states expanded, placements reached, placements in all
P_LAYER, P_EXPANDED, P_REACHED, P_TOTAL = 0, 1, 2, 3
MAX_CELLS = 25
WINDOW = 1 << 22  # entries of one emission window at most
CHUNK = 16  # blocks a worker takes at once
FULL = np.uint64(0xFFFFFFFFFFFFFFFF)


def n_placements(cells: int, k: int) -> int:
    return factorial(cells) // factorial(cells - k)


@njit(cache=True, nogil=True, inline="always")
def placement_rank(pos, k, mult):
    """Rank of the placement ``pos[0..k-1]`` (distinct cells) among all n!/(n-k)!."""
    used = 0
    r = 0
    for i in range(k):
        p = pos[i]
        r += (p - popcount(used & ((1 << p) - 1))) * mult[i]
        used |= 1 << p
    return r


@njit(cache=True, nogil=True, inline="always")
def placement_unrank(r, k, mult, pos):
    """Write into ``pos`` the placement whose rank is ``r``; returns the mask of occupied cells."""
    used = 0
    for i in range(k):
        digit = r // mult[i]
        r -= digit * mult[i]
        p = nth_set_bit(~used, digit)  # the digit-th free cell
        pos[i] = p
        used |= 1 << p
    return used


# --- one layer: pull the frontier into the blocks of the other parity ---------------------------------

@njit(cache=True, nogil=True, inline="always")
def _mark(reached, new, b, q):
    """Reach state ``q`` of block ``b`` if it was not; returns 1 if it was new."""
    w = q >> 6
    bit = np.uint64(1) << np.uint64(q & 63)
    if reached[b, w] & bit:
        return 0
    reached[b, w] |= bit
    new[b, w] |= bit
    return 1


@njit(cache=True, nogil=True)
def _pull(reached, new, count, fcount, block_parity, parity, adj_start, adj_block, adj_map, maps, k, size, next_chunk,
          stop, progress):
    """Reach the states of the blocks of ``parity`` one move away from the frontier (``new`` of the other parity).

    Blocks are taken ``CHUNK`` at a time from ``next_chunk`` (atomic), so several workers can share
    the layer.  ``count`` holds the states reached in each block, ``fcount`` those of its last
    layer.  Returns the states reached, or -1 if stopped.
    """
    blocks = count.shape[0]
    wpb = reached.shape[1]
    tail = size - (wpb - 1) * 64
    last = FULL if tail == 64 else (np.uint64(1) << np.uint64(tail)) - np.uint64(1)
    found = 0
    while True:
        start = fetch_add(next_chunk, 0, CHUNK)
        if start >= blocks:
            return found
        if stop[0] != 0:
            return -1
        for t in range(start, min(blocks, start + CHUNK)):
            if block_parity[t] != parity:
                continue
            if fcount[t] != 0:  # its frontier of two layers back is closed now
                for w in range(wpb):  # (a loop: a slice assignment costs a second of compiling)
                    new[t, w] = 0
                fcount[t] = 0
            unreached = size - count[t]
            if unreached == 0:
                continue
            got = 0
            for e in range(adj_start[t], adj_start[t + 1]):
                b = adj_block[e]
                if fcount[b] == 0:
                    continue
                m = adj_map[e]
                if m < 0:  # the same permutation: whole words
                    for w in range(wpb):
                        bits = new[b, w] & ~reached[t, w]
                        if bits:
                            reached[t, w] |= bits
                            new[t, w] |= bits
                            got += ones(bits)
                elif fcount[b] <= unreached - got:  # from the frontier's side
                    forward = maps[m]
                    for w in range(wpb):
                        bits = new[b, w]
                        while bits:
                            p = (w << 6) + low_zeros(bits)
                            bits &= bits - np.uint64(1)
                            got += _mark(reached, new, t, np.int64(forward[p]))
                else:  # from the unreached side, through the inverse map
                    back = maps[(m % k) * k + m // k]
                    for w in range(wpb):
                        bits = ~reached[t, w]
                        if w == wpb - 1:
                            bits &= last
                        while bits:
                            low = low_zeros(bits)
                            bits &= bits - np.uint64(1)
                            p = np.int64(back[(w << 6) + low])
                            if (new[b, p >> 6] >> np.uint64(p & 63)) & np.uint64(1):
                                bit = np.uint64(1) << np.uint64(low)
                                reached[t, w] |= bit
                                new[t, w] |= bit
                                got += 1
                if got == unreached:
                    break
            count[t] += got
            fcount[t] = got
            found += got
        progress[P_EXPANDED] = found


@njit(cache=True, nogil=True)
def _newly(combos, rbase, fcount, reached, new, newly, rows, runs, span, worker, workers):
    """For the combinations ``combos`` (one parity) numbered ``worker`` modulo ``workers``: in row
    ``rows[h]`` of ``newly``, the permutations of ``combos[h]`` whose placement was first reached in
    the last layer (a region in ``new``, none reached before), and ``runs[h]``, a bit for every run of
    ``span`` permutations that may hold one (all zero: nothing new, and the row is left as it was).
    Streams through the planes once, so that the windows below read one word per 64 placements
    rather than two per region.
    """
    wpb = newly.shape[1]
    last_run = runs.shape[1] * 64 - 1
    for h in range(worker, combos.shape[0], workers):
        c = combos[h]
        for r in range(runs.shape[1]):
            runs[h, r] = 0
        fresh = False
        for b in range(rbase[c], rbase[c + 1]):
            fresh |= fcount[b] != 0
        if not fresh:
            continue
        for w in range(wpb):
            some = np.uint64(0)
            before = np.uint64(0)
            for b in range(rbase[c], rbase[c + 1]):
                now = new[b, w]
                some |= now
                before |= reached[b, w] & ~now
            bits = some & ~before
            newly[rows[h], w] = bits
            if bits:
                for r in range(((w << 6) + low_zeros(bits)) // span, min(last_run, ((w << 6) + 63) // span) + 1):
                    runs[h, r >> 6] |= np.uint64(1) << np.uint64(r & 63)


# --- emitting a layer's placements, one window of ranks at a time ----------------------------------

@njit(cache=True, nogil=True, inline="always")
def _bits_at(plane, b, at):
    """The 64 bits of block ``b`` from bit ``at`` on (zeros past the block's words)."""
    w = at >> 6
    shift = at & 63
    word = plane[b, w] >> np.uint64(shift)
    if shift != 0 and w + 1 < plane.shape[1]:
        word |= plane[b, w + 1] << np.uint64(64 - shift)
    return word


def _any_new(holders, holder_runs, runs) -> bool:
    """Whether a window may hold a placement first reached in the last layer (see :func:`_emit`): a bit of ``runs``
    is set for the run of one of its ``holders`` (``holder_runs``, from :func:`_windows`)."""
    words = runs[holders, holder_runs >> 6]
    return bool(np.any((words >> (holder_runs & 63).astype(np.uint64)) & np.uint64(1)))


@njit(cache=True, nogil=True)
def _emit(holders, holder_runs, span, k, masks, combos, newly, rows, runs, base, weight, window_base, dest, value, gap):
    """Write ``value`` into ``dest`` (from rank ``window_base`` on) for the placements of one window first
    reached in the last layer.

    The window is every placement whose first ``d`` tiles lie on given cells; on a combination holding
    those cells (``combos[h]`` for ``h`` in ``holders``: the layer's parity), their permutations are one
    run of ``span = (k-d)!``, the ``holder_runs``-th (see :func:`_windows`), whose new ones ``newly`` and
    ``runs`` (see :func:`_newly`) tell.  ``gap`` is scratch space for ``k`` entries.  Returns how many.
    """
    n = 0
    for i in range(holders.shape[0]):
        h = holders[i]
        run = holder_runs[i]
        if not (runs[h, run >> 6] >> np.uint64(run & 63)) & np.uint64(1):
            continue
        first = run * span
        occupied = masks[combos[h]]
        rest = occupied
        for t in range(k):
            low = rest & -rest
            rest ^= low
            gap[t] = popcount(low - 1) - t
        for at in range(first, first + span, 64):
            bits = _bits_at(newly, rows[h], at)
            if first + span - at < 64:
                bits &= (np.uint64(1) << np.uint64(first + span - at)) - np.uint64(1)
            while bits:
                p = at + low_zeros(bits)
                bits &= bits - np.uint64(1)
                r = base[p]
                for t in range(k):
                    r += gap[t] * weight[p, t]
                dest[r - window_base] = value
                n += 1
    return n


def _seed(goal_cells, cells: int, k: int, fact, masks, rbase, region_id, reached, new, count, fcount) -> int:
    """Reach the goal (the pattern home, the blank's region); returns its combination."""
    occupied = sum(1 << int(cell) for cell in goal_cells)
    c = int(np.searchsorted(masks, occupied))  # colex order is the masks' numeric order
    b = int(rbase[c]) + int(region_id[c * cells + cells - 1])
    p = 0
    used = 0
    for i, cell in enumerate(goal_cells):
        slot = (occupied & ((1 << int(cell)) - 1)).bit_count()
        p += (slot - (used & ((1 << slot) - 1)).bit_count()) * int(fact[k - 1 - i])
        used |= 1 << slot
    bit = np.uint64(1 << (p & 63))
    reached[b, p >> 6] |= bit
    new[b, p >> 6] |= bit
    count[b] = 1
    fcount[b] = 1
    return c


# --- building ---------------------------------------------------------------------------------------

def build_memory_bytes(cells: int, k: int, width: int | None = None) -> int:
    """The workspace of a build: two bit planes of (combination, region, permutation) states, padded to words.

    (The result goes to an array or a file; the caller's array is not counted.)
    """
    width = width or round(cells ** 0.5)
    blocks = int(space_of(width, cells, k)[1][-1])
    return 2 * blocks * words_per_block(k) * 8


def _zeroed(count: int, dtype):
    """A zeroed array in anonymous memory, backed by huge pages where the kernel allows it."""
    import mmap

    nbytes = count * np.dtype(dtype).itemsize
    if nbytes < (64 << 20):
        return np.zeros(count, dtype), None
    buffer = mmap.mmap(-1, nbytes, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    if hasattr(mmap, "MADV_HUGEPAGE"):
        try:
            buffer.madvise(mmap.MADV_HUGEPAGE)
        except OSError:
            pass
    return np.frombuffer(buffer, dtype=dtype), buffer


class _ArraySink:
    """Values go into an array in memory."""

    def __init__(self, out: np.ndarray) -> None:
        self.out = out
        out[:] = UNREACHED

    def buffer(self, size: int) -> np.ndarray | None:
        return None

    def open(self, base: int, size: int, buffer) -> np.ndarray:
        """The entries of ranks ``base`` to ``base + size`` as they are, to change."""
        return self.out[base:base + size]

    def close(self, base: int, window: np.ndarray) -> None:
        """Keep the changes to the window of ``base``."""

    def finish(self, bases, size: int) -> None:
        pass


class _FileSink:
    """Values go into a file at ``offset`` with positional writes, one window at a time (read, change, write)."""

    def __init__(self, fd: int, offset: int, size: int) -> None:
        self.fd, self.offset, self.size = fd, offset, size
        self.written: set[int] = set()
        self.lock = threading.Lock()

    def buffer(self, size: int) -> np.ndarray:
        return np.empty(size, np.uint8)

    def open(self, base: int, size: int, buffer: np.ndarray) -> np.ndarray:
        window = buffer[:min(size, self.size - base)]
        with self.lock:
            fresh = base not in self.written
            self.written.add(base)
        if fresh:
            window[:] = UNREACHED
            return window
        view = window.data
        done = 0
        while done < len(view):
            got = os.preadv(self.fd, [view[done:]], self.offset + base + done)
            if got <= 0:
                raise OSError(f"short read in the pattern database file at {self.offset + base + done}")
            done += got
        return window

    def close(self, base: int, window: np.ndarray) -> None:
        self._write(window, self.offset + base)

    def _write(self, window: np.ndarray, at: int) -> None:
        view = window.data
        done = 0
        while done < len(view):
            done += os.pwrite(self.fd, view[done:], at + done)

    def finish(self, bases, size: int) -> None:
        """Windows never written (placements never reached) get UNREACHED."""
        filler = np.full(size, UNREACHED, np.uint8)
        for base in bases:
            if int(base) not in self.written:
                self._write(filler[:min(size, self.size - int(base))], self.offset + int(base))


def _windows(cells: int, k: int, limit: int, masks: np.ndarray, parity: np.ndarray):
    """The emission windows (every placement whose first ``d`` tiles lie on given cells, a prefix): ``d`` (the
    smallest whose windows hold at most ``limit`` placements), their size, their first ranks, the combinations of
    each parity, for each window and parity the ones (indices in that list) that hold the prefix's cells, and for
    each of those the run (of ``(k-d)!`` permutations) whose first ``d`` tiles lie on the prefix's cells."""
    mult = multipliers(cells, k)
    d = next(d for d in range(1, k + 1) if mult[d - 1] <= limit)
    prefixes = np.array(list(itertools.permutations(range(cells), d)), np.int64).reshape(-1, d)
    bases = _ranks(prefixes, mult)
    combos = [np.flatnonzero(parity == side).astype(np.int32) for side in (0, 1)]
    by_cells: dict[int, tuple[np.ndarray, ...]] = {}
    holders = []
    for prefix in prefixes:
        cells_of_prefix = sum(1 << int(p) for p in prefix)
        if cells_of_prefix not in by_cells:
            by_cells[cells_of_prefix] = tuple(
                np.flatnonzero((masks[combos[side]] & cells_of_prefix) == cells_of_prefix).astype(np.int32)
                for side in (0, 1))
        holders.append(by_cells[cells_of_prefix])
    span = factorial(k - d)
    holder_runs = [tuple(_first_of_runs(prefix, k, masks[combos[side][holders[i][side]]]) // span for side in (0, 1))
                   for i, prefix in enumerate(prefixes)]
    return d, int(mult[d - 1]), bases, combos, holders, holder_runs


def _ranks(placements: np.ndarray, mult: np.ndarray) -> np.ndarray:
    """:func:`placement_rank` of each row of ``placements`` (its first ``placements.shape[1]`` tiles)."""
    ranks = np.zeros(len(placements), np.int64)
    for i in range(placements.shape[1]):
        earlier = (placements[:, :i] < placements[:, i:i + 1]).sum(axis=1)
        ranks += (placements[:, i] - earlier) * mult[i]
    return ranks


def _first_of_runs(prefix: np.ndarray, k: int, occupied: np.ndarray) -> np.ndarray:
    """On each combination of ``occupied`` (cell masks), the first permutation of the run whose first
    ``len(prefix)`` tiles lie on the cells ``prefix``."""
    first = np.zeros(len(occupied), np.int64)
    slots: list[np.ndarray] = []
    for i, cell in enumerate(prefix):
        slot = np.bitwise_count(occupied & ((1 << int(cell)) - 1)).astype(np.int64)
        earlier = sum((s < slot).astype(np.int64) for s in slots)
        first += (slot - earlier) * factorial(k - 1 - i)
        slots.append(slot)
    return first


def _scratch_rows(block_parity: np.ndarray, combos: list[np.ndarray]) -> list[np.ndarray] | None:
    """For each parity, as many blocks of the other parity as it has combinations (None if too few)."""
    rows = [np.flatnonzero(block_parity != side)[:len(combos[side])] for side in (0, 1)]
    return rows if all(len(rows[side]) == len(combos[side]) for side in (0, 1)) else None


def _check(width: int, height: int, tiles) -> list[int]:
    cells = width * height
    if cells > MAX_CELLS:
        raise ValueError(f"pattern databases need a board of at most {MAX_CELLS} cells")
    tiles = [int(t) for t in tiles]
    if not tiles or len(set(tiles)) != len(tiles) or not all(1 <= t < cells for t in tiles):
        raise ValueError(f"bad pattern {tiles} for a {width}x{height} board")
    return tiles


def _build(width: int, height: int, tiles, sink, stop, progress, threads: int, window: int) -> None:
    """The BFS of :mod:`solver.engines.pdb` (module docstring), its values handed to ``sink`` window by window."""
    cells = width * height
    k = len(tiles)
    size = n_placements(cells, k)
    fact = np.array([factorial(i) for i in range(k + 1)], np.int64)
    masks, rbase, parity, region_id, adj_start, adj_block, adj_map, _binom = space_of(width, cells, k)
    maps, base, weight = perms_of(cells, k)
    blocks = int(rbase[-1])
    block_parity = np.repeat(parity, np.diff(rbase))
    wpb = words_per_block(k)
    stop = np.zeros(1, np.uint8) if stop is None else stop
    workers = max(1, int(threads))
    counters = [np.zeros(4, np.int64) for _ in range(workers)]
    done = {"states": 0, "reached": 0, "layer": 0}
    d, span, bases, combos, holders, holder_runs = _windows(cells, k, window, masks, parity)
    run_length = factorial(k - d)  # the permutations of one combination in one window

    def report() -> None:
        if progress is not None:
            reached = done["reached"] + sum(int(c[P_REACHED]) for c in counters)
            progress({"layer": done["layer"], "expanded": done["states"] + sum(int(c[P_EXPANDED]) for c in counters),
                      "reached": reached, "placements": size, "fraction": reached / size})

    def emit(worker: int, side: int, layer: int, newly, rows, runs) -> int:
        scratch = sink.buffer(span)
        gap = np.empty(k, np.int64)
        for i in range(worker, len(bases), workers):
            if stop[0]:
                return -1
            if not _any_new(holders[i][side], holder_runs[i][side], runs):
                continue
            window = sink.open(int(bases[i]), span, scratch)
            counters[worker][P_REACHED] += _emit(holders[i][side], holder_runs[i][side], run_length, k, masks,
                                                 combos[side], newly, rows[side], runs, base, weight, bases[i], window,
                                                 layer, gap)
            sink.close(int(bases[i]), window)
        return 0

    planes, buffer = _zeroed(2 * blocks * wpb, np.uint64)
    try:
        reached = planes[:blocks * wpb].reshape(blocks, wpb)
        new = planes[blocks * wpb:].reshape(blocks, wpb)
        count = np.zeros(blocks, np.int32)
        fcount = np.zeros(blocks, np.int32)
        # the placements first reached on a layer, per combination of its parity: in the ``new`` rows of
        # blocks of the other parity, whose frontier the layer before consumed (the next layer clears them
        # first: marked by a non-zero ``fcount``), or in an array of their own when those are too few
        scratch = _scratch_rows(block_parity, combos)
        if scratch is not None:
            newly, rows = new, scratch
        else:
            newly = np.zeros((max(len(c) for c in combos), wpb), np.uint64)
            rows = [np.arange(len(c)) for c in combos]
        runs = np.zeros((max(len(c) for c in combos), (factorial(k) // run_length + 63) // 64), np.uint64)
        goal = _seed([t - 1 for t in tiles], cells, k, fact, masks, rbase, region_id, reached, new,
                     count, fcount)
        side = int(parity[goal])
        layer = 0
        while True:
            # emit the placements first reached on this layer
            _run_workers(_newly, [(combos[side], rbase, fcount, reached, new, newly, rows[side], runs, run_length, w,
                                   workers) for w in range(workers)], report)
            if newly is new:
                fcount[rows[side]] = -1
            for c in counters:
                c[P_REACHED] = 0
            if min(_run_workers(emit, [(w, side, layer, newly, rows, runs) for w in range(workers)], report)) < 0:
                raise Cancelled()
            done["reached"] += sum(int(c[P_REACHED]) for c in counters)
            for c in counters:
                c[P_REACHED] = 0
            # then reach the next layer
            next_chunk = np.zeros(1, np.int64)
            found = _run_workers(_pull, [(reached, new, count, fcount, block_parity, 1 - side, adj_start, adj_block,
                                          adj_map, maps, k, factorial(k), next_chunk, stop, counters[w])
                                         for w in range(workers)], report)
            if min(found) < 0:
                raise Cancelled()
            done["states"] += sum(found)
            for c in counters:
                c[P_EXPANDED] = 0
            if sum(found) == 0:
                break
            layer += 1
            done["layer"] = layer
            side = 1 - side
        sink.finish(bases, span)
    finally:
        reached = new = planes = newly = None
        if buffer is not None:
            try:
                buffer.close()
            except BufferError:  # a view is still held (a worker's failure's traceback): freed with it
                pass
    report()


def build_pattern(width: int, height: int, tiles, *, stop=None, progress=None, out=None, threads: int = 1,
                  window: int = WINDOW) -> np.ndarray:
    """The pattern database (uint8, one entry per placement rank) of ``tiles`` on a W x H board.

    The goal is 1..n-1 with the blank last (tile ``t`` belongs on cell ``t-1``).  With ``out`` (a
    uint8 array of ``n!/(n-k)!`` entries) the values are written there.  ``progress``, if
    given, receives ``{"layer", "expanded", "reached", "placements", "fraction"}`` several times a
    second.  ``threads`` workers expand each layer together.  ``window`` bounds the placements
    emitted at once (tests make it small).  Raises :class:`~solver.errors.Cancelled` when
    ``stop[0]`` is set.
    """
    tiles = _check(width, height, tiles)
    size = n_placements(width * height, len(tiles))
    if out is None:
        out = np.empty(size, np.uint8)
    elif out.shape != (size,) or out.dtype != np.uint8:
        raise ValueError(f"out must be a uint8 array of {size} entries")
    _build(width, height, tiles, _ArraySink(out), stop, progress, threads, window)
    return out


def build_pattern_file(width: int, height: int, tiles, fd: int, offset: int, *, stop=None, progress=None,
                       threads: int = 1, window: int = WINDOW) -> None:
    """:func:`build_pattern` into the file ``fd`` at byte ``offset`` (positional writes; the file must be that long).

    The values never sit in this process's memory all at once, only one window per worker.
    """
    tiles = _check(width, height, tiles)
    size = n_placements(width * height, len(tiles))
    _build(width, height, tiles, _FileSink(fd, offset, size), stop, progress, threads, window)


def _run_workers(kernel, arg_sets, report, interval: float = 0.05) -> list:
    """``kernel(*args)`` for every ``args`` of ``arg_sets``, each in its own thread (the first in this
    one when there is only one); ``report()`` every ``interval`` seconds meanwhile.  Returns the results."""
    import threading

    results: list = [None] * len(arg_sets)
    failures: list[BaseException] = []

    def work(i: int) -> None:
        try:
            results[i] = kernel(*arg_sets[i])
        except BaseException as error:  # re-raised in the caller's thread
            failures.append(error)

    threads = [threading.Thread(target=work, args=(i,), name=f"koma-pdb-layer-{i}", daemon=True)
               for i in range(len(arg_sets))]
    for thread in threads:
        thread.start()
    while alive := [thread for thread in threads if thread.is_alive()]:
        alive[0].join(interval)
        report()
    if failures:
        raise failures[0]
    return results
