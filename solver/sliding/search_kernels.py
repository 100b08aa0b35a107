"""IDA* kernels for sliding puzzles: Manhattan + linear conflict, walking distance, pattern databases.

Every heuristic plugs into the shared engine :func:`solver.engines.idastar.ida_star` through four kernels
that work on one int64 ``state`` array and the heuristic's tables (layouts below).  Every estimate is updated incrementally, in O(1) for Manhattan +
linear conflict and walking distance, and with one pattern rank per side for the databases.

Moves (kernel order): the blank goes up, left, right, down; as tile moves those are D, R, L, U.
"""

from __future__ import annotations

import numpy as np

from solver.engines.idastar import MAX_PATH, ida_iteration, ida_star, run_ida, unowned
from solver.engines.jit import njit
from solver.engines.move_automaton import parent_pruning
from solver.sliding import pruning as sliding_pruning

MAX_CELLS = 25
MOVE_NAMES = "DRLU"  # the tile's direction for kernel moves 0..3
INVERSE = np.array([3, 2, 1, 0], dtype=np.int64)

# --- state layout ----------------------------------------------------------------------------
BLANK = MAX_CELLS               # state[0:cells] is the board, state[BLANK] the blank's cell
POS = 26                        # state[POS + tile]: the cell of each tile (set up at the start only)
ROW_CODE = 52                   # linear conflict: one code per row and per column
COL_CODE = 58
ROW_WD = 64                     # walking distance: the matrix index per axis
COL_WD = 65
MDLC_VALUE = 66                 # walking distance keeps Manhattan + linear conflict beside it
MIRROR_POS = 70                 # pattern databases: the same for the board reflected about the diagonal
MIRROR_BOARD = 96               # ... and that board itself
VALUES = 122                    # pattern values and ranks, this side then the mirror side (4 groups at most)
MIRROR_VALUES = 126
RANKS = 130
MIRROR_RANKS = 134
SUM = 138
MIRROR_SUM = 139
DUAL_VALUES = 140               # the dual lookups' values (solver.sliding.dual), this side's word, the mirror's
SP = 142                        # undo stack: the two replaced pattern values and ranks per move
STACK = 143
DUAL_STACK = STACK + 4 * (MAX_PATH + 2)  # per move: the two words of dual values it replaced
DUAL_ENTRIES = DUAL_STACK + 2 * (MAX_PATH + 2)  # scratch: the entries of D being looked up (4 at most)
STATE_SIZE = DUAL_ENTRIES + 4

# Every heuristic's tables are ONE flat int64 array ``T`` (plus one uint8 array of pattern values
# for the databases): pulling several arrays out of a tuple in the hot loop costs numba a reference
# count update each, which made the search several times slower.  The common part:
T_WIDTH, T_HEIGHT, T_CELLS = 0, 1, 2
T_PRUNING, T_PRUNING_STATES = 4, 5  # where the move-pruning automaton's rows start in T, and how many (with_pruning)
T_MOVES = 8                     # T[T_MOVES + cell * 4 + m]: the cell whose tile slides into the blank at cell
T_ROW_OF = T_MOVES + 4 * MAX_CELLS
T_COL_OF = T_ROW_OF + MAX_CELLS
T_COMMON = T_COL_OF + MAX_CELLS
MAX_GROUP = 8


def move_table(width: int, height: int) -> np.ndarray:
    """``table[cell * 4 + m]``: the cell whose tile slides into the blank at ``cell`` on move ``m`` (-1: none)."""
    cells = width * height
    table = np.full(cells * 4, -1, np.int64)
    for cell in range(cells):
        r, c = divmod(cell, width)
        if r > 0:
            table[cell * 4 + 0] = cell - width
        if c > 0:
            table[cell * 4 + 1] = cell - 1
        if c < width - 1:
            table[cell * 4 + 2] = cell + 1
        if r < height - 1:
            table[cell * 4 + 3] = cell + width
    return table


