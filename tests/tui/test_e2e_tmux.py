"""End to end: the installed ``koma`` in a real terminal (tmux, 80x24): a move, an auto-solve, quit."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from tmux_sessions import new_tmux_session

TMUX = shutil.which("tmux")
KOMA = shutil.which("koma") or str(Path(sys.executable).with_name("koma"))

pytestmark = [
    pytest.mark.skipif(TMUX is None, reason="tmux is not installed (CI installs it)"),
    pytest.mark.skipif(not Path(KOMA).exists(), reason="the koma console script is not installed"),
]


def capture(session: str) -> str:
    return subprocess.run([TMUX, "capture-pane", "-p", "-t", session], capture_output=True, text=True).stdout


def wait_for_text(session: str, text: str, timeout: float = 60.0) -> str:
    deadline = time.monotonic() + timeout
    screen = ""
    while time.monotonic() < deadline:
        screen = capture(session)
        if text in screen:
            return screen
        time.sleep(0.1)
    raise AssertionError(f"{text!r} never appeared; the screen was:\n{screen}")


def new_session(tmp_path, command: str) -> str:
    """A new 80x24 tmux session running ``command`` with Koma's data and cache dirs set; its name."""
    session = f"koma-e2e-{uuid.uuid4().hex[:8]}"
    env = {"KOMA_DATA_DIR": str(tmp_path / "data"), "LANG": "C.UTF-8", "TEXTUAL_ANIMATIONS": "none",
           "KOMA_CACHE_DIR": os.environ.get("KOMA_CACHE_DIR", str(tmp_path / "cache"))}
    args = ["-d", "-s", session, "-x", "80", "-y", "24"]
    for key, value in env.items():
        args += ["-e", f"{key}={value}"]
    new_tmux_session(TMUX, *args, command)
    return session


def start_koma(tmp_path, arguments: str) -> tuple[str, Path]:
    """``koma ARGUMENTS`` in a new tmux session; the session's name and the file its exit status goes to."""
    status = tmp_path / "status"
    # COLUMNS and LINES (which the test run may have set) would pin the size Textual sees: unset them
    return new_session(tmp_path, f"env -u COLUMNS -u LINES {KOMA} {arguments}; echo $? > {status}"), status


def koma_pid(session: str) -> int:
    """The pid of the koma process in the session's pane (the shell's child; ``env`` execs koma)."""
    shell = subprocess.run([TMUX, "display-message", "-p", "-t", session, "#{pane_pid}"], capture_output=True,
                           text=True).stdout.strip()
    children = Path(f"/proc/{shell}/task/{shell}/children").read_text().split()
    return int(children[0])


def quit_and_wait(session: str, status: Path, seconds: float) -> None:
    """Press ``q`` and wait (at most ``seconds``) for koma's exit status in ``status``: it must be 0."""
    subprocess.run([TMUX, "send-keys", "-t", session, "q"], check=True)
    deadline = time.monotonic() + seconds
    while not status.exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert status.exists() and status.read_text().strip() == "0"


def wakeups(pid: int) -> int:
    """How many times the threads of ``pid`` went to sleep and woke up so far (voluntary context switches)."""
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        for line in Path(f"/proc/{pid}/task/{task}/status").read_text().splitlines():
            if line.startswith("voluntary_ctxt_switches:"):
                total += int(line.split()[1])
    return total


def test_play_a_move_auto_solve_and_quit(tmp_path):
    session, status = start_koma(tmp_path, "play 8 --board '4 1 3/7 2 6/_ 5 8'")
    try:
        wait_for_text(session, "Moves 0")
        subprocess.run([TMUX, "send-keys", "-t", session, "Left"], check=True)  # tile 5 slides left
        wait_for_text(session, "Moves 1")
        wait_for_text(session, "from solved")
        subprocess.run([TMUX, "send-keys", "-t", session, "s"], check=True)
        screen = wait_for_text(session, "Solved by Koma")
        assert "Moves" in screen
        quit_and_wait(session, status, 10)
    finally:
        subprocess.run([TMUX, "kill-session", "-t", session], capture_output=True)


