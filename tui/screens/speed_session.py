"""The speed session of one event and size: a graph of its times and TPS (this session's, or all time's: a), its
averages, the lasting records of every session (from the store: time, moves and TPS), and its solves, each of which
replays in real time (enter or r), copies in slidy's notation (e) or as a Slidysim replay link (l)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable

from tui.app_view import koma_app
from tui.ascii import Static
from tui.game.averages import AVERAGES, SessionSummary, result_text
from tui.game.speed import SINGLE, SpeedResult
from tui.game.speed_events import Event, Size, summary_of
from tui.game.speed_interop import replay_link
from tui.game.speed_notation import export_solve
from tui.game.speed_records import RECORD_STATISTICS, Record
from tui.patches.rendering import DirtyOnlyRendering
from tui.screens.speed_replay import SpeedReplayScreen
from tui.storage.service import Answer
from tui.storage.store import EVERY_ROW
from tui.widgets.keybar import KeyBar
from tui.widgets.speed_graph import SpeedGraph
from tui.widgets.titlebar import TitleBar
from tui.workers import read_store


def records_text(size_label: str, summary: SessionSummary | None, lasting: dict[str, Record] | None = None) -> str:
    """The bests of every session of a size (None: the store cannot be read now): the lasting records with their
    moves and TPS where the store keeps them (one-solve events), else the bests of the solves read."""
    if summary is None:
        return f"[b]Records {size_label}[/b]\n[dim]cannot be read now (the database is away)[/dim]"
    lines = [f"[b]Records {size_label}[/b]: {summary.count} solve{'s' if summary.count != 1 else ''}"]
    if lasting is not None:
        lines.append(f"{'':6} {'time':>9} {'moves':>6} {'TPS':>6}")
        for name, _ in RECORD_STATISTICS:
            record = lasting.get(name)
            if record is None:
                lines.append(f"{name:6} {'-':>9}")
                continue
            moves = f"{record.moves:.0f}" if name == "single" else f"{record.moves:.1f}"
            tps = "-" if record.tps is None else f"{record.tps:.2f}"
            lines.append(f"{name:6} {result_text(record.time_ms):>9} {moves:>6} {tps:>6}")
        return "\n".join(lines)
    lines.append(f"{'single':6} {result_text(summary.single.best):>9}")
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


def records_by_name(records: list[tuple[str, str, Record]]) -> dict[str, Record]:
    return {record.statistic: record for _, _, record in records}


class SpeedSessionScreen(DirtyOnlyRendering):
    """The session's solves of one size, with the plot of their times and the records."""

    BINDINGS = [
        Binding("enter,r", "replay", "replay", id="speed_session.replay", priority=True,
                tooltip="Replay the chosen solve in real time"),
        Binding("e", "export", "export", id="speed_session.export", tooltip="Copy the chosen solve (slidy's notation)"),
        Binding("l", "link", "link", id="speed_session.link", tooltip="Copy the chosen solve's Slidysim replay link"),
        Binding("a", "all_time", "all time", id="speed_session.all_time",
                tooltip="The graph: this session's solves, or every stored solve of the size"),
        Binding("escape", "back", "back", id="speed_session.back", tooltip="Back"),
    ]

    def __init__(self, event: Event, size: Size, *, ascii_only: bool = False):
        super().__init__(classes="speed-session")
        self.event, self.size_wh = event, size
        self.size_label = event.label(size) + ("" if event.key == SINGLE else f" {event.title}")
        self.ascii_only = ascii_only
        self.all_time = False
        self.stored: list[SpeedResult] | None = None

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
            yield SpeedGraph(ascii_only=self.ascii_only, id="speed-session-plot")
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
        lasting = not self.event.sizes and self.event.legs == 1

        def read(store):
            return store.speed_solves(size), (records_by_name(store.speed_records(size, self.event.key))
                                              if lasting else None)

        read_store(self, read, self._records_read)

    def show(self) -> None:
        session = koma_app(self).speed_session
        times = [run.time_ms / 1000 for run in session.runs(self.event, self.size_wh) if not run.dnf]
        caption = (f"Times of this session's {self.size_label} solves, oldest first (s): "
                   f"{min(times):.3f} to {max(times):.3f}" if times else f"No {self.size_label} solve this session yet.")
        self.query_one("#speed-session-caption", Static).update(f"[dim]{caption}[/dim]")
        self._show_graph()
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

    def _show_graph(self) -> None:
        graph = self.query_one("#speed-session-plot", SpeedGraph)
        if self.all_time and self.stored is not None:
            graph.show([r for r in self.stored if r.event == self.event.key], f"{self.size_label}: every stored solve")
        else:
            session = koma_app(self).speed_session
            graph.show([session.results[k] for k in self.indices], f"{self.size_label}: this session")

    def _records_read(self, answer: Answer) -> None:
        solves, lasting = answer.value if answer.known else ([], None)
        summary = summary_of(solves, self.event, self.size_wh) if answer.known else None
        self.query_one("#speed-session-records", Static).update(records_text(self.size_label, summary, lasting))

    def action_all_time(self) -> None:
        self.all_time = not self.all_time
        if not self.all_time or self.stored is not None:
            self._show_graph()
            return
        size = None if self.event.sizes else f"{self.size_wh[0]}x{self.size_wh[1]}"
        read_store(self, lambda store: store.speed_solves(size, limit=EVERY_ROW), self._stored_read)

    def _stored_read(self, answer: Answer) -> None:
        if not answer.known:
            self.all_time = False
            self.notify(f"The stored solves cannot be read now ({answer.unknown}).", severity="warning", timeout=5)
            return
        self.stored = answer.value
        self._show_graph()

    def action_link(self) -> None:
        result = self.chosen()
        if result is None:
            self.app.bell()
            return
        self.app.copy_to_clipboard(replay_link(result))
        self.notify("Copied the solve's Slidysim replay link.", timeout=3)

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