def _common(width: int, height: int, size: int, reverse: bool = False) -> np.ndarray:
    """The common part of a heuristic's table; ``reverse`` numbers the moves from the blank going down
    (kernel move ``m`` is then move ``3 - m``; see :func:`move_names`)."""
    cells = width * height
    table = np.zeros(size, np.int64)
    table[T_WIDTH], table[T_HEIGHT], table[T_CELLS] = width, height, cells
    moves = move_table(width, height)
    if reverse:
        moves = moves.reshape(cells, 4)[:, ::-1].reshape(-1)
    table[T_MOVES:T_MOVES + 4 * cells] = moves
    for cell in range(cells):
        table[T_ROW_OF + cell], table[T_COL_OF + cell] = divmod(cell, width)
    return table


def with_pruning(table: np.ndarray, reverse: bool = False) -> np.ndarray:
    """``table`` followed by the automaton of duplicate move strings that IDA* never plays
    (:mod:`solver.sliding.pruning`), its place in ``T[T_PRUNING]`` (``reverse``: see :func:`_common`)."""
    rows = sliding_pruning.automaton(reverse)
    out = np.concatenate([table, rows.reshape(-1).astype(np.int64)])
    out[T_PRUNING], out[T_PRUNING_STATES] = len(table), len(rows)
    return out


def parent_pruning_only(table: np.ndarray) -> np.ndarray:
    """A copy of ``table`` (from :func:`with_pruning`) whose automaton only forbids undoing the last move: the
    pruning behind the published node counts, for comparison (``koma bench``, tests)."""
    rows = parent_pruning(INVERSE)
    start = int(table[T_PRUNING])
    out = np.concatenate([table[:start], rows.reshape(-1)])
    out[T_PRUNING_STATES] = len(rows)
    return out


@njit(cache=True, nogil=True, inline="always")
def pruning(T):
    """The automaton that :func:`with_pruning` put in ``T``, for :func:`solver.engines.idastar.ida_star`."""
    start = T[T_PRUNING]
    return unowned(T)[start:start + 4 * T[T_PRUNING_STATES]].reshape((T[T_PRUNING_STATES], 4))


def new_state(board) -> np.ndarray:
    """The kernel state for ``board`` (heuristic fields are filled by the heuristic's setup)."""
    state = np.zeros(STATE_SIZE, np.int64)
    for cell, tile in enumerate(board):
        state[cell] = tile
        state[POS + tile] = cell
    state[BLANK] = list(board).index(0)
    return state


@njit(cache=True, nogil=True, inline="always")
def is_goal(state, tables):
    cells = tables[T_CELLS]
    for c in range(cells - 1):
        if state[c] != c + 1:
            return False
    return True


@njit(cache=True, nogil=True, inline="always")
def _slide(state, source, target):
    """Move the tile at ``source`` into the blank at ``target``; returns the tile."""
    tile = state[source]
    state[target] = tile
    state[source] = 0
    state[BLANK] = source
    return tile


# --- Manhattan distance + linear conflict ---------------------------------------------------------
# A row's code has one base-(W+1) digit per cell: 1 + the goal column of a tile that belongs in
# this row, else 0.  Its conflict value is 2 x (tiles that belong here - the longest run of them
# already in goal order), the "LIS form" of Hansson, Mayer & Yung's linear conflict.  A move
# changes the members of two rows (vertical) or two columns (horizontal), and only those.
T_MANHATTAN = T_COMMON                           # [tile * MAX_CELLS + cell]
T_ROW_DIGIT = T_MANHATTAN + MAX_CELLS * MAX_CELLS  # [row * MAX_CELLS + tile]
T_COL_DIGIT = T_ROW_DIGIT + MAX_CELLS * MAX_CELLS  # [col * MAX_CELLS + tile]
T_ROW_POWER = T_COL_DIGIT + MAX_CELLS * MAX_CELLS  # [col]: (W+1)^col
T_COL_POWER = T_ROW_POWER + 5                      # [row]: (H+1)^row
T_ROW_CONFLICT = T_COL_POWER + 5                   # [code], 6^5 codes at most
T_COL_CONFLICT = T_ROW_CONFLICT + 6 ** 5
T_MDLC_SIZE = T_COL_CONFLICT + 6 ** 5