def test_an_idle_home_screen_sleeps_and_a_lone_escape_still_goes_back(tmp_path):
    """The input thread blocks until a key (Textual's own polls ten times a second); a lone Escape, which only
    a timeout tells from the start of a key sequence, still works; quitting wakes the thread at once."""
    session, status = start_koma(tmp_path, "")
    try:
        wait_for_text(session, "8-puzzle")
        pid = koma_pid(session)
        quietest, deadline = None, time.monotonic() + 40  # the quietest 3 s window: start-up work may still run
        while (quietest is None or quietest > 6) and time.monotonic() < deadline:
            before = wakeups(pid)
            time.sleep(3.0)
            quietest = min(wakeups(pid) - before, quietest if quietest is not None else 10**9)
        assert quietest is not None and quietest <= 6  # a polling input thread alone wakes 30 times in 3 s
        subprocess.run([TMUX, "send-keys", "-t", session, "1"], check=True)
        wait_for_text(session, "Moves 0")
        subprocess.run([TMUX, "send-keys", "-t", session, "Escape"], check=True)
        wait_for_text(session, "Parity lab")
        began = time.monotonic()
        quit_and_wait(session, status, 10)
        assert time.monotonic() - began < 5.0
    finally:
        subprocess.run([TMUX, "kill-session", "-t", session], capture_output=True)


def mask_clock(screen: str) -> str:
    return re.sub(r"Time \d+:\d\d", "Time -:--", screen)


def redrawn_whole(session: str, partial: str, deadline: float) -> str:
    """Resize to 100 columns and back, so Koma draws the screen whole; that screen (the clock masked), as soon
    as it equals ``partial`` or else at ``deadline``."""
    subprocess.run([TMUX, "resize-window", "-t", session, "-x", "100"], check=True)
    while max(map(len, capture(session).splitlines())) <= 80 and time.monotonic() < deadline:
        time.sleep(0.05)
    subprocess.run([TMUX, "resize-window", "-t", session, "-x", "80"], check=True)
    whole = ""
    while time.monotonic() < deadline:
        whole = mask_clock(capture(session))
        if whole == partial:
            break
        time.sleep(0.05)
    return whole


def test_what_a_terminal_shows_after_partial_updates_is_the_full_redraw(tmp_path):
    """Moves, a dialog over the board, and back: the screen drawn by partial updates only (Koma renders only
    the widgets under a change) equals the screen drawn whole after a resize."""
    session, _status = start_koma(tmp_path, "play 8 --board '1 2 3/4 5 6/_ 7 8'")
    try:
        wait_for_text(session, "from solved")
        for key, moves in (("Left", 1), ("Right", 2), ("Left", 3), ("Down", 4)):
            subprocess.run([TMUX, "send-keys", "-t", session, key], check=True)
            wait_for_text(session, f"Moves {moves}")
        subprocess.run([TMUX, "send-keys", "-t", session, "?"], check=True)
        wait_for_text(session, "esc close")
        subprocess.run([TMUX, "send-keys", "-t", session, "Escape"], check=True)
        deadline = time.monotonic() + 60
        while "esc close" in capture(session) and time.monotonic() < deadline:
            time.sleep(0.05)
        partial = mask_clock(wait_for_text(session, "from solved"))
        assert "Moves 4" in partial
        assert redrawn_whole(session, partial, deadline) == partial
    finally:
        subprocess.run([TMUX, "kill-session", "-t", session], capture_output=True)


def settled(session: str, deadline: float) -> str:
    """The screen once it has stopped changing for a second (the clock masked)."""
    screen, since = mask_clock(capture(session)), time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(0.1)
        now = mask_clock(capture(session))
        if now != screen:
            screen, since = now, time.monotonic()
        elif time.monotonic() - since >= 1.0:
            break
    return screen


