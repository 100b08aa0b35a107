"""Each override of Textual internals checks what it relies on, and steps aside with one notice when it is not there.

Every test takes away (or changes) one thing the override relies on, as a later Textual might, and checks
that Koma then runs Textual's own behaviour for that part and says so exactly once.
"""

from __future__ import annotations

import asyncio
import signal
import threading

import pytest
from rich.segment import Segment
from textual import events
from textual import screen as textual_screen
from textual._compositor import Compositor
from textual.app import App
from textual.css.stylesheet import Stylesheet
from textual.drivers.linux_driver import LinuxDriver
from textual.message_pump import MessagePump
from textual.strip import Strip
from textual.timer import Timer

from tui import notices as product_notices
from tui.patches import checks as overrides
from tui.patches import driver, rendering, strip_caches, stylesheet


@pytest.fixture
def told(monkeypatch, capsys):
    """The notices given from now on: ``told()`` returns (notices for the front ends, lines on stderr)."""
    monkeypatch.setattr(overrides, "_told", set())
    product_notices.drain()
    capsys.readouterr()

    def notices() -> tuple[list[str], list[str]]:
        return product_notices.drain(), capsys.readouterr().err.splitlines()

    return notices


def assert_told_once(told, *fragments: str) -> None:
    posted, stderr = told()
    assert len(posted) == 1 and len(stderr) == 1, (posted, stderr)
    assert stderr == [f"koma: {posted[0]}"]  # stderr is not a terminal here, as in koma serve's log
    assert posted[0].startswith("Textual ") and all(fragment in posted[0] for fragment in fragments), posted[0]


def test_the_overrides_fit_the_installed_textual():
    assert rendering.misfit() is None and stylesheet.misfit() is None and driver.misfit() is None
    assert strip_caches.strip_misfit() is None


def test_importing_an_override_tells_nothing_its_first_use_tells_once():
    """No override checks (or tells) at import: a misfit is told when the override is first used."""
    import subprocess
    import sys

    code = "\n".join([
        "import sys",
        "from textual._compositor import Compositor",
        "del Compositor._get_renders  # as if Textual had changed",
        "from tui.patches import driver, rendering, stylesheet, strip_caches",
        "from tui.patches import ssh_environment",
        "print('imported', file=sys.stderr, flush=True)",
        "rendering.DirtyOnlyRendering()",
        "rendering.DirtyOnlyRendering()",
    ])
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    lines = result.stderr.splitlines()
    assert lines[0] == "imported" and len(lines) == 2, lines
    assert lines[1].startswith("koma: Textual ") and "no Compositor._get_renders" in lines[1]


# --- strip caches ----------------------------------------------------------------------------------
@pytest.mark.parametrize("change", ["a slot fewer", "another __init__"])
def test_strip_caches_step_aside_when_strip_changes(monkeypatch, told, change):
    monkeypatch.setattr(Strip, "__init__", strip_caches.TEXTUAL_INIT)  # as before any deferral
    if change == "a slot fewer":
        monkeypatch.setattr(Strip, "__slots__", tuple(sorted(strip_caches.STRIP_SLOTS - {"_crop_cache"})))
        fragment = "_crop_cache"
    else:
        def init_with_an_option(self, segments, cell_length=None, link_ids=None):
            strip_caches.TEXTUAL_INIT(self, segments, cell_length)

        monkeypatch.setattr(Strip, "__init__", init_with_an_option)
        fragment = "link_ids"
    assert strip_caches.defer_strip_caches() is False
    assert strip_caches.defer_strip_caches() is False  # asked again: still aside, and not told again
    assert Strip.__init__ is not strip_caches.lean_init
    assert Strip([Segment("Koma 駒")]).crop(0, 4).text == "Koma"  # Textual's own strips work
    assert_told_once(told, "strip caches", fragment)


