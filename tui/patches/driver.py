"""A terminal driver whose input thread sleeps while the player does nothing, and which survives a hang-up.

Textual's ``LinuxDriver`` wakes its input thread ten times a second (``select(0.1)``) to notice a
lone Escape and its own exit.  Over SSH that polling was about half of an idle game's CPU.
:class:`QuietLinuxDriver` waits for input with no timeout, unless the key parser holds an
unfinished escape sequence, in which case it waits exactly until that sequence times out; a pipe
wakes it when the app asks the thread to stop.

When its terminal hangs up (the SSH client or the tmux window goes), a game gets SIGHUP and
SIGCONT.  Textual's driver took that SIGCONT for the end of a Ctrl+Z and started application mode
again: a second output thread, which died on its first write to the dead terminal.  Shutdown then
queued its last writes for that dead thread, and blocked for ever once 30 were queued: the game
outlived its player and ignored SIGTERM (seen with py-spy on such leftovers).  Here SIGCONT resumes
only after Koma's own suspend, and writes to a gone terminal are dropped instead of killing the
output thread; either alone ends the leftovers in the test that reproduces them.  Both signals' work (Textual's
suspend and resume) runs from the app's loop, never inside the handler, which may interrupt the main thread anywhere.
Each key reaches the app's loop as one callback that posts it (Textual's driver wraps every event in a coroutine, a
task and a future: a third of the input thread's work per key, and more on the app's loop).
The driver can hold its output for a moment (:meth:`QuietLinuxDriver.hold_output`): what the app draws meanwhile is
written when the moment comes, in order.  A race draws its reveal ahead and shows it at the reveal on every racer's
screen at once (:mod:`tui.screens.race`).
Everything else is Textual's driver unchanged.

The driver relies on ``LinuxDriver``'s internals (``run_input_thread``, ``_sigtstp_application``, ``_sigcont_application``,
``_file``, ``exit_event``, ``_must_signal_resume``, ``_loop``, ``_app``, ``send_message`` awaiting the app's
``_post_message``, which only calls ``post_message``) and on ``XTermParser``'s; the class-level ones are
checked when the first driver is made (:func:`driver_misfit`), the others for each driver.  If they are not as in
Textual 8.2, the driver is Textual's own (polling, as before) and Koma says so once
(:func:`tui.patches.checks.step_aside`).
"""

from __future__ import annotations

import functools
import os
import selectors
import signal
import threading
from codecs import getincrementaldecoder
from typing import Any

from textual._time import get_time
from textual._xterm_parser import XTermParser
from textual.drivers.linux_driver import LinuxDriver
from textual.message import Message
from textual.message_pump import MessagePump

from tui.patches.checks import first_problem, missing, parameters_differ, step_aside, told_if_misfit

FALLBACK_POLL_SECONDS = 0.1  # Textual's own poll, used if its parser ever stops telling its deadline
LONGEST_HOLD_SECONDS = 1.0  # a hold of the output never lasts longer, whatever it was asked for


class WakingEvent(threading.Event):
    """An Event that also writes a byte to the current input thread's wake pipe when set, so that a thread
    blocked in ``select`` wakes up.  Each input thread opens its pipe with :meth:`open_pipe` and closes it
    with :meth:`close_pipe` (a suspend ends the thread, a resume starts a new one)."""

    def __init__(self) -> None:
        super().__init__()
        self.pipe_lock = threading.Lock()
        self.wake_fd = -1

    def open_pipe(self) -> int:
        """A new wake pipe: returns its read end."""
        read, write = os.pipe()
        for fd in (read, write):
            os.set_blocking(fd, False)
        with self.pipe_lock:
            self.wake_fd = write
        return read

    def close_pipe(self, read: int) -> None:
        with self.pipe_lock:
            write, self.wake_fd = self.wake_fd, -1
            for fd in (read, write):
                if fd >= 0:
                    os.close(fd)

    def set(self) -> None:
        super().set()
        with self.pipe_lock:
            if self.wake_fd >= 0:
                try:
                    os.write(self.wake_fd, b"!")
                except BlockingIOError:  # the pipe is full: the thread is awake already
                    pass


def drain(fd: int) -> None:
    """Read a non-blocking pipe empty."""
    try:
        while os.read(fd, 512):
            pass
    except BlockingIOError:
        pass


