"""The messages Koma's screens post to themselves from their background workers, as dataclasses.

A worker thread never touches a widget: it posts one of these, and the screen's handler updates
the view on the UI thread.  A job's messages carry the :class:`~tui.game.jobs.SolverJob` they
answer, so a handler ignores the answers of a job it has since cancelled or replaced.  Progress
reports ``can_replace`` the older report of the same job still waiting in the queue: only the
newest figures matter.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from textual.message import Message

from .game.jobs import SolverJob


@dataclass
class JobProgress(Message):
    """The latest figures of a running job (bound, nodes, depth, states…)."""

    job: SolverJob
    info: dict[str, Any]

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, JobProgress) and message.job is self.job


@dataclass
class JobDone(Message):
    """A job's answer: a Solution, a BFS's figures, a lab result, a list of lengths… (``part`` of several)."""

    job: SolverJob
    result: Any
    part: int = -1  # which of the job's items this answers; -1: the whole job


@dataclass
class JobFailed(Message):
    """A job that could not finish: the exception, which the screen words for the player."""

    job: SolverJob
    error: BaseException
    part: int = -1


@dataclass
class WarmedUp(Message):
    """The solver's tables are loaded (or its kernels compiled); ``problem`` says what went wrong, if anything."""

    problem: str = ""
    seconds: float = 0.0
