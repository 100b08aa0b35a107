"""The messages Koma's screens post to themselves from their background workers, as dataclasses.

A worker thread never touches a widget: it posts one of these, and the screen's handler updates
the view on the UI thread.  Each kind of answer is its own message with a typed payload, so a
screen picks its handlers by message type (``@on(SolutionFound)``); it never asks a job what it
was for.  Every job message carries the :class:`~tui.game.solver_jobs.SolverJob` it answers, so a handler
ignores the answers of a job it has since cancelled or replaced (``event.job is self.job``).

:func:`tui.workers.run_job` posts :class:`JobProgress`, then the answer its caller names
(``answer=SolutionFound``), or :class:`JobFailed` (or the caller's ``failed=``) with the exception.
Answers that come several to a job (one per board) are posted by the job's own code.  Progress
reports ``can_replace`` the older report of the same job still waiting in the queue: only the
newest figures matter.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual.message import Message

from tui.game.solver_jobs import SolverJob

if TYPE_CHECKING:  # payload types only: importing this module loads no solver
    from solver.puzzle import LongestResult, Solution, State
    from solver.sliding.loop import LoopRun
    from solver.tools.lab import LabResult
    from tui.game.race_rules import Room


# --- every job -----------------------------------------------------------------------------------
@dataclass
class JobProgress(Message):
    """The latest figures of a running job (bound, nodes, depth, states…)."""

    job: SolverJob
    info: dict[str, Any]

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, JobProgress) and message.job is self.job


@dataclass
class JobFailed(Message):
    """A job that could not finish: the exception, which the screen words for the player.

    The screen tells whose failure it is by the job (``event.job is self.job``); where one job's
    failure needs other handling, the job is started with its own failure message (``failed=``).
    """

    job: SolverJob
    error: Exception


# --- the play screen -------------------------------------------------------------------------------
@dataclass
class SolutionFound(Message):
    """An optimal (or best known) solution of ``job.state``, for the player's auto-solve."""

    job: SolverJob
    solution: Solution


@dataclass
class HintFound(Message):
    """A hint for ``job.state``: the first move of ``solution``, which later hints may follow for free."""

    job: SolverJob
    solution: Solution

    @property
    def move(self) -> str:
        return self.solution.moves[0]


@dataclass
class OfferMade(Message):
    """A quick solution of ``job.state``, NOT proven optimal, offered while the optimal search goes on (the 5x5)."""

    job: SolverJob
    solution: Solution


@dataclass
class DistanceMeasured(Message):
    """The distance of one ``board`` of a measuring job (several to a job): ``solution.length`` moves."""

    job: SolverJob
    board: State
    solution: Solution


@dataclass
class BoardGenerated(Message):
    """A random solvable board for a new game, ``distance`` moves from the goal if one was asked (else None)."""

    job: SolverJob
    board: State
    distance: int | None = None


@dataclass
class BoardNotGenerated(Message):
    """No board could be made as asked (e.g. no board at that distance): the error says why, in a line."""

    job: SolverJob
    error: Exception


# --- the galleries ---------------------------------------------------------------------------------
@dataclass
class BfsFinished(Message):
    """A puzzle's full BFS from the goal (``Puzzle.longest``) for the gallery tab ``tab``.

    ``classes`` are the positions at maximum depth grouped by symmetry, as (board, class size), where
    the puzzle has symmetry classes (else None).
    """

    job: SolverJob
    tab: str
    result: LongestResult
    classes: list[tuple[State, int]] | None


@dataclass
class PositionVerified(Message):
    """One of the 15-puzzle's 80-move positions (``index`` in the list) solved optimally by Koma."""

    job: SolverJob
    index: int
    solution: Solution


@dataclass
class PositionFailed(Message):
    """One 80-move position that Koma's solver could not solve; the verification goes on with the next."""

    job: SolverJob
    index: int
    error: Exception


@dataclass
class VerificationFinished(Message):
    """A verification job went through all its positions (``indices``): each had its own message."""

    job: SolverJob
    indices: list[int]


# --- the labs --------------------------------------------------------------------------------------
@dataclass
class LabRunFinished(Message):
    """One algorithm lab method's run on the lab's board: nodes, time and length."""

    job: SolverJob
    result: LabResult


@dataclass
class LoopRunFinished(Message):
    """The loop method (article 003) run on ``job.state``: every move and board, and how it ended."""

    job: SolverJob
    run: LoopRun


@dataclass
class LoopLengthsCounted(Message):
    """The loop method's move counts on random solvable boards (seeds 0, 1, …), in seed order."""

    job: SolverJob
    lengths: list[int]


@dataclass
class OptimalLengthsFound(Message):
    """Optimal lengths of the first random boards (seeds 0, 1, …), with the loop method's counts on the same."""

    job: SolverJob
    optimal: list[int]
    loop: list[int]


# --- the solver's warm-up ----------------------------------------------------------------------------
@dataclass
class WarmedUp(Message):
    """The solver's tables are loaded (or its kernels compiled); ``problem`` says what went wrong, if anything."""

    problem: str = ""
    seconds: float = 0.0


# --- races -------------------------------------------------------------------------------------------
@dataclass
class RoomChanged(Message):
    """A new snapshot of the race's room, from the race link's thread (``tui.storage.race_link``).  A newer
    snapshot replaces one still waiting in the queue: only the latest matters."""

    room: Room

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, RoomChanged)


class RoomMoved(Message):
    """The race link has a snapshot that only moves racers on (``RoomNews.latest``): draw the opponents.  At most
    one is waiting at a time (the screen takes the latest snapshot when it handles it)."""


@dataclass
class RaceTrouble(Message):
    """The race link cannot reach the database (it goes on trying): one line for the player."""

    reason: str
