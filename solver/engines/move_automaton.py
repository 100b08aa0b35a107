"""Move pruning for the IDA* engine: a finite automaton over the moves played (Taylor and Korf, 1993).

The engine keeps the automaton's state along its path, starting in state 0, and never plays move ``m``
from state ``s`` when ``automaton[s, m] < 0``; otherwise ``automaton[s, m]`` is the state after it.
:func:`parent_pruning` only forbids undoing the last move.  :func:`pruning_automaton` forbids every
move string that ends with one of a set of *duplicate* strings: strings that reach the same position
as another string, no longer and earlier in shortlex order, that is playable wherever they are.  Then
the shortlex-first shortest solution contains none of them, so IDA* still finds a shortest solution,
while it no longer walks the same positions along several paths.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence

import numpy as np


def parent_pruning(inverse: Sequence[int] | np.ndarray) -> np.ndarray:
    """The automaton that forbids only ``inverse[m]`` right after ``m`` (state 1 + m: the last move was m)."""
    n_moves = len(inverse)
    automaton = np.empty((n_moves + 1, n_moves), np.int64)
    for state in range(n_moves + 1):
        for m in range(n_moves):
            banned = state > 0 and inverse[state - 1] == m
            automaton[state, m] = -1 if banned else 1 + m
    return automaton


def pruning_automaton(forbidden: Iterable[Sequence[int]], n_moves: int) -> np.ndarray:
    """The automaton (Aho-Corasick) of the strings that end with any of ``forbidden``.

    Its states are the proper prefixes of the forbidden strings that contain none of them; a move that
    completes a forbidden string, as a suffix of the moves played, is refused.
    """
    children: list[dict[int, int]] = [{}]
    final = [False]
    for string in forbidden:
        node = 0
        for m in string:
            if not 0 <= m < n_moves:
                raise ValueError(f"move {m} out of range")
            if m not in children[node]:
                children[node][m] = len(children)
                children.append({})
                final.append(False)
            node = children[node][m]
        if node == 0:
            raise ValueError("the empty string cannot be forbidden")
        final[node] = True
    # breadth first: each node's longest proper suffix in the trie (its failure), and whether any suffix is final
    # (in Python lists, made an array once at the end: indexing an array one element at a time is slow)
    failure = [0] * len(children)
    goto = [[-1] * n_moves for _ in children]
    order = deque([0])
    while order:
        node = order.popleft()
        row, fallback = goto[node], goto[failure[node]]
        for m in range(n_moves):
            child = children[node].get(m)
            if child is None:
                row[m] = fallback[m] if node else 0
                continue
            row[m] = child
            failure[child] = fallback[m] if node else 0
            final[child] = final[child] or final[failure[child]]
            order.append(child)
    # renumber the states that are not final: 0 stays the root
    alive = [node for node in range(len(children)) if not final[node]]
    number = {node: i for i, node in enumerate(alive)}
    rows = [[-1 if final[target] else number[target] for target in goto[node]] for node in alive]
    return np.array(rows, np.int64).reshape(len(alive), n_moves)
