"""Pilot tests of the 24-puzzle in the game: the optimal solve, the offer of the reduction while it proves, hints.

The real 6-6-6-6 databases take minutes to build; these tests give the game small 5x5 ones (13 of
the 24 tiles, still admissible), so a far board keeps the search busy and a near one is proved at once.
"""

from __future__ import annotations

import random
import threading

import numpy as np
import pytest
from tui_helpers import make_app, wait_for, wait_warm

from solver.engines.pdb import build_pattern
from solver.sliding import search_kernels as kernels
from solver.sliding import twentyfour
from solver.sliding.model import SlidingPuzzle
from tui.play import proving

P24 = SlidingPuzzle(5, 5)
GROUPS = ((1, 2, 6, 7), (4, 5, 9, 10), (18, 19, 20, 23, 24))
FAR = " ".join(map(str, P24.random_state(5)))


def near_board() -> str:
    rng = random.Random(1)
    state = P24.goal
    for _ in range(60):  # 16 moves from the goal
        state = P24.apply(state, rng.choice(P24.moves(state)))
    return " ".join(map(str, state))


@pytest.fixture(scope="module")
def small_tables():
    table = np.concatenate([build_pattern(5, 5, g) for g in GROUPS] + [np.zeros(1, np.uint8)])
    table.flags.writeable = False  # read-only as the game's are (np.load(mmap_mode='r')): the kernels' one compiled version serves both
    return table, kernels.pdb_tables(5, GROUPS, reverse=True)


@pytest.fixture
def tables(monkeypatch, small_tables):
    table, meta = small_tables
    monkeypatch.setattr(twentyfour, "tables", lambda notice=None: table)
    monkeypatch.setattr(twentyfour, "_pdb_meta", lambda name: meta)
    monkeypatch.setattr(proving, "OFFER_AFTER", 1.0)
    monkeypatch.setattr(proving, "HINT_BUDGET", 0.5)


def searching() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("koma-ida-")]


async def test_s_proves_the_optimum_and_plays_it(tmp_path, tables):
    app = make_app(tmp_path, "sliding", near_board(), size="5x5")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_warm(pilot)
        screen = app.screen
        assert "s proves it" in screen.solver.distance_text(screen.state, True)  # no live distance on the 5x5
        start = screen.state
        await pilot.press("s")
        await wait_for(pilot, lambda: screen.playback.active or screen.won, what="the proof")
        assert "16 moves (optimal" in screen.message
        assert P24.replay(start, screen.solver.solution_moves)[-1] == P24.goal


async def test_a_long_proof_offers_the_reduction_and_goes_on_until_escape(tmp_path, tables):
    app = make_app(tmp_path, "sliding", FAR, size="5x5")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_warm(pilot)
        screen = app.screen
        start = screen.state
        await pilot.press("s")
        await wait_for(pilot, lambda: "lower_bound" in (screen.job.progress if screen.job else {}), what="progress")
        assert "at least" in screen.solver.job_text()
        assert "offered after 1 s" in proving.proving_text({"lower_bound": 60, "seconds": 0.5}, None)
        await wait_for(pilot, lambda: screen.solver.offer is not None, what="the offer")
        offer = screen.solver.offer
        assert not offer.optimal and P24.replay(start, offer.moves)[-1] == P24.goal
        assert "NOT proven optimal" in screen.message and "s plays the reduction" in screen.solver.job_text()
        await pilot.press("s")  # take it: Koma plays it, and keeps proving
        assert screen.playback.active and screen.job is not None
        await wait_for(pilot, searching, timeout=10, what="the proof's search going on")  # (none between iterations)
        assert "NOT proven optimal" in screen.message
        await wait_for(pilot, lambda: screen.position > 0, what="the playback")
        await pilot.press("escape")
        assert screen.job is None
        await wait_for(pilot, lambda: not searching(), timeout=5, what="both workers to stop")


async def test_hint_within_budget_or_says_so(tmp_path, tables):
    app = make_app(tmp_path, "sliding", FAR, size="5x5")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_warm(pilot)
        screen = app.screen
        await pilot.press("t")
        await wait_for(pilot, lambda: screen.job is None and screen.message, what="the hint's answer")
        assert screen.message.startswith("No hint: the optimal search needs more than")
        assert not searching()
    app = make_app(tmp_path, "sliding", near_board(), size="5x5")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_warm(pilot)
        screen = app.screen
        await pilot.press("t")
        await wait_for(pilot, lambda: screen.session.hinted is not None, what="the hint")
        assert "(16 to go)" in screen.message and "Not proven" not in screen.message
