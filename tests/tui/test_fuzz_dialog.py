"""Fuzzing the new-game dialog's typed board through Pilot (hypothesis).

How it is driven: Pilot is async and hypothesis calls a plain function per example, so each test is
a *sync* test that owns one asyncio loop and ONE running app (:class:`DialogDriver`).  The app is
started once (``run_test().__aenter__()`` on that loop), the dialog is opened once, and then every
hypothesis example runs ``loop.run_until_complete(driver.check(text))``: set the board Input's value
(or type it with ``pilot.press`` for some short boards), let the app process the change, and check
the verdict.  Between examples the loop is idle, so the app simply waits.  An example that accepts a
board dismisses the dialog; the driver checks that the play screen shows exactly that board and
opens the dialog again for the next example.  The app is shut down once at the end, which re-raises
anything the app swallowed.

The properties, for every input:
* the app does not crash (it is still running, no exception recorded);
* the verdict is ONE line: the parity verdict for a board that parses, else an error message;
* a board that parses can be accepted and the game that opens starts from exactly that board
  (an unsolvable board is accepted too, the verdict says "NOT solvable");
* anything else cannot be accepted: Enter leaves the dialog open.

CI runs ``FUZZ_EXAMPLES`` examples per test (the ci profile's count, capped at 40 because every
example drives the real app, about 0.5 s each); ``--hypothesis-profile=thorough`` runs its full 10,000
(``FUZZ_EXAMPLES=N`` overrides the count).
"""

from __future__ import annotations

import asyncio
import contextvars
import os
import sys
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from textual.widgets import Input, RadioButton
from tui_helpers import make_app

from solver.registry import get_puzzle
from tui.play.new_game import NewGameScreen
from tui.play.screen import PlayScreen

_PROFILE_EXAMPLES = settings.default.max_examples
FUZZ_EXAMPLES = _PROFILE_EXAMPLES if _PROFILE_EXAMPLES > 300 else min(_PROFILE_EXAMPLES, 40)
FUZZ = settings(max_examples=int(os.environ.get('FUZZ_EXAMPLES', FUZZ_EXAMPLES)))

SPECS = [("8", None), ("ura", "3x3")]
IDS = [f"{name}-{size}" if size else name for name, size in SPECS]
TYPABLE = set("0123456789_/ WBwb.#*")  # keys that Pilot types as themselves
seeds = st.integers(min_value=0, max_value=2**63)


def unsolvable(puzzle, state):
    """A legal but unsolvable board next to a solvable one."""
    if puzzle.key == "ura":
        board = list(state)
        board[puzzle.orbits[0][0]] ^= 1  # an odd number of blacks in that orbit: never reaches white
        return tuple(board)
    return puzzle.parity_fix(state)


def inputs(puzzle):
    """Typed text: solvable boards, unsolvable boards, near-misses, arbitrary and very long text."""
    solvable = seeds.map(puzzle.random_state)
    boards = st.one_of(solvable, solvable.map(lambda s: unsolvable(puzzle, s))).map(puzzle.format)
    padded = st.tuples(st.sampled_from(["", " ", "  ", "\t"]), boards, st.sampled_from(["", " ", "\t"])).map("".join)
    near_miss = st.tuples(boards, st.integers(0, 60), st.text(max_size=3)).map(
        lambda t: t[0][:t[1]] + t[2] + t[0][t[1] + 1:])
    very_long = st.one_of(
        st.text(min_size=500, max_size=5000),
        st.tuples(st.sampled_from("0123456789WB_/ "), st.integers(1000, 20_000)).map(lambda t: t[0] * t[1]),
        boards.map(lambda b: b * 200),
    )
    return st.one_of(boards, padded, near_miss, st.text(), st.text(st.characters(max_codepoint=31)),
                     very_long)


