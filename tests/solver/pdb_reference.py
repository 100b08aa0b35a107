"""A plain reference for pattern databases: a 0-1 BFS over (pattern cells, blank cell), for tests."""

from __future__ import annotations

from collections import deque

import numpy as np

from solver.engines.pdb import multipliers, n_placements, placement_rank


def brute_force_pattern(width, height, tiles):
    """The fewest pattern-tile moves for every placement (uint8 by placement rank, 255 where unreached): a 0-1 BFS
    over (pattern cells, blank cell) in which moving a pattern tile costs 1 and any other tile 0; a placement's
    value is the least over its blank cells."""
    cells = width * height
    beside = [[(r + dr) * width + c + dc for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1))
               if 0 <= r + dr < height and 0 <= c + dc < width] for r, c in (divmod(cell, width) for cell in range(cells))]
    start = (tuple(t - 1 for t in tiles), cells - 1)
    dist = {}
    queue = deque([(0, start)])
    while queue:
        d, state = queue.popleft()
        if state in dist:
            continue
        dist[state] = d
        pos, blank = state
        for cell in beside[blank]:
            if cell in pos:
                i = pos.index(cell)
                moved = (pos[:i] + (blank,) + pos[i + 1:], cell)
                if moved not in dist:
                    queue.append((d + 1, moved))
            elif (pos, cell) not in dist:
                queue.appendleft((d, (pos, cell)))
    nearest: dict[tuple[int, ...], int] = {}  # a placement's value: the least over its blank cells
    for (pos, _), d in dist.items():
        nearest[pos] = min(nearest.get(pos, d), d)
    best = np.full(n_placements(cells, len(tiles)), 255, np.uint8)
    mult = multipliers(cells, len(tiles))
    for pos, d in nearest.items():
        best[placement_rank(np.array(pos), len(tiles), mult)] = d
    return best
