"""The home screen: the puzzles (each with a preview, a line on what it is, and your record), Help and Quit."""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from solver.errors import KomaError
from solver.registry import get_puzzle
from tui.app_view import koma_app
from tui.ascii import Static
from tui.game.daily import puzzle_id
from tui.game.formatting import clock_text, plural
from tui.patches.rendering import DirtyOnlyRendering
from tui.play.variants import open_puzzle
from tui.storage.service import Answer
from tui.widgets.keybar import KeyBar
from tui.widgets.looks import look_for
from tui.widgets.titlebar import TitleBar
from tui.workers import read_store

URA_SIZES = (2, 3, 4, 5, 6)


@dataclass(frozen=True)
class Entry:
    """A puzzle on the home screen: registry name, default size, and one line on what it is."""

    name: str
    label: str
    blurb: str
    sized: bool = False


ENTRIES = (
    Entry("8", "8-puzzle", "Slide eight numbered tiles back into order; every board is at most 31 moves away."),
    Entry("15", "15-puzzle", "The classic 4x4; half of all shuffles cannot be solved, and parity tells which."),
    Entry("goat", "Goat", "Bring the sheep 羊 into its pen, past the fences, the door, the wolf 狼 and the wide big piece."),
    Entry("ura", "Ura-omote", "Turn whole rows and columns over until every cell shows its white front.", True),
)


class PuzzleCard(Widget, can_focus=True):
    """One puzzle: a preview of its goal, what it is, and the saved game and stats.

    The name, blurb and record are one Static (fewer widgets: a cheaper home screen), coloured by the
    card's component classes, so the focused card's name takes the accent colour."""

    COMPONENT_CLASSES = {"card--name", "card--blurb", "card--record"}

    side = reactive(3, init=False)

    class Chosen(Message):
        def __init__(self, card: PuzzleCard):
            super().__init__()
            self.card = card

    def __init__(self, entry: Entry, *, ascii_only: bool = False, size: int = 3):
        super().__init__(id=f"card-{entry.name}", classes="card")
        self.entry = entry
        self.ascii_only = ascii_only
        self.set_reactive(PuzzleCard.side, size)
        self.name_text = self.record_text = ""

    def puzzle(self):
        return get_puzzle(self.entry.name, f"{self.side}x{self.side}" if self.entry.sized else None)

    def compose(self) -> ComposeResult:
        yield Static(classes="preview")
        yield Static(classes="about")  # name, blurb and record: one widget, so the home screen starts cheaply

    def on_mount(self) -> None:
        self.refresh_card()
        self.app.theme_changed_signal.subscribe(self, self._theme_changed)

    def _theme_changed(self, _theme: object) -> None:
        self.call_after_refresh(self._show_about)  # the text carries its colours: draw it in the new theme's

    def on_focus(self) -> None:
        self.call_after_refresh(self._show_about)  # once the card's :focus styles are in place

    def on_blur(self) -> None:
        self.call_after_refresh(self._show_about)

    def watch_side(self) -> None:
        self.refresh_card()

    def refresh_card(self) -> None:
        try:
            puzzle = self.puzzle()
        except KomaError as error:  # a puzzle module that is not there yet
            self.name_text, self.record_text = f"[b]{self.entry.label}[/b]", f"[dim]unavailable: {error}[/dim]"
            self._show_about()
            self.disabled = True
            return
        look = look_for(puzzle, self.ascii_only)
        self.query_one(".preview", Static).update(look.mini(puzzle.goal))
        name = f"[b]{self.entry.label}[/b]"
        if self.entry.sized:
            name += f"  ◀ {puzzle.size_label} ▶  [dim](left/right: size)[/dim]"
        self.name_text = name
        self._show_about()
        key = puzzle_id(puzzle)
        storage = koma_app(self).storage
        read_store(self, lambda store: (storage.newest_saved_game(store, key), store.stats(key)),
                   lambda answer: self._show_record(key, answer))

    def _show_record(self, key: str, answer: Answer) -> None:
        """The player's record on the puzzle, when the store answers (unknown while it cannot)."""
        if self.puzzle_key() != key:
            return  # the size changed meanwhile
        if not answer.known:
            self.record_text = "[dim]your record cannot be read now (the database is away)[/dim]"
            self._show_about()
            return
        saved, stats = answer.value
        pending = koma_app(self).storage.pending_save(key)
        if pending is not False:  # the player's latest, still on its way to the database
            saved = pending
        parts = []
        if saved is not None and saved.position:
            parts.append(f"[b]in progress[/b]: {plural(saved.position, 'move')}, {clock_text(saved.seconds)}")
        elif saved is not None:
            parts.append("[b]in progress[/b]: not started")
        if stats.solved:
            best = f"best {stats.best_moves}" + (f" (optimal {stats.best_optimal})" if stats.best_optimal is not None else "")
            parts.append(f"solved {stats.solved} · {best} · {clock_text(stats.best_seconds or 0)}")
        elif stats.by_koma:
            parts.append(f"finished by Koma {stats.by_koma}")
        self.record_text = " · ".join(parts) or "[dim]not played yet[/dim]"
        self._show_about()

    def puzzle_key(self) -> str | None:
        try:
            return puzzle_id(self.puzzle())
        except KomaError:
            return None

    def _show_about(self) -> None:
        """The name, the blurb and the record, one paragraph each, in the styles of the card's component classes."""
        paragraphs = [Content.from_markup(self.name_text), Content(self.entry.blurb), Content.from_markup(self.record_text)]
        styled = [text.stylize_before(self.get_visual_style(f"card--{part}", partial=True))
                  for part, text in zip(("name", "blurb", "record"), paragraphs)]
        self.query_one(".about", Static).update(Content("\n").join(styled))

    def on_click(self) -> None:
        self.focus()
        self.post_message(self.Chosen(self))

    def resize_board(self, delta: int) -> bool:
        if not self.entry.sized:
            return False
        index = URA_SIZES.index(self.side) if self.side in URA_SIZES else 1
        self.side = URA_SIZES[max(0, min(len(URA_SIZES) - 1, index + delta))]
        return True


