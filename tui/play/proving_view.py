"""The play screen's part of the 24-puzzle's proof (see :mod:`tui.play.proving`), as a mixin so ``play.py`` stays small.

While ``s`` proves the optimum of a 5x5 board, the reduction's solution may be offered (:class:`OfferMade`);
``s`` again plays it while the proof goes on (the screen's ``action_solve`` asks :meth:`ProvingPlay.play_offer`
first), and the proof's answer is told when it comes.  Textual calls every ``on_*`` handler along the MRO besides
the screen's own ``@on`` ones, so the handlers here add to the screen's without touching them.
"""

from __future__ import annotations

from typing import Any

from tui.messages import OfferMade, SolutionFound


class ProvingPlay:
    """Mixed into :class:`~tui.play.screen.PlayScreen` (it uses the screen's solver, playback and message)."""

    def play_offer(self) -> bool:
        """Play the reduction's solution offered while the proof goes on, if one waits; whether it did."""
        screen: Any = self
        if screen.solver.offer is None or screen.job is None or screen.playback.active:
            return False
        moves, screen.message = screen.solver.take_offer()
        screen.playback.start(moves)
        return True

    def on_offer_made(self, event: OfferMade) -> None:
        screen: Any = self
        if message := screen.solver.offered(event.job, event.solution):
            screen.message = message
            screen.refresh_view()

    def on_solution_found(self, event: SolutionFound) -> None:
        """After the screen's own handler: a proof that ends while the offer was played is told here."""
        screen: Any = self
        if screen.solver.taken is not None and screen.job is None and event.job.state != screen.state:
            screen.message = screen.solver.proved_text(event.solution)
            screen.refresh_view()
