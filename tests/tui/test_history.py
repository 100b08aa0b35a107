"""The game history (tui/game/history.py) against a plain model: play, undo, redo and restart on real 8-puzzle boards."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from solver.registry import get_puzzle
from tui.game.history import HINT, KOMA, ORIGINS, PLAYER, GameHistory

PUZZLE = get_puzzle("8")
START = PUZZLE.parse("1 2 3/4 _ 5/6 7 8")


class HistoryMachine(RuleBasedStateMachine):
    """A model keeps the moves behind the board shown and the moves ahead of it (those redo replays)."""

    def __init__(self):
        super().__init__()
        self.history = GameHistory.starting_at(START)
        self.behind: list[tuple[str, str]] = []  # (move, origin) up to the board shown
        self.ahead: list[tuple[str, str]] = []  # the undone moves, nearest first

    @rule(choice=st.integers(0, 3), origin=st.sampled_from(ORIGINS))
    def play(self, choice, origin):
        legal = PUZZLE.moves(self.history.state)
        move = legal[choice % len(legal)]
        self.history.play(move, PUZZLE.apply(self.history.state, move), origin)
        self.behind.append((move, origin))
        self.ahead = []

    @rule()
    def undo(self):
        undone = self.history.undo()
        if self.behind:
            assert undone == self.behind[-1][0]
            self.ahead.insert(0, self.behind.pop())
        else:
            assert undone is None

    @rule()
    def redo(self):
        redone = self.history.redo()
        if self.ahead:
            assert redone == self.ahead[0][0]
            self.behind.append(self.ahead.pop(0))
        else:
            assert redone is None

    @rule()
    def restart(self):
        moved = self.history.restart()
        assert moved == bool(self.behind)
        self.ahead = self.behind + self.ahead
        self.behind = []

    @invariant()
    def matches_the_model(self):
        history = self.history
        assert history.position == len(self.behind)
        assert history.moves == [m for m, _ in self.behind + self.ahead]
        assert history.origins == [o for _, o in self.behind + self.ahead]
        board = START
        for move, _ in self.behind:  # the board shown is the start with the moves behind replayed
            board = PUZZLE.apply(board, move)
        assert history.state == board and history.start == START
        assert history.can_undo == bool(self.behind) and history.can_redo == bool(self.ahead)
        assert history.koma_played == any(o == KOMA for _, o in self.behind)
        assert history.last_origin == (self.behind[-1][1] if self.behind else None)


TestHistoryMachine = HistoryMachine.TestCase


@given(st.lists(st.integers(0, 3), min_size=1, max_size=40))
def test_restart_then_redo_everything_returns_to_the_end(choices):
    history = GameHistory.starting_at(START)
    for choice in choices:
        legal = PUZZLE.moves(history.state)
        move = legal[choice % len(legal)]
        history.play(move, PUZZLE.apply(history.state, move))
    end, moves = history.state, list(history.moves)
    assert history.restart() and history.state == START
    while history.redo() is not None:
        pass
    assert history.state == end and history.moves == moves and history.position == len(moves)


def test_a_move_after_undo_drops_the_moves_ahead():
    history = GameHistory.starting_at(START)
    for move in ("U", "L", "D"):
        history.play(move, PUZZLE.apply(history.state, move), PLAYER)
    history.undo()
    history.undo()
    history.play("R", PUZZLE.apply(history.state, "R"), HINT)
    assert history.moves == ["U", "R"] and history.origins == [PLAYER, HINT] and not history.can_redo
    assert history.path == list(PUZZLE.replay(START, ["U", "R"]))


@pytest.mark.parametrize("path, moves, origins, position", [
    ([], [], [], 0),  # no start
    ([START], ["U"], ["p"], 0),  # a move without its board
    ([START, START], ["U"], ["p"], 2),  # position past the end
    ([START, START], ["U"], ["x"], 1),  # an unknown player
])
def test_an_inconsistent_history_is_refused(path, moves, origins, position):
    with pytest.raises(ValueError):
        GameHistory(path, moves, origins, position)