# --- the partial-update compositor ---------------------------------------------------------------
def test_rendering_steps_aside_when_the_compositor_changes(monkeypatch, told):
    monkeypatch.delattr(Compositor, "_get_renders")
    problem = rendering.check()
    assert problem == "no Compositor._get_renders"
    assert rendering.check() == problem  # checked again: not told again
    assert_told_once(told, "partial-update compositor", "no Compositor._get_renders", "Textual's own compositor")
    monkeypatch.setattr(rendering, "misfit", lambda: problem)
    screen = rendering.DirtyOnlyRendering()
    assert type(screen._compositor) is Compositor
    assert told() == ([], [])


def test_rendering_steps_aside_when_a_screen_keeps_another_compositor(monkeypatch, told):
    class OtherCompositor(Compositor):
        pass

    monkeypatch.setattr(textual_screen, "Compositor", OtherCompositor)  # what Screen.__init__ makes
    first, second = rendering.DirtyOnlyRendering(), rendering.DirtyOnlyRendering()
    assert type(first._compositor) is OtherCompositor and type(second._compositor) is OtherCompositor
    assert_told_once(told, "partial-update compositor", "_compositor")


def test_rendering_changes_the_compositor_when_textual_fits():
    assert type(rendering.DirtyOnlyRendering()._compositor) is rendering.DirtyOnlyCompositor


def test_the_frame_timer_steps_aside_when_a_frame_becomes_a_coroutine(monkeypatch, told):
    async def frame(self) -> None:
        pass

    monkeypatch.setattr(textual_screen.Screen, "_on_timer_update", frame)
    problem = rendering.frames_misfit()
    assert problem == "Screen._on_timer_update is a coroutine"
    rendering.frames_off.cache_clear()
    try:
        assert rendering.frames_off() == problem and rendering.frames_off() == problem
        assert_told_once(told, "frame timer", "coroutine", "Textual's update timer")
    finally:
        rendering.frames_off.cache_clear()


async def test_screens_keep_textuals_update_timer_where_the_frame_timer_does_not_fit(monkeypatch):
    monkeypatch.setattr(rendering, "frames_off", lambda: "no Screen._on_timer_update")

    class Shown(App):
        def on_mount(self) -> None:
            self.push_screen(rendering.DirtyOnlyRendering())

    async with Shown().run_test() as pilot:
        await pilot.pause()
        assert isinstance(pilot.app.screen._update_timer, Timer)
    monkeypatch.undo()
    assert rendering.frames_misfit() is None
    async with Shown().run_test() as pilot:
        await pilot.pause()
        assert isinstance(pilot.app.screen._update_timer, rendering.FrameTimer)


# --- the shared stylesheet -----------------------------------------------------------------------
def test_stylesheet_steps_aside_when_parse_rules_changes(monkeypatch, told):
    original = Stylesheet._parse_rules

    def parse_rules_with_an_option(self, css, read_from, is_default_rules=False, tie_breaker=0, scope="", layer=None):
        return original(self, css, read_from, is_default_rules, tie_breaker, scope)

    monkeypatch.setattr(Stylesheet, "_parse_rules", parse_rules_with_an_option)
    problem = stylesheet.check()
    assert problem is not None and "layer" in problem
    stylesheet.check()
    assert_told_once(told, "shared stylesheet", "layer", "each game parses its own CSS")
    monkeypatch.setattr(stylesheet, "misfit", lambda: problem)
    monkeypatch.setattr(stylesheet.SharedStylesheet, "parsed", {})
    sheet = stylesheet.SharedStylesheet(variables={})
    sheet.add_source("Label { color: red; }", read_from=("test.tcss", ""))
    sheet.parse()
    assert sheet.rules and stylesheet.SharedStylesheet.parsed == {}  # parsed, as Textual does, and not shared


def test_stylesheet_steps_aside_without_variables(monkeypatch, told):
    original_init = Stylesheet.__init__

    def init_without_variables(self, *, variables=None):
        original_init(self, variables=variables)
        del self._variables

    monkeypatch.setattr(Stylesheet, "__init__", init_without_variables)
    assert stylesheet.check() == "a Stylesheet has no _variables dict"
    assert_told_once(told, "shared stylesheet", "_variables")


