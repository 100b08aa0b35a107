"""The dual lookup of the 15-puzzle's additive pattern databases (issue 27): a second, sound estimate.

With boards as maps tile -> cell (the blank a tile too) and G the goal, a solution of S by moves whose
blank cells are b0 (S's blank), b1, ..., bm (the goal's) swaps those cells in turn: S = P∘G for
P = (b0 b1)...(b(m-1) bm).  The dual P⁻¹∘G is reachable from G by the same swaps only when b0 is the
goal's blank cell; otherwise (the naive dual) it may be farther than S, and its lookup overestimates.
So let Q be a shortest path of the blank from the goal's cell to b0, k cells long, and H the goal with
its blank walked along Q (each of the k tiles on Q one cell back along it).  From H, whose blank is on
b0, the swaps are legal moves and reach D = P⁻¹∘H, whose blank is home: d(D, H) <= d(S).  D's tile t
sits where S holds the tile that belongs on H(t): D(t) = S_board[H(t)] - 1.  Per pattern, the moves
of its tiles from D to H are at least pdb(D) - q (triangle inequality in the pattern's abstract space:
pdb(D) is at most D's distance to the goal there, a minimum over D's blank regions, and H is exactly
q moves from the goal, q the pattern's tiles that Q shifts), and at least 0; the patterns are
disjoint, so the sum is admissible.  The groups' losses add up to k: the estimate is worth its
lookups only with the blank near home (``DUAL_MAX_DISTANCE``).

When the blank steps along its path (lengthening or shortening it), the board and H change by the
same swap, so D does not: the values are kept in the state from move to move and only the loss
changes; a move that reroutes the path marks stale the groups whose dual placement it changes.  The
estimate is inconsistent (it jumps where D changes), which the engine's pathmax (BPMX) exploits.
The same is done on the board reflected about the main diagonal, which fixes the blank's goal cell.
"""

from __future__ import annotations

import itertools

import numpy as np

from solver.engines.cpu import bit_count, prefetch
from solver.engines.idastar import MAX_PATH, ida_star, run_ida, unowned
from solver.engines.jit import njit
from solver.sliding.search_kernels import (
    BLANK,
    DUAL_ENTRIES,
    DUAL_STACK,
    DUAL_VALUES,
    MAX_CELLS,
    MAX_GROUP,
    MIRROR_BOARD,
    MIRROR_SUM,
    MOVE_NAMES,
    SP,
    SUM,
    T_GROUP_BASE,
    T_GROUP_OF,
    T_GROUP_SIZE,
    T_GROUP_TILES,
    T_GROUPS,
    T_MOVES,
    T_MULT_OF,
    T_PDB_SIZE,
    T_REFLECT_CELL,
    new_state,
    pdb_is_goal,
    pdb_setup,
    pdb_tables,
    pdb_try,
    pdb_undo,
    pruning,
    with_pruning,
)

STALE = 0x4000                  # a group's dual value to look up afresh: this bit set (no database value has it)
STALE_BITS = 0x4000_4000_4000_4000

# the pattern databases' table (:func:`solver.sliding.search_kernels.pdb_tables`) continues:
T_DUAL_HOME = T_PDB_SIZE                      # [blank * MAX_CELLS + tile]: the tile's cell in the goal shifted by the blank's path
T_DUAL_LOSS = T_DUAL_HOME + MAX_CELLS * MAX_CELLS  # [blank]: the groups' tiles that path shifts
T_DUAL_WORTH = T_DUAL_LOSS + MAX_CELLS        # [blank]: 1 where the search looks the dual up afresh
T_DUAL_CHANGE = T_DUAL_WORTH + MAX_CELLS      # [(blank * 4 + m) * 2 + side]: STALE in group g's 16 bits where
                                              # move m changes that side's dual placement
T_DUAL_ALL_STALE = T_DUAL_CHANGE + 8 * MAX_CELLS  # every group's STALE bit
T_DUAL_USEFUL = T_DUAL_ALL_STALE + 1          # [blank * 4 + m]: 0 where move m's dual estimate cannot prune
T_DUAL_SIZE = T_DUAL_USEFUL + 4 * MAX_CELLS
# The dual estimate loses one move per cell between the blank and its goal cell (see _dual_side);
# on Korf's 100 it pruned 46% of the nodes it was computed for with the blank home, 19% one cell away,
# 8% two, under 4% beyond, where it cost more time than it saved.
DUAL_MAX_DISTANCE = 2


