"""run_job: a job's answer comes back as the typed message its caller names, a failure as JobFailed or the caller's own."""

from __future__ import annotations

import threading
from dataclasses import dataclass

from textual import on
from textual.app import App
from textual.message import Message
from tui_helpers import wait_for

from solver.errors import Cancelled
from tui.game.solver_jobs import SolverJob, StopFlags
from tui.messages import BoardNotGenerated, JobFailed, JobProgress
from tui.workers import run_job


@dataclass
class Counted(Message):
    """The test's answer: a typed payload."""

    job: SolverJob
    count: int


class Host(App):
    """Just what run_job needs of the Koma app (its stop flags), recording every message it gets."""

    def __init__(self) -> None:
        super().__init__()
        self.stop_flags = StopFlags()
        self.seen: list[Message] = []

    @on(Counted)
    @on(JobFailed)
    @on(BoardNotGenerated)
    @on(JobProgress)
    def _record(self, event: Message) -> None:
        self.seen.append(event)


async def run(compute, **options) -> tuple[Host, SolverJob]:
    host, job = Host(), SolverJob("test")
    async with host.run_test() as pilot:
        worker = run_job(host, job, compute, group="test", interval=0, **options)
        await wait_for(pilot, lambda: worker.is_finished, what="the job")
        await pilot.pause()
    return host, job


async def test_the_answer_is_the_callers_message_with_the_result():
    def compute(job, report):
        report({"done": 1})
        return 42

    host, job = await run(compute, answer=Counted)
    assert [type(m) for m in host.seen] == [JobProgress, Counted]
    assert host.seen[0].job is job and host.seen[0].info == {"done": 1}
    assert host.seen[1].job is job and host.seen[1].count == 42


async def test_a_failure_is_job_failed_or_the_callers_own_message():
    def compute(job, report):
        raise ValueError("no board at that distance")

    host, job = await run(compute, answer=Counted)
    assert [type(m) for m in host.seen] == [JobFailed] and host.seen[0].job is job
    assert str(host.seen[0].error) == "no board at that distance"
    host, job = await run(compute, answer=Counted, failed=BoardNotGenerated)
    assert [type(m) for m in host.seen] == [BoardNotGenerated] and isinstance(host.seen[0].error, ValueError)


async def test_a_cancelled_job_and_a_job_without_an_answer_post_nothing_more():
    def cancelled(job, report):
        job.cancel()
        raise Cancelled()

    def stopped_late(job, report):
        job.cancel()  # its result comes too late to matter
        return 1

    for compute in (cancelled, stopped_late):
        host, _ = await run(compute, answer=Counted)
        assert host.seen == []
    host, _ = await run(lambda job, report: 1, answer=None)
    assert host.seen == []


async def test_the_stop_flag_is_registered_only_while_the_job_runs():
    inside: list[bool] = []
    flags: list[StopFlags] = []

    def compute(job, report):
        inside.append(id(job.stop) in flags[0] and threading.current_thread() is not threading.main_thread())
        return 0

    host, job = Host(), SolverJob("test")
    flags.append(host.stop_flags)
    async with host.run_test() as pilot:
        worker = run_job(host, job, compute, group="test", answer=Counted)
        await wait_for(pilot, lambda: worker.is_finished, what="the job")
    assert inside == [True] and len(host.stop_flags) == 0 and host.stop_flags.values() == []
