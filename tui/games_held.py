"""The games a Koma app holds (its play screens, whatever their class) and what becomes of them as the app stops.

The player quits (the screens they leave for good are told first); SIGTERM or SIGHUP (``koma serve`` shutting down,
the terminal gone) saves every game and exits; SIGURG (``koma serve`` draining for a restart) saves every game and
tells the player, and the game goes on.  Every stop also stops the searches and the kernels' warm-up, so nothing
outlives the game.
"""

from __future__ import annotations

import asyncio
import signal

from textual.app import App

from tui.app_view import KeepsAGame, LeavesOnQuit
from tui.game.solver_jobs import StopFlags
from tui.kernel_warmup import KernelWarmUp
from tui.storage.service import News

SERVER_RESTARTING = "The server is restarting. Your game is saved: reconnect to carry on."


class GamesHeld:
    """The games held by ``app``, and every background job it runs (``stop_flags``, ``kernel_warmup``)."""

    def __init__(self, app: App, stop_flags: StopFlags, kernel_warmup: KernelWarmUp):
        self.app, self.stop_flags, self.kernel_warmup = app, stop_flags, kernel_warmup

    def games(self) -> list[KeepsAGame]:
        """The screens that hold a game in progress, bottom to top."""
        return [screen for screen in self.app.screen_stack if isinstance(screen, KeepsAGame)]

    def tell(self, news: News) -> None:
        """The store's news, to every game (its panel says it, once)."""
        for screen in self.games():
            screen.storage_news(news)

    def stop_all(self) -> None:
        """Stop every search, the kernels' warm-up (and the processes beside) and every game's jobs."""
        self.stop_flags.stop_all()
        self.kernel_warmup.stop()
        for screen in self.games():
            screen.cancel_jobs()

    def quit(self) -> None:
        """The player quits: the screens they leave for good are told (a race marks them DNF), then the app exits."""
        for screen in self.app.screen_stack:
            if isinstance(screen, LeavesOnQuit):
                screen.leave_on_quit()
        self.stop_all()
        self.app.exit()

    def listen_for_signals(self) -> None:
        """From now on (on the app's running loop): SIGTERM and SIGHUP save and exit, SIGURG saves and tells."""
        loop = asyncio.get_running_loop()
        for number, handler in ((signal.SIGTERM, self._signalled), (signal.SIGHUP, self._signalled),
                                (signal.SIGURG, self._server_restarting)):
            try:
                loop.add_signal_handler(number, handler)
            except (NotImplementedError, RuntimeError, ValueError):  # pragma: no cover - not on this platform
                pass

    def _server_restarting(self) -> None:
        """SIGURG (a signal ignored by default, so a game that has no handler yet is not hurt): save every game now
        and tell the player in one line; the game goes on."""
        for screen in self.games():
            screen.save_game()
        self.app.notify(SERVER_RESTARTING, title="Server restarting", severity="warning", timeout=600)

    def _signalled(self) -> None:
        """Every game's snapshot goes to the outbox (durable at once), then the app exits without waiting for
        the database: what it has not taken yet, the next game of this player or the server writes."""
        self.stop_all()
        for screen in self.games():
            screen.save_game(pause=True)
        self.app.exit()