def pdb_dual_tables(width: int, groups, reverse: bool = False) -> np.ndarray:
    """:func:`solver.sliding.search_kernels.pdb_tables` followed by what the dual lookup needs."""
    table = np.zeros(T_DUAL_SIZE, np.int64)
    table[:T_PDB_SIZE] = pdb_tables(width, groups, reverse)[:T_PDB_SIZE]
    cells = width * width
    paths = [blank_path(width, blank) for blank in range(cells)]
    for blank in range(cells):
        path = paths[blank]
        table[T_DUAL_WORTH + blank] = len(path) - 1 <= DUAL_MAX_DISTANCE
        for tile in range(1, cells):
            table[T_DUAL_HOME + blank * MAX_CELLS + tile] = tile - 1
        for before, cell in itertools.pairwise(path):  # the tile at home on ``cell`` steps back onto the path
            tile = cell + 1
            table[T_DUAL_HOME + blank * MAX_CELLS + tile] = before
            if table[T_GROUP_OF + tile] < len(groups):
                table[T_DUAL_LOSS + blank] += 1
    reflect = [int(table[T_REFLECT_CELL + cell]) for cell in range(cells)]
    for blank in range(cells):
        for move in range(4):
            step_to = int(table[T_MOVES + blank * 4 + move])
            if step_to >= 0:
                for side, (a, b) in enumerate(((blank, step_to), (reflect[blank], reflect[step_to]))):
                    for g, tiles in enumerate(groups):
                        if _dual_moves(table, a, b, tiles):
                            table[T_DUAL_CHANGE + (blank * 4 + move) * 2 + side] |= STALE << (16 * g)
    table[T_DUAL_ALL_STALE] = sum(STALE << (16 * g) for g in range(len(groups)))
    # A move that keeps a side's dual values and takes the blank away from home lowers that side's estimate by
    # one; the parent's was at most its bound, so the child's cannot prune.  (A parent's values are looked up
    # whenever it is expanded with its blank near home; far from home they are not, and count 0.)
    for blank in range(cells):
        for move in range(4):
            step_to = int(table[T_MOVES + blank * 4 + move])
            if step_to < 0:
                continue
            change = table[T_DUAL_CHANGE + (blank * 4 + move) * 2:T_DUAL_CHANGE + (blank * 4 + move) * 2 + 2]
            closer = (table[T_DUAL_LOSS + step_to] <= table[T_DUAL_LOSS + blank]
                      or table[T_DUAL_LOSS + reflect[step_to]] <= table[T_DUAL_LOSS + reflect[blank]])
            table[T_DUAL_USEFUL + blank * 4 + move] = closer or (bool(change.any()) and table[T_DUAL_WORTH + step_to])
    return with_pruning(table, reverse)


def _dual_moves(table: np.ndarray, blank: int, source: int, tiles) -> bool:
    """Whether the tile at ``source`` sliding into the blank on ``blank`` moves the dual placement of ``tiles``.

    Tile t's dual cell is ``board[H(t)] - 1`` (see :func:`_dual_entry`), and the move swaps the board's
    cells ``blank`` and ``source``: the cell stays for every board exactly when H before the move is H after
    it with those two cells swapped.  That holds for every tile when the blank steps along its path
    (lengthening or shortening it: the board and H change by the same swap, so D = G∘S⁻¹∘H does not).
    """
    swap = {blank: source, source: blank}
    before = T_DUAL_HOME + blank * MAX_CELLS
    after = T_DUAL_HOME + source * MAX_CELLS
    return any(swap.get(int(table[after + t]), int(table[after + t])) != table[before + t] for t in tiles)


def blank_path(width: int, blank: int) -> list[int]:
    """The cells the blank walks from its goal cell (the last) to ``blank`` on a shortest path: up the last
    column to the blank's row, then left along it (the dual lookup's path; see :func:`_dual_side`)."""
    cell = width * width - 1
    path = [cell]
    while cell // width > blank // width:
        cell -= width
        path.append(cell)
    while cell > blank:
        cell -= 1
        path.append(cell)
    return path


@njit(cache=True, nogil=True, inline="always")
def _dual_entry(state, board, blank, g, T):
    """The entry of D that group ``g``'s dual lookup reads, for the board ``state[board + cell]`` with its blank
    on ``blank``: tile t of the dual sits on ``board[H(t)] - 1``."""
    home = T_DUAL_HOME + blank * MAX_CELLS
    used = 0
    r = 0
    for i in range(T[T_GROUP_SIZE + g]):
        tile = T[T_GROUP_TILES + g * MAX_GROUP + i]
        p = state[board + T[home + tile]] - 1
        r += (p - bit_count(used & ((1 << p) - 1))) * T[T_MULT_OF + tile]
        used |= 1 << p
    return T[T_GROUP_BASE + g] + r


