"""IDA* for Goat on the shared engine (:func:`solver.engines.idastar.ida_star`), with two lower bounds.

Both searches work on the article's *labelled* board (see :func:`solver.goat.model.label`): the two ─
are told apart by the snake-path parity (8 ends on top, 11 at the bottom) and the big piece is
9 10.  Move ``m`` is ``"UDLR"[m]``, the direction the piece moves, as in :mod:`solver.goat.model`.

* ``article``: article 001's bound, the sum over pieces of each piece's own move distance to its
  goal cell (the big piece counted once, by its left cell), with the ─ told apart.
* ``pdb``: additive pattern databases of my own.  The pieces are split into two groups: 羊 ‖ ┘ 狼
  (the pen and its neighbours) and the big piece with ┌ │ └ and the two ─.  For each group a table
  holds, for every placement of the big piece, the blank and that group's pieces (the other pieces
  being interchangeable), the fewest moves *of that group's pieces* needed to reach GOAL; moves of
  the other pieces are free.  Every real move moves a piece of exactly one group, so the two values
  add up to a lower bound (40 for the article's 52-move board, against 22 for the article's bound).
  The tables (317,520 one-byte entries) are built once by a 0-1 BFS and kept in the disk cache.
  A free move never changes a group's value, so a move only looks up its own group's table.

Both searches share one state (the 12 cells followed by the cell of each labelled code, blank
first) and one move kernel.

The kernels run on views without a reference count (:func:`solver.engines.idastar.unowned`): otherwise
every kernel call inlined into the engine increments and decrements it atomically, which took
about two thirds of the search time.
"""

from __future__ import annotations

import zlib
from functools import lru_cache

import numpy as np

from solver.engines import tables as _tables
from solver.engines.idastar import ida_star, run_ida, unowned
from solver.engines.jit import njit
from solver.engines.move_automaton import parent_pruning
from solver.goat.kernels import goat_successors
from solver.goat.model import (
    BIG,
    BIG_LEFT,
    BIG_RIGHT,
    BL,
    BLANK,
    BOTTOM_DASH,
    BR,
    CELLS,
    DASH,
    DOOR,
    GOAL,
    LABELLED_GOAL,
    MOVE_NAMES,
    SHEEP,
    TL,
    TOP_DASH,
    VBAR,
    WIDTH,
    WOLF,
    label,
)
from solver.puzzle import Solution

METHODS = ["article", "pdb"]
NOTES = {
    "article": "IDA* with article 001's lower bound: per-piece move distances, the two ─ told apart by parity",
    "pdb": "IDA* with additive pattern databases (羊 ‖ ┘ 狼 | big piece ┌ │ └ ─ ─), built by 0-1 BFS and cached",
}
INVERSE = np.array([1, 0, 3, 2], dtype=np.int64)  # U<->D, L<->R (the big piece included)
PARENT_PRUNING = parent_pruning(INVERSE)
UNDO_SOURCE = np.array([-4, 4, -1, 1], dtype=np.int64)  # after move m, the moved piece's offset from the blank
N_MOVES = 4
POS = CELLS  # state[POS + code] is the cell of labelled code ``code`` (both searches)

# the goal cell of each labelled code (the big piece by its left cell)
GOAL_CELL = {code: LABELLED_GOAL.index(code) for code in range(CELLS) if code != BLANK}


