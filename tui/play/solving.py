"""The play screen's solver: warm-up, the live distance, solve and hint jobs, and what they taught.

It starts every search of one play screen (through :func:`~tui.workers.run_job`, so each is a
cancellable :class:`~tui.game.solver_jobs.SolverJob`) and keeps the answers: the distances known so far,
the latest optimal path (hints follow it for free).  The screen handles the messages and asks it
for the distance and solver lines of its side panel.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable

from textual.dom import DOMNode
from textual.timer import Timer

from solver import solving as search
from solver.errors import Cancelled, GaveUp, KomaError, UnsolvableError
from solver.puzzle import Proof, Puzzle, Solution
from tui.app_view import koma_app
from tui.game.formatting import figures_text, plural
from tui.game.solver_jobs import SolverJob
from tui.messages import BoardGenerated, BoardNotGenerated, DistanceMeasured, HintFound, OfferMade, SolutionFound, WarmedUp
from tui.play import proving
from tui.widgets.status import SPIN
from tui.workers import Report, run_job

SETTLE_SECONDS = 0.3  # the live distance is searched for once the player has not moved for this long


class PlaySolver:
    """Every search of one play screen, and the answers: ``distances`` by board, the latest solution."""

    def __init__(self, host: DOMNode, puzzle: Puzzle):
        self.host, self.puzzle = host, puzzle
        self.optimal = bool(search.methods(puzzle))  # False: no optimal solver at all, or it turned out not optimal
        self.warm = threading.Event()
        self.job: SolverJob | None = None  # the solve or hint under way
        self.hinting = False  # the job under way finds a hint (True) or a whole solution
        self.distance_job: SolverJob | None = None
        self.distances: dict[tuple, int] = {}
        self.solution_path: list[tuple] = []
        self.solution_moves: list[str] = []
        self.solution_optimal = True
        # the 24-puzzle (see tui.play.proving): a distance would be a whole optimal search, so none is
        # measured live; a solve may offer the reduction's solution (``offer``) while it proves
        self.live_distance = not proving.is_twentyfour(puzzle)
        self.offer: Solution | None = None
        self.taken: Solution | None = None  # the offer the player took, while the proof goes on
        # the live distance waits for the player to pause: a search per key would cost more than the key
        self.moved_at = -SETTLE_SECONDS  # when the player last moved (time.monotonic)
        self.settling: list[tuple] = []  # the boards to measure once the player pauses
        self.settle_timer: Timer | None = None
        self.on_measuring: Callable[[], None] = lambda: None  # the search for a settled board started

    # --- warming up ------------------------------------------------------------------------------
    def warm_up(self) -> None:
        """Load (or build) the depth table, or JIT-compile the search, away from the UI thread (the background
        warm-up of the other puzzles gives way)."""
        koma_app(self.host).kernel_warmup.give_way(self.puzzle)
        self.host.run_worker(self._warm_up, thread=True, exclusive=True, group="warmup", name="warm-up")

    def _warm_up(self) -> None:
        began = time.perf_counter()
        problem = ""
        try:
            if self.puzzle.enumerable:
                self.puzzle.depth_table()
            elif self.optimal:
                near = self.puzzle.goal
                for _ in range(2):
                    near = self.puzzle.apply(near, self.puzzle.moves(near)[0])
                app = koma_app(self.host)
                with app.stop_flags.registered(SolverJob("warm-up", near)) as job:
                    app.kernel_warmup.wait_for_the_table(self.puzzle, job)
                    search.solve(self.puzzle, near, stop=job.stop)
        except Cancelled:
            problem = "cancelled"
        except Exception as error:  # a solver problem must not take the game down
            problem = str(error) or error.__class__.__name__
        self.host.post_message(WarmedUp(problem, time.perf_counter() - began))

    # --- the live distance -------------------------------------------------------------------------
    def distance_pending(self, state: tuple) -> bool:
        return self.optimal and self.live_distance and state not in self.distances

    def moved(self) -> None:
        """The player moved: a board's distance is searched for once the player pauses."""
        self.moved_at = time.monotonic()

    def measure(self, *states: tuple) -> None:
        """Find the distances of ``states``: from the table at once, else by a search in the background, started
        once the player has not moved for :data:`SETTLE_SECONDS` (a newer board replaces one still waiting)."""
        wanted = [s for s in dict.fromkeys(states) if s not in self.distances]
        if not wanted or not self.warm.is_set() or not self.optimal or not self.live_distance:
            self.settling = []
            return
        if not self.puzzle.enumerable:
            if self.distance_job is not None and self.distance_job.state not in wanted:
                self.distance_job.cancel()  # a board the player has left
            waited = time.monotonic() - self.moved_at
            if waited < SETTLE_SECONDS:
                self.settling = wanted
                if self.settle_timer is None:
                    self.settle_timer = self.host.set_timer(SETTLE_SECONDS - waited, self._settled)
                return
        self.settling = []
        if self.puzzle.enumerable:  # a table lookup: instant once warm
            for s in wanted:
                try:
                    d = search.distance(self.puzzle, s)
                except KomaError:
                    continue
                if d >= 0:
                    self.distances[s] = d
            return
        wanted = [s for s in wanted if self.puzzle.proof(s).solvable]
        if wanted:
            if self.distance_job is not None:
                self.distance_job.cancel()
            self.distance_job = SolverJob("distance", wanted[0])
            run_job(self.host, self.distance_job, lambda job, report: self._measure_all(job, wanted),
                    group="distance", answer=None)

    def _settled(self) -> None:
        """The settle timer fired: measure the boards waiting, or wait on if the player moved meanwhile."""
        self.settle_timer = None
        if self.settling:
            self.measure(*self.settling)
            if not self.settling:
                self.on_measuring()

    def settling_on(self, state: tuple) -> bool:
        return state in self.settling

    def _measure_all(self, job: SolverJob, states: list[tuple]) -> None:
        for s in states:  # one answer a board, as it comes
            self.host.post_message(DistanceMeasured(job, s, search.solve(self.puzzle, s, stop=job.stop)))

    def learn(self, solution: Solution, *, measured: bool = False) -> None:
        """Record the distances along an optimal solution; a ``measured`` distance that is not optimal ends the
        live distance."""
        if solution.optimal:
            path = [tuple(s) for s in solution.path]
            for k, s in enumerate(path):
                self.distances[s] = len(path) - 1 - k
        elif measured:
            self.optimal = False

    # --- solve and hint ----------------------------------------------------------------------------
    def why_not(self, proof: Proof) -> str:
        """Why Koma cannot solve the board with this proof ("" if it can)."""
        if not search.methods(self.puzzle):
            if not getattr(self.puzzle, "solvable_by_koma", True):
                return (f"Koma solves sliding boards up to 5x5; the {self.puzzle.size_label} board is for play (and "
                        "speed), not solving.")
            return f"Koma has no optimal solver for the {self.puzzle.title} yet."
        if not proof.solvable:
            return f"This board cannot be solved: {proof.summary}."
        return ""

    def start(self, state: tuple, *, hint: bool = False) -> SolverJob:
        """Solve ``state``; the answer comes back as a :class:`HintFound` (``hint``) or a :class:`SolutionFound`."""
        self.cancel()
        self.offer = self.taken = None
        self.job, self.hinting = SolverJob("hint" if hint else "solve", state), hint
        if self.distance_job is not None and not self.puzzle.enumerable:
            self.distance_job.cancel()  # the solution answers the distance as well: one search, not two
        run_job(self.host, self.job, lambda job, report: self._solve(job, report, hint), group="solver",
                answer=HintFound if hint else SolutionFound)
        return self.job

    def _solve(self, job: SolverJob, report: Report, hint: bool) -> Solution:
        while not self.warm.wait(0.02):
            if job.cancelled:
                raise Cancelled()
        if not hint and proving.applies(self.puzzle):
            return self._prove(job, report)
        return search.solve(self.puzzle, job.state, stop=job.stop, progress=report,
                            **proving.search_options(self.puzzle, hint))

    def _prove(self, job: SolverJob, report: Report) -> Solution:
        """The optimal search; once it has run ``OFFER_AFTER`` seconds, the reduction's solution is found and offered."""
        offered: list[bool] = []

        def watch(info: dict) -> None:
            report(info)
            if proving.offer_due(time.monotonic() - job.began, bool(offered)):
                offered.append(True)
                threading.Thread(target=self._find_offer, args=(job,), name="koma-offer", daemon=True).start()

        return search.solve(self.puzzle, job.state, stop=job.stop, progress=watch)

    def _find_offer(self, job: SolverJob) -> None:
        try:
            solution = search.solve(self.puzzle, job.state, "reduction", stop=job.stop)
        except Exception:  # Cancelled, or a failure: the optimal search goes on without an offer
            return
        if not job.cancelled:
            self.host.post_message(OfferMade(job, solution))

    def offered(self, job: SolverJob, solution: Solution) -> str:
        """Keep the offer of the solve under way; the message for the player ("" if the job is gone)."""
        if job is not self.job:
            return ""
        self.offer = solution
        return proving.offer_text(solution, job.progress)

    def take_offer(self) -> tuple[list[str], str]:
        """The offer's moves for the playback and the message; the proof goes on."""
        offer, self.offer = self.offer, None
        assert offer is not None
        self.taken = offer
        return list(offer.moves), proving.taken_text(offer)

    def proved_text(self, solution: Solution) -> str:
        return proving.proved_text(solution, self.taken)

    def finished(self, job: SolverJob, solution: Solution) -> bool:
        """Take a solve or hint's answer; False if the job was cancelled or replaced since."""
        if job is not self.job:
            return False
        self.job = None
        self.learn(solution)
        self.solution_path, self.solution_moves = [tuple(s) for s in solution.path], list(solution.moves)
        self.solution_optimal = solution.optimal
        koma_app(self.host).last_solve_seconds = time.monotonic() - job.began
        return True

    def generate(self, distance: int | None) -> None:
        """A random board for a new game (exactly ``distance`` moves from the goal if given): a
        :class:`BoardGenerated`, or a :class:`BoardNotGenerated`."""
        seed = random.SystemRandom().randrange(2**32)
        run_job(self.host, SolverJob("generate", total=distance or 0),
                lambda job, report: self.puzzle.random_state(seed, distance), group="generate",
                answer=lambda job, board: BoardGenerated(job, tuple(board), distance), failed=BoardNotGenerated)

    def known_move(self, state: tuple) -> str | None:
        """The next move of the latest solution from ``state``, if the board is on its path."""
        if state in self.solution_path[:-1]:
            return self.solution_moves[self.solution_path.index(state)]
        return None

    def cancel(self) -> bool:
        """Stop the solve or hint under way (its worker and its kernel); False if there was none."""
        job, self.job = self.job, None
        if job is None:
            return False
        job.cancel()
        self.host.workers.cancel_group(self.host, "solver")
        return True

    def cancel_all(self) -> None:
        self.cancel()
        self.settling = []
        if self.settle_timer is not None:
            self.settle_timer.stop()
            self.settle_timer = None
        if self.distance_job is not None:
            self.distance_job.cancel()
        self.host.workers.cancel_group(self.host, "distance")

    # --- the side panel's lines --------------------------------------------------------------------
    def distance_text(self, state: tuple, solvable: bool) -> str:
        distance = self.distances.get(state)
        if self.puzzle.is_goal(state):
            return "[b]Solved[/b]"
        if distance is not None:
            return f"[b]{distance}[/b] move{'s' if distance != 1 else ''} from solved"
        if not self.optimal:
            if not getattr(self.puzzle, "solvable_by_koma", True):
                return "distance: Koma solves up to 5x5; this board is for play"
            return "distance: no optimal solver for this size yet"
        if not solvable:
            return "cannot reach the goal"
        if not self.warm.is_set():
            return f"{SPIN} warming up…"
        if self.job is not None and self.job.state == state:
            return "distance: the search below will tell"
        if not self.live_distance:
            return "distance: s proves it (may take minutes)"
        if state in self.settling:
            return "… moves from solved"  # measured when the player pauses; no spinner, so no redraw per key
        return f"{SPIN} measuring distance…"

    def job_text(self) -> str:
        if self.job is None:
            return ""
        what = "Finding a hint" if self.hinting else "Solving"
        wait = "" if self.warm.is_set() else " (warming up)"
        figures = f"\n{figures_text(self.job.progress)}" if self.job.progress else ""
        if "lower_bound" in self.job.progress:
            what = what if self.hinting else "Proving the optimum"
            figures = "\n" + proving.proving_text(self.job.progress, self.offer, self.taken)
        return f"{SPIN} {what}{wait}…{figures}\n[dim]esc cancels[/dim]"


def found_text(solution: Solution) -> str:
    kind = "optimal" if solution.optimal else f"NOT proven optimal: {solution.method} method"
    return f"Koma found {plural(solution.length, 'move')} ({kind}; {solution.nodes:,} nodes, {solution.seconds:.2f} s)."


def failure_text(error: BaseException) -> str:
    """A solve's failure, in a line for the player."""
    if isinstance(error, UnsolvableError):
        return str(error)
    if isinstance(error, GaveUp):  # only a hint has a time limit
        return proving.gave_up_text(error, "hint")
    if isinstance(error, KomaError):
        return f"Koma cannot solve this: {error}"
    return f"The solver failed: {error!r}"
