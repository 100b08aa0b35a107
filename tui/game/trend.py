"""A player's daily results over time: the data of the trend line on the leaderboard screen.

Built from the ranked daily results the store keeps (one per player, puzzle and day), so it needs no
table of its own.  Never imports Textual.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from tui.game.daily import shift_day
from tui.game.records import Replay, Result

TREND_DAYS = 30


class HasExcess(Protocol):
    @property
    def excess(self) -> int | None: ...


class DailyResults(Protocol):
    def daily_result(self, day: str, puzzle: str) -> Result | None: ...


def daily_trend(store: DailyResults, game: str, last_day: str, days: int = TREND_DAYS) -> list[tuple[str, Result]]:
    """The player's ranked results on ``game``'s daily boards in the ``days`` days up to ``last_day``, oldest first."""
    found = []
    for back in range(days - 1, -1, -1):
        day = shift_day(last_day, -back)
        result = store.daily_result(day, game)
        if result is not None and result.unverified is None:  # an unverified result is not ranked
            found.append((day, result))
    return found


def excess_series(trend: list[tuple[str, Result]]) -> list[int]:
    """Moves over the optimum of each result whose optimum is known, oldest first (what the trend line draws)."""
    return excesses(result for _, result in trend)


def excesses(games: Iterable[HasExcess]) -> list[int]:
    """Moves over the optimum of each game whose optimum is known, in the order given."""
    return [excess for game in games if (excess := game.excess) is not None]


def personal_series(replays: list[Replay]) -> list[int]:
    """Moves over the optimum of the player's own finished games (not Koma's), oldest first: the personal-bests trend."""
    return excesses(r for r in replays if not r.by_koma)


def personal_caption(replays: list[Replay]) -> str:
    """One line about a puzzle's finished games: how many, Koma's share, the best and the latest over the optimum."""
    own = [r for r in replays if not r.by_koma]
    series = personal_series(replays)
    koma = f" · {len(replays) - len(own)} finished by Koma" if len(own) < len(replays) else ""
    if not own:
        return f"No game of your own finished yet{koma}."
    if not series:
        return f"{len(own)} finished{koma} · optimum unknown."
    return (f"{len(own)} finished{koma} · best +{min(series)} · latest +{series[-1]} "
            f"(moves over optimal, oldest first)")


def trend_caption(trend: list[tuple[str, Result]], days: int = TREND_DAYS) -> str:
    """One line about the trend: how many results, the best and the latest, in moves over optimal."""
    series = excess_series(trend)
    if not trend:
        return f"Your last {days} days: no ranked result yet."
    if not series:
        return f"Your last {days} days: {len(trend)} ranked, optimum unknown."
    return (f"Your last {days} days: {len(trend)} ranked · best +{min(series)} · latest +{series[-1]} "
            f"(moves over optimal, oldest first)")