def parser_wait(parser: XTermParser) -> float | None:
    """Seconds until the parser's pending escape sequence times out; None when nothing is pending."""
    try:
        deadline = parser._timeout_time
    except AttributeError:
        return FALLBACK_POLL_SECONDS
    return None if deadline is None else max(0.0, deadline - get_time())


class HangupSafeTerminal:
    """The terminal file for Textual's output thread: once a write or flush fails (EIO, EPIPE: the terminal
    is gone), every later one is dropped, so the thread lives on and a shutdown's writes never pile up."""

    def __init__(self, file: Any):
        self.file = file
        self.gone = False

    def write(self, text: str) -> int:
        if not self.gone:
            try:
                return self.file.write(text)
            except (OSError, ValueError):  # ValueError: the file was closed
                self.gone = True
        return len(text)

    def flush(self) -> None:
        if not self.gone:
            try:
                self.file.flush()
            except (OSError, ValueError):
                self.gone = True

    def __getattr__(self, name: str) -> Any:
        return getattr(self.file, name)


OVERRIDE = "quiet terminal driver"
INSTEAD = "the game uses Textual's own driver (its input thread polls ten times a second)"
INSTANCE_ATTRIBUTES = ["_file", "exit_event", "_must_signal_resume", "_auto_restart", "fileno", "_debug", "_loop",
                       "_app"]


def driver_misfit() -> str | None:
    """Why this Textual's ``LinuxDriver`` and ``XTermParser`` are not the ones :class:`QuietLinuxDriver` was written
    for, or None (what a driver holds is checked when one is made)."""
    return first_problem(
        lambda: missing(LinuxDriver, ["run_input_thread", "_sigtstp_application", "_sigcont_application",
                                      "process_message", "send_message", "write", "stop_application_mode"]),
        lambda: parameters_differ(LinuxDriver.run_input_thread, ["self"]),
        lambda: parameters_differ(LinuxDriver.write, ["self", "data"]),
        lambda: parameters_differ(LinuxDriver.stop_application_mode, ["self"]),
        lambda: parameters_differ(LinuxDriver.send_message, ["self", "message"]),
        lambda: missing(MessagePump, ["_post_message", "post_message"]),
        lambda: parameters_differ(MessagePump._post_message, ["self", "message"]),
        lambda: parameters_differ(MessagePump.post_message, ["self", "message"]),
        lambda: parameters_differ(LinuxDriver._sigtstp_application, ["self", "_"]),
        lambda: parameters_differ(LinuxDriver._sigcont_application, ["self", "_"]),
        lambda: parameters_differ(XTermParser.__init__, ["self", "debug"]),
        lambda: missing(XTermParser, ["feed", "tick"]),
        lambda: missing(XTermParser(False), ["_timeout_time"]),
    )


def check() -> str | None:
    """:func:`driver_misfit`, told once (:func:`tui.patches.checks.step_aside`) if there is one."""
    return told_if_misfit(OVERRIDE, driver_misfit(), INSTEAD)


@functools.cache
def misfit() -> str | None:
    """:func:`check`, run on first use (not at import) and remembered: None while the override is on."""
    return check()


