"""Move pruning by an automaton (Taylor and Korf): the automaton, the sliding puzzles' duplicate strings, and
that IDA* still finds shortest solutions, with fewer nodes."""

from __future__ import annotations

import itertools
import random
from collections import deque

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver.engines.move_automaton import parent_pruning, pruning_automaton
from solver.sliding import pruning as duplicates
from solver.sliding import search as fifteen
from solver.sliding import search_kernels as kernels
from solver.sliding.model import SlidingPuzzle

QUICK = (2, 4, 5, 9, 13, 19)  # Korf's instances that 6-6-3 solves in well under a second each


def accepts(automaton: np.ndarray, string) -> bool:
    state = 0
    for m in string:
        state = automaton[state, m]
        if state < 0:
            return False
    return True


# --- the automaton ----------------------------------------------------------------------------------

def test_parent_pruning_refuses_only_the_inverse_of_the_last_move():
    automaton = parent_pruning([3, 2, 1, 0])
    for first, second in itertools.product(range(4), repeat=2):
        assert accepts(automaton, (first, second)) == (first + second != 3)
    assert accepts(automaton, (0, 1, 0, 2, 0))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.integers(0, 2), min_size=1, max_size=4), min_size=1, max_size=6))
def test_the_automaton_refuses_exactly_the_strings_containing_a_forbidden_one(forbidden):
    automaton = pruning_automaton(forbidden, 3)
    words = [tuple(w) for w in forbidden]
    for length in range(7):
        for string in itertools.product(range(3), repeat=length):
            contains = any(string[i:i + len(w)] == w for w in words for i in range(length - len(w) + 1))
            assert accepts(automaton, string) == (not contains), (forbidden, string)


def test_the_automaton_refuses_bad_strings():
    with pytest.raises(ValueError):
        pruning_automaton([()], 4)
    with pytest.raises(ValueError):
        pruning_automaton([(0, 4)], 4)


# --- the sliding puzzles' duplicate strings ----------------------------------------------------------

def play(string, position=None):
    """The position (blank cell, displaced labels) after the blank walks ``string`` on an unbounded board,
    and the cells it walked."""
    blank, board = (0, 0), {}
    walked = {blank}
    for m in string:
        dr, dc = duplicates.BLANK_STEPS[m]
        step = (blank[0] + dr, blank[1] + dc)
        tile = board.pop(step, step)
        if tile != blank:
            board[blank] = tile
        blank = step
        walked.add(step)
    return (blank, frozenset(board.items())), frozenset(walked)


def first_string_within(cells, target, longest):
    """The shortlex-first string (kernel moves) that walks only ``cells`` and reaches ``target``: a plain
    breadth-first search, no pruning at all."""
    queue = deque([((), (0, 0), {})])
    seen = {((0, 0), frozenset())}
    while queue:
        string, blank, board = queue.popleft()
        if len(string) == longest:
            continue
        for m, (dr, dc) in enumerate(duplicates.BLANK_STEPS):
            step = (blank[0] + dr, blank[1] + dc)
            if step not in cells:
                continue
            after = dict(board)
            tile = after.pop(step, step)
            if tile != blank:
                after[blank] = tile
            position = (step, frozenset(after.items()))
            if position in seen:
                continue
            seen.add(position)
            if position == target:
                return string + (m,)
            queue.append((string + (m,), step, after))
    return None


def test_the_shipped_strings_are_what_the_generator_writes():
    shipped = duplicates.read_duplicates()
    assert len(shipped) > 2000 and max(map(len, shipped)) == duplicates.MAX_LENGTH
    assert duplicates.duplicate_strings(9) == [s for s in shipped if len(s) <= 9]


def test_every_shipped_string_has_an_earlier_twin_in_its_own_cells():
    """What makes pruning them safe, checked without the generator: a plain BFS confined to the string's cells
    reaches its position first by another string, no longer and earlier in shortlex order."""
    shipped = duplicates.read_duplicates()
    rng = random.Random(5)
    chosen = [s for s in shipped if len(s) <= 10] + rng.sample([s for s in shipped if len(s) > 10], 60)
    for text in chosen:
        string = tuple(duplicates.LETTERS.index(ch) for ch in text)
        target, cells = play(string)
        twin = () if target == play(())[0] else first_string_within(cells, target, len(string))
        assert twin is not None and twin != string, text
        assert (len(twin), twin) < (len(string), string), text