@pytest.mark.parametrize("arguments,keys", [
    ("play goat --seed 7", ["Left", "Up", "Right", "Down", "Left", "u", "t"]),  # a two-cell piece, a hint
    ("play ura --size 4x4 --seed 7", ["Right", "Down", "Enter", "space", "Left", "Enter", "t"]),  # cells turned over
])
def test_partial_updates_equal_the_full_redraw_on_goat_and_ura(tmp_path, arguments, keys):
    """As above, on the boards whose pieces are not tiles: whatever the keys changed, partial updates drew
    the same screen as a whole redraw after a resize."""
    session, _status = start_koma(tmp_path, arguments)
    try:
        wait_for_text(session, "Parity")
        deadline = time.monotonic() + 90
        subprocess.run([TMUX, "send-keys", "-t", session, *keys], check=True)  # played in order
        partial = settled(session, deadline)
        assert redrawn_whole(session, partial, deadline) == partial
    finally:
        subprocess.run([TMUX, "kill-session", "-t", session], capture_output=True)


def test_a_game_whose_terminal_hangs_up_exits(tmp_path):
    """Closing the terminal (here: killing the tmux window) sends SIGHUP, then SIGCONT: the game saves and exits,
    instead of taking the SIGCONT for a resume and blocking for ever on writes to a terminal that is gone."""
    session, _status = start_koma(tmp_path, "play 8 --board '1 2 3/4 5 6/_ 7 8'")
    try:
        wait_for_text(session, "from solved")
        subprocess.run([TMUX, "send-keys", "-t", session, "Left"], check=True)
        wait_for_text(session, "Moves 1")
        subprocess.run([TMUX, "resize-window", "-t", session, "-x", "100"], check=True)
        deadline = time.monotonic() + 60
        while max(map(len, capture(session).splitlines())) <= 80 and time.monotonic() < deadline:
            time.sleep(0.05)
        pid = koma_pid(session)
    finally:
        subprocess.run([TMUX, "kill-session", "-t", session], capture_output=True)
    deadline = time.monotonic() + 30
    while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    leftover = Path(f"/proc/{pid}").exists()
    if leftover:
        os.kill(pid, 9)
    assert not leftover, "the game outlived its terminal"


def test_a_suspended_game_resumes_with_fg(tmp_path):
    """SIGTSTP (what a shell's job control sends) suspends the game, ``fg`` brings it back: it draws, takes keys
    and quits; the input thread's wake pipe is made anew for the resumed thread."""
    session = new_session(tmp_path, "bash --norc")
    try:
        command = f"env -u COLUMNS -u LINES {KOMA} play 8 --board '1 2 3/4 5 6/_ 7 8'"
        subprocess.run([TMUX, "send-keys", "-t", session, command, "Enter"], check=True)
        wait_for_text(session, "from solved")
        pid = koma_pid(session)
        os.kill(pid, signal.SIGTSTP)
        wait_for_text(session, "Stopped")
        subprocess.run([TMUX, "send-keys", "-t", session, "fg", "Enter"], check=True)
        wait_for_text(session, "from solved")
        subprocess.run([TMUX, "send-keys", "-t", session, "Left"], check=True)
        wait_for_text(session, "Moves 1")
        subprocess.run([TMUX, "send-keys", "-t", session, "q"], check=True)
        deadline = time.monotonic() + 30
        while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not Path(f"/proc/{pid}").exists(), "the resumed game did not quit"
        assert "Error" not in capture(session)  # a crash of the resumed input thread shows a traceback
    finally:
        subprocess.run([TMUX, "kill-session", "-t", session], capture_output=True)


