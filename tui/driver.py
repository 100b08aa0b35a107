"""A terminal driver whose input thread sleeps while the player does nothing.

Textual's ``LinuxDriver`` wakes its input thread ten times a second (``select(0.1)``) to notice a
lone Escape and its own exit.  Over SSH that polling was about half of an idle game's CPU.
:class:`QuietLinuxDriver` waits for input with no timeout, unless the key parser holds an
unfinished escape sequence, in which case it waits exactly until that sequence times out; a pipe
wakes it when the app asks the thread to stop.  Everything else is Textual's driver unchanged.
"""

from __future__ import annotations

import os
import selectors
import threading
from codecs import getincrementaldecoder

from textual._time import get_time
from textual._xterm_parser import XTermParser
from textual.drivers.linux_driver import LinuxDriver

FALLBACK_POLL_SECONDS = 0.1  # Textual's own poll, used if its parser ever stops telling its deadline


class WakingEvent(threading.Event):
    """An Event that also writes a byte to a pipe when set, so a thread blocked in ``select`` wakes up."""

    def __init__(self, wake_fd: int):
        super().__init__()
        self.wake_fd = wake_fd

    def set(self) -> None:
        super().set()
        try:
            os.write(self.wake_fd, b"!")
        except OSError:  # the pipe is full (already woken) or closed (driver gone)
            pass


def parser_wait(parser: XTermParser) -> float | None:
    """Seconds until the parser's pending escape sequence times out; None when nothing is pending."""
    try:
        deadline = parser._timeout_time
    except AttributeError:
        return FALLBACK_POLL_SECONDS
    return None if deadline is None else max(0.0, deadline - get_time())


class QuietLinuxDriver(LinuxDriver):
    """Textual's Linux driver with an input thread that blocks until a key, a parser timeout or exit."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.wake_read, self.wake_write = os.pipe()
        os.set_blocking(self.wake_read, False)
        os.set_blocking(self.wake_write, False)
        self.waking = WakingEvent(self.wake_write)
        self.exit_event = self.waking

    def run_input_thread(self) -> None:
        """Read keys and dispatch events until :attr:`exit_event` is set (Textual's loop, without the poll)."""
        selector = selectors.SelectSelector()
        selector.register(self.fileno, selectors.EVENT_READ)
        selector.register(self.wake_read, selectors.EVENT_READ)
        parser = XTermParser(self._debug)
        decode = getincrementaldecoder("utf-8")().decode

        def dispatch(ready: list[tuple[selectors.SelectorKey, int]], final: bool = False) -> None:
            for key, mask in ready:
                if key.fd == self.wake_read:
                    self.drain_wake_pipe()
                elif mask & selectors.EVENT_READ:
                    text = decode(os.read(self.fileno, 4096), final=final)
                    if not text:  # stdin is a pipe at its end
                        break
                    for event in parser.feed(text):
                        self.process_message(event)
            for event in parser.tick():
                self.process_message(event)

        try:
            while not self.exit_event.is_set():
                dispatch(selector.select(parser_wait(parser)))
            selector.unregister(self.fileno)
            dispatch(selector.select(0), final=True)
        finally:
            selector.close()
            try:
                for _event in parser.feed(""):
                    pass
            except Exception:  # EOF or a parse error at the very end: nothing left to dispatch
                pass

    def drain_wake_pipe(self) -> None:
        try:
            while os.read(self.wake_read, 512):
                pass
        except OSError:  # empty (BlockingIOError) or closed
            pass

    def close(self) -> None:
        super().close()
        self.waking.wake_fd = -1  # the fd number may be reused once closed
        for fd in (self.wake_read, self.wake_write):
            try:
                os.close(fd)
            except OSError:
                pass