# --- the quiet driver ----------------------------------------------------------------------------
@pytest.fixture
def signal_handlers():
    """LinuxDriver puts in SIGTSTP and SIGCONT handlers when made: put the test process's back."""
    saved = {number: signal.getsignal(number) for number in (signal.SIGTSTP, signal.SIGCONT)}
    yield
    for number, handler in saved.items():
        signal.signal(number, handler)


def test_driver_steps_aside_when_linux_driver_changes(monkeypatch, told, signal_handlers):
    monkeypatch.delattr(LinuxDriver, "_sigcont_application")
    problem = driver.check()
    assert problem == "no LinuxDriver._sigcont_application"
    driver.check()
    assert_told_once(told, "quiet terminal driver", "_sigcont_application", "Textual's own driver")


def test_driver_steps_aside_when_the_key_parser_changes(monkeypatch, told):
    from textual._xterm_parser import XTermParser

    original = XTermParser.__init__

    def init(self, debug=False, *, kitty=False):
        original(self, debug)

    monkeypatch.setattr(XTermParser, "__init__", init)
    assert "kitty" in (driver.check() or "")
    assert_told_once(told, "quiet terminal driver", "kitty")


async def test_a_driver_that_does_not_fit_is_textuals_own(monkeypatch, told, signal_handlers):
    monkeypatch.setattr(driver, "misfit", lambda: "no LinuxDriver._sigcont_application")
    ran: list[str] = []
    monkeypatch.setattr(LinuxDriver, "run_input_thread", lambda self: ran.append("textual's loop"))
    quiet = driver.QuietLinuxDriver(None, debug=False, mouse=False, size=(80, 24))
    assert quiet.quiet is False
    assert not isinstance(quiet._file, driver.HangupSafeTerminal) and not isinstance(quiet.exit_event, driver.WakingEvent)
    quiet.run_input_thread()
    assert ran == ["textual's loop"]
    assert told() == ([], [])  # told on first use, not again per driver


async def test_a_driver_missing_what_it_holds_steps_aside_when_made(monkeypatch, told, signal_handlers):
    original = LinuxDriver.__init__

    def init_without_resume_flag(self, *args, **kwargs):
        original(self, *args, **kwargs)
        del self._must_signal_resume

    monkeypatch.setattr(LinuxDriver, "__init__", init_without_resume_flag)
    drivers = [driver.QuietLinuxDriver(None, debug=False, mouse=False, size=(80, 24)) for _ in range(2)]
    assert [d.quiet for d in drivers] == [False, False]
    assert not isinstance(drivers[0].exit_event, driver.WakingEvent)
    assert_told_once(told, "quiet terminal driver", "_must_signal_resume")


async def test_a_driver_that_fits_is_quiet(signal_handlers):
    quiet = driver.QuietLinuxDriver(None, debug=False, mouse=False, size=(80, 24))
    assert quiet.quiet is True and isinstance(quiet.exit_event, driver.WakingEvent)
    assert isinstance(quiet._file, driver.HangupSafeTerminal)


async def test_a_quiet_driver_holds_its_output_then_writes_it_in_order(monkeypatch, signal_handlers):
    """What the app draws while the output is held is written when the hold ends, in order and as one write; a
    hold asked while one runs is refused; a hold never lasts longer than LONGEST_HOLD_SECONDS; stopping the
    application mode writes what is held first; Textual's own driver holds nothing."""
    written: list[str] = []
    monkeypatch.setattr(LinuxDriver, "write", lambda self, data: written.append(data))
    monkeypatch.setattr(LinuxDriver, "stop_application_mode", lambda self: written.append("<stopped>"))
    quiet = driver.QuietLinuxDriver(None, debug=False, mouse=False, size=(80, 24))
    loop = asyncio.get_running_loop()
    started = loop.time()
    assert quiet.hold_output(0.2) and not quiet.hold_output(0.2)
    quiet.write("frame ")
    quiet.write("two")
    assert written == []
    for _ in range(500):
        if written:
            break
        await asyncio.sleep(0.01)
    assert written == ["frame two"] and loop.time() - started >= 0.19
    quiet.write("after")
    assert written == ["frame two", "after"]

    assert quiet.hold_output(3600)
    assert quiet.release_timer.when() - loop.time() <= driver.LONGEST_HOLD_SECONDS
    quiet.write("last frame")
    quiet.stop_application_mode()
    assert written[2:] == ["last frame", "<stopped>"] and quiet.held is None and quiet.release_timer is None

    monkeypatch.setattr(driver, "misfit", lambda: "no LinuxDriver.write")
    own = driver.QuietLinuxDriver(None, debug=False, mouse=False, size=(80, 24))
    assert not own.hold_output(0.2)
    own.write("at once")
    assert written[-1] == "at once"