def test_quitting_while_a_fresh_install_compiles_does_not_wait_for_the_compile(tmp_path):
    """On a fresh install the home screen compiles the solvers in a thread worker, and numba's compiling cannot be
    stopped (a search stops at its flag; a compile does not): quitting used to wait for the kernel being compiled,
    the 15-puzzle's search alone about 5 s of CPU.  Quit just as that compile starts (its lock file is made): the
    process is gone before the search's kernel reaches the cache."""
    status = tmp_path / "status"
    # NUMBA_CACHE_DIR (the test run's warm cache, which tmux may pass on from whoever started its server) unset
    session = new_session(tmp_path, f"env -u COLUMNS -u LINES -u NUMBA_CACHE_DIR XDG_CACHE_HOME={tmp_path / 'xdg'} "
                                    f"KOMA_CACHE_DIR={tmp_path / 'fresh-cache'} {KOMA}; echo $? > {status}")
    numba_cache = tmp_path / "xdg" / "koma" / "numba"
    try:
        wait_for_text(session, "8-puzzle")
        deadline = time.monotonic() + 180
        while not any(numba_cache.rglob("*ida_pdb.lock")) and time.monotonic() < deadline:  # its compile began
            time.sleep(0.02)
        assert any(numba_cache.rglob("*ida_pdb.lock")), "the warm-up never reached the 15-puzzle's search"
        pid = koma_pid(session)
        quit_and_wait(session, status, 60)
        assert not Path(f"/proc/{pid}").exists()
        assert not any(numba_cache.rglob("*ida_pdb*.nbi")), "quitting waited for the search's compile"
    finally:
        subprocess.run([TMUX, "kill-session", "-t", session], capture_output=True)


HOLD_EVERY_KERNEL_LOCK = """
import fcntl, importlib, os, pkgutil, signal
import solver
locks = set()
for info in pkgutil.walk_packages(solver.__path__, "solver."):
    module = importlib.import_module(info.name)
    locks |= {value.compile.koma_lock for value in vars(module).values()
              if hasattr(getattr(value, "compile", None), "koma_lock")}
handles = [open(path, "a+b") for path in locks]
for handle in handles:
    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
print(len(handles), flush=True)
os.kill(os.getpid(), signal.SIGSTOP)
"""


def test_quitting_while_the_warm_up_waits_for_another_process_s_compile_does_not_wait(tmp_path):
    """Another process holds every kernel's compile lock and never lets go (stopped): the home screen's warm-up
    waits for it (it, or a process beside it compiling for it, has a lock file open), and quitting then ends ``koma``
    at once all the same."""
    environment = f"XDG_CACHE_HOME={tmp_path / 'xdg'} KOMA_CACHE_DIR={tmp_path / 'fresh-cache'}"
    holder = subprocess.Popen(["env", "-u", "NUMBA_CACHE_DIR", *environment.split(), sys.executable, "-c",
                               HOLD_EVERY_KERNEL_LOCK], stdout=subprocess.PIPE, text=True)
    status = tmp_path / "status"
    try:
        assert holder.stdout is not None and int(holder.stdout.readline()) > 10
        session = new_session(tmp_path, f"env -u COLUMNS -u LINES -u NUMBA_CACHE_DIR {environment} {KOMA}; "
                                        f"echo $? > {status}")
        try:
            wait_for_text(session, "8-puzzle")
            pid = koma_pid(session)
            deadline = time.monotonic() + 180

            def waiting_on_a_lock() -> bool:  # koma, or a process beside it compiling for it (solver.tools.warm)
                children = []
                for task in Path(f"/proc/{pid}/task").glob("*"):  # a child belongs to the thread that started it
                    try:
                        children += (task / "children").read_text().split()
                    except OSError:
                        pass
                for process in [pid, *map(int, children)]:
                    try:
                        if any(os.readlink(fd).endswith(".lock") and "/numba/" in os.readlink(fd)
                               for fd in Path(f"/proc/{process}/fd").iterdir()):
                            return True
                    except OSError:
                        pass
                return False

            while not waiting_on_a_lock() and time.monotonic() < deadline:
                time.sleep(0.02)
            assert waiting_on_a_lock(), "the warm-up never reached a kernel"
            quit_and_wait(session, status, 60)
            assert not Path(f"/proc/{pid}").exists()
            assert not any((tmp_path / "xdg").rglob("*.nbi")), "a kernel compiled: nothing waited"
        finally:
            subprocess.run([TMUX, "kill-session", "-t", session], capture_output=True)
    finally:
        holder.kill()
        holder.wait()