@dataclass(frozen=True)
class Lab:
    """A gallery or lab on the home screen: its key, name, one line, and the screen action it runs."""

    key: str
    label: str
    blurb: str
    action: str


LABS = (
    Lab("g", "Hardest positions", "every puzzle's full BFS: the histogram and the positions at maximum distance",
        "gallery"),
    Lab("p", "Parity lab", "edit any board, even an unsolvable one, and watch the parity proof change", "parity_lab"),
    Lab("o", "Loop demo", "article 003's mindless loop method sorts a 15-puzzle, and parity says how it ends",
        "loop_demo"),
    Lab("a", "Algorithm lab", "the articles' solvers side by side on one board: nodes, time, length",
        "algorithm_lab"),
    Lab("d", "Daily puzzles", "today's boards, the same for every player, and their leaderboards", "daily"),
    Lab("v", "Your stats", "your finished games per puzzle, their trend, and a replay of each", "stats"),
    Lab("w", "Watch", "the games being played right now, followed live", "watch"),
    Lab("s", "Speed", "timed solves from 2x2 to 20x20 by the speedsolvers' rules: TPS, ao5, ao12", "speed"),
    Lab("x", "Race", "the same scramble at the same moment against up to 7 others, live", "race"),
)


class LabLink(Static, can_focus=True):
    """One gallery or lab; Enter (or a click) opens it."""

    def __init__(self, lab: Lab):
        super().__init__(f"[b]{lab.label}[/b] [dim]({lab.key})[/dim]  {lab.blurb}", id=f"lab-{lab.action}")
        self.lab = lab

    def on_click(self) -> None:
        self.focus()
        getattr(self.screen, f"action_{self.lab.action}")()


