"""One game as a model, without the UI: its moves, clock, hints, outcome and saves (python-chess's ``Board``).

A :class:`GameSession` owns everything a game is: the :class:`~tui.game.history.GameHistory` (``push``,
``undo``, ``redo``, ``restart``), the :class:`~tui.game.clock.GameClock`, the hints, the outcome, and its two
identities: the **save key** (``8``, ``daily/2025-01-31/8``: the row its progress is saved under) and the
**board ID** (``8-0eYgW``: the shareable name of its start board).  Every change it accepts is saved at
once through its :class:`Saver` (the storage service, which never blocks): the whole game first, then each
change as itself (a move is a few bytes, whatever the game's length).  A screen renders the session
and dispatches keys to it; it never saves, and never decides a rule.

A session whose saved game could not be read (``read_unknown``) starts a new board and saves it
*guarded*: its writes never replace a stored game (see :mod:`tui.storage.service`).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Any, Protocol

from solver import ids
from solver.puzzle import Proof, Puzzle
from tui.game.clock import GameClock
from tui.game.daily import daily_key, puzzle_id
from tui.game.formatting import clock_text, plural
from tui.game.history import HINT, KOMA, PLAYER, GameHistory, resumed
from tui.game.records import SavedGame
from tui.game.writes import FinishGame, Guard, PlayMove, SaveGame, Travel, Write

GUARDED = Guard.ABSENT
UNREAD_TEXT = ("Your saved game could not be read (the database is unreachable). It is safe and will be back; this new "
               "game will not replace it.")


class Saver(Protocol):
    """Where a session's writes go (the storage service): each call returns at once, True if the write was taken.
    A change (:class:`PlayMove`, :class:`Travel`) is taken only after the game's whole :class:`SaveGame`."""

    def write(self, write: Write, guard: Guard = Guard.NONE) -> bool: ...


class Push(Enum):
    """What :meth:`GameSession.push` did."""

    ILLEGAL = "illegal"  # not a legal move here (or the game is won): nothing changed
    PLAYED = "played"
    WON = "won"  # played, and it reached the goal


@dataclass(frozen=True)
class Outcome:
    """A finished game as the player is told it at once; the stats and rank follow from the store."""

    moves: int
    seconds: float
    optimal: int | None
    hints: int
    by_koma: bool
    first: bool  # the first time this board was solved in the session (only then is it recorded)

    def notice(self) -> str:
        """A toast for the player's own first win ("" otherwise)."""
        if self.by_koma or not self.first:
            return ""
        optimal_text = f"optimal {self.optimal}" if self.optimal is not None else "optimal unknown"
        return f"Solved in {plural(self.moves, 'move')}; {optimal_text}. Time {clock_text(self.seconds)}."


def session_view(name: str, doc: str = "") -> Any:
    """A read-only attribute of a view (the play screen) that is its ``session``'s ``name``."""
    return property(lambda view: getattr(view.session, name), doc=doc or f"The session's ``{name}``.")