async def test_a_quiet_driver_hands_each_key_to_the_app_loop_as_one_callback(signal_handlers):
    """Keys sent from the input thread reach the app in order, on its loop, posted by a plain callback (Textual's
    driver runs a coroutine for each: a task and a future per key)."""
    posted: list[tuple[str, object, int]] = []

    class App:
        def post_message(self, message) -> bool:
            posted.append((message.key, asyncio.current_task(), threading.get_ident()))
            return True

    quiet = driver.QuietLinuxDriver(App(), debug=False, mouse=False, size=(80, 24))
    keys = [events.Key(key, None) for key in ("left", "right", "up")]
    sender = threading.Thread(target=lambda: [quiet.send_message(key) for key in keys])
    sender.start()
    sender.join()
    for _ in range(500):
        if len(posted) == len(keys):
            break
        await asyncio.sleep(0.01)
    assert [key for key, _, _ in posted] == ["left", "right", "up"]
    assert all(task is None and thread == threading.get_ident() for _, task, thread in posted), posted


async def test_a_quiet_driver_suspends_and_resumes_from_the_loop_not_inside_the_signal_handler(monkeypatch,
                                                                                               signal_handlers):
    """A signal handler runs between any two bytecodes of the main thread; Textual's suspend, run there, could wait
    for a lock the interrupted code holds (the output queue's).  The quiet driver's handlers only schedule Textual's
    suspend and resume on the app's loop; the resume only after the driver's own suspend (a hang-up's SIGCONT is not
    one); inside Textual's own ``suspend()`` (no auto-restart) the handler is Textual's, as before."""
    done: list[str] = []
    monkeypatch.setattr(LinuxDriver, "_sigtstp_application",
                        lambda self, *_: (done.append("suspend"), setattr(self, "_must_signal_resume", True)))
    monkeypatch.setattr(LinuxDriver, "_sigcont_application", lambda self, *_: done.append("resume"))
    quiet = driver.QuietLinuxDriver(None, debug=False, mouse=False, size=(80, 24))
    assert quiet.quiet
    quiet._sigcont_application(signal.SIGCONT, None)  # a hang-up's SIGCONT: no suspend before it
    await asyncio.sleep(0)
    assert done == []
    quiet._sigtstp_application(signal.SIGTSTP, None)
    assert done == []  # not inside the handler
    await asyncio.sleep(0)
    assert done == ["suspend"]
    quiet._sigcont_application(signal.SIGCONT, None)
    assert done == ["suspend"]
    await asyncio.sleep(0)
    assert done == ["suspend", "resume"]
    with quiet.no_automatic_restart():
        quiet._sigtstp_application(signal.SIGTSTP, None)
    assert done == ["suspend", "resume", "suspend"]


def test_driver_steps_aside_when_posting_a_message_changes(monkeypatch, told):
    async def _post_message(self, message, delay):  # as if a later Textual posted differently
        return self.post_message(message)

    monkeypatch.setattr(MessagePump, "_post_message", _post_message)
    assert "_post_message" in (driver.check() or "")
    assert_told_once(told, "quiet terminal driver", "_post_message")


