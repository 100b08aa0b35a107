"""The Koma app: the shell its screens run in.

It opens the home screen (and the puzzle given on the command line); every screen opens the screens after it itself.
It holds what the screens share (the storage service, the stop flags, the kernels' warm-up, the games held and how
they end), the app-wide keys (quit, help, the colour-blind theme), ASCII mode, the browser page's touch bar and
announcements, and what a game served by ``koma serve`` refuses.

Keys are bindings with ids (``play.solve``, ``app.quit``…), so a keymap can move them: put
``"play.solve" = "S"`` lines under ``[keymap]`` in ``keymap.toml`` in the data dir (read and checked by
:mod:`tui.config.keymap`; a problem is a notice, and the default keys stay).
"""

from __future__ import annotations

import asyncio
import io
import os
import threading
import time
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path
from typing import Any

from rich.console import Console
from textual import events
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content
from textual.drivers.linux_driver import LinuxDriver
from textual.screen import Screen
from textual.scrollbar import ScrollBar, ScrollBarRender

from solver.puzzle import Puzzle
from tui import game_metrics, notices
from tui.app_view import KomaAppView
from tui.ascii import AsciiCommandPalette, AsciiScrollBarRender, ascii_content, ascii_key, to_ascii
from tui.config.keymap import read_keymap
from tui.game.keymap import check_bindings
from tui.game.players import player_identity
from tui.game.solver_jobs import StopFlags
from tui.game.speed_events import SpeedSession
from tui.game.writes import Seen
from tui.games_held import GamesHeld
from tui.kernel_warmup import KernelWarmUp
from tui.patches.driver import QuietLinuxDriver, write_to_terminal
from tui.patches.rendering import answer_input
from tui.patches.strip_caches import defer_strip_caches
from tui.patches.stylesheet import SharedStylesheet
from tui.play.variants import open_puzzle
from tui.screens.home import HomeScreen
from tui.storage.service import News, StoreService
from tui.storage.sqlite import SqliteBackend
from tui.storage.store import Store
from tui.storage.store_choice import connect_store, for_player
from tui.themes import KOMA_THEMES, other_theme
from tui.touch_bar import PageTouchBar
from tui.widgets.touch import announcement_sequence, first_match, touch_button
from tui.workers import QuitNowExecutor, on_ui_thread

NARROW_COLUMNS = 60  # below this width the screens fold: side panels go below their boards
SHORT_ROWS = 24  # below this height the panels drop their blank lines
PLAYER_INPUT = (events.Key, events.MouseDown, events.MouseUp, events.Click)  # what a player's hand sends
QUIT_DRAIN_SECONDS = 0.3  # quitting gives the database this long to take the last saves; the outbox keeps the rest


SERVED_FAILURES: list[str] = []  # what a served game's OneLineErrors kept from the player (plain text)


class OneLineErrors(Console):
    """A served game's ``error_console``: whatever Textual prints there (the traceback of an error that ended the app,
    which would name the server's files), the player reads one line, once; the text itself is kept in
    :data:`SERVED_FAILURES`, for the server's log (:mod:`tui.zygote` writes it there when the game ends)."""

    told = False

    def print(self, *objects: Any, **options: Any) -> None:
        text = io.StringIO()
        Console(file=text, width=120, color_system=None, emoji=False).print(*objects, **options)
        SERVED_FAILURES.append(text.getvalue())
        if not self.told:
            self.told = True
            super().print("koma: the game stopped on an internal error; connect again to play.", markup=False,
                          highlight=False)


class KomaCommands(Provider):
    """Every key binding of the screen the palette was opened on, as a command (plus the system ones)."""

    def _commands(self) -> list[tuple[str, str, Callable]]:
        screen = self.screen
        app = self.app
        seen: set[str] = set()
        out: list[tuple[str, str, Callable]] = []
        for _key, active in screen.active_bindings.items():
            binding = active.binding
            if binding.action in seen or binding.system:
                continue
            seen.add(binding.action)
            name = binding.tooltip or binding.description or binding.action
            if binding.action.startswith("arrow("):
                direction = {"U": "up", "D": "down", "L": "left", "R": "right"}[binding.action[7]]
                arrows_move = getattr(getattr(screen, "look", None), "arrows_move", False)
                name = f"Move {direction}: slide a piece into the blank" if arrows_move else f"Cursor {direction}"
            keys = ", ".join(app.get_key_display(b.binding) for b in screen.active_bindings.values()
                             if b.binding.action == binding.action)
            out.append((name[:1].upper() + name[1:], f"key: {keys}", partial(app.run_action, binding.action, active.node)))
        return out

    async def discover(self) -> Hits:
        for name, help_text, command in self._commands():
            yield DiscoveryHit(name, command, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, help_text, command in self._commands():
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), command, help=help_text)


