"""The game the play screen holds: the saved one read first, the store's news of it, a new one in its place.

A mixin, so ``screen.py`` stays small.  The screen reads its own saved game (:meth:`HeldGame.read_saved_game`)
as it composes and draws no board until the answer (its phase is LOADING meanwhile); keys typed meanwhile are held
and played on the game read.  The read usually ends (milliseconds) while the screen is still being built, before
its answer can come round the UI thread's queue: the screen then takes the game read at once
(:meth:`HeldGame.take_early_saved_game`), and its first frame is the resumed game, with no LOADING frame and no
second layout of the screen.  The app keeps the screen's game through :class:`tui.app_view.KeepsAGame`:
:meth:`HeldGame.save_game` and :meth:`HeldGame.storage_news` are two of its three methods.
"""

from __future__ import annotations

from typing import Any, cast

from tui.app_view import koma_app
from tui.game.records import SavedGame
from tui.messages import BoardGenerated, BoardNotGenerated
from tui.storage.service import Answer, Finished, GameKeptApart, News, SavingDelayed, SavingResumed
from tui.widgets.game_texts import recorded_text, saving_text


class HeldGame:
    """Mixed into :class:`~tui.play.screen.PlayScreen` (it uses the screen's session, status panel and message)."""

    session: Any
    awaiting_saved_game: bool
    held_moves: list[str]
    early_answer: Answer | None = None  # the saved game's answer, kept until the screen is built (or taken early)
    built: bool = False  # the screen's widgets are mounted (its on_mount has run): the game read can be shown

    def read_saved_game(self: Any) -> None:
        """Read the game saved under this screen's key off the UI thread (:meth:`saved_game_read` gets the answer).
        A save of this session's still in the outbox is the latest: it is resumed without asking the database.
        Either way :attr:`early_answer` holds the answer as soon as there is one, for :meth:`take_early_saved_game`."""
        storage, key = koma_app(self).storage, self.session.save_key
        pending = storage.pending_save(key)
        if pending is not False:
            self.early_answer = Answer(pending if isinstance(pending, SavedGame) else None)
            return

        def load(store: Any) -> SavedGame | None:
            saved = store.load_game(key)
            self.early_answer = Answer(saved)  # on the reader thread: the UI thread may take it before the reply comes
            return saved

        koma_app(self).read(self, load, self.saved_game_read)

    def resume_before_composing(self: Any) -> None:
        """Before the board is made: if the saved game is known already, the session takes it, and the screen is
        composed with it (:meth:`play_held_moves` plays what was typed meanwhile once the board is there)."""
        answer = self.early_answer
        if answer is None or not self.awaiting_saved_game:
            return
        self.awaiting_saved_game = False
        session, note = self.session.take_saved(answer.value, known=answer.known, busy=False)
        self.session = session
        if note:
            self.set_reactive(type(self).message, note)
        self.set_reactive(type(self).phase, self._phase_now())

    def take_early_saved_game(self: Any) -> bool:
        """When the screen is built: take the saved game if it has been read but its answer is not handled yet
        (:meth:`saved_game_read` then ignores it when it comes); False if it has not been read yet."""
        self.built = True
        answer = self.early_answer
        if answer is None or not self.awaiting_saved_game:
            return False
        self.saved_game_read(answer)
        return True

    def saved_game_read(self: Any, answer: Answer) -> None:
        """The saved game's read answered: the session resumes it, keeps this game, or guards it (unknown).
        An answer that comes while the screen is still being built waits for it (:meth:`take_early_saved_game`)."""
        if not self.awaiting_saved_game:
            return
        if not self.built:
            self.early_answer = answer
            return
        self.awaiting_saved_game = False
        busy = self.job is not None or self.playback.active
        session, note = self.session.take_saved(answer.value, known=answer.known, busy=busy)
        if note:
            self.message = note
        if session is not self.session:
            self.session = session
        self._show(animate=False)
        self.play_held_moves()

    def play_held_moves(self: Any) -> None:
        """Play the keys typed while the saved game was read, on the game read."""
        held, self.held_moves = self.held_moves, []
        for move in held:
            self.play(move)

    def storage_news(self: Any, news: News) -> None:
        """Saving delayed or back, a finish recorded, a game kept apart: one line each, never a toast per key."""
        if isinstance(news, SavingDelayed):
            self.status.saving = saving_text(news.reason)
        elif isinstance(news, SavingResumed):
            self.status.saving = saving_text(None, news.seconds)
        elif isinstance(news, GameKeptApart) and news.key == self.session.save_key:
            self.message = "Your saved game is back. This game was not saved over it: open the puzzle again to resume it."
        elif isinstance(news, Finished) and news.key == self.session.save_key and self.won and self.message:
            self.message += recorded_text(news.stats, news.rank, self.daily, self.key_for("play.leaderboard", "b"))

    def save_game(self: Any, *, pause: bool = False) -> None:
        """Save the game now (the app's signals and restarts ask it); ``pause`` stops its clock first."""
        if pause:
            self.session.clock.pause()
        self.session.save()

    def action_new_game(self: Any) -> None:
        if self.daily:
            self.message = f"This is the daily board: everyone plays the same one. {self.key_for('play.escape', 'Esc')} goes back."
            return
        koma_app(self).open_new_game(self.puzzle, self.warm.is_set(), self._new_game_chosen)

    def _new_game_chosen(self: Any, choice: tuple[str, object] | None) -> None:
        if choice is None:
            return
        kind, value = choice
        if kind == "board":
            self.new_game(tuple(cast(tuple, value)), "A new game from your board.")
            return
        self.solver.generate(cast("int | None", value) if kind == "distance" else None)

    def on_board_generated(self: Any, event: BoardGenerated) -> None:
        self.new_game(event.board, f"A new game, exactly {event.distance} moves from solved." if event.distance
                      else "A new random game.")

    def on_board_not_generated(self: Any, event: BoardNotGenerated) -> None:
        self.message = str(event.error)

    def new_game(self: Any, state: tuple, note: str = "") -> None:
        self._take_over()
        self.awaiting_saved_game = False
        self.played = False  # the new board waits for its first move
        self.session.new_game(state)
        self.solver.solution_path, self.solver.solution_moves = [], []
        self.message = note
        self._show()
