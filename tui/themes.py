"""Koma's colour themes: Textual's own, plus one that stays readable with the common colour-vision deficiencies.

The ``colorblind`` theme takes its colours from the Okabe-Ito palette (Okabe & Ito, "Color Universal
Design", 2008).  What must never be told apart by colour alone is drawn with ``$success`` against
``$error`` (the sheep and the wolf, solvable and not): sky blue against vermillion, which stay far apart
with deuteranopia, protanopia and tritanopia alike, unlike the default theme's green and red.
"""

from __future__ import annotations

from textual.theme import BUILTIN_THEMES, Theme

from solver.errors import KomaError, shown

COLORBLIND = Theme(
    name="colorblind",
    primary="#0072B2",  # blue: tiles, the big piece, frames
    secondary="#CC79A7",  # reddish purple
    accent="#E69F00",  # orange: the cursor, titles
    warning="#F0E442",  # yellow: hints
    error="#D55E00",  # vermillion: the wolf, "not solvable"
    success="#56B4E9",  # sky blue: the sheep, "solvable"
    foreground="#E0E0E0",
    dark=True,
)
KOMA_THEMES = (COLORBLIND,)
DEFAULT_THEME = "textual-dark"


def theme_names() -> list[str]:
    """Every theme ``koma --theme`` accepts: Koma's, then Textual's built-in ones."""
    return [theme.name for theme in KOMA_THEMES] + sorted(BUILTIN_THEMES)


def check_theme(name: str) -> str:
    """``name`` if it is a theme; else a one-line KomaError listing the choices."""
    if name not in theme_names():
        raise KomaError(f"unknown theme {shown(name)}; choose from {', '.join(theme_names())}")
    return name


def other_theme(current: str, previous: str) -> str:
    """The theme the colour-blind key switches to: ``colorblind``, or back to the one before it."""
    if current != COLORBLIND.name:
        return COLORBLIND.name
    return previous if previous != COLORBLIND.name else DEFAULT_THEME
