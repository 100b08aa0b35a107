"""What the screens use of the Koma app beyond Textual's ``App``, as a typed protocol.

Screens never import :mod:`tui.app` (it imports them); they reach the storage service (reads answer later, writes
return at once), the stop flags, the kernels' warm-up and the clock through :func:`koma_app`, which mypy checks against this protocol, and
``tui.app`` checks that ``KomaApp`` satisfies it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, cast, runtime_checkable

from textual.message_pump import MessagePump

from tui.game.solver_jobs import StopFlags
from tui.game.speed_events import SpeedSession
from tui.kernel_warmup import KernelWarmUp
from tui.storage.service import News, StoreService
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
    """The Koma app as its screens see it: shared state and services (a screen opens the screens after it itself)."""

    storage: StoreService
    ui_thread: int  # the thread the app runs on (tui.workers.on_ui_thread)
    race_connect: Callable[[], Store]  # a race link's own connection to the store (tui.storage.race_link)
    player: str
    player_name: str
    stop_flags: StopFlags
    ascii_only: bool
    served: bool  # a game over SSH or the web: the files are the server's, never the player's
    in_browser: bool  # a game of koma web: its page has a touch bar and brings up a phone's keyboard
    animate_spinner: bool
    clock: Callable[[], float]
    warm_seconds: dict[str, float]
    kernel_warmup: KernelWarmUp
    speed_session: SpeedSession
    last_solve_seconds: float | None

    def announce(self, text: str) -> None: ...


def koma_app(node: MessagePump) -> KomaAppView:
    """The running Koma app of ``node``, typed for what screens use of it."""
    return cast(KomaAppView, node.app)
