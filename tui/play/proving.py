"""The 24-puzzle's solve and hint in the game: prove the optimum, offer the reduction meanwhile.

An optimal 5x5 solve can take minutes (Korf and Felner's easiest instances: seconds; their hardest:
days).  So ``s`` starts the optimal search, and if it has not answered after ``OFFER_AFTER`` seconds
(shown on the panel) Koma also finds the reduction's solution, offers it clearly marked as not
optimal, and keeps proving: the panel shows the best lower bound.  ``s`` again plays the offer;
the proof goes on, and its answer is told when it comes.  A hint gets ``HINT_BUDGET`` seconds of the
optimal search, else the player is told so.  Never imports Textual.
"""

from __future__ import annotations

from typing import Any

from solver.errors import GaveUp
from solver.puzzle import Puzzle, Solution
from tui.game.formatting import plural

OFFER_AFTER = 10.0  # seconds of optimal search before the reduction's solution is offered
HINT_BUDGET = 10.0  # seconds a hint may spend on the optimal search


def is_twentyfour(puzzle: Puzzle) -> bool:
    return getattr(puzzle, "key", "") == "sliding" and (getattr(puzzle, "width", 0), getattr(puzzle, "height", 0)) == (5, 5)


def applies(puzzle: Puzzle) -> bool:
    """Whether a solve of ``puzzle`` proves the optimum (the 5x5, once its tables are built): minutes, maybe."""
    if not is_twentyfour(puzzle):
        return False
    from solver.sliding import twentyfour  # loads the kernels: only for the 5x5

    return twentyfour.tables() is not None


def search_options(puzzle: Puzzle, hint: bool) -> dict[str, Any]:
    """Extra options of ``search.solve`` for a solve or a ``hint``: a hint's time budget on the 5x5."""
    return {"limit": HINT_BUDGET} if hint and is_twentyfour(puzzle) else {}


def offer_due(seconds: float, offered: bool) -> bool:
    return not offered and seconds >= OFFER_AFTER


def proving_text(progress: dict[str, Any], offer: Solution | None, taken: Solution | None = None) -> str:
    """The panel's lines while the optimal search runs: the bound proved, the node rate, the offer."""
    bound = progress.get("lower_bound")
    rate = progress.get("nodes_per_second", 0.0)
    seconds = progress.get("seconds", 0.0)
    lines = [f"at least [b]{bound}[/b] moves", f"{rate / 1e6:.1f}M nodes/s · {seconds:.0f} s"] if bound is not None \
        else ["loading the pattern databases…"]
    if offer is not None:
        lines.append(f"s plays the reduction's {plural(offer.length, 'move')} (NOT optimal)")
    elif taken is not None:
        lines.append(f"[dim]playing the reduction's {taken.length} (NOT optimal)[/dim]")
    elif seconds < OFFER_AFTER:
        lines.append(f"[dim]a quick, non-optimal solution is offered after {OFFER_AFTER:.0f} s[/dim]")
    else:
        lines.append("[dim]finding a quick, non-optimal solution…[/dim]")
    return "\n".join(lines)


def offer_text(offer: Solution, progress: dict[str, Any]) -> str:
    bound = progress.get("lower_bound")
    known = f" (at least {bound} so far)" if bound is not None else ""
    return (f"Still proving the optimum{known}. Press s to play the reduction's {plural(offer.length, 'move')}: "
            f"NOT proven optimal.")


def taken_text(offer: Solution) -> str:
    return (f"Playing the reduction's {plural(offer.length, 'move')} (NOT proven optimal); "
            f"Koma keeps proving the optimum for the board you started from.")


def proved_text(solution: Solution, offer: Solution | None) -> str:
    """The optimal search's answer, told once the board has moved on (the offer was played)."""
    was = f"; the reduction's took {offer.length}" if offer is not None else ""
    return f"Proved: the optimum from that board is {plural(solution.length, 'move')}{was}."


def gave_up_text(error: GaveUp, kind: str) -> str:
    if kind == "hint":
        return (f"No hint: the optimal search needs more than {HINT_BUDGET:.0f} s here (at least "
                f"{error.lower_bound} moves to go). Press s to solve in the background.")
    return f"Gave up: at least {error.lower_bound} moves ({error.nodes:,} nodes in {error.seconds:.0f} s)."
