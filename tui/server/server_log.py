"""``koma serve``'s log on stderr: readable lines (the default) or, with ``--log-format json``, one JSON object per line.

Every line is an event: a name (``game_started``, ``refused``, ``database_trouble``, ...), the readable message, and
the fields an operator filters on (``player``, ``client``, ``pid``, ``seconds``).  A text line is the message alone,
control characters escaped, so no field a client sent can forge a line; a JSON line is escaped by JSON itself.
Refusals go through :class:`Throttle`, so a flood of refused connections cannot fill the disk.  Never imports Textual.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import time
import warnings
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, TextIO

from tui.server.log_lines import escape_controls

PREFIX = "koma serve: "
FORMAT_VARIABLE = "KOMA_LOG_FORMAT"  # the server's format, for the warm process and the games' failure reports
NAME_VARIABLE = "KOMA_LOG_NAME"  # the command whose log it is ("koma web"), likewise


class ServerLog:
    """Writes one event per line in the chosen format; a callable ``log(message, event=..., **fields)``.  Without a
    format given, it is ``$KOMA_LOG_FORMAT`` (else text), read on first use: the server sets it for its warm process
    and games."""

    def __init__(self, form: str | None = None, stream: TextIO | None = None):
        self.chosen = form
        self.stream = stream
        self.name: str | None = None  # the command that logs (its lines start "NAME: "); None: $KOMA_LOG_NAME

    @property
    def prefix(self) -> str:
        """What each text line starts with: ``koma serve: ``, or ``koma web: `` in koma web's processes."""
        if self.name is None:
            self.name = os.environ.get(NAME_VARIABLE, PREFIX.removesuffix(": "))
        return f"{self.name}: "

    @property
    def form(self) -> str:
        if self.chosen is None:
            self.chosen = os.environ.get(FORMAT_VARIABLE, "text")
        return self.chosen

    @form.setter
    def form(self, form: str) -> None:
        self.chosen = form

    def line(self, message: str, event: str = "log", **fields: Any) -> str:
        if self.form == "json":
            record = {"time": datetime.now(UTC).isoformat(timespec="milliseconds"), "event": event, "message": message}
            record.update((k, v) for k, v in fields.items() if v is not None)
            return json.dumps(record, ensure_ascii=True, default=str)
        return self.prefix + escape_controls(message)

    def __call__(self, message: str, event: str = "log", **fields: Any) -> None:
        try:
            print(self.line(message, event, **fields), file=self.stream or sys.stderr, flush=True)
        except (OSError, ValueError):  # the log's pipe is gone: the games go on
            pass


SERVER_LOG = ServerLog()


def log(message: str, event: str = "log", **fields: Any) -> None:
    """One event in the server's log (see :class:`ServerLog`)."""
    SERVER_LOG(message, event, **fields)


def use_format(form: str) -> None:
    """Log in ``form``; what libraries log (asyncio's and asyncssh's warnings) and every Python warning from now on
    (one a library raises at import among them) go through the same log, one line each."""
    SERVER_LOG.form = form
    root = logging.getLogger()
    if not any(isinstance(handler, LibraryLog) for handler in root.handlers):
        root.addHandler(LibraryLog(logging.WARNING))
    warnings.showwarning = log_warning


def log_warning(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                file: TextIO | None = None, line: str | None = None) -> None:
    """A Python warning as one event of the server's log (``warnings.showwarning``'s signature)."""
    log(f"{category.__name__}: {message} ({filename}:{lineno})", "warning", category=category.__name__,
        source=f"{filename}:{lineno}")


class LibraryLog(logging.Handler):
    """Python's logging (asyncio, asyncssh) as events of the server's log, so a JSON log stays one object a line."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            log(f"{record.name}: {record.getMessage()}", "library", logger=record.name, level=record.levelname)
        except Exception:  # a bad record must not take the server down
            self.handleError(record)


def use_name(name: str) -> None:
    """The log's lines are ``name``'s (``koma web``), in this process and the processes it starts."""
    SERVER_LOG.name = name


def format_environment() -> dict[str, str]:
    """The log's format and name, for the processes the server starts (the warm process, the games)."""
    form = {FORMAT_VARIABLE: SERVER_LOG.form} if SERVER_LOG.form != "text" else {}
    name = SERVER_LOG.prefix.removesuffix(": ")
    return {**form, **({NAME_VARIABLE: name} if name != PREFIX.removesuffix(": ") else {})}


class Throttle:
    """At most ``burst`` lines per ``window`` seconds; then one line saying how many ``what`` were left out (written
    by ``say``: the server's log unless told otherwise)."""

    def __init__(self, burst: int = 20, window: float = 10.0, what: str = "refusal(s)",
                 say: Callable[..., None] | None = None):
        self.burst, self.window, self.what, self.say = burst, window, what, say
        self.began = -window
        self.count = 0
        self.skipped = 0

    def allow(self, now: float | None = None) -> bool:
        now = time.monotonic() if now is None else now
        self.flush(now)
        if now - self.began >= self.window:
            self.began, self.count = now, 0
        self.count += 1
        if self.count > self.burst:
            self.skipped += 1
            return False
        return True

    def flush(self, now: float | None = None) -> None:
        """Once the window is over: one line for the lines left out, if any."""
        now = time.monotonic() if now is None else now
        if self.skipped and now - self.began >= self.window:
            (self.say or log)(f"{self.skipped} more {self.what} not logged in the last {self.window:g} s",
                              "refusals_not_logged", count=self.skipped)
            self.began, self.count, self.skipped = now, 0, 0
