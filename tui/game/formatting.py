"""Small texts the screens share: the clock, plurals, a solver's figures.  Never imports Textual."""

from __future__ import annotations

from typing import Any


def clock_text(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes:02d}:{secs:02d}"


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def figures_text(info: dict[str, Any]) -> str:
    parts = []
    for key, value in info.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            continue
        if key == "nodes" or value >= 10_000:
            value = f"{value / 1e6:.1f}M" if value >= 1e6 else f"{value / 1e3:.0f}k" if value >= 1e4 else f"{value:,.0f}"
        elif isinstance(value, float):
            value = f"{value:.1f}"
        parts.append(f"{key} {value}")
    return " · ".join(parts[:3])
