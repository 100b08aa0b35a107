"""Additive pattern databases for sliding puzzles, built by a numba BFS in the abstract space.

A pattern is a set of ``k`` tiles.  Its database holds, for every placement of those tiles on the
board's ``n`` cells, the fewest moves *of pattern tiles* that bring them home, the other tiles
being indistinguishable and moving for free (Korf & Felner's disjoint, additive databases: the
values of a partition of the tiles add up to an admissible estimate).

A placement is ranked as a partial permutation: tile ``i`` of the pattern, at cell ``p_i``, has the
digit ``p_i`` minus the number of earlier tiles on smaller cells, and the rank is
``sum(digit_i * mult_i)`` with ``mult_i = (n-1-i)! / (n-k)!``; there are ``n! / (n-k)!`` ranks.

The BFS runs over (placement, blank region) states: the blank wanders through its connected
region of non-pattern cells at no cost, so each region is one state.  Every placement keeps two
masks of blank cells (``A`` and ``B``, packed in one word: 16-bit halves of a uint32 on boards of
up to 16 cells, 32-bit halves of a uint64 up to 25 cells); a cell is unseen (0, 0), closed (1, 1),
or on the frontier, which is (1, 0) on even layers and (0, 1) on odd ones, so the layers alternate
without a copy.  That is 4 bytes per placement on the 4x4 (2.1 GB for an 8-tile pattern) and 8 on
the 5x5 (1.0 GB for a 6-tile pattern), plus the 1-byte result.  Regions come from a table of every
(free cells, cell) pair on boards of up to 16 cells, and from a bit-parallel flood fill beyond.
A layer scans the placements in order, only in blocks that received a state in the layer before;
a child's rank is found from its parent's with the few pattern tiles between the moving tile's two
cells, and the children's words are loaded in one batch.
"""

from __future__ import annotations

import mmap
from math import factorial

import numpy as np

from solver.engines.atomic import fetch_or
from solver.engines.jit import njit
from solver.engines.ranking import popcount
from solver.errors import Cancelled

UNREACHED = 255
# progress counters while building: layer, states expanded, placements reached, placements in all
P_LAYER, P_EXPANDED, P_REACHED, P_TOTAL = 0, 1, 2, 3
BLOCK_SHIFT = 14  # 16,384 placements per block


def n_placements(cells: int, k: int) -> int:
    return factorial(cells) // factorial(cells - k)


