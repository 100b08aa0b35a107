"""Ura-omote's board sizes and the layout of the ``params`` array its numba kernels read.

Shared by the model (:mod:`solver.ura.model`, which builds ``params``) and the kernels
(:mod:`solver.ura.kernels`), so neither imports the other.
"""

from __future__ import annotations

MIN_SIDE, MAX_SIDE = 2, 6

# params layout for the numba kernels (int64 array): a header of sizes, offsets and shifts, then tables.
# The rank reads one table per pair of mirrored rows (top | bottom << W) through MAX_PAIRS fixed
# slots plus one middle-row table; missing pairs and a missing middle row read an all-zero table.
MAX_PAIRS = MAX_SIDE // 2
P_W, P_H, P_MIRROR, P_COLS, P_MID_TABLE, P_MID_SHIFT, P_PAIR = range(7)  # P_PAIR + 3*i: table, top shift, bottom shift
P_HEADER = P_PAIR + 3 * MAX_PAIRS
