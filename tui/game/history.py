"""A game's history, without the UI: the boards played, who played each move, undo, redo and restart.

Like python-chess's move stack, the history is the model: ``path[0]`` is the start, ``path[k]`` the
board after ``moves[:k]``, and ``position`` says which of them is shown.  Undo and restart only move
``position`` back, so redo brings the moves back; a new move after an undo drops the moves ahead.
The history never checks the rules: the caller gives the board a move leads to.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from solver.errors import KomaError
from solver.puzzle import Puzzle
from tui.game.records import SavedGame

State = tuple

PLAYER = "p"  # the player's own move
HINT = "h"  # the player's move that followed a hint Koma showed
KOMA = "k"  # a move of Koma's auto-solve playback
ORIGINS = (PLAYER, HINT, KOMA)


@dataclass
class GameHistory:
    """The boards of one game from its start, and the position shown; ``origins[k]`` played ``moves[k]``."""

    path: list[State]
    moves: list[str] = field(default_factory=list)
    origins: list[str] = field(default_factory=list)
    position: int = 0

    def __post_init__(self) -> None:
        if not self.path or len(self.path) != len(self.moves) + 1 or len(self.origins) != len(self.moves):
            raise ValueError("a history needs one board more than moves, and one origin per move")
        if not 0 <= self.position <= len(self.moves):
            raise ValueError(f"position {self.position} is outside 0..{len(self.moves)}")
        if any(origin not in ORIGINS for origin in self.origins):
            raise ValueError(f"origins must be among {ORIGINS}")

    @classmethod
    def starting_at(cls, start: State) -> GameHistory:
        return cls([tuple(start)])

    @property
    def state(self) -> State:
        """The board shown."""
        return self.path[self.position]

    @property
    def start(self) -> State:
        return self.path[0]

    @property
    def can_undo(self) -> bool:
        return self.position > 0

    @property
    def can_redo(self) -> bool:
        return self.position < len(self.moves)

    @property
    def koma_played(self) -> bool:
        """True if Koma's playback made any of the moves up to the board shown."""
        return KOMA in self.origins[:self.position]

    @property
    def last_origin(self) -> str | None:
        """Who played the move that led to the board shown (None at the start)."""
        return self.origins[self.position - 1] if self.position else None

    def played(self) -> tuple[tuple[str, ...], str]:
        """The moves up to the board shown, and who played each (one letter per move)."""
        return tuple(self.moves[:self.position]), "".join(self.origins[:self.position])

    def play(self, move: str, after: State, origin: str = PLAYER) -> None:
        """Play ``move``, which leads to ``after``; the moves ahead of the position are dropped."""
        if origin not in ORIGINS:
            raise ValueError(f"unknown origin {origin!r}")
        del self.moves[self.position:], self.origins[self.position:], self.path[self.position + 1:]
        self.moves.append(move)
        self.origins.append(origin)
        self.path.append(tuple(after))
        self.position += 1

    def undo(self) -> str | None:
        """Step back one move; the move undone (None at the start)."""
        if not self.can_undo:
            return None
        self.position -= 1
        return self.moves[self.position]

    def redo(self) -> str | None:
        """Step forward again along the moves undone; the move redone (None if there is none)."""
        if not self.can_redo:
            return None
        self.position += 1
        return self.moves[self.position - 1]

    def restart(self) -> bool:
        """Back to the start, keeping every move for redo; False if already there."""
        if self.position == 0:
            return False
        self.position = 0
        return True


def resumed(puzzle: Puzzle, saved: SavedGame) -> GameHistory | None:
    """The history of a saved game, replayed on ``puzzle``; None if the save no longer fits it."""
    origins = [o if o in ORIGINS else PLAYER for o in saved.origins]  # a letter from elsewhere: the player's
    try:
        path = list(puzzle.replay(puzzle.parse(saved.start), saved.moves))
        return GameHistory(path, list(saved.moves), origins, saved.position)
    except (KomaError, ValueError):
        return None