def screen_kind(screen: Screen) -> str:
    """A screen's kind for the server's metrics: its class name without ``Screen``, lower case (``home``, ``play``)."""
    name = type(screen).__name__
    return (name[:-len("Screen")] if name.endswith("Screen") and name != "Screen" else name).lower() or "screen"


def own_connection(store: Store) -> Callable[[], Store]:
    """How a race link opens its own connection to the database of a ``store`` given to the app (tests): a new
    store on the same SQLite file; the store itself where there is no file to open again (in memory)."""
    backend = store.backend
    if isinstance(backend, SqliteBackend) and not backend.in_memory:
        path, player, name = backend.path, store.player, store.player_name
        return lambda: Store(path, player, name)
    return lambda: store


class KomaApp(App):
    """Koma: play, understand and optimally solve sliding and flip puzzles."""

    CSS_PATH = Path(__file__).with_name("koma.tcss")
    # every screen carries -narrow below 60 columns (a phone, a small SSH client) and -short below 24 rows;
    # koma.tcss folds the layouts for them (panels below boards, cards stacked)
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (NARROW_COLUMNS, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (SHORT_ROWS, "-tall")]
    TITLE = "Koma"
    COMMANDS = App.COMMANDS | {KomaCommands}
    BINDINGS = [
        Binding("q", "quit", "quit", id="app.quit", tooltip="Quit Koma at once (your game is saved)"),
        Binding("question_mark", "help", "help", id="app.help", tooltip="Help: rules and keys"),
        Binding("ctrl+t", "colorblind_theme", "colour-blind theme", id="app.colorblind", show=False,
                tooltip="Switch to the colour-blind-safe colours (Okabe-Ito) and back"),
    ]

    def __init__(self, *, puzzle: Puzzle | None = None, start: tuple | None = None, ascii_only: bool = False,
                 store: Store | None = None, clock: Callable[[], float] = time.monotonic,
                 animate_spinner: bool = True, keymap: dict[str, str] | None = None, theme_name: str | None = None,
                 database: str | None = None, prewarm: bool | None = None, kernel_warmup: KernelWarmUp | None = None):
        """``prewarm``: load (or compile) the solvers in the background from the start (default: when Koma runs
        on a terminal of its own; a game of ``koma serve`` comes warm from its warm process).  ``kernel_warmup``:
        the warm-up of this process's kernels, with the processes beside that compile them if the caller started
        them already (``koma`` does, before it loads the interface); otherwise the background warm-up starts them."""
        defer_strip_caches()
        super().__init__()
        if self.driver_class is LinuxDriver:  # Textual's driver for this terminal, with the quiet input thread
            self.driver_class = QuietLinuxDriver
        self.ui_thread = threading.get_ident()  # where news is handled at once; the app's own thread once it runs
        self.stylesheet = SharedStylesheet(variables=self.get_css_variables())  # a forked game finds its CSS parsed
        for theme in KOMA_THEMES:
            self.register_theme(theme)
        if theme_name is not None:
            self.theme = theme_name
        self.theme_before = self.theme  # where the colour-blind key switches back to
        self.start_puzzle = puzzle
        self.start_state = start
        self.ascii_only = ascii_only
        told = partial(on_ui_thread, self, self._told)  # the storage's news, from its threads
        if store is not None:  # a store given (tests, the warm process's rehearsal): its player, no outbox on disk
            self.player, self.player_name = store.player, store.player_name
            self.storage = StoreService(lambda: store, self.player, told, durable=False, one_connection=True)
            self.race_connect = own_connection(store)
        else:
            self.player, self.player_name = player_identity()
            self.storage = StoreService(lambda: connect_store(database, self.player, self.player_name), self.player,
                                   told)
            self.race_connect = self.storage.connect  # a new connection each time
        self.storage.write(Seen())  # the player came: their name is what leaderboards and the watch list show
        self.clock = clock
        self.animate_spinner = animate_spinner
        self.stop_flags = StopFlags()  # every live job's stop flag, by id: quitting sets them all
        self.warm_seconds: dict[str, float] = {}
        self.speed_session = SpeedSession()  # this run's speed solves (the Speed screen's averages)
        self.prewarm = prewarm
        self.quit_hint_until = 0.0  # time.monotonic() until which the "ctrl+c does not quit" toast shows
        self.kernel_warmup = kernel_warmup or KernelWarmUp()
        self.games_held = GamesHeld(self, self.stop_flags, self.kernel_warmup)  # and how they end
        self.last_solve_seconds: float | None = None
        self.first_frame_at: float | None = None
        self._keymap_override = keymap
        self.served = os.environ.get("KOMA_SERVE") == "1"  # a game of ``koma serve``: it runs on the server
        if self.served:  # Textual prints the traceback of an error that ended the app here; a player reads one line
            self.error_console = OneLineErrors(stderr=True)
        self.in_browser = os.environ.get("KOMA_TRANSPORT") == "web"  # koma web: its page announces and has a touch bar
        self.last_announcement = ""
        self.touch_bar = PageTouchBar(self)  # what the page's touch bar offers (koma web)

    def on_mount(self) -> None:
        self.ui_thread = threading.get_ident()
        asyncio.get_running_loop().set_default_executor(QuitNowExecutor())  # quitting never waits for a worker
        keymap = check_bindings(self._keymap_override) if self._keymap_override is not None else read_keymap()
        if keymap.bindings:
            self.set_keymap(keymap.bindings)
        for problem in keymap.problems:
            self.notify(problem, title="Keymap", severity="warning", timeout=8)
        if self.ascii_only:
            self.add_class("-ascii")
            ScrollBar.renderer = AsciiScrollBarRender  # Textual's documented hook; put back on unmount
        if self.served and not self.is_headless:  # koma serve's metrics count the games by the screen they show
            self.screen_change_signal.subscribe(self, lambda screen: game_metrics.showing(screen_kind(screen)))
        if self.prewarm:  # asked to warm up: the processes beside start before the first screen is built
            self.kernel_warmup.start_processes()
        if self.in_browser:  # the page's touch bar follows each screen shown (subscribed before the first)
            self.touch_bar.follow()
        self.push_screen(HomeScreen(self.ascii_only))
        if self.start_puzzle is not None:
            open_puzzle(self, self.start_puzzle, self.start_state)
        if self.prewarm if self.prewarm is not None else not (self.served or self.is_headless):
            self.kernel_warmup.warm_in_background()
        self.show_store_notices()
        self.call_after_refresh(self._first_frame)
        if not self.is_headless:
            self.games_held.listen_for_signals()

    def _first_frame(self) -> None:
        self.first_frame_at = time.perf_counter()

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, PLAYER_INPUT) and self.screen_stack:
            answer_input(self.screen_stack[-1])  # what the input changes is drawn at once, not at the next frame's turn
        await super().on_event(event)

    # --- the browser page: its touch bar's buttons come in as keys; announcements go out to its live region ---
    async def on_key(self, event: events.Key) -> None:
        """A touch bar button's key runs the binding the button names, on the screen shown, whatever key it is bound
        to now (a remapped key stays right); a button with nothing to do there, or turned off, rings the bell."""
        button = touch_button(event.character)
        if button is None:
            return
        event.stop()
        event.prevent_default()
        active_bindings = list(self.screen.active_bindings.values())
        found = first_match((a.binding.id for a in active_bindings), button)
        if found is None or not active_bindings[found].enabled:
            self.bell()
            return
        active = active_bindings[found]
        await self.run_action(active.binding.action, active.node)

    def announce(self, text: str) -> None:
        """Say ``text`` (one short line) to a screen reader: in koma web, the page's live region says it."""
        self.last_announcement = text
        if self.in_browser:
            write_to_terminal(self, announcement_sequence(text))

    # --- the storage service: its answers and news arrive from its threads ---
    def _told(self, news: News) -> None:
        """StoreService news goes to the play screens (their panel says it, once); the rest is a notice."""
        self.games_held.tell(news)
        self.show_store_notices()

    def show_store_notices(self) -> None:
        """Show what the store and the caches (tables, compiled kernels) had to say since the last call."""
        said = for_player if self.served else str  # a served game's player never reads the server's paths
        for notice in self.storage.drain_notices():
            self.notify(said(notice), title="Saved games", severity="warning", timeout=8)
        for notice in notices.drain():
            self.notify(said(notice), title="Caches", severity="warning", timeout=8)

    def action_help_quit(self) -> None:
        """Textual's toast that ctrl+c does not quit (and which key does), once while it shows: a held ctrl+c
        repeats 20 to 30 times a second, and each repeat stacked a toast of its own."""
        now = time.monotonic()
        if now < self.quit_hint_until:
            return
        self.quit_hint_until = now + self.NOTIFICATION_TIMEOUT
        super().action_help_quit()

    def action_help(self) -> None:
        from tui.screens.help import HelpScreen, help_text

        screen = self.screen
        puzzle = getattr(screen, "puzzle", None)
        if isinstance(screen, HelpScreen):
            return
        key = getattr(screen, "help_key", None) or (puzzle.key if puzzle else None)
        self.push_screen(HelpScreen(help_text(screen, key)))

    def action_colorblind_theme(self) -> None:
        """Switch between the colour-blind-safe theme and the theme in use before it."""
        current = self.theme
        self.theme = other_theme(current, self.theme_before)
        self.theme_before = current

    async def action_quit(self) -> None:
        self.games_held.quit()

    def on_unmount(self) -> None:
        self.games_held.stop_all()
        self.storage.close(QUIT_DRAIN_SECONDS)
        if ScrollBar.renderer is AsciiScrollBarRender:
            ScrollBar.renderer = ScrollBarRender

    # --- ASCII mode: the title, key names, notifications and command palette (see tui/ascii.py) ---
    def format_title(self, title: str, sub_title: str) -> Content:
        content = super().format_title(title, sub_title)
        return ascii_content(content) if self.ascii_only else content

    def get_key_display(self, binding: Binding) -> str:
        display = super().get_key_display(binding)
        return ascii_key(display) if self.ascii_only else display

    def notify(self, message: str, *, title: str = "", **options) -> None:
        if self.ascii_only:
            message, title = to_ascii(message), to_ascii(title)
        super().notify(message, title=title, **options)

    def action_command_palette(self) -> None:
        if not self.ascii_only:
            super().action_command_palette()
        elif self.use_command_palette and not AsciiCommandPalette.is_open(self):
            self.push_screen(AsciiCommandPalette(id="--command-palette"))

    # --- a served game runs on the server: nothing a player does may write its files, open its browser or
    # stop its process, and a failure is one line, never a traceback naming its files ---
    SERVED_REFUSAL = "Not in a game played over SSH: it would happen on the server, not on your computer."

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        for command in super().get_system_commands(screen):
            if not (self.served and command.title == "Screenshot"):
                yield command

    def deliver_screenshot(self, filename: str | None = None, path: str | None = None,
                           time_format: str | None = None) -> str | None:
        if self.served:
            self.notify(self.SERVED_REFUSAL, title="Screenshot", severity="warning")
            return None
        return super().deliver_screenshot(filename, path, time_format)

    def deliver_text(self, path_or_file: Any, **options: Any) -> str | None:
        if self.served:
            self.notify(self.SERVED_REFUSAL, title="Save", severity="warning")
            return None
        return super().deliver_text(path_or_file, **options)

    def deliver_binary(self, path_or_file: Any, **options: Any) -> str | None:
        if self.served:
            self.notify(self.SERVED_REFUSAL, title="Save", severity="warning")
            return None
        return super().deliver_binary(path_or_file, **options)

    def open_url(self, url: str, *, new_tab: bool = True) -> None:
        if self.served:
            self.notify(self.SERVED_REFUSAL, title="Open a link", severity="warning")
            return
        super().open_url(url, new_tab=new_tab)

    def action_suspend_process(self) -> None:
        if not self.served:  # served: ctrl+z is a key that does nothing
            super().action_suspend_process()


def _satisfies_the_screens_view(app: KomaApp) -> KomaAppView:
    """Never called: mypy checks here that KomaApp is what tui.app_view promises the screens."""
    return app