# --- the pin ---------------------------------------------------------------------------------------
def test_textual_is_pinned_to_the_series_the_overrides_were_written_for():
    """An application pins what it tests: the run-time pin admits the installed Textual and no other minor
    release, and the test extra does not pin Textual on its own (it gets the run-time pin)."""
    import tomllib
    from importlib import metadata
    from pathlib import Path

    from packaging.requirements import Requirement

    project = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())["project"]
    [pin] = [Requirement(r) for r in project["dependencies"] if Requirement(r).name == "textual"]
    assert pin.specifier.contains(metadata.version("textual"))
    major, minor = (int(part) for part in metadata.version("textual").split(".")[:2])
    assert not pin.specifier.contains(f"{major}.{minor + 1}.0") and not pin.specifier.contains(f"{major + 1}.0.0")
    assert not pin.specifier.contains(f"{major}.{minor - 1}.0" if minor else f"{major - 1}.99.0")
    extras = [Requirement(r) for group in project["optional-dependencies"].values() for r in group]
    assert [r for r in extras if r.name == "textual"] == []


# --- asyncssh: the session channel's environment ----------------------------------------------------
def test_the_ssh_environment_limit_fits_the_installed_asyncssh():
    pytest.importorskip("asyncssh")
    from tui.patches import ssh_environment

    assert ssh_environment.channel_misfit() is None and ssh_environment.misfit() is None


def test_the_ssh_environment_limit_steps_aside_when_asyncssh_changes(monkeypatch, told):
    asyncssh = pytest.importorskip("asyncssh")
    from tui.patches import ssh_environment

    monkeypatch.delattr(asyncssh.SSHServerChannel, "_process_env_request")
    problem = ssh_environment.channel_misfit()
    assert problem == "no SSHServerChannel._process_env_request"
    ssh_environment.misfit.cache_clear()
    try:
        assert ssh_environment.misfit() == problem
        assert ssh_environment.misfit() == problem
        posted, stderr = told()
        assert len(posted) == 1 and stderr == [f"koma: {posted[0]}"]
        assert posted[0].startswith("asyncssh ") and problem in posted[0] and "every variable" in posted[0]

        class Connection:  # what session_channel asks of a connection
            made = object()

            def create_server_channel(self):
                return self.made

        assert ssh_environment.session_channel(Connection(), {b"COLORTERM": 16}) is Connection.made  # asyncssh's own
    finally:
        ssh_environment.misfit.cache_clear()


# --- argparse: words that begin with "-" ------------------------------------------------------------
DASH_BOARD = "-BBd/.WrS/-jli"  # Goat: a fence in the top-left corner


def test_the_board_aware_parser_fits_the_installed_argparse():
    from tui.cli import parse_args
    from tui.patches import arguments

    assert arguments.parser_misfit() is None and arguments.misfit() is None
    assert parse_args(["solve", "goat", DASH_BOARD, "--json"]).board == DASH_BOARD
    assert parse_args(["solve", "8", "--json", "1 2 3/4 5 6/7 8 _"]).board == "1 2 3/4 5 6/7 8 _"


def test_the_board_aware_parser_steps_aside_when_argparse_changes(monkeypatch, told):
    import argparse

    from tui.cli import parse_args
    from tui.cli_frame import CommandError
    from tui.patches import arguments

    original = argparse.ArgumentParser._parse_optional
    monkeypatch.setattr(argparse.ArgumentParser, "_parse_optional",
                        lambda self, arg_string, prefix_chars=None: original(self, arg_string))
    arguments.misfit.cache_clear()
    try:
        with pytest.raises(CommandError):  # argparse's own: the board is taken for an option
            parse_args(["solve", "goat", DASH_BOARD])
        assert parse_args(["solve", "goat", "--", DASH_BOARD]).board == DASH_BOARD  # as the error says
        posted, stderr = told()
        assert len(posted) == 1 and stderr == [f"koma: {posted[0]}"]
        assert posted[0].startswith("Python ") and "argparse" in posted[0] and "prefix_chars" in posted[0]
    finally:
        arguments.misfit.cache_clear()