class DialogDriver:
    """One running app with the new-game dialog open, driven from sync code (see the module doc)."""

    def __init__(self, tmp_path, name, size):
        self.puzzle = get_puzzle(name, size)
        self.app = make_app(tmp_path, name, self.puzzle.format(self.puzzle.random_state(1)), size=size)
        self.loop = asyncio.new_event_loop()
        self.context_vars = contextvars.copy_context()
        self.accepted = self.refused = 0

    def run(self, coroutine):
        # One Context for every step: Textual sets context variables on entering run_test and resets
        # them on leaving, which only works if both happen in the same Context.
        return self.loop.run_until_complete(self.loop.create_task(coroutine, context=self.context_vars))

    def __enter__(self):
        asyncio.set_event_loop(self.loop)
        self.context = self.app.run_test(size=(100, 30))
        self.pilot = self.run(self.context.__aenter__())
        self.play = self.app.screen
        assert isinstance(self.play, PlayScreen)
        self.run(self.open_dialog())
        return self

    def __exit__(self, *problem):
        try:
            self.run(self.context.__aexit__(*problem))
        finally:
            self.loop.close()
            asyncio.set_event_loop(None)

    async def open_dialog(self) -> None:
        await self.pilot.press("n")
        await self.pilot.pause()
        self.dialog = self.app.screen
        assert isinstance(self.dialog, NewGameScreen)
        self.dialog.query_one("#kind-board", RadioButton).value = True
        await self.pilot.pause()
        self.field = self.dialog.query_one("#board", Input)
        assert not self.field.disabled and self.field.has_focus

    def progress(self) -> None:
        done = self.accepted + self.refused
        if done % 250 == 0:
            print(f"{self.puzzle.key}: {done} checks ({self.accepted} accepted)", file=sys.stderr, flush=True)

    def alive(self) -> None:
        assert self.app.is_running and self.app._exception is None

    async def check(self, text: str, typed: bool) -> None:
        self.alive()
        try:
            expected = self.puzzle.parse(text)
        except Exception:  # a KomaError, or the parser tripping (e.g. int() on 5000 digits)
            expected = None
        if typed:
            self.field.value = ""
            await self.pilot.pause()
            await self.pilot.press(*text)
        else:
            self.field.value = text
        await self.pilot.pause()
        self.alive()
        assert self.app.screen is self.dialog
        assert self.field.value == text
        verdict = self.dialog.query_one("#verdict")
        shown = str(verdict.render())
        assert shown.strip() and "\n" not in shown.strip(), repr(shown)
        if expected is None:
            assert verdict.has_class("-bad") and not shown.startswith("Parity:")
            await self.pilot.press("enter")
            await self.pilot.pause()
            self.alive()
            assert self.app.screen is self.dialog  # refused: still open
            self.refused += 1
            self.progress()
            return
        solvable = self.puzzle.proof(expected).solvable
        assert shown.startswith("Parity: solvable." if solvable else "Parity: NOT solvable")
        await self.pilot.press("enter")
        for _ in range(200):
            if self.app.screen is self.play and self.play.state == expected:
                break
            await self.pilot.pause(0.01)
        self.alive()
        assert self.app.screen is self.play and self.play.state == expected and self.play.position == 0
        self.accepted += 1
        self.progress()
        await self.open_dialog()


@pytest.mark.parametrize("name,size", SPECS, ids=IDS)
def test_typed_board_dialog_never_crashes_and_accepts_exactly_the_boards(tmp_path, name, size):
    with DialogDriver(tmp_path, name, size) as driver:
        @FUZZ
        @given(text=inputs(driver.puzzle), typed=st.booleans())
        def check(text, typed):
            typed = typed and len(text) <= 40 and set(text) <= TYPABLE
            driver.run(driver.check(text, typed))

        began = time.perf_counter()
        check()
        print(f"{name}: {driver.accepted + driver.refused} checks in {time.perf_counter() - began:.1f} s")
        print(f"{name}: {driver.accepted} accepted, {driver.refused} refused")
        assert driver.accepted and driver.refused
