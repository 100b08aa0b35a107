"""The game a play screen holds: its session, the saved one read first, and the keys typed meanwhile.

The screen composes one :class:`HeldGame` (as it composes a ``PlaySolver`` and a ``PlaybackController``).  It reads
the screen's saved game (:meth:`HeldGame.read_saved_game`) as the screen composes; the screen draws no board until the
answer (its phase is LOADING meanwhile), and keys typed meanwhile are held (:meth:`HeldGame.hold`) and played on the
game read.  The read usually ends (milliseconds) while the screen is still being built, before its answer can come
round the UI thread's queue: the screen then takes the game read at once (:meth:`HeldGame.take_early_saved_game`), and
its first frame is the resumed game, with no LOADING frame and no second layout of the screen.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.dom import DOMNode

from tui.app_view import koma_app
from tui.game.records import SavedGame
from tui.game.session import GameSession
from tui.storage.service import Answer
from tui.storage.store import Store
from tui.workers import read_store


class HeldGame:
    """The session of one play screen, and the saved game that may replace it once read.

    ``busy`` says whether a search or a playback is under way (a saved game read then keeps this one apart);
    ``taken(note)`` is told once the screen is built and the saved game read was taken (``note``: what to tell the
    player, or ""); ``play`` plays a held move on the game taken."""

    def __init__(self, host: DOMNode, session: GameSession, *, reads_saved_game: bool, busy: Callable[[], bool],
                 taken: Callable[[str], None], play: Callable[[str], bool]):
        self.host = host
        self.session = session
        self.awaiting_saved_game = reads_saved_game
        self.busy, self.taken, self.play = busy, taken, play
        self.held_moves: list[str] = []  # typed while the saved game was read: played on it once it is
        self.early_answer: Answer | None = None  # the saved game's answer, kept until the screen is built (or taken early)
        self.built = False  # the screen's widgets are mounted (its on_mount has run): the game read can be shown

    def read_saved_game(self) -> None:
        """Read the game saved under the session's key off the UI thread (:meth:`saved_game_read` gets the answer).
        A save of this session's still in the outbox is the latest: it is resumed without asking the database.
        Either way :attr:`early_answer` holds the answer as soon as there is one, for :meth:`take_early_saved_game`."""
        app = koma_app(self.host)
        key = self.session.save_key
        pending = app.storage.pending_save(key)
        if pending is not False:
            self.early_answer = Answer(pending if isinstance(pending, SavedGame) else None)
            return

        def load(store: Store) -> SavedGame | None:
            saved = app.storage.newest_saved_game(store, key)
            self.early_answer = Answer(saved)  # on the reader thread: the UI thread may take it before the reply comes
            return saved

        read_store(self.host, load, self.saved_game_read)

    def resume_before_composing(self) -> str | None:
        """Before the board is made: if the saved game is known already, the session takes it, and the screen is
        composed with it; what to tell the player then ("" for nothing), or None if it is not known yet.
        (:meth:`play_held_moves` plays what was typed meanwhile once the board is there.)"""
        answer = self.early_answer
        if answer is None or not self.awaiting_saved_game:
            return None
        self.awaiting_saved_game = False
        self.session, note = self.session.take_saved(answer.value, known=answer.known, busy=False)
        return note

    def take_early_saved_game(self) -> bool:
        """When the screen is built: take the saved game if it has been read but its answer is not handled yet
        (:meth:`saved_game_read` then ignores it when it comes); False if it has not been read yet."""
        self.built = True
        answer = self.early_answer
        if answer is None or not self.awaiting_saved_game:
            return False
        self.saved_game_read(answer)
        return True

    def saved_game_read(self, answer: Answer) -> None:
        """The saved game's read answered: the session resumes it, keeps this game, or guards it (unknown).
        An answer that comes while the screen is still being built waits for it (:meth:`take_early_saved_game`)."""
        if not self.awaiting_saved_game:
            return
        if not self.built:
            self.early_answer = answer
            return
        self.awaiting_saved_game = False
        self.session, note = self.session.take_saved(answer.value, known=answer.known, busy=self.busy())
        self.taken(note)
        self.play_held_moves()

    def hold(self, move: str) -> bool:
        """Keep a move the player typed while the saved game is read (milliseconds; 4 s at most); False when it is
        not being read (the move is to be played now)."""
        if self.awaiting_saved_game:
            self.held_moves.append(move)
        return self.awaiting_saved_game

    def play_held_moves(self) -> None:
        """Play the keys typed while the saved game was read, on the game read."""
        held, self.held_moves = self.held_moves, []
        for move in held:
            self.play(move)

    def replaced(self) -> None:
        """The player moved, or a new game began: a saved game read late does not replace this one."""
        self.awaiting_saved_game = False

    def save(self, *, pause: bool = False) -> None:
        """Save the game now; ``pause`` stops its clock first."""
        if pause:
            self.session.clock.pause()
        self.session.save()
