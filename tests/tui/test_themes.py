"""The colour-blind-safe theme: chosen by --theme or ctrl+t, and the sheep and the wolf stay apart for every deficiency."""

from __future__ import annotations

import colorspacious
import numpy as np
import pytest
from textual.color import Color
from textual.theme import BUILTIN_THEMES
from tui_helpers import make_app

from solver.errors import KomaError
from tui.cli import parse_args
from tui.launch import chosen_theme
from tui.main import main
from tui.themes import COLORBLIND, check_theme
from tui.widgets.board import Board

DEFICIENCIES = ("deuteranomaly", "protanomaly", "tritanomaly")
# Pairs that tell pieces and verdicts apart by colour: the sheep (success) and the wolf (error), their boxes' backgrounds.
PAIRS = {("success", "error"): 40.0, ("success-muted", "error-muted"): 20.0}


def seen_difference(first: str, second: str, deficiency: str) -> float:
    """CAM02-UCS colour difference between two colours as seen with a full (severity 100) deficiency."""
    simulate = {"name": "sRGB1+CVD", "cvd_type": deficiency, "severity": 100}
    seen = [np.clip(colorspacious.cspace_convert(np.array(Color.parse(c).rgb) / 255, simulate, "sRGB1"), 0, 1)
            for c in (first, second)]
    return float(colorspacious.deltaE(seen[0], seen[1], input_space="sRGB1"))


def smallest_differences(theme) -> dict[tuple[str, str], float]:
    colours = theme.to_color_system().generate()
    return {pair: min(seen_difference(colours[pair[0]], colours[pair[1]], d) for d in DEFICIENCIES) for pair in PAIRS}


def test_the_colorblind_theme_keeps_the_sheep_and_the_wolf_apart():
    assert all(found >= PAIRS[pair] for pair, found in smallest_differences(COLORBLIND).items()), smallest_differences(COLORBLIND)


def test_the_default_theme_does_not_which_is_why_the_other_exists():
    found = smallest_differences(BUILTIN_THEMES["textual-dark"])
    assert all(found[pair] < PAIRS[pair] for pair in PAIRS), found


def test_theme_names_are_checked():
    assert check_theme("colorblind") == "colorblind" and check_theme("nord") == "nord"
    with pytest.raises(KomaError, match="unknown theme 'pink'; choose from colorblind"):
        check_theme("pink")
    assert chosen_theme(parse_args(["--theme", "colorblind", "play", "8"])) == "colorblind"
    assert chosen_theme(parse_args(["play", "8"])) is None


def test_a_bad_theme_is_one_line_and_exit_2(capsys):
    assert main(["--theme", "pink", "play", "8"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("koma: error: unknown theme 'pink'") and err.count("\n") == 1


def border_colour(board: Board, kind: str) -> Color:
    """The colour the board draws the edge of its ``kind`` piece in (read from the lines it draws)."""
    spec = next(spec for spec in board.specs if spec.kind == kind)
    x, y = board.cell_origin(spec.cell)
    corner = board.render_line(y).crop(x, x + 1)
    return Color.from_rich_color(next(iter(corner)).style.color)


def theme_colour(theme, name: str) -> Color:
    return Color.parse(theme.to_color_system().generate()[name])


async def test_goat_reads_in_the_colorblind_theme_and_ctrl_t_switches(tmp_path):
    app = make_app(tmp_path, "goat", "r-BB/i.dS/l-jW", theme_name="colorblind")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert app.theme == "colorblind"
        board = app.screen.query_one(Board)
        assert border_colour(board, "sheep") == theme_colour(COLORBLIND, "success")
        assert border_colour(board, "wolf") == theme_colour(COLORBLIND, "error")
        await pilot.press("ctrl+t")
        await pilot.pause()
        assert app.theme == "textual-dark"
        assert border_colour(board, "sheep") == theme_colour(BUILTIN_THEMES["textual-dark"], "success")
        await pilot.press("ctrl+t")
        await pilot.pause()
        assert app.theme == "colorblind"


async def test_ctrl_t_goes_back_to_the_theme_chosen_before(tmp_path):
    app = make_app(tmp_path, theme_name="nord")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("ctrl+t")
        assert app.theme == "colorblind"
        await pilot.press("ctrl+t")
        assert app.theme == "nord"