def _article_distances() -> np.ndarray:
    """``d[code, cell]``: moves for that piece alone from ``cell`` to its goal cell (article 001's table)."""
    d = np.zeros((CELLS, CELLS), np.int64)
    for code, goal in GOAL_CELL.items():
        if code == BIG_RIGHT:
            continue  # the big piece is counted once, through its left cell
        for cell in range(CELLS):
            if code == BIG_LEFT:
                d[code, cell] = abs(cell - goal) if cell < WIDTH else 0
            else:
                d[code, cell] = abs(cell // WIDTH - goal // WIDTH) + abs(cell % WIDTH - goal % WIDTH)
    return d


ARTICLE_DISTANCES = _article_distances()
GOAL_ARRAY = np.array(LABELLED_GOAL, np.int64)


# --- moves, shared by both bounds ------------------------------------------------------------------
# The state is the 12 cells followed by the cell of each labelled code (blank first).

@njit(cache=True, nogil=True, inline="always")
def _source(state, m):
    """The cell of the piece that move ``m`` slides into the blank, or -1 when ``m`` is illegal here."""
    b = state[POS + BLANK]
    if m == 0:  # U: the piece below moves up
        return b + 4 if b < 8 else -1
    if m == 1:  # D: the piece above moves down (never the big piece)
        if b < 4:
            return -1
        if b < 8 and state[b - 4] >= BIG_LEFT and state[b - 4] <= BIG_RIGHT:
            return -1
        return b - 4
    if m == 2:  # L: the piece on the right moves left
        return b + 1 if (b & 3) != 3 else -1
    return b - 1 if (b & 3) != 0 else -1  # R: the piece on the left moves right


@njit(cache=True, nogil=True, inline="always")
def _slide(state, s, track):
    """Slide the piece at cell ``s`` into the blank; the big piece moves whole and the blank jumps two cells.

    The blank's cell is always kept; the other pieces' cells only when ``track`` (a constant per
    search: the article's bound never reads them, and its search is about 10% faster without the stores).
    """
    b = state[POS + BLANK]
    p = state[s]
    if p == BIG_LEFT:  # the big piece slides left
        state[b], state[s], state[b + 2] = BIG_LEFT, BIG_RIGHT, BLANK
        state[POS + BLANK] = b + 2
        if track:
            state[POS + BIG_LEFT], state[POS + BIG_RIGHT] = b, s
    elif p == BIG_RIGHT:  # the big piece slides right
        state[b], state[s], state[b - 2] = BIG_RIGHT, BIG_LEFT, BLANK
        state[POS + BLANK] = b - 2
        if track:
            state[POS + BIG_RIGHT], state[POS + BIG_LEFT] = b, s
    else:
        state[b], state[s] = p, BLANK
        state[POS + BLANK] = s
        if track:
            state[POS + p] = b


@njit(cache=True, nogil=True, inline="always")
def _undo(state, m, tables):
    _slide(state, state[POS + BLANK] + UNDO_SOURCE[m], True)


@njit(cache=True, nogil=True, inline="always")
def _undo_untracked(state, m, tables):
    _slide(state, state[POS + BLANK] + UNDO_SOURCE[m], False)


# --- the article's bound -------------------------------------------------------------------------
@njit(cache=True, nogil=True, inline="always")
def _article_h(state, tables):
    d = ARTICLE_DISTANCES
    h = 0
    for c in range(CELLS):
        h += d[state[c], c]
    return h


@njit(cache=True, nogil=True, inline="always")
def _article_try(state, m, h, cutoff, tables):
    s = _source(state, m)
    if s < 0:
        return -1
    b = state[POS + BLANK]
    piece = state[s]
    d = ARTICLE_DISTANCES
    _slide(state, s, False)
    if piece == BIG_RIGHT:  # the big piece is counted by its left cell, which moves from s - 1 to s
        return h - d[BIG_LEFT, s - 1] + d[BIG_LEFT, s]
    return h - d[piece, s] + d[piece, b]


@njit(cache=True, nogil=True, inline="always")
def _is_goal(state, tables):
    for c in range(CELLS):
        if state[c] != GOAL_ARRAY[c]:
            return False
    return True


@njit(cache=True, nogil=True)
def _article_ida(state, tables, max_bound, stop, progress, path_out):
    return ida_star(_article_h, _article_try, _undo_untracked, _is_goal, PARENT_PRUNING, N_MOVES, state, tables,
                    max_bound, stop, progress, path_out)


# --- additive pattern databases ------------------------------------------------------------------
# A group's spec (one row of ``specs``): number of distinct pieces k, whether it holds the two ─,
# whether it holds the big piece, its offset in the concatenated table, the two radices below, and
# its k distinct codes.  Index = OFFSET + (b1 * PERM + perm) * PAIRS + pair, where perm ranks the blank and
# the k pieces among the 10 cells left by the big piece (10·9·… places) and pair ranks the two ─
# among the cells still free (colex rank of a 2-subset).
K, HAS_DASH, HAS_BIG, OFFSET, PERM, PAIRS, CODES = range(7)
GROUPS = ((SHEEP, DOOR, BR, WOLF), (BIG, TL, VBAR, BL, DASH))
OTHER = 15  # a piece outside the group, in the abstract boards used to build its table


def _group_spec(group) -> np.ndarray:
    distinct = [c for c in group if c not in (BIG, DASH)]
    k = len(distinct)
    perm = 1
    for i in range(k + 1):
        perm *= 10 - i
    free = 10 - 1 - k
    pairs = free * (free - 1) // 2 if DASH in group else 1
    spec = np.zeros(CODES + 8, np.int64)
    spec[K], spec[HAS_DASH], spec[HAS_BIG] = k, DASH in group, BIG in group
    spec[PERM], spec[PAIRS] = perm, pairs
    spec[CODES:CODES + k] = distinct
    return spec


def _specs() -> np.ndarray:
    specs = np.stack([_group_spec(g) for g in GROUPS])
    offset = 0
    for spec in specs:
        spec[OFFSET] = offset
        offset += 3 * spec[PERM] * spec[PAIRS]
    return specs


SPECS = _specs()
# the cached tables' version covers their layout, so a table built for other groups is rebuilt
PDB_VERSION = zlib.crc32(b"goat-pdb-1" + SPECS.tobytes())
PDB_SIZE = int(sum(3 * s[PERM] * s[PAIRS] for s in SPECS))
CODE_GROUP = np.full(CELLS, -1, np.int64)  # labelled code -> the group whose table its moves change
for _g, _group in enumerate(GROUPS):
    for _code in _group:
        for _labelled in {BIG: (BIG_LEFT, BIG_RIGHT), DASH: (TOP_DASH, BOTTOM_DASH)}.get(_code, (_code,)):
            CODE_GROUP[_labelled] = _g

_POPCOUNT10 = np.array([bin(i).count("1") for i in range(1 << 10)], dtype=np.int64)


@njit(cache=True, nogil=True, inline="always")
def _group_index(pos, spec):
    """The table index of one group, from ``pos[code]`` = cell of each labelled code."""
    b1 = pos[BIG_LEFT]
    q = pos[BLANK]
    q = q if q < b1 else q - 2
    used = 1 << q
    perm = q
    for i in range(spec[K]):
        q = pos[spec[CODES + i]]
        q = q if q < b1 else q - 2
        perm = perm * (9 - i) + q - _POPCOUNT10[used & ((1 << q) - 1)]
        used |= 1 << q
    index = spec[OFFSET] + (b1 * spec[PERM] + perm) * spec[PAIRS]
    if spec[HAS_DASH]:
        a = pos[TOP_DASH]
        a = a if a < b1 else a - 2
        a -= _POPCOUNT10[used & ((1 << a) - 1)]
        c = pos[BOTTOM_DASH]
        c = c if c < b1 else c - 2
        c -= _POPCOUNT10[used & ((1 << c) - 1)]
        if a > c:
            a, c = c, a
        index += c * (c - 1) // 2 + a
    return index


@njit(cache=True, nogil=True)
def _abstract_index(packed, spec, pos):
    """The group index of a packed abstract board (codes: group pieces, ─ 8, OTHER, big 9)."""
    dash = TOP_DASH
    b1 = -1
    for c in range(CELLS):
        v = (packed >> (4 * c)) & 0xF
        if v == BIG:
            if b1 < 0:
                b1 = c
        elif v == DASH:
            pos[dash] = c
            dash = BOTTOM_DASH
        elif v != OTHER:
            pos[v] = c
    pos[BIG_LEFT] = b1
    return _group_index(pos, spec)


@njit(cache=True, nogil=True)
def _build_group(spec, start, dist, todo, later):
    """0-1 BFS from the abstract goal ``start``: ``dist`` (uint8, 255 = unset) gets each group value.

    A move costs 1 when it moves one of the group's pieces and 0 otherwise.  ``todo`` and ``later``
    need room for 4 pushes per state.  Returns the number of states set.
    """
    pos = np.zeros(CELLS, np.int64)
    out = np.empty(8, np.int64)
    params = np.zeros(1, np.int64)
    base = spec[OFFSET]
    n_todo = 1
    todo[0] = start
    level = 0
    done = 0
    while n_todo > 0:
        n_later = 0
        while n_todo > 0:
            n_todo -= 1
            s = todo[n_todo]
            r = _abstract_index(s, spec, pos) - base
            if dist[r] != 255:
                continue
            dist[r] = level
            done += 1
            b = 0
            while (s >> (4 * b)) & 0xF != 0:
                b += 1
            k = goat_successors(s, params, out)
            for i in range(k):
                child = out[i]
                if dist[_abstract_index(child, spec, pos) - base] != 255:
                    continue
                moved = (child >> (4 * b)) & 0xF
                if moved == OTHER or (moved == BIG and spec[HAS_BIG] == 0):
                    todo[n_todo] = child
                    n_todo += 1
                else:
                    later[n_later] = child
                    n_later += 1
        todo, later = later, todo
        n_todo = n_later
        level += 1
    return done


def _abstract_goal(spec) -> int:
    codes = set(int(c) for c in spec[CODES:CODES + spec[K]]) | {BLANK, BIG}
    if spec[HAS_DASH]:
        codes.add(DASH)
    packed = 0
    for cell, v in enumerate(GOAL):
        packed |= (v if v in codes else OTHER) << (4 * cell)
    return packed


def build_pdb() -> np.ndarray:
    """Both group tables, concatenated (uint8)."""
    table = np.full(PDB_SIZE, 255, np.uint8)
    for spec in SPECS:
        size = 3 * int(spec[PERM] * spec[PAIRS])
        part = table[spec[OFFSET]:spec[OFFSET] + size]
        todo = np.empty(4 * size + 4, np.int64)
        later = np.empty(4 * size + 4, np.int64)
        done = _build_group(spec, _abstract_goal(spec), part, todo, later)
        if done != size:  # every abstract placement is the image of a real, reachable board
            raise RuntimeError(f"Goat pattern database reached {done} of {size} entries")
    return table


@lru_cache(maxsize=1)
def pattern_databases() -> np.ndarray:
    """The concatenated group tables, from the disk cache (built on first use, in well under a second)."""
    return _tables.cached_table("goat-pdb", PDB_VERSION, build_pdb)


@njit(cache=True, nogil=True, inline="always")
def _pdb_h(state, tables):
    pdb, specs = tables[0], SPECS
    h = 0
    for g in range(specs.shape[0]):
        h += pdb[_group_index(state[POS:], specs[g])]
    return h


@njit(cache=True, nogil=True, inline="always")
def _pdb_try(state, m, h, cutoff, tables):
    s = _source(state, m)
    if s < 0:
        return -1
    pdb = tables[0]
    spec = SPECS[CODE_GROUP[state[s]]]
    pos = state[POS:]
    was = pdb[_group_index(pos, spec)]
    _slide(state, s, True)
    return h - was + pdb[_group_index(pos, spec)]


@njit(cache=True, nogil=True)
def _pdb_ida(state, tables, max_bound, stop, progress, path_out):
    return ida_star(_pdb_h, _pdb_try, _undo, _is_goal, PARENT_PRUNING, N_MOVES, state,
                    (unowned(tables[0]),), max_bound, stop, progress, path_out)


# --- drivers -------------------------------------------------------------------------------------
def search_state(state) -> np.ndarray:
    """The kernel state of a public board: its labelled cells, then the cell of each labelled code."""
    labelled = label(tuple(state))
    pos = [0] * CELLS
    for cell, code in enumerate(labelled):
        pos[code] = cell
    return np.array(list(labelled) + pos, np.int64)


def search_tables(method: str):
    if method == "article":
        return (0,)  # the article's tables are compile-time constants
    return (pattern_databases(),)


def heuristic(state, method: str) -> int:
    """The lower bound of ``method`` for a public board (for tests and display)."""
    s = search_state(state)
    if method == "article":
        return int(sum(ARTICLE_DISTANCES[s[c], c] for c in range(CELLS)))
    pdb = pattern_databases()
    return int(sum(pdb[_group_index(s[POS:], spec)] for spec in SPECS))


def solve_ida(state, method: str, *, stop=None, progress=None):
    """Run IDA* with ``method``'s bound; returns ``(SearchResult, note)``."""
    kernel = {"article": _article_ida, "pdb": _pdb_ida}[method]
    result = run_ida(kernel, search_state(state), search_tables(method), stop=stop, progress=progress)
    return result, NOTES[method]


def methods(puzzle) -> list[str]:
    """The depth table first (instant once built), then the two IDA* bounds."""
    return ["table", *METHODS]


def run(puzzle, state, method: str, *, stop=None, progress=None, **options) -> Solution:
    """Solve a solvable ``state`` by IDA* with ``method``'s bound (the table is the front door's own)."""
    result, note = solve_ida(state, method, stop=stop, progress=progress)
    moves = tuple(MOVE_NAMES[m] for m in result.moves)
    path = puzzle.replay(state, moves)
    return Solution(moves, path, True, result.nodes, result.seconds, method, note)