@pytest.mark.parametrize("width,height,deepest", [(4, 2, 36), (3, 3, 23)])
def test_every_board_keeps_a_shortest_path_the_automaton_allows(width, height, deepest):
    """BFS from the goal over (board, automaton state): every board up to ``deepest`` moves away (the 2x4 board:
    all) is reached at its true distance.

    Checked by counts, with no board ranked: every step is a real move, so a board first reached at depth d is at most
    d moves away; if, for every d, as many boards are first reached at d as the depth table has at d, then the boards
    reached within d are exactly those at most d away, so each board's depth is its distance."""
    puzzle = SlidingPuzzle(width, height)
    automaton = duplicates.automaton().tolist()  # Python lists: numpy's one-element reads would cost most of the time
    table = puzzle.depth_table()
    moves = kernels.move_table(width, height).reshape(-1, 4).tolist()
    start = (puzzle.goal, 0)
    depth_of = {puzzle.goal: 0}
    layer = [start]
    seen = {start}
    depth = 0
    while layer and depth < deepest:
        depth += 1
        grown = []
        for board, state in layer:
            blank = board.index(0)
            for m in range(4):
                source, after = moves[blank][m], automaton[state][m]
                if source < 0 or after < 0:
                    continue
                cells = list(board)
                cells[blank], cells[source] = cells[source], 0
                child = (tuple(cells), after)
                if child not in seen:
                    seen.add(child)
                    depth_of.setdefault(child[0], depth)
                    grown.append(child)
        layer = grown
    for blank in range(width * height):  # each kernel move slides a tile next to the blank into it
        for m in range(4):
            source = moves[blank][m]
            assert source < 0 or abs(source // width - blank // width) + abs(source % width - blank % width) == 1
    expected = table.histogram[:deepest + 1]
    assert np.bincount(list(depth_of.values()), minlength=len(expected)).tolist() == expected


def test_reversed_move_numbers_prune_the_same_strings():
    forward, reverse = duplicates.automaton(), duplicates.automaton(reverse=True)
    for text in duplicates.read_duplicates()[:300]:
        string = [duplicates.LETTERS.index(ch) for ch in text]
        assert not accepts(forward, string) and not accepts(reverse, [3 - m for m in string])
        assert accepts(forward, string[:-1]) and accepts(reverse, [3 - m for m in string[:-1]])


# --- the search -------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def pdb663():
    fifteen.build_tables("6-6-3")


def test_korf_instances_take_fewer_nodes_than_with_parent_pruning_only(pdb663):
    """The same lengths, every solution replayed; the duplicates pruned save nodes, with and without the dual."""
    chosen = fifteen.korf_subset(QUICK)
    for heuristic in ("pdb663", "pdb663+dual"):
        pruned = fifteen.run_set(chosen, heuristic)
        parent_only = fifteen.run_set(chosen, heuristic, parent_only=True)
        assert pruned["all_optimal"] and parent_only["all_optimal"]
        assert (pruned["pruning"], parent_only["pruning"]) == ("duplicates", "parent")
        assert pruned["nodes"] < 0.9 * parent_only["nodes"]


def test_parent_pruning_only_keeps_the_tables_but_the_automaton():
    table = kernels.pdb_tables(4, [list(range(1, 8)), list(range(8, 16))])
    plain = kernels.parent_pruning_only(table)
    start = int(table[kernels.T_PRUNING])
    assert plain[kernels.T_PRUNING_STATES] == 5 and table[kernels.T_PRUNING_STATES] > 5000
    keep = np.delete(np.arange(start), kernels.T_PRUNING_STATES)
    assert np.array_equal(plain[keep], table[keep])
    assert np.array_equal(plain[start:].reshape(5, 4), parent_pruning(kernels.INVERSE))
