"""The game's texts in the panel's markup: a finished game's message, the line about saving, what the store's answer
to a finish adds, Koma's playback line.  The game model gives plain data (:mod:`tui.game`); the markup is here."""

from __future__ import annotations

from tui.game.formatting import clock_text, plural
from tui.game.records import Stats
from tui.game.session import Outcome


def escape_markup(text: str) -> str:
    """``text`` shown as it is in the panel's markup (a key named ``[`` is not a tag)."""
    return text.replace("[", "\\[")


def outcome_message(outcome: Outcome) -> str:
    """The play screen's message for a finished game."""
    moves = plural(outcome.moves, "move")
    if outcome.by_koma:
        optimal = f"; optimal {outcome.optimal}" if outcome.optimal is not None else ""
        return f"[b]Solved by Koma[/b] ({moves}{optimal}). Not counted as yours."
    optimal_text = f"optimal {outcome.optimal}" if outcome.optimal is not None else "optimal unknown"
    hints = f", {plural(outcome.hints, 'hint')}" if outcome.hints else ""
    return f"[b]Solved in {moves}; {optimal_text}[/b]\ntime {clock_text(outcome.seconds)}{hints}"


def saving_text(delayed_reason: str | None, back_after: float | None = None) -> str:
    """The panel's one line about saving: delayed (``delayed_reason``), or working again after ``back_after`` s."""
    if delayed_reason is not None:
        return (f"[b]Not saved yet[/b]: database {short_reason(delayed_reason)}; your moves are kept and saved when "
                "it is back.")
    return f"[dim]Saved again: the database is back ({back_after or 0:.0f} s).[/dim]"


def short_reason(reason: str) -> str:
    """The first words of a store failure, for the panel's one line (``unreachable``, ``busy``, ``stalled``…)."""
    if "stalled" in reason or "did not answer" in reason:
        return "not answering"
    head = reason.split(":", 1)[0].strip()
    return head if len(head) <= 24 else "unreachable"


def recorded_text(stats: Stats | None, rank: int | None, day: str | None, leaderboard_key: str,
                  unverified: str | None = None) -> str:
    """What the store's answer to a finish adds to the message: the stats, and the daily rank (or, for a daily game
    no hand could have played, why it is unverified and not ranked)."""
    text = ""
    if stats is not None and stats.solved:
        text += f"\n[dim]solved {stats.solved} · best time {clock_text(stats.best_seconds or 0.0)}[/dim]"
    if day and unverified is not None:
        text += f"\nDaily {day}: [b]unverified[/b] ({escape_markup(unverified)}): not ranked"
    elif day and rank is not None:
        text += f"\nDaily {day}: you rank [b]#{rank}[/b] ({leaderboard_key}: leaderboard)"
    return text


def playback_text(lines: list[list[tuple[str, bool]]]) -> str:
    """Koma's playback line (:meth:`tui.game.playback.PlaybackController.lines`): its dim parts dim."""
    return "\n".join(" · ".join(f"[dim]{escape_markup(text)}[/dim]" if dim else escape_markup(text) for text, dim in line)
                     for line in lines)