class GameSession:
    """One game of one puzzle (see the module's docstring)."""

    def __init__(self, puzzle: Puzzle, saver: Saver, now: Callable[[], float], *, start: tuple | None = None,
                 saved: SavedGame | None = None, daily: str | None = None, read_unknown: bool = False,
                 seed: int | None = None):
        self.puzzle = puzzle
        self.saver = saver
        self.stats_key = puzzle_id(puzzle)  # stats are per puzzle; a daily game is saved apart
        self.daily = daily
        self.save_key = daily_key(daily, self.stats_key) if daily else self.stats_key
        self.guard = GUARDED if read_unknown else Guard.NONE
        self.based = False  # the saver has this session's whole game: changes go as changes
        self.clock = GameClock(now)
        self.hints = 0
        self.hinted: str | None = None  # the move the hint shown points at
        self.won = self.win_recorded = False
        self.resumed = False
        self.version = 0  # the changes the game has had, saved with it: a save from an older state never replaces it
        self._proof: tuple[tuple, Proof] | None = None
        self._board_id: tuple[tuple, str] | None = None  # the start board and its ID (the panel reads it every move)
        history = resumed(puzzle, saved) if start is None and saved is not None else None
        if history is not None and saved is not None:
            self.history = history
            self.clock.seconds, self.hints, self.version = saved.seconds, saved.hints, saved.version
            self.resumed = True
        else:
            if start is None:
                start = puzzle.random_state(seed if seed is not None else random.SystemRandom().randrange(2**32))
            self.history = GameHistory.starting_at(start)

    def take_saved(self, saved: SavedGame | None, *, known: bool, busy: bool) -> tuple[GameSession, str]:
        """The saved game's read answered while this new board shows: the session to show (this one, or the
        saved game resumed) and what to tell the player.  Unknown: this game is guarded (it never replaces the
        stored one).  A game the player has begun (or Koma works on, ``busy``) is kept, and so is one whose save
        no longer fits the puzzle (it replaces that save)."""
        if not known:
            self.guard, self.based = GUARDED, False  # its next write is its whole game, guarded
            return self, UNREAD_TEXT
        if saved is None or self.position or busy:
            if saved is None:
                self.save()
            else:
                self.replaces(saved)
            return self, ""
        resumed_session = GameSession(self.puzzle, self.saver, self.clock.now, saved=saved, daily=self.daily)
        if not resumed_session.resumed:
            self.replaces(saved)
            self.save()
            return self, ""
        return resumed_session, "Welcome back: your game is as you left it."

    # --- what the game is ------------------------------------------------------------------------
    @property
    def state(self) -> tuple:
        return self.history.state

    @property
    def start(self) -> tuple:
        return self.history.start

    @property
    def position(self) -> int:
        return self.history.position

    @property
    def proof(self) -> Proof:
        """The parity proof of the board shown (worked out once a board)."""
        if self._proof is None or self._proof[0] != self.state:
            self._proof = (self.state, self.puzzle.proof(self.state))
        return self._proof[1]

    @property
    def board_id(self) -> str:
        """The shareable ID of the start board (``koma play ID`` opens it); worked out once a start board."""
        start = self.start
        if self._board_id is None or self._board_id[0] != start:
            self._board_id = (start, ids.game_id(self.puzzle, start))
        return self._board_id[1]

    def legal(self, move: str) -> bool:
        return move in self.puzzle.moves(self.state)

    def snapshot(self) -> SavedGame:
        """The game as saved: its start, every move, who played each, the position, time and hints."""
        history = self.history
        return SavedGame(self.puzzle.format(self.start), list(history.moves), "".join(history.origins), history.position,
                         self.clock.elapsed(), self.hints, self.version)

    def replaces(self, saved: SavedGame) -> None:
        """This game is kept over ``saved``: it counts on from there, and its next write is the whole game."""
        self.version, self.based = max(self.version, saved.version) + 1, False

    def stop_replacing(self) -> None:
        """A newer save of this game is stored (another session's): this game never replaces it (its next write is
        the whole game, guarded, as for a game whose save could not be read)."""
        self.guard, self.based = GUARDED, False

    def save(self) -> None:
        """Hand the whole game to the saver (never blocks); a won game is not saved (it was cleared)."""
        if not self.won:
            self.based = self.saver.write(SaveGame(self.save_key, self.snapshot()), self.guard)

    def _changed(self, change: PlayMove | Travel) -> None:
        """Hand a change to the saver: as itself once the saver has the whole game, else the whole game."""
        if not self.won and not (self.based and self.saver.write(change, self.guard)):
            self.save()

    # --- moves --------------------------------------------------------------------------------------
    def push(self, move: str, origin: str = PLAYER) -> Push:
        """Play ``move`` (the player's, or Koma's playback: ``KOMA``) if legal; a player's move that follows the
        hint shown counts as ``HINT``.  Saves; reaching the goal ends the game (see :meth:`finish`)."""
        if not self.legal(move) or (self.won and origin != KOMA):
            return Push.ILLEGAL
        if origin != KOMA and move == self.hinted:
            origin = HINT
        self.hinted = None
        self.history.play(move, self.puzzle.apply(self.state, move), origin)
        self.version += 1
        self.clock.start()
        self._changed(PlayMove(self.save_key, move, origin, self.position, self.clock.elapsed()))
        return Push.WON if self.puzzle.is_goal(self.state) else Push.PLAYED

    def undo(self) -> bool:
        return self._travel(self.history.undo)

    def redo(self) -> bool:
        return self._travel(self.history.redo)

    def restart(self) -> bool:
        return self._travel(self.history.restart)

    def _travel(self, step: Callable[[], object]) -> bool:
        """Undo, redo or restart; False if there was nothing to do.  Back before a win, play goes on."""
        before = self.position
        if not step():
            return False
        if self.position < before:
            self.won = False
        self.hinted = None
        self.version += 1
        self._changed(self._travelled())
        return True

    def _travelled(self) -> Travel:
        return Travel(self.save_key, self.position, self.clock.elapsed(), self.hints)

    @property
    def reached_goal_again(self) -> bool:
        """After a redo: the board shown is the goal and the game is not yet marked won."""
        return not self.won and self.position > 0 and self.puzzle.is_goal(self.state)

    def hint_shown(self, move: str) -> None:
        """The player was shown ``move`` as a hint: counted, and a move that follows it is marked."""
        self.hinted = move
        self.hints += 1
        self.version += 1
        self._changed(self._travelled())

    def new_game(self, state: tuple) -> None:
        """Start over on ``state``, under the same save key."""
        self.history = GameHistory.starting_at(state)
        self.clock.pause()
        self.hints, self.clock.seconds, self.hinted = 0, 0.0, None
        self.won = self.win_recorded = False
        self.version += 1
        self.save()

    # --- the outcome ----------------------------------------------------------------------------------
    def finish(self, optimal: int | None) -> Outcome:
        """The board shown is the goal: the game is won.  Records it (once per board: its replay, the stats, the
        daily result) and clears the saved game, through the saver; returns what to tell the player now."""
        self.clock.pause()
        self.won = True
        first = not self.win_recorded
        self.win_recorded = True
        moves, origins = self.history.played()
        outcome = Outcome(self.position, self.clock.seconds, optimal, self.hints, self.history.koma_played, first)
        self.saver.write(FinishGame(
            self.save_key, stats_id=self.stats_key, daily=self.daily, start=self.puzzle.format(self.start),
            played=tuple(moves), origins=origins, moves=outcome.moves, seconds=outcome.seconds, optimal=optimal,
            hints=self.hints, by_koma=outcome.by_koma, first=first), self.guard)
        return outcome

    def unfinish(self) -> None:
        """Play on after the goal (a step back during playback; the win stays recorded)."""
        self.won = False

    def take_back_koma_move(self) -> str | None:
        """A paused playback steps back: Koma's last move undone (a win it made is played on; the win stays
        recorded).  The move, or None when the last move was not Koma's."""
        if self.history.last_origin != KOMA or not self.position:
            return None
        move = self.history.moves[self.position - 1]
        self.unfinish()
        self.undo()
        return move
