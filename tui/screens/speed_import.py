"""Speed's import (o): paste Slidysim replay links, solves in slidy's notation or Koma's CSV/JSON, or give a file's
path (a Slidysim database too; not in a served game, whose files are the server's).  A thread worker reads and
replays every solve; the store keeps the good ones in one transaction (on its own thread); the screen lists each
solve kept and why any other was not.  The UI thread never waits."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from rich.markup import escape
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Input, TextArea
from textual.worker import Worker, WorkerState

from solver.errors import KomaError, one_line
from tui.app_view import koma_app
from tui.ascii import Static
from tui.game.speed_interop import Parsed, solve_line
from tui.patches.rendering import DirtyOnlyRendering
from tui.storage.service import Answer
from tui.storage.speed_transfer import ImportReport, read_import, store_import
from tui.widgets.keybar import KeyBar
from tui.widgets.titlebar import TitleBar
from tui.workers import read_store

IMPORT_DEADLINE_SECONDS = 120.0  # a Slidysim database of years of solves is kept in one transaction
SHOWN_LINES = 200


class SpeedImportScreen(DirtyOnlyRendering):
    """Paste or a file's path in; the solves kept and the reasons for the others out."""

    BINDINGS = [
        Binding("ctrl+s", "import", "import", id="speed_import.import", priority=True,
                tooltip="Read, replay and keep the solves pasted (or the file's)"),
        Binding("escape", "back", "back", id="speed_import.back", tooltip="Back"),
    ]

    def __init__(self) -> None:
        super().__init__(classes="speed-import")
        self.busy = False
        self.report: ImportReport | None = None

    def compose(self) -> ComposeResult:
        yield TitleBar()
        with Vertical(id="speed-import-body"):
            yield Static("[b]Bring your records in[/b]: paste Slidysim replay links, solves in slidy's notation or "
                         "Koma's CSV/JSON below, or give a file's path (a Slidysim database too). ctrl+s imports.",
                         id="speed-import-help")
            yield Input(placeholder="a file's path (optional)", id="speed-import-path",
                        disabled=koma_app(self).served)
            yield TextArea(id="speed-import-text", soft_wrap=True, show_line_numbers=False)
            with VerticalScroll(id="speed-import-log"):
                yield Static(id="speed-import-result")
        yield KeyBar()

    def on_mount(self) -> None:
        self.title = "Koma"
        self.sub_title = "speed import"
        if koma_app(self).served:
            self.query_one("#speed-import-path", Input).placeholder = "files are not read in a served game: paste"
        self.query_one(TextArea).focus()

    def _say(self, text: str) -> None:
        self.query_one("#speed-import-result", Static).update(text)

    def action_import(self) -> None:
        if self.busy:
            self.app.bell()
            return
        path_text = self.query_one("#speed-import-path", Input).value.strip()
        text = self.query_one(TextArea).text
        if not path_text and not text.strip():
            self._say("[b]Nothing to import[/b]: paste solves or links, or give a file's path.")
            self.app.bell()
            return
        path = Path(path_text).expanduser() if path_text and not koma_app(self).served else None
        self.busy = True
        self._say("Reading and replaying the solves…")
        self.run_worker(partial(read_import, text, path), thread=True, exit_on_error=False, group="speed-import")

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group != "speed-import" or event.state not in (WorkerState.SUCCESS, WorkerState.ERROR):
            return
        if event.state is WorkerState.ERROR:
            self.busy = False
            error = event.worker.error
            reason = str(error) if isinstance(error, KomaError) else one_line(f"{type(error).__name__}: {error}")
            self._say(f"[b]Nothing imported[/b]: {escape(reason)}")
            return
        parsed: list[Parsed] = event.worker.result or []
        self._say(f"Keeping the good solves of {len(parsed)}…")
        read_store(self, lambda store: store_import(store, parsed), self._stored, deadline=IMPORT_DEADLINE_SECONDS)

    def _stored(self, answer: Answer) -> None:
        self.busy = False
        if not answer.known:
            self._say(f"[b]Nothing imported[/b]: {escape(answer.unknown)}")
            return
        report: ImportReport = answer.value
        self.report = report
        again = len(report.kept) - report.added
        lines = [f"[b]Kept {len(report.kept)} solve{'s' if len(report.kept) != 1 else ''}[/b]"
                 + (f" ({again} already there)" if again else "")]
        lines += [escape(solve_line(result)) for result in report.kept[:SHOWN_LINES]]
        problems = report.problem_lines()
        if problems:
            lines.append(f"[b]Not kept: {len(report.refused)}[/b]")
            lines += [escape(line) for line in problems[:SHOWN_LINES]]
        self._say("\n".join(lines))

    def action_back(self) -> None:
        self.app.pop_screen()