class HomeScreen(DirtyOnlyRendering):
    """Pick a puzzle; Enter plays it (resuming a saved game)."""

    # the first card has the focus from the start: Textual's default ("*") gives it to the list of cards first,
    # and moving it on restyled the whole list twice (a tenth of the home screen's CPU)
    AUTO_FOCUS = "PuzzleCard"

    EARLY_BREAKPOINTS = True  # one restyle of the screen as it opens: its first card, focused, is at the top
    BINDINGS = [
        # priority: the scrolling list of cards would otherwise take up/down for itself once it overflows
        Binding("up,k", "focus_previous_card", "", id="home.up", group=Binding.Group("choose", compact=True),
                priority=True),
        Binding("down,j", "focus_next_card", "choose", id="home.down", group=Binding.Group("choose", compact=True),
                priority=True),
        Binding("left,h", "size(-1)", "Smaller Ura-omote", id="home.smaller", show=False),
        Binding("right,l", "size(1)", "Larger Ura-omote", id="home.larger", show=False),
        Binding("enter,space", "play", "play", id="home.play"),
        Binding("1", "open('8')", "Play the 8-puzzle", id="home.eight", show=False),
        Binding("2", "open('15')", "Play the 15-puzzle", id="home.fifteen", show=False),
        Binding("3", "open('goat')", "Play Goat", id="home.goat", show=False),
        Binding("4", "open('ura')", "Play Ura-omote", id="home.ura", show=False),
        Binding("g", "gallery", "Hardest positions", id="home.gallery", show=False,
                tooltip="Galleries of the hardest positions of every puzzle"),
        Binding("p", "parity_lab", "Parity lab", id="home.parity_lab", show=False,
                tooltip="Parity lab: edit a board and watch its solvability proof"),
        Binding("o", "loop_demo", "Loop demo", id="home.loop_demo", show=False,
                tooltip="Loop demo: article 003's mindless loop method on a 15-puzzle"),
        Binding("a", "algorithm_lab", "Algorithm lab", id="home.algorithm_lab", show=False,
                tooltip="Algorithm lab: the articles' solving methods side by side"),
        Binding("d", "daily", "Daily puzzles", id="home.daily", show=False,
                tooltip="Daily puzzles: today's boards and their leaderboards"),
        Binding("v", "stats", "Your stats", id="home.stats", show=False,
                tooltip="Your stats: your finished games per puzzle, their trend, and replays"),
        Binding("w", "watch", "Watch", id="home.watch", show=False,
                tooltip="Watch: the games being played right now, live"),
        Binding("s", "speed", "Speed", id="home.speed", show=False,
                tooltip="Speed: timed solves by the speedsolvers' rules (clock on the first move, TPS, ao5, ao12)"),
        Binding("x", "race", "Race", id="home.race", show=False,
                tooltip="Race: one scramble revealed to every racer at once; quick races and private rooms"),
    ]

    def __init__(self, ascii_only: bool = False):
        super().__init__(classes="home")
        self.ascii_only = ascii_only

    def compose(self) -> ComposeResult:
        yield TitleBar()
        with VerticalScroll(id="cards"):
            for _number, entry in enumerate(ENTRIES, 1):
                yield PuzzleCard(entry, ascii_only=self.ascii_only)
            with Vertical(id="labs"):
                for link in LABS:
                    yield LabLink(link)
            yield Static("[dim]1-4 open a puzzle · letters open a lab · ? help and rules · ctrl+p every command · q quit[/dim]",
                         id="home-hint")
        yield KeyBar()

    def on_mount(self) -> None:
        self.title = "Koma"
        self.sub_title = "sliding and flipping puzzles, solved optimally"
        self.query(PuzzleCard).first().focus()

    def on_screen_resume(self) -> None:
        for card in self.query(PuzzleCard):
            card.refresh_card()

    def cards(self) -> list[PuzzleCard]:
        return [c for c in self.query(PuzzleCard) if not c.disabled]

    def entries(self) -> list[Widget]:
        """Everything up/down walks through: the puzzle cards, then the galleries and labs."""
        return [*self.cards(), *self.query(LabLink)]

    def _focused_card(self) -> PuzzleCard | None:
        focused = self.focused
        return focused if isinstance(focused, PuzzleCard) else None

    def action_focus_next_card(self) -> None:
        self._step(1)

    def action_focus_previous_card(self) -> None:
        self._step(-1)

    def _step(self, delta: int) -> None:
        cards = self.entries()
        if not cards:
            return
        current = self.focused
        index = cards.index(current) if current in cards else -delta
        cards[(index + delta) % len(cards)].focus()

    def action_size(self, delta: int) -> None:
        card = self._focused_card()
        if card is None or not card.resize_board(delta):
            self.app.bell()

    def action_play(self) -> None:
        if isinstance(self.focused, LabLink):
            getattr(self, f"action_{self.focused.lab.action}")()
            return
        card = self._focused_card()
        if card is not None:
            self.open_card(card)

    # --- the screens a key opens from here (each imported when first opened: Koma starts faster) ---
    def action_gallery(self) -> None:
        from tui.screens.gallery import GalleryScreen

        self.app.push_screen(GalleryScreen(ascii_only=koma_app(self).ascii_only))

    def action_parity_lab(self) -> None:
        from tui.screens.parity_lab import ParityLabScreen

        self.app.push_screen(ParityLabScreen(ascii_only=koma_app(self).ascii_only))

    def action_loop_demo(self) -> None:
        from tui.screens.loop_demo import LoopDemoScreen

        self.app.push_screen(LoopDemoScreen(ascii_only=koma_app(self).ascii_only))

    def action_algorithm_lab(self) -> None:
        from tui.screens.algorithm_lab import AlgorithmLabScreen

        self.app.push_screen(AlgorithmLabScreen(ascii_only=koma_app(self).ascii_only))

    def action_daily(self) -> None:
        """The daily puzzles and their leaderboards (today's first)."""
        from tui.screens.leaderboard import LeaderboardScreen

        self.app.push_screen(LeaderboardScreen())

    def action_stats(self) -> None:
        """The player's finished games per puzzle, their trend, and replays."""
        from tui.screens.stats import StatsScreen

        self.app.push_screen(StatsScreen())

    def action_watch(self) -> None:
        """The games being played right now, to watch live."""
        from tui.screens.watch import WatchScreen

        self.app.push_screen(WatchScreen())

    def action_speed(self) -> None:
        """Speed solves by the speedsolvers' rules, with the session's averages."""
        from tui.screens.speed import DEFAULT_SIZE, SpeedScreen

        self.app.push_screen(SpeedScreen(DEFAULT_SIZE, ascii_only=koma_app(self).ascii_only))

    def action_race(self) -> None:
        """Races: the lobby (a quick race of a size, a private room, a code to join, a race to come back to)."""
        from tui.screens.race_lobby import RaceLobbyScreen

        self.app.push_screen(RaceLobbyScreen(ascii_only=koma_app(self).ascii_only))

    def action_open(self, name: str) -> None:
        card = next((c for c in self.cards() if c.entry.name == name), None)
        if card is None:
            self.app.bell()
            return
        card.focus()
        self.open_card(card)

    def on_puzzle_card_chosen(self, event: PuzzleCard.Chosen) -> None:
        self.open_card(event.card)

    def open_card(self, card: PuzzleCard) -> None:
        open_puzzle(self, card.puzzle())