def multipliers(cells: int, k: int) -> np.ndarray:
    """``mult[i] = (n-1-i)! / (n-k)!``: the weight of tile ``i``'s digit in a placement rank."""
    return np.array([factorial(cells - 1 - i) // factorial(cells - k) for i in range(k)], dtype=np.int64)


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
        # the digit-th free cell
        p = 0
        while True:
            if not (used >> p) & 1:
                if digit == 0:
                    break
                digit -= 1
            p += 1
        pos[i] = p
        used |= 1 << p
    return used


def _select_tables():
    select = np.zeros((256, 8), np.int64)
    count = np.zeros(256, np.int64)
    for mask in range(256):
        bits = [b for b in range(8) if mask >> b & 1]
        count[mask] = len(bits)
        select[mask, : len(bits)] = bits
    return select, count


SELECT8, COUNT8 = _select_tables()


@njit(cache=True, nogil=True, inline="always")
def _select(mask, d):
    """The cell of the ``d``-th set bit (from 0) of a mask of at most 32 bits."""
    base = 0
    while True:
        byte = mask & 0xFF
        c = COUNT8[byte]
        if d < c:
            return base + SELECT8[byte, d]
        d -= c
        mask >>= 8
        base += 8


@njit(cache=True, nogil=True, inline="always")
def _unrank_digits(r, k, mult, reciprocal, pos, digits, before):
    """Fast unrank for the builder: cells, digits and the mask of cells of earlier tiles.

    Divides by multiplying with a float reciprocal and correcting by one (ranks < 2^40).
    """
    used = 0
    for i in range(k):
        m = mult[i]
        digit = np.int64(r * reciprocal[i])
        rest = r - digit * m
        if rest < 0:
            digit -= 1
            rest += m
        elif rest >= m:
            digit += 1
            rest -= m
        r = rest
        p = _select(0xFFFFFFFF & ~used, digit)
        pos[i] = p
        digits[i] = digit
        before[i] = used
        used |= 1 << p
    return used


@njit(cache=True, nogil=True, inline="always")
def _grow(mask, width, not_first_col, not_last_col):
    """``mask`` plus every cell orthogonally next to it (unbounded above; the caller masks)."""
    return mask | (mask << width) | (mask >> width) | ((mask & not_first_col) >> 1) | ((mask & not_last_col) << 1)


@njit(cache=True, nogil=True, inline="always")
def _region(start, free, width, not_first_col, not_last_col):
    """The connected region of ``free`` cells that contains the cell mask ``start``."""
    region = start
    while True:
        grown = _grow(region, width, not_first_col, not_last_col) & free
        if grown == region:
            return region
        region = grown


@njit(cache=True, nogil=True)
def _region_table(width, cells):
    """``table[free * cells + cell]``: the region of ``free`` cells connected to ``cell`` (a cell in ``free``)."""
    full = (1 << cells) - 1
    first_col = 0
    for r in range(cells // width):
        first_col |= 1 << (r * width)
    not_first_col = full & ~first_col
    not_last_col = full & ~(first_col << (width - 1))
    table = np.zeros((1 << cells) * cells, np.uint16)
    for free in range(1 << cells):
        rest = free
        while rest != 0:
            low = rest & -rest
            region = _region(low, free, width, not_first_col, not_last_col)
            rest &= ~region
            members = region
            while members != 0:
                bit = members & -members
                members ^= bit
                table[free * cells + popcount(bit - 1)] = region
    return table


@njit(cache=True, nogil=True, inline="always")
def _region_of(cell, free, cells, regions, width, not_first_col, not_last_col):
    """The region of ``free`` cells that holds ``cell``: from the table when there is one, else by flood fill."""
    if regions.shape[0] > 0:
        return np.int64(regions[free * cells + cell])
    return _region(np.int64(1) << cell, free, width, not_first_col, not_last_col)


@njit(cache=True, nogil=True)
def _seed(width, cells, goal_cells, mult, status):
    """Put the goal (the pattern home, the blank's region) on the frontier of layer 0; returns its rank."""
    k = goal_cells.shape[0]
    full = (1 << cells) - 1
    first_col = 0
    for r in range(cells // width):
        first_col |= 1 << (r * width)
    occupied = 0
    for i in range(k):
        occupied |= 1 << goal_cells[i]
    start = placement_rank(goal_cells, k, mult)
    status[start] = _region(np.int64(1) << (cells - 1), full & ~occupied, width, full & ~first_col,
                            full & ~(first_col << (width - 1)))  # (1, 0): frontier of the even layer 0
    return start


@njit(cache=True, nogil=True)
def _build_layer(width, cells, k, mult, reciprocal, regions, status, pdb, layer, blocks, next_blocks, worker, workers,
                 stop, progress):
    """Expand layer ``layer`` in the marked ``blocks`` numbered ``worker`` modulo ``workers``.

    ``pdb`` (uint8) gets ``layer`` where a placement is first reached; children are marked in
    ``status`` (zeroed at the start; uint32 with 16-bit halves up to 16 cells, uint64 with 32-bit
    halves beyond) and their blocks in ``next_blocks``.  Workers share ``status`` through atomic ORs,
    so several may expand one layer at once.  ``regions`` is :func:`_region_table` or empty (flood
    fill).  Returns the states found for the next layer (0: the BFS is over), or -1 if stopped.
    """
    half = 16 if status.itemsize == 4 else 32
    half_mask = (np.int64(1) << half) - 1
    full = (1 << cells) - 1
    first_col = 0
    for r in range(cells // width):
        first_col |= 1 << (r * width)
    last_col = first_col << (width - 1)
    not_first_col = full & ~first_col
    not_last_col = full & ~last_col

    pos = np.empty(k, np.int64)
    digits = np.empty(k, np.int64)
    before = np.empty(k, np.int64)
    index_at = np.full(cells, -1, np.int64)  # the pattern tile on each cell of the current placement
    # between[i * (k+1) + j + 1]: what pattern tile j lying between the old and new cell of tile i
    # adds to the rank change of a vertical move (j = -1: no pattern tile there)
    between = np.zeros(k * (k + 1), np.int64)
    for i in range(k):
        for j in range(k):
            if j > i:
                between[i * (k + 1) + j + 1] = mult[j]
            elif j < i:
                between[i * (k + 1) + j + 1] = -mult[i]
    child_rank = np.empty(4 * k, np.int64)
    child_home = np.empty(4 * k, np.int64)
    child_dest = np.empty(4 * k, np.int64)
    child_seen = np.empty(4 * k, np.int64)
    total = status.shape[0]
    n_blocks = blocks.shape[0]
    progress[P_LAYER] = layer
    odd = layer & 1
    found = 0
    for block in range(worker, n_blocks, workers):
        if blocks[block] == 0:
            continue
        if stop[0] != 0:
            return -1
        for r in range(block << BLOCK_SHIFT, min(total, (block + 1) << BLOCK_SHIFT)):
            word = np.int64(status[r])
            if word == 0:
                continue
            a = word & half_mask
            b = word >> half
            frontier = (b & ~a) if odd else (a & ~b)
            if frontier == 0:
                continue
            if workers > 1:  # the whole frontier is closed now
                fetch_or(status, r, frontier | (frontier << half))
            else:  # alone: a plain store, which keeps the loads of the batches below in flight
                status[r] = word | frontier | (frontier << half)
            if pdb[r] == UNREACHED:  # first reached on this layer (written here, by this block's worker)
                pdb[r] = layer
                progress[P_REACHED] += 1
            occupied = _unrank_digits(r, k, mult, reciprocal, pos, digits, before)
            for i in range(k):
                index_at[pos[i]] = i
            free = full & ~occupied
            while frontier != 0:
                low = frontier & -frontier
                region = _region_of(popcount(low - 1), free, cells, regions, width, not_first_col, not_last_col)
                frontier &= ~region
                progress[P_EXPANDED] += 1
                # move a pattern tile next to the region into one of its cells; the children's
                # words are loaded in one batch so that the memory system fetches them in parallel
                count = 0
                # sideways: the rank moves by the weight of the tile's digit
                movers = occupied & ((region & not_last_col) << 1)  # tiles that can slide left
                while movers != 0:
                    bit = movers & -movers
                    movers ^= bit
                    home = popcount(bit - 1)
                    child_rank[count] = r - mult[index_at[home]]
                    child_home[count] = home
                    child_dest[count] = home - 1
                    count += 1
                movers = occupied & ((region & not_first_col) >> 1)  # ... slide right
                while movers != 0:
                    bit = movers & -movers
                    movers ^= bit
                    home = popcount(bit - 1)
                    child_rank[count] = r + mult[index_at[home]]
                    child_home[count] = home
                    child_dest[count] = home + 1
                    count += 1
                # vertically: width cells' worth, corrected for the pattern tiles in between
                # (an earlier tile there lowers this tile's digit, a later one's digit goes up)
                for up in range(2):
                    movers = occupied & ((region << width) if up else (region >> width)) & full
                    while movers != 0:
                        bit = movers & -movers
                        movers ^= bit
                        home = popcount(bit - 1)
                        i = index_at[home]
                        low = home - width if up else home
                        change = mult[i] * width
                        for c in range(low + 1, low + width):
                            change += between[i * (k + 1) + index_at[c] + 1]
                        child_rank[count] = r - change if up else r + change
                        child_home[count] = home
                        child_dest[count] = home - width if up else home + width
                        count += 1
                for j in range(count):
                    child_seen[j] = np.int64(status[child_rank[j]])
                for j in range(count):
                    seen = child_seen[j]
                    home = child_home[j]
                    if ((seen | (seen >> half)) >> home) & 1:
                        continue
                    child = child_rank[j]
                    child_free = (free & ~(np.int64(1) << child_dest[j])) | (np.int64(1) << home)
                    child_region = _region_of(home, child_free, cells, regions, width, not_first_col, not_last_col)
                    # (1, 0): the even frontier, after an odd layer; (0, 1): the odd one
                    mark = child_region if odd else child_region << half
                    if workers > 1:
                        fetch_or(status, child, mark)
                    else:
                        status[child] = seen | mark
                    next_blocks[child >> BLOCK_SHIFT] = 1
                    found += 1
            for i in range(k):
                index_at[pos[i]] = -1
    return found


def _zeroed(count: int, dtype) -> tuple[np.ndarray, mmap.mmap | None]:
    """A zeroed array in anonymous memory, backed by huge pages where the kernel allows it."""
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


MAX_CELLS = 25


def _status_dtype(cells: int):
    return np.uint32 if cells <= 16 else np.uint64


def build_memory_bytes(cells: int, k: int) -> int:
    """Peak memory of :func:`build_pattern`: the workspace (4 or 8 bytes a placement) plus the uint8 result."""
    return n_placements(cells, k) * (np.dtype(_status_dtype(cells)).itemsize + 1)


def build_pattern(width: int, height: int, tiles, *, stop=None, progress=None, out=None, threads: int = 1) -> np.ndarray:
    """The pattern database (uint8, one entry per placement rank) of ``tiles`` on a W x H board.

    The goal is 1..n-1 with the blank last (tile ``t`` belongs on cell ``t-1``).  With ``out`` (a
    uint8 array of ``n!/(n-k)!`` entries) the values are written there.  ``progress``, if
    given, receives ``{"layer", "expanded", "reached", "placements", "fraction"}`` several times a
    second.  ``threads`` workers expand each layer together.  Raises :class:`~solver.errors.Cancelled`
    when ``stop[0]`` is set.
    """
    cells = width * height
    if cells > MAX_CELLS:
        raise ValueError(f"pattern databases need a board of at most {MAX_CELLS} cells")
    tiles = [int(t) for t in tiles]
    if not tiles or len(set(tiles)) != len(tiles) or not all(1 <= t < cells for t in tiles):
        raise ValueError(f"bad pattern {tiles} for a {width}x{height} board")
    k = len(tiles)
    mult = multipliers(cells, k)
    reciprocal = 1.0 / mult.astype(np.float64)
    goal_cells = np.array([t - 1 for t in tiles], dtype=np.int64)
    size = n_placements(cells, k)
    stop = np.zeros(1, np.uint8) if stop is None else stop
    regions = _region_table(width, cells) if cells <= 16 else np.zeros(0, np.uint16)
    status, buffer = _zeroed(size, _status_dtype(cells))
    if out is None:
        pdb = np.full(size, UNREACHED, np.uint8)
    else:
        if out.shape != (size,) or out.dtype != np.uint8:
            raise ValueError(f"out must be a uint8 array of {size} entries")
        pdb = out
        pdb[:] = UNREACHED
    counters = [np.zeros(4, np.int64) for _ in range(max(1, threads))]

    def report() -> None:
        if progress is not None:
            reached = sum(int(c[P_REACHED]) for c in counters)
            progress({"layer": int(counters[0][P_LAYER]), "expanded": sum(int(c[P_EXPANDED]) for c in counters),
                      "reached": reached, "placements": size, "fraction": reached / size})

    # blocks of placements that hold frontier states: a layer scans only those
    blocks = np.zeros((size >> BLOCK_SHIFT) + 1, np.uint8)
    next_blocks = np.zeros_like(blocks)
    try:
        blocks[_seed(width, cells, goal_cells, mult, status) >> BLOCK_SHIFT] = 1
        layer = 0
        while True:
            found = _run_workers(_build_layer, [(width, cells, k, mult, reciprocal, regions, status, pdb, layer, blocks,
                                                 next_blocks, worker, len(counters), stop, counters[worker])
                                                for worker in range(len(counters))], report)
            if min(found) < 0:
                raise Cancelled()
            if sum(found) == 0:
                break
            blocks, next_blocks = next_blocks, blocks
            next_blocks[:] = 0
            layer += 1
    finally:
        del status
        if buffer is not None:
            buffer.close()
    report()
    return pdb


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