@njit(cache=True, nogil=True, inline="always")
def _dual_side(state, side, board, blank, gated, T, D):
    """One side's dual estimate: the groups' values less the tiles the blank's path shifts (at least 0).

    The values are kept, 16 bits a group, in ``state[DUAL_VALUES + side]`` for the moves that follow,
    which mark STALE those they change (``T_DUAL_CHANGE``, see :func:`_dual_moves`).  Stale values are
    looked up afresh, the entries asked for together (:func:`prefetch`), unless ``gated`` and the blank is
    far from home (then the estimate is 0).
    """
    values = state[DUAL_VALUES + side]
    if values & STALE_BITS:
        if gated and T[T_DUAL_WORTH + blank] == 0:
            return 0
        groups = T[T_GROUPS]
        for g in range(groups):
            if values >> (16 * g) & STALE:
                entry = _dual_entry(state, board, blank, g, T)
                prefetch(D, entry)
                state[DUAL_ENTRIES + g] = entry
        for g in range(groups):
            if values >> (16 * g) & STALE:
                values = values & ~(0xFFFF << (16 * g)) | np.int64(D[state[DUAL_ENTRIES + g]]) << (16 * g)
        state[DUAL_VALUES + side] = values
    total = (values & 0xFFFF) + (values >> 16 & 0xFFFF) + (values >> 32 & 0xFFFF) + (values >> 48)
    return max(total - T[T_DUAL_LOSS + blank], 0)


@njit(cache=True, nogil=True, inline="always")
def _dual(state, cutoff, gated, T, D):
    """The larger dual estimate of the board and its reflection (the reflection's skipped once the board's
    exceeds ``cutoff``)."""
    blank = state[BLANK]
    value = _dual_side(state, 0, 0, blank, gated, T, D)
    if value > cutoff:
        return value
    return max(value, _dual_side(state, 1, MIRROR_BOARD, T[T_REFLECT_CELL + blank], gated, T, D))


@njit(cache=True, nogil=True)
def pdb_dual_estimates(state, tables):
    """``(regular, dual)``: the max of the board's and its reflection's regular lookups, and of their dual
    ones, for a ``state`` set up by :func:`pdb_setup` (tests and tools; the search uses the same code)."""
    T, D = tables
    state[DUAL_VALUES] = T[T_DUAL_ALL_STALE]
    state[DUAL_VALUES + 1] = T[T_DUAL_ALL_STALE]
    return max(state[SUM], state[MIRROR_SUM]), _dual(state, 1 << 60, False, T, D)


@njit(cache=True, nogil=True, inline="always")
def pdb_dual_heuristic(state, tables):
    T, D = tables
    state[DUAL_VALUES] = T[T_DUAL_ALL_STALE]
    state[DUAL_VALUES + 1] = T[T_DUAL_ALL_STALE]
    return max(max(state[SUM], state[MIRROR_SUM]), _dual(state, 1 << 60, False, T, D))


@njit(cache=True, nogil=True, inline="always")
def pdb_dual_try(state, m, h, cutoff, tables):
    """:func:`pdb_try`, then, if that does not already exceed ``cutoff``, the dual estimate: kept from the parent
    where the move leaves the dual placements alone, else looked up afresh when the blank lands near home."""
    T, D = tables
    # push the dual values, and mark stale those the move changes (none for an illegal move)
    blank = state[BLANK]
    saved = DUAL_STACK + 2 * state[SP]
    change = T_DUAL_CHANGE + (blank * 4 + m) * 2
    values = state[DUAL_VALUES]
    mirror_values = state[DUAL_VALUES + 1]
    state[saved] = values
    state[saved + 1] = mirror_values
    state[DUAL_VALUES] = values | T[change]
    state[DUAL_VALUES + 1] = mirror_values | T[change + 1]
    useful = T[T_DUAL_USEFUL + blank * 4 + m]
    nh = pdb_try(state, m, h, cutoff, tables)
    if nh < 0 or nh > cutoff or useful == 0:
        return nh
    return max(nh, _dual(state, cutoff, True, T, D))


@njit(cache=True, nogil=True, inline="always")
def pdb_dual_undo(state, m, tables):
    pdb_undo(state, m, tables)
    saved = DUAL_STACK + 2 * state[SP]
    state[DUAL_VALUES] = state[saved]
    state[DUAL_VALUES + 1] = state[saved + 1]


@njit(cache=True, nogil=True)
def ida_pdb_dual(state, tables, max_bound, stop, progress, path_out):
    return ida_star(pdb_dual_heuristic, pdb_dual_try, pdb_dual_undo, pdb_is_goal, pruning(tables[0]), 4, state,
                    (unowned(tables[0]), unowned(tables[1])), max_bound,
                    stop, progress, path_out, True)


def search(board, tables, *, stop=None, progress=None, max_bound: int = MAX_PATH):
    """Run IDA* with the pattern databases and their dual lookups from ``board`` (``tables`` from
    :func:`pdb_dual_tables` and the databases).  Returns ``(moves, search_result, h0)`` like
    :func:`solver.sliding.search_kernels.search`."""
    state = new_state(board)
    pdb_setup(state, tables)
    h0 = pdb_dual_heuristic(state, tables)
    result = run_ida(ida_pdb_dual, state, tables, max_bound=max_bound, stop=stop, progress=progress)
    return [MOVE_NAMES[m] for m in result.moves], result, int(h0)