def _conflict_table(length: int) -> np.ndarray:
    base = length + 1
    table = np.zeros(base ** length, np.int64)
    for code in range(base ** length):
        goals = []
        x = code
        for _ in range(length):
            d = x % base
            x //= base
            if d:
                goals.append(d - 1)
        longest = [1] * len(goals)
        for i in range(len(goals)):
            for j in range(i):
                if goals[j] < goals[i]:
                    longest[i] = max(longest[i], longest[j] + 1)
        table[code] = 2 * (len(goals) - (max(longest) if goals else 0))
    return table


def mdlc_tables(width: int, height: int) -> np.ndarray:
    cells = width * height
    table = _common(width, height, T_MDLC_SIZE)
    for tile in range(1, cells):
        gr, gc = divmod(tile - 1, width)
        for cell in range(cells):
            r, c = divmod(cell, width)
            table[T_MANHATTAN + tile * MAX_CELLS + cell] = abs(r - gr) + abs(c - gc)
        table[T_ROW_DIGIT + gr * MAX_CELLS + tile] = gc + 1
        table[T_COL_DIGIT + gc * MAX_CELLS + tile] = gr + 1
    for c in range(width):
        table[T_ROW_POWER + c] = (width + 1) ** c
    for r in range(height):
        table[T_COL_POWER + r] = (height + 1) ** r
    rows, cols = _conflict_table(width), _conflict_table(height)
    table[T_ROW_CONFLICT:T_ROW_CONFLICT + len(rows)] = rows
    table[T_COL_CONFLICT:T_COL_CONFLICT + len(cols)] = cols
    return with_pruning(table)


@njit(cache=True, nogil=True)
def mdlc_setup(state, T):
    """Fill the line codes of ``state`` and return its Manhattan + linear conflict estimate."""
    width, height = T[T_WIDTH], T[T_HEIGHT]
    h = 0
    for r in range(height):
        code = 0
        for c in range(width):
            tile = state[r * width + c]
            if tile != 0:
                h += T[T_MANHATTAN + tile * MAX_CELLS + r * width + c]
            code += T[T_ROW_DIGIT + r * MAX_CELLS + tile] * T[T_ROW_POWER + c]
        state[ROW_CODE + r] = code
        h += T[T_ROW_CONFLICT + code]
    for c in range(width):
        code = 0
        for r in range(height):
            code += T[T_COL_DIGIT + c * MAX_CELLS + state[r * width + c]] * T[T_COL_POWER + r]
        state[COL_CODE + c] = code
        h += T[T_COL_CONFLICT + code]
    return h


@njit(cache=True, nogil=True, inline="always")
def _mdlc_slide(state, source, target, T):
    """Slide the tile at ``source`` into the blank at ``target``; return the change of the estimate."""
    return _mdlc_update(state, _slide(state, source, target), source, target, T)


