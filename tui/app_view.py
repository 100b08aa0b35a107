"""What the screens use of the Koma app beyond Textual's ``App``, as a typed protocol.

Screens never import :mod:`tui.app` (it imports them); they reach the storage service (reads answer later, writes return at once), the stop flags, the
clock and the other screens through :func:`koma_app`, which mypy checks against this protocol, and
``tui.app`` checks that ``KomaApp`` satisfies it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, cast, runtime_checkable

from textual.message_pump import MessagePump
from textual.screen import Screen

from solver.puzzle import Proof, Puzzle
from tui.game.records import Replay
from tui.game.solver_jobs import SolverJob, StopFlags
from tui.game.speed_events import SpeedSession
from tui.game.writes import Write
from tui.storage.service import Answer, News, Storage
from tui.storage.store import Store


@runtime_checkable
class KeepsAGame(Protocol):
    """A screen that holds a game in progress (the play screens): the app saves it, stops its work and tells it
    the store's news through these three, without knowing its class."""

    def save_game(self, *, pause: bool = False) -> None: ...

    def cancel_jobs(self) -> None: ...

    def storage_news(self, news: News) -> None: ...


@runtime_checkable
class LeavesOnQuit(Protocol):
    """A screen the player leaves for good when they quit (a race: who quits is DNF, while a game that drops keeps
    its place for the reconnect window): the app calls this when the player quits, before it exits."""

    def leave_on_quit(self) -> None: ...


class KomaAppView(Protocol):
    """The Koma app as its screens see it: shared state, and how to open one screen from another."""

    storage: Storage
    race_connect: Callable[[], Store]  # a race link's own connection to the store (tui.storage.race_link)
    player: str
    player_name: str
    stop_flags: StopFlags
    ascii_only: bool
    animate_spinner: bool
    clock: Callable[[], float]
    warm_seconds: dict[str, float]
    speed_session: SpeedSession
    last_solve_seconds: float | None

    def show_store_notices(self) -> None: ...

    def wait_for_the_table_beside(self, puzzle: Puzzle, job: SolverJob) -> None: ...

    def announce(self, text: str) -> None: ...

    def read(self, node: Any, run: Callable[[Store], Any], reply: Callable[[Answer], None]) -> None: ...

    def write(self, write: Write) -> None: ...

    def open_puzzle(self, puzzle: Puzzle, start: tuple | None = None, daily: str | None = None,
                    solve: bool = False) -> Screen: ...

    def open_proof(self, puzzle: Puzzle, state: tuple, proof: Proof) -> None: ...

    def open_new_game(self, puzzle: Puzzle, table_ready: bool, chosen: Callable[[Any], None]) -> None: ...

    def action_leaderboard(self, game: str | None = None, day: str | None = None) -> None: ...

    def open_replay(self, replay: Replay) -> None: ...

    def action_stats(self) -> None: ...

    def action_watch(self) -> None: ...

    def action_gallery(self) -> None: ...

    def action_parity_lab(self) -> None: ...

    def action_loop_demo(self) -> None: ...

    def action_algorithm_lab(self) -> None: ...

    def action_speed(self, size: tuple[int, int] | None = None, daily: str | None = None) -> None: ...

    def action_race(self) -> None: ...


def koma_app(node: MessagePump) -> KomaAppView:
    """The running Koma app of ``node``, typed for what screens use of it."""
    return cast(KomaAppView, node.app)
