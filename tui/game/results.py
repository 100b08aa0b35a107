"""A finished game: recorded in the store once, and told to the player.  Never imports Textual."""

from __future__ import annotations

from dataclasses import dataclass, field

from .formatting import clock_text, plural
from .records import Replay
from .stores import AnyStore


@dataclass(frozen=True)
class Finish:
    """How a game ended: ``moves`` played in ``seconds``, against the start's ``optimal`` distance if known."""

    stats_id: str
    moves: int
    seconds: float
    optimal: int | None
    hints: int = 0
    by_koma: bool = False  # Koma's playback made a move: not counted as the player's win
    daily: str | None = None  # the day of a daily board
    game: str = ""  # the game key (puzzle id or daily/DAY/ID) the replay is kept under; "" keeps none
    start: str = ""  # the start board in the puzzle's notation
    played: tuple[str, ...] = field(default=())  # every move from the start to the goal
    origins: str = ""  # who played each move (see tui.game.history)

    def replay(self) -> Replay:
        return Replay(self.game, self.start, list(self.played), self.origins, self.seconds, self.optimal, self.by_koma)


def record_finish(store: AnyStore, finish: Finish, first: bool) -> tuple[str, str]:
    """Record ``finish`` and keep its replay (only the ``first`` time the board is solved); the panel's message and
    a notice (or "")."""
    moves = plural(finish.moves, "move")
    if first and finish.game:
        store.record_replay(finish.replay())
    if finish.by_koma:
        if first:
            store.record_koma_finish(finish.stats_id)
        optimal = f"; optimal {finish.optimal}" if finish.optimal is not None else ""
        return f"[b]Solved by Koma[/b] ({moves}{optimal}). Not counted as yours.", ""
    optimal_text = f"optimal {finish.optimal}" if finish.optimal is not None else "optimal unknown"
    hints = f", {plural(finish.hints, 'hint')}" if finish.hints else ""
    message = f"[b]Solved in {moves}; {optimal_text}[/b]\ntime {clock_text(finish.seconds)}{hints}"
    if not first:
        return message, ""
    stats = store.record_win(finish.stats_id, finish.moves, finish.optimal, finish.seconds)
    message += f"\n[dim]solved {stats.solved} · best time {clock_text(stats.best_seconds or 0.0)}[/dim]"
    if finish.daily:
        rank = store.record_daily(finish.daily, finish.stats_id, finish.moves, finish.optimal, finish.seconds, finish.hints)
        if rank is not None:
            message += f"\nDaily {finish.daily}: you rank [b]#{rank}[/b] (b: leaderboard)"
    return message, f"Solved in {moves}; {optimal_text}. Time {clock_text(finish.seconds)}."
