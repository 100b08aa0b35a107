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
    start = (tuple(t - 1 for t in tiles), cells - 1)
    dist = {}
    queue = deque([(0, start)])
    while queue:
        d, (pos, blank) = queue.popleft()
        if (pos, blank) in dist:
            continue
        dist[(pos, blank)] = d
        r, c = divmod(blank, width)
        for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            if 0 <= r + dr < height and 0 <= c + dc < width:
                cell = (r + dr) * width + c + dc
                if cell in pos:
                    moved = tuple(blank if p == cell else p for p in pos)
                    queue.append((d + 1, (moved, cell)))
                else:
                    queue.appendleft((d, (pos, cell)))
    best = np.full(n_placements(cells, len(tiles)), 255, np.uint8)
    mult = multipliers(cells, len(tiles))
    for (pos, _), d in dist.items():
        r = placement_rank(np.array(pos), len(tiles), mult)
        best[r] = min(best[r], d)
    return best