class QuietLinuxDriver(LinuxDriver):
    """Textual's Linux driver with an input thread that blocks until a key, a parser timeout or exit;
    Textual's own, unchanged, when this Textual is not the one it knows (:func:`misfit`, :attr:`quiet`)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.held: list[str] | None = None  # what the app wrote while the output is held, in order
        self.release_timer: Any = None
        self.quiet = not misfit()  # told once if not
        if self.quiet:
            problem = missing(self, INSTANCE_ATTRIBUTES)
            if problem is None and not isinstance(self.exit_event, threading.Event):
                problem = "LinuxDriver.exit_event is not a threading.Event"
            if problem:
                step_aside(OVERRIDE, problem, INSTEAD)
                self.quiet = False
        if not self.quiet:
            return
        self.terminal = HangupSafeTerminal(self._file)
        self._file = self.terminal  # type: ignore[assignment]  # Textual's output thread only writes and flushes it
        self.waking = WakingEvent()
        self.exit_event = self.waking

    def write(self, data: str) -> None:
        """Textual's write (to its output thread), or kept for the end of a hold (the app's loop writes, and only
        it: no lock)."""
        if self.held is not None:
            self.held.append(data)
        else:
            super().write(data)

    def hold_output(self, seconds: float) -> bool:
        """Keep what the app writes for ``seconds`` (at most :data:`LONGEST_HOLD_SECONDS`), then write it all at
        once; from the app's loop.  False (nothing held) if this driver is Textual's own or already holds."""
        if not self.quiet or self.held is not None:
            return False
        self.held = []
        self.release_timer = self._loop.call_later(min(max(0.0, seconds), LONGEST_HOLD_SECONDS), self.release_output)
        return True

    def release_output(self) -> None:
        """Write what a hold kept, and end it (at its time, or sooner: the app stops)."""
        held, self.held = self.held, None
        if self.release_timer is not None:
            self.release_timer.cancel()
            self.release_timer = None
        if held:
            super().write("".join(held))

    def stop_application_mode(self) -> None:
        """Textual's, after writing what a hold kept (a game that quits or suspends during one shows it first)."""
        if self.quiet:
            self.release_output()
        super().stop_application_mode()

    def send_message(self, message: Message) -> None:
        """Hand ``message`` (from the input thread) to the app's loop: one callback that posts it, where Textual's
        driver schedules a coroutine that does (a task and a future for every key)."""
        if not self.quiet:
            super().send_message(message)
            return
        self._loop.call_soon_threadsafe(self._app.post_message, message)

    def _sigtstp_application(self, *args) -> None:
        """Suspend from the app's loop, not from inside the signal handler: Python runs a handler between any two
        bytecodes of the main thread, and Textual's (which writes to the terminal and joins the input thread) could
        then wait for a lock the interrupted code holds, such as the output queue's: the game neither stopped nor
        drew again (seen once in a whole run, on a ``kill -TSTP`` just after a frame)."""
        if not (self.quiet and self._auto_restart):  # inside Textual's own suspend the handler only stops the process
            super()._sigtstp_application(*args)
        elif not self._on_loop(LinuxDriver._sigtstp_application, self, *args):
            os.kill(os.getpid(), signal.SIGSTOP)  # the app has ended: stop, as a process without a handler would

    def _sigcont_application(self, *args) -> None:
        """Resume after Koma's own suspend (Ctrl+Z) only: a hang-up sends SIGCONT too, and then the game is leaving.
        The resume runs from the app's loop, as the suspend does."""
        if not self.quiet:
            super()._sigcont_application(*args)
        else:
            self._on_loop(self._resume_after_own_suspend, *args)

    def _resume_after_own_suspend(self, *args) -> None:
        if self._must_signal_resume:
            LinuxDriver._sigcont_application(self, *args)

    def _on_loop(self, callback, *args) -> bool:
        """Run ``callback(*args)`` soon on the app's loop; False if that loop is closed."""
        try:
            self._loop.call_soon_threadsafe(callback, *args)
        except RuntimeError:
            return False
        return True

    def run_input_thread(self) -> None:
        """Read keys and dispatch events until :attr:`exit_event` is set (Textual's loop, without the poll)."""
        if not self.quiet:
            return super().run_input_thread()
        wake_read = self.waking.open_pipe()
        selector = selectors.SelectSelector()
        selector.register(self.fileno, selectors.EVENT_READ)
        selector.register(wake_read, selectors.EVENT_READ)
        parser = XTermParser(self._debug)
        decode = getincrementaldecoder("utf-8")().decode

        def dispatch(ready: list[tuple[selectors.SelectorKey, int]], final: bool = False) -> None:
            for key, mask in ready:
                if key.fd == wake_read:
                    drain(wake_read)
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
            self.waking.close_pipe(wake_read)
            try:
                for _event in parser.feed(""):
                    pass
            except Exception:  # EOF or a parse error at the very end: nothing left to dispatch
                pass


def hold_output(app: Any, seconds: float) -> bool:
    """Hold what ``app`` draws for ``seconds`` (:meth:`QuietLinuxDriver.hold_output`); False when its driver cannot
    (headless, or Textual's own): the app's frames are written as ever."""
    driver = getattr(app, "_driver", None)
    return isinstance(driver, QuietLinuxDriver) and driver.hold_output(seconds)


def write_to_terminal(app: Any, text: str) -> bool:
    """Write ``text`` (a control sequence) straight to the app's terminal, as Textual's ``copy_to_clipboard`` does
    with OSC 52; False when the app has no driver that writes (headless, or a Textual without ``_driver.write``)."""
    driver = getattr(app, "_driver", None)
    write = getattr(driver, "write", None)
    if driver is None or getattr(app, "is_headless", True) or not callable(write):
        return False
    write(text)
    return True