@njit(cache=True, nogil=True, inline="always")
def _mdlc_update(state, tile, source, target, T):
    """Update the line codes after ``tile`` slid from ``source`` to ``target``; return the change."""
    delta = T[T_MANHATTAN + tile * MAX_CELLS + target] - T[T_MANHATTAN + tile * MAX_CELLS + source]
    rs, rt = T[T_ROW_OF + source], T[T_ROW_OF + target]
    cs, ct = T[T_COL_OF + source], T[T_COL_OF + target]
    if rs != rt:  # vertical: rows rs and rt change members; column cs keeps them in order
        a, b = ROW_CODE + rs, ROW_CODE + rt
        delta -= T[T_ROW_CONFLICT + state[a]] + T[T_ROW_CONFLICT + state[b]]
        state[a] -= T[T_ROW_DIGIT + rs * MAX_CELLS + tile] * T[T_ROW_POWER + cs]
        state[b] += T[T_ROW_DIGIT + rt * MAX_CELLS + tile] * T[T_ROW_POWER + cs]
        delta += T[T_ROW_CONFLICT + state[a]] + T[T_ROW_CONFLICT + state[b]]
        state[COL_CODE + cs] += T[T_COL_DIGIT + cs * MAX_CELLS + tile] * (T[T_COL_POWER + rt] - T[T_COL_POWER + rs])
    else:
        a, b = COL_CODE + cs, COL_CODE + ct
        delta -= T[T_COL_CONFLICT + state[a]] + T[T_COL_CONFLICT + state[b]]
        state[a] -= T[T_COL_DIGIT + cs * MAX_CELLS + tile] * T[T_COL_POWER + rs]
        state[b] += T[T_COL_DIGIT + ct * MAX_CELLS + tile] * T[T_COL_POWER + rs]
        delta += T[T_COL_CONFLICT + state[a]] + T[T_COL_CONFLICT + state[b]]
        state[ROW_CODE + rs] += T[T_ROW_DIGIT + rs * MAX_CELLS + tile] * (T[T_ROW_POWER + ct] - T[T_ROW_POWER + cs])
    return delta


@njit(cache=True, nogil=True, inline="always")
def mdlc_heuristic(state, T):
    return mdlc_setup(state, T)


@njit(cache=True, nogil=True, inline="always")
def mdlc_try(state, m, h, cutoff, T):
    blank = state[BLANK]
    source = T[T_MOVES + blank * 4 + m]
    if source < 0:
        return -1
    return h + _mdlc_slide(state, source, blank, T)


@njit(cache=True, nogil=True, inline="always")
def mdlc_undo(state, m, T):
    blank = state[BLANK]
    _mdlc_slide(state, T[T_MOVES + blank * 4 + 3 - m], blank, T)


@njit(cache=True, nogil=True)
def ida_mdlc(state, tables, max_bound, stop, progress, path_out):
    return ida_star(mdlc_heuristic, mdlc_try, mdlc_undo, is_goal, pruning(tables), 4, state, unowned(tables), max_bound,
                    stop, progress, path_out)


# --- walking distance (max with Manhattan + linear conflict) ----------------------------------------
# Walking distance and Manhattan + linear conflict each win on some boards (on Korf's instances
# neither dominates), and both update in O(1), so "wd" searches with the larger of the two.  The
# table is the Manhattan + linear conflict one followed by the goal line of each tile per axis and
# the two axes' walking-distance tables, at offsets stored in the table itself.
T_GOAL_ROW = T_MDLC_SIZE
T_GOAL_COL = T_GOAL_ROW + MAX_CELLS
T_WD_ROW_DISTANCE = T_GOAL_COL + MAX_CELLS   # these four hold offsets into T
T_WD_ROW_NEXT = T_WD_ROW_DISTANCE + 1
T_WD_COL_DISTANCE = T_WD_ROW_DISTANCE + 2
T_WD_COL_NEXT = T_WD_ROW_DISTANCE + 3
T_WD_DATA = T_WD_ROW_DISTANCE + 4


def wd_tables(width: int, height: int) -> np.ndarray:
    from solver.sliding.walking_distance import walking_table

    rows = walking_table(height, width)
    cols = walking_table(width, height)
    parts = [rows.distance, rows.successor, cols.distance, cols.successor]
    table = np.zeros(T_WD_DATA + sum(len(p) for p in parts), np.int64)
    table[:T_MDLC_SIZE] = mdlc_tables(width, height)[:T_MDLC_SIZE]
    for tile in range(1, width * height):
        table[T_GOAL_ROW + tile], table[T_GOAL_COL + tile] = divmod(tile - 1, width)
    offset = T_WD_DATA
    for slot, part in zip((T_WD_ROW_DISTANCE, T_WD_ROW_NEXT, T_WD_COL_DISTANCE, T_WD_COL_NEXT), parts):
        table[slot] = offset
        table[offset:offset + len(part)] = part
        offset += len(part)
    return with_pruning(table)


