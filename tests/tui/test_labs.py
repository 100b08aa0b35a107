"""The labs: the parity lab (edit, proof, fixes, play), the loop demo and the algorithm lab."""

from __future__ import annotations

import pytest

from tui.screens.parity_lab import ParityLabScreen
from tui.screens.play import PlayScreen
from tui.widgets.board import Board

from tui_helpers import make_app, wait_for

ARTICLE_15 = "10 8 4 14/15 12 13 _/7 11 6 1/5 9 2 3"


async def open_parity_lab(pilot, tab: str | None = None) -> ParityLabScreen:
    await pilot.press("p")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, ParityLabScreen), what="the parity lab")
    screen = pilot.app.screen
    if tab is not None:
        while screen.tab != tab:
            await pilot.press("right_square_bracket")
    await pilot.pause()
    return screen


def proof_text(screen) -> str:
    return str(screen.query_one("#lab-proof").render())


async def test_parity_lab_edits_to_unsolvable_and_back(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_parity_lab(pilot)
        puzzle = screen.puzzle
        assert screen.state == puzzle.parse(ARTICLE_15)
        text = proof_text(screen)
        assert "Total 74 + 2 = 76, even" in text and "Verdict: solvable" in text  # article 000's worked example
        assert "Pairs of tile 10: 9 smaller to its right: 8 4 7 6 1 5 9 2 3" in text
        await pilot.press("space", "right", "space")  # swap tiles 10 and 8
        assert screen.state == puzzle.parse("8 10 4 14/15 12 13 _/7 11 6 1/5 9 2 3")
        assert not puzzle.proof(screen.state).solvable
        assert "Verdict: NOT solvable" in proof_text(screen) and "Fixes:" in proof_text(screen)
        assert "solvable → NOT solvable (total 76 → 75)" in screen.message
        await pilot.press("left", "space", "right", "space")  # and back
        assert screen.state == puzzle.parse(ARTICLE_15)
        assert "NOT solvable → solvable" in screen.message and "Verdict: solvable" in proof_text(screen)


async def test_parity_lab_fixes_flip_the_verdict(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_parity_lab(pilot)
        puzzle = screen.puzzle
        await pilot.press("x")  # swap the first two tiles: unsolvable
        assert not puzzle.proof(screen.state).solvable
        broken = screen.state
        await pilot.press("f")  # the article's flipLR fixes it
        assert screen.state == puzzle.flip_lr(broken) and puzzle.proof(screen.state).solvable
        assert screen.message.startswith("flipLR: NOT solvable → solvable")
        await pilot.press("g")
        assert screen.state == puzzle.goal
        await pilot.press("p")
        await wait_for(pilot, lambda: isinstance(app.screen, PlayScreen), what="the play screen")
        assert app.screen.state == puzzle.goal and app.screen.puzzle.key == "15"


async def test_parity_lab_ura_and_goat(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_parity_lab(pilot, "p-ura-3")
        assert screen.puzzle.proof(screen.state).solvable  # the article's BWB/WBB/BBB
        await pilot.press("space")  # A1 turned over: orbit 0 has an odd number of blacks
        assert not screen.puzzle.proof(screen.state).solvable
        assert "odd blacks" in proof_text(screen) and "Verdict: NOT solvable" in proof_text(screen)
        await pilot.press("space")
        assert screen.puzzle.format(screen.state) == "BWB/WBB/BBB"
        await pilot.press("left_square_bracket", "left_square_bracket")
        assert screen.tab == "p-goat"
        await pilot.pause()
        assert screen.query_one(Board).look.width == 4
        text = proof_text(screen)
        assert "20 inversions, even" in text and "21 inversions, odd" in text
        await pilot.press("b")  # the big piece moves along the top row: r-BB -> Br-B? no: BBr- shape
        assert screen.state[:4].count(9) == 2 and screen.state.index(9) == 0
        assert screen.puzzle.proof(screen.state).solvable


@pytest.mark.parametrize("size", [(80, 24), (120, 36)], ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("tab, keys", [("p-15", ("space", "right", "space")), ("p-ura-3", ("space",)),
                                       ("p-goat", ())], ids=["15", "ura", "goat"])
def test_parity_lab_snapshot(snap_compare, tmp_path, size, tab, keys):
    async def run_before(pilot):
        await open_parity_lab(pilot, tab)
        await pilot.press(*keys)
        await pilot.pause(0.3)

    assert snap_compare(make_app(tmp_path), terminal_size=size, run_before=run_before)
