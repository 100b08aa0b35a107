"""The speed session of one event and size: a plot of its times, its averages, the records of every session (from
the store), and its solves, each of which replays in real time (enter or r) or copies in slidy's notation (e)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, Sparkline

from tui.app_view import koma_app
from tui.ascii import Static
from tui.game.averages import AVERAGES, SessionSummary, result_text
from tui.game.speed import SINGLE, SpeedResult
from tui.game.speed_events import Event, Size, summary_of
from tui.game.speed_notation import export_solve
from tui.patches.rendering import DirtyOnlyRendering
from tui.screens.speed_replay import SpeedReplayScreen
from tui.storage.service import Answer
from tui.widgets.keybar import KeyBar
from tui.widgets.titlebar import TitleBar
from tui.workers import read_store


def records_text(size_label: str, summary: SessionSummary | None) -> str:
    """The bests of every session of a size (None: the store cannot be read now)."""
    if summary is None:
        return f"[b]Records {size_label}[/b]\n[dim]cannot be read now (the database is away)[/dim]"
    lines = [f"[b]Records {size_label}[/b]: {summary.count} solve{'s' if summary.count != 1 else ''}",
             f"{'single':6} {result_text(summary.single.best):>9}"]
    lines += [f"{name:6} {result_text(summary.averages[name].best):>9}" for name, _ in AVERAGES]
    return "\n".join(lines)


def session_figures(size_label: str, summary: SessionSummary) -> str:
    lines = [f"[b]This session {size_label}[/b]: {summary.count} solve{'s' if summary.count != 1 else ''}"
             + (f", {summary.dnfs} DNF" if summary.dnfs else ""),
             f"{'':6} {'current':>9} {'best':>9}",
             f"{'single':6} {result_text(summary.single.current):>9} {result_text(summary.single.best):>9}"]
    lines += [f"{name:6} {result_text(summary.averages[name].current):>9} {result_text(summary.averages[name].best):>9}"
              for name, _ in AVERAGES]
    return "\n".join(lines)


class SpeedSessionScreen(DirtyOnlyRendering):
    """The session's solves of one size, with the plot of their times and the records."""

    BINDINGS = [
        Binding("enter,r", "replay", "replay", id="speed_session.replay", priority=True,
                tooltip="Replay the chosen solve in real time"),
        Binding("e", "export", "export", id="speed_session.export", tooltip="Copy the chosen solve (slidy's notation)"),
        Binding("escape", "back", "back", id="speed_session.back", tooltip="Back"),
    ]

    def __init__(self, event: Event, size: Size, *, ascii_only: bool = False):
        super().__init__(classes="speed-session")
        self.event, self.size_wh = event, size
        self.size_label = event.label(size) + ("" if event.key == SINGLE else f" {event.title}")
        self.ascii_only = ascii_only

    @property
    def indices(self) -> list[int]:
        """The session's solves of this event and size (every leg), by their index in the session."""
        session = koma_app(self).speed_session
        return [k for k, r in enumerate(session.results) if r.event == self.event.key
                and (self.event.sizes or (r.width, r.height) == self.size_wh)]

    def compose(self) -> ComposeResult:
        yield TitleBar()
        with Vertical(id="speed-session-body"):
            yield Static(id="speed-session-caption")
            yield Sparkline([], id="speed-session-plot")
            with Horizontal(id="speed-session-figures"):
                yield Static(id="speed-session-averages")
                yield Static(id="speed-session-records")
            yield DataTable(id="speed-session-table", cursor_type="row", zebra_stripes=True)
        yield KeyBar()

    def on_mount(self) -> None:
        self.title = "Koma"
        self.sub_title = f"speed session {self.size_label}"
        self.query_one(DataTable).add_columns("#", "time", "STM", "MTM", "TPS", "optimal", "eff.")
        self.show()
        size = None if self.event.sizes else f"{self.size_wh[0]}x{self.size_wh[1]}"
        read_store(self, lambda store: store.speed_solves(size), self._records_read)

    def show(self) -> None:
        session = koma_app(self).speed_session
        times = [run.time_ms / 1000 for run in session.runs(self.event, self.size_wh) if not run.dnf]
        caption = (f"Times of this session's {self.size_label} solves, oldest first (s): "
                   f"{min(times):.3f} to {max(times):.3f}" if times else f"No {self.size_label} solve this session yet.")
        self.query_one("#speed-session-caption", Static).update(f"[dim]{caption}[/dim]")
        plot = self.query_one("#speed-session-plot", Sparkline)
        plot.data = times
        plot.display = len(times) > 1
        summary = session.summary(self.event, self.size_wh)
        self.query_one("#speed-session-averages", Static).update(session_figures(self.size_label, summary))
        table = self.query_one(DataTable)
        table.clear()
        for number, index in reversed(list(enumerate(self.indices, 1))):  # newest first
            result = session.results[index]
            optimal = session.optimal.get(index)
            efficiency = session.efficiency(index)
            table.add_row(str(number), result_text(result.result_ms), str(result.stm), str(result.mtm),
                          "-" if result.tps is None or result.dnf else f"{result.tps:.2f}",
                          "-" if optimal is None else str(optimal),
                          "-" if efficiency is None else f"{efficiency:.0%}", key=str(index))

    def _records_read(self, answer: Answer) -> None:
        summary = summary_of(answer.value, self.event, self.size_wh) if answer.known else None
        self.query_one("#speed-session-records", Static).update(records_text(self.size_label, summary))

    def chosen(self) -> SpeedResult | None:
        table = self.query_one(DataTable)
        if not table.row_count:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return koma_app(self).speed_session.results[int(key)] if key is not None else None

    def action_replay(self) -> None:
        result = self.chosen()
        if result is None:
            self.app.bell()
            return
        self.app.push_screen(SpeedReplayScreen(result, ascii_only=self.ascii_only,
                                               koma_moves=koma_app(self).speed_session.koma_solution(result)))

    def action_export(self) -> None:
        result = self.chosen()
        if result is None:
            self.app.bell()
            return
        self.app.copy_to_clipboard(export_solve(result))
        self.notify("Copied the solve (slidy's notation).", timeout=3)

    def action_back(self) -> None:
        self.app.pop_screen()