def wd_setup(state: np.ndarray, T: np.ndarray, board) -> int:
    """Fill the walking-distance matrices and line codes of ``state``; return the estimate."""
    from solver.sliding.walking_distance import walking_table

    width, height = int(T[T_WIDTH]), int(T[T_HEIGHT])
    rows = walking_table(height, width)
    cols = walking_table(width, height)
    state[ROW_WD] = rows.matrix_of(board, lambda c: c // width, lambda t: (t - 1) // width)
    state[COL_WD] = cols.matrix_of(board, lambda c: c % width, lambda t: (t - 1) % width)
    state[MDLC_VALUE] = mdlc_setup(state, T)
    return max(int(rows.distance[state[ROW_WD]] + cols.distance[state[COL_WD]]), int(state[MDLC_VALUE]))


@njit(cache=True, nogil=True, inline="always")
def _wd_update(state, tile, m, T):
    """Update the walking-distance matrices after ``tile`` moved (kernel move ``m`` of the blank)."""
    if m == 0 or m == 3:
        lines = T[T_HEIGHT]
        s = state[ROW_WD] * 2 + (m == 3)
        state[ROW_WD] = T[T[T_WD_ROW_NEXT] + s * lines + T[T_GOAL_ROW + tile]]
    else:
        lines = T[T_WIDTH]
        s = state[COL_WD] * 2 + (m == 2)
        state[COL_WD] = T[T[T_WD_COL_NEXT] + s * lines + T[T_GOAL_COL + tile]]


@njit(cache=True, nogil=True, inline="always")
def _wd_value(state, T):
    walking = T[T[T_WD_ROW_DISTANCE] + state[ROW_WD]] + T[T[T_WD_COL_DISTANCE] + state[COL_WD]]
    return max(walking, state[MDLC_VALUE])


@njit(cache=True, nogil=True, inline="always")
def wd_heuristic(state, T):
    return _wd_value(state, T)


@njit(cache=True, nogil=True, inline="always")
def _wd_slide(state, source, m, T):
    """Kernel move ``m``: slide the tile at ``source`` into the blank; update both estimates' fields."""
    blank = state[BLANK]
    tile = _slide(state, source, blank)
    state[MDLC_VALUE] += _mdlc_update(state, tile, source, blank, T)
    _wd_update(state, tile, m, T)


@njit(cache=True, nogil=True, inline="always")
def wd_try(state, m, h, cutoff, T):
    source = T[T_MOVES + state[BLANK] * 4 + m]
    if source < 0:
        return -1
    _wd_slide(state, source, m, T)
    return _wd_value(state, T)


@njit(cache=True, nogil=True, inline="always")
def wd_undo(state, m, T):
    _wd_slide(state, T[T_MOVES + state[BLANK] * 4 + 3 - m], 3 - m, T)


@njit(cache=True, nogil=True)
def ida_wd(state, tables, max_bound, stop, progress, path_out):
    return ida_star(wd_heuristic, wd_try, wd_undo, is_goal, pruning(tables), 4, state, unowned(tables), max_bound,
                    stop, progress, path_out)


# --- additive pattern databases, with the reflection about the main diagonal ------------------------
# tables = (T, D): T as below, D every group's database (uint8) end to end, group g from
# T[T_GROUP_BASE + g].
#
# Reflecting a square board about its main diagonal maps the goal to itself once tile
# t = W*r + c + 1 is renamed W*c + r + 1, so the reflected board has the same distance and the
# same databases give a second estimate; the larger of the two is used.  A move changes one tile,
# hence one group on each side, and its rank changes by an amount that depends only on the group's
# tiles lying between the tile's old and new cell: none for a sideways move, at most W-1 for a
# vertical one (a sideways move on the board is a vertical one on its reflection).
T_GROUPS = 3
T_GROUP_OF = T_COMMON                         # [tile]
T_INDEX_OF = T_GROUP_OF + MAX_CELLS           # [tile]: its place in its group
T_MULT_OF = T_INDEX_OF + MAX_CELLS            # [tile]: the weight of its digit in the group's rank
T_GROUP_TILES = T_MULT_OF + MAX_CELLS         # [g * MAX_GROUP + i]
T_GROUP_SIZE = T_GROUP_TILES + 4 * MAX_GROUP  # [g]
T_GROUP_BASE = T_GROUP_SIZE + 4               # [g]: offset of group g's values in D
T_REFLECT_CELL = T_GROUP_BASE + 4             # [cell]
T_REFLECT_TILE = T_REFLECT_CELL + MAX_CELLS   # [tile]
T_PDB_SIZE = T_REFLECT_TILE + MAX_CELLS


def move_names(reverse: bool) -> str:
    """The tile's direction of each kernel move, for tables made with or without ``reverse``."""
    return MOVE_NAMES[::-1] if reverse else MOVE_NAMES


def pdb_tables(width: int, groups, reverse: bool = False) -> np.ndarray:
    """The int64 table for the pattern ``groups`` (lists of tiles) of a square board (``reverse``: see :func:`_common`).

    The groups partition the tiles, or (tests) cover some of them: then the databases need one more
    entry, a 0, at their end for the tiles of no group.
    """
    from solver.engines.pdb import multipliers, n_placements

    cells = width * width
    table = _common(width, width, T_PDB_SIZE, reverse)
    table[T_GROUPS] = len(groups)
    table[T_GROUP_OF:T_GROUP_OF + MAX_CELLS] = -1
    base = 0
    for g, tiles in enumerate(groups):
        table[T_GROUP_SIZE + g] = len(tiles)
        table[T_GROUP_BASE + g] = base
        base += n_placements(cells, len(tiles))
        m = multipliers(cells, len(tiles))
        for i, tile in enumerate(tiles):
            table[T_GROUP_OF + tile] = g
            table[T_INDEX_OF + tile] = i
            table[T_MULT_OF + tile] = m[i]
            table[T_GROUP_TILES + g * MAX_GROUP + i] = tile
    rest = [t for t in range(1, cells) if table[T_GROUP_OF + t] < 0]
    if rest:  # a partial partition (tests): the other tiles form a group of weight 0, whose one entry D[base] is 0
        if len(groups) >= 4:
            raise ValueError("a partial partition has at most 3 groups")
        table[T_GROUP_BASE + len(groups)] = base
        for tile in rest:
            table[T_GROUP_OF + tile] = len(groups)
    for cell in range(cells):
        table[T_REFLECT_CELL + cell] = (cell % width) * width + cell // width
    for tile in range(1, cells):
        table[T_REFLECT_TILE + tile] = table[T_REFLECT_CELL + tile - 1] + 1
    return with_pruning(table, reverse)


@njit(cache=True, nogil=True, inline="always")
def _rank_change(state, board, tile, g, source, target, T):
    """How the rank of ``tile``'s group ``g`` changes when it moves from ``source`` to ``target``.

    ``state[board + cell]`` is the board.  Only the group's tiles strictly between the two cells
    (in reading order) matter: an earlier one shifts this tile's digit, a later one has its own
    digit shifted by one.  A sideways move has none in between.
    """
    i = T[T_INDEX_OF + tile]
    low, high = (source, target) if source < target else (target, source)
    earlier = 0
    later = 0
    for c in range(low + 1, high):
        other = state[board + c]
        if other != 0 and T[T_GROUP_OF + other] == g:
            if T[T_INDEX_OF + other] < i:
                earlier += 1
            else:
                later += T[T_MULT_OF + other]
    change = T[T_MULT_OF + tile] * (high - low - earlier) + later
    return change if source < target else -change


def _group_rank(positions: list[int], g: int, T: list[int]) -> int:
    """The rank of group ``g``'s placement for the tile cells ``positions[tile]``."""
    used = 0
    r = 0
    for i in range(T[T_GROUP_SIZE + g]):
        tile = T[T_GROUP_TILES + g * MAX_GROUP + i]
        p = positions[tile]
        r += (p - (used & ((1 << p) - 1)).bit_count()) * T[T_MULT_OF + tile]
        used |= 1 << p
    return r


def pdb_setup(state: np.ndarray, tables) -> int:
    """Fill the mirror board, ranks and pattern values of ``state``; return the estimate.

    In Python: it runs once per search, and a kernel of its own cost a fresh install a second of compiling."""
    T, D = tables
    head = T[:T_PDB_SIZE].tolist()
    cells = head[T_CELLS]
    positions = state[POS:POS + MAX_CELLS].tolist()
    mirror = [0] * MAX_CELLS
    for tile in range(1, cells):
        cell = head[T_REFLECT_CELL + positions[tile]]
        mirror[head[T_REFLECT_TILE + tile]] = cell
        state[MIRROR_BOARD + cell] = head[T_REFLECT_TILE + tile]
    state[MIRROR_POS + 1:MIRROR_POS + cells] = mirror[1:cells]
    state[MIRROR_BOARD + head[T_REFLECT_CELL + int(state[BLANK])]] = 0
    total = 0
    mirror_total = 0
    for g in range(head[T_GROUPS]):
        r = _group_rank(positions, g, head)
        q = _group_rank(mirror, g, head)
        state[RANKS + g] = r
        state[MIRROR_RANKS + g] = q
        v = int(D[head[T_GROUP_BASE + g] + r])
        w = int(D[head[T_GROUP_BASE + g] + q])
        state[VALUES + g] = v
        state[MIRROR_VALUES + g] = w
        total += v
        mirror_total += w
    state[SUM] = total
    state[MIRROR_SUM] = mirror_total
    state[SP] = 0
    return max(total, mirror_total)


@njit(cache=True, nogil=True, inline="always")
def pdb_heuristic(state, tables):
    return max(state[SUM], state[MIRROR_SUM])


@njit(cache=True, nogil=True, inline="always")
def _mirror_slide(state, tile, source, target, T):
    """Play the move of ``tile`` from ``source`` to ``target`` on the reflected board; return the reflected tile."""
    mirror_tile = T[T_REFLECT_TILE + tile]
    state[MIRROR_BOARD + T[T_REFLECT_CELL + target]] = mirror_tile
    state[MIRROR_BOARD + T[T_REFLECT_CELL + source]] = 0
    return mirror_tile


@njit(cache=True, nogil=True, inline="always")
def pdb_try(state, m, h, cutoff, tables):
    """Play move ``m`` and return the new estimate (-1: not legal here), updating this side's pattern and, unless
    that alone exceeds ``cutoff``, the mirror side's (see :mod:`solver.engines.idastar`)."""
    T, D = tables
    blank = state[BLANK]
    source = T[T_MOVES + blank * 4 + m]
    if source < 0:
        return -1
    tile = _slide(state, source, blank)
    g = T[T_GROUP_OF + tile]
    r = state[RANKS + g] + _rank_change(state, 0, tile, g, source, blank, T)
    mirror_tile = _mirror_slide(state, tile, source, blank, T)
    g2 = T[T_GROUP_OF + mirror_tile]
    sp = STACK + 4 * state[SP]
    state[sp] = state[VALUES + g]
    state[sp + 1] = state[MIRROR_VALUES + g2]
    state[sp + 2] = state[RANKS + g]
    state[sp + 3] = state[MIRROR_RANKS + g2]
    state[SP] += 1
    v = np.int64(D[T[T_GROUP_BASE + g] + r])
    total = state[SUM] + v - state[VALUES + g]
    state[VALUES + g] = v
    state[RANKS + g] = r
    state[SUM] = total
    if total > cutoff:
        # pruned on this side alone: the engine undoes the move at once, and the undo restores the
        # mirror side from the stack, so its rank and its (memory-bound) lookup are skipped
        return total
    q = state[MIRROR_RANKS + g2] + _rank_change(state, MIRROR_BOARD, mirror_tile, g2, T[T_REFLECT_CELL + source],
                                                T[T_REFLECT_CELL + blank], T)
    w = np.int64(D[T[T_GROUP_BASE + g2] + q])
    mirror_total = state[MIRROR_SUM] + w - state[MIRROR_VALUES + g2]
    state[MIRROR_VALUES + g2] = w
    state[MIRROR_RANKS + g2] = q
    state[MIRROR_SUM] = mirror_total
    return max(total, mirror_total)


@njit(cache=True, nogil=True, inline="always")
def pdb_undo(state, m, tables):
    """Take move ``m`` back, the values and ranks it replaced from the stack."""
    T = tables[0]
    blank = state[BLANK]
    source = T[T_MOVES + blank * 4 + 3 - m]
    tile = _slide(state, source, blank)
    mirror_tile = _mirror_slide(state, tile, source, blank, T)
    g = T[T_GROUP_OF + tile]
    g2 = T[T_GROUP_OF + mirror_tile]
    state[SP] -= 1
    sp = STACK + 4 * state[SP]
    v = state[sp]
    w = state[sp + 1]
    state[SUM] += v - state[VALUES + g]
    state[MIRROR_SUM] += w - state[MIRROR_VALUES + g2]
    state[VALUES + g] = v
    state[MIRROR_VALUES + g2] = w
    state[RANKS + g] = state[sp + 2]
    state[MIRROR_RANKS + g2] = state[sp + 3]


@njit(cache=True, nogil=True, inline="always")
def pdb_is_goal(state, tables):
    """:func:`is_goal` on the databases' table (written out: each inlined call costs the search's compile)."""
    T = tables[0]
    for c in range(T[T_CELLS] - 1):
        if state[c] != c + 1:
            return False
    return True


@njit(cache=True, nogil=True)
def ida_pdb(state, tables, max_bound, stop, progress, path_out):
    return ida_star(pdb_heuristic, pdb_try, pdb_undo, pdb_is_goal, pruning(tables[0]), 4, state,
                    (unowned(tables[0]), unowned(tables[1])), max_bound,
                    stop, progress, path_out)


@njit(cache=True, nogil=True)
def ida_pdb_iteration(state, tables, h0, bound, split_depth, claim, stop, halt, counters, path_out):
    """One iteration of IDA* with the pattern databases, on one worker of a split search."""
    return ida_iteration(pdb_try, pdb_undo, pdb_is_goal, pruning(tables[0]), 4, unowned(state),
                         (unowned(tables[0]), unowned(tables[1])), h0, bound, split_depth, claim, stop, halt,
                         counters, path_out)


# --- driver -----------------------------------------------------------------------------------------

def search(kind: str, board, tables, *, stop=None, progress=None, max_bound: int = MAX_PATH):
    """Run IDA* with heuristic ``kind`` (``"mdlc"``, ``"wd"`` or ``"pdb"``) from ``board``.

    Returns ``(moves, search_result, h0)`` with moves as tile-direction letters.
    """
    state = new_state(board)
    if kind == "mdlc":
        h0 = mdlc_setup(state, tables)
        kernel = ida_mdlc
    elif kind == "wd":
        h0 = wd_setup(state, tables, board)
        kernel = ida_wd
    elif kind == "pdb":
        h0 = pdb_setup(state, tables)
        kernel = ida_pdb
    else:
        raise ValueError(kind)
    result = run_ida(kernel, state, tables, max_bound=max_bound, stop=stop, progress=progress)
    return [MOVE_NAMES[m] for m in result.moves], result, int(h0)
