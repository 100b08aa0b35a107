"""Work off the UI thread, and its answers back on it: a screen's searches and its reads of the store.

Running a :class:`~tui.game.solver_jobs.SolverJob` in a screen's thread worker is the one way screens start a search.

The job's stop flag is registered for cancel-on-quit while it runs (``StopFlags.registered``);
progress comes back as throttled :class:`~tui.messages.JobProgress` messages, and the answer as the
typed message the caller names (``answer=SolutionFound``: built from the job and what ``compute``
returned), or as ``failed`` (:class:`~tui.messages.JobFailed` unless the caller names another) with
the exception, which the screen words for the player.  A cancelled job posts nothing more.
A read of the store (:func:`read_store`) answers on the UI thread too (:func:`on_ui_thread`), to a screen still there.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar, cast

from textual.app import App
from textual.dom import DOMNode
from textual.message import Message
from textual.worker import Worker

from solver.engines.progress import throttled
from solver.errors import Cancelled
from tui.app_view import KomaAppView, koma_app
from tui.game.solver_jobs import SolverJob
from tui.messages import JobFailed, JobProgress
from tui.storage.service import Answer
from tui.storage.store import Store

Report = Callable[[dict[str, Any]], None]
T = TypeVar("T")


def on_ui_thread(app: App, callback: Callable[..., None], *args: Any) -> None:
    """Run ``callback(*args)`` on ``app``'s UI thread: at once when called there, else through ``call_from_thread``
    while the app runs (dropped once it is closing: nobody to tell)."""
    if cast(KomaAppView, app).ui_thread == threading.get_ident():
        callback(*args)
    elif app.is_running:
        try:
            app.call_from_thread(callback, *args)
        except RuntimeError:  # the app is closing
            pass


def read_store(node: DOMNode, run: Callable[[Store], Any], reply: Callable[[Answer], None], *,
               deadline: float | None = None) -> None:
    """Read from the store off the UI thread (``run(store)``, within ``deadline`` seconds, else the storage service's);
    ``reply`` gets the Answer on the UI thread, if ``node`` is still mounted then."""
    app = node.app  # here, on the UI thread: the storage's threads do not know the app

    def answered(answer: Answer) -> None:
        on_ui_thread(app, lambda: reply(answer) if node.is_attached else None)

    if deadline is None:
        koma_app(node).storage.read(run, answered)
    else:
        koma_app(node).storage.read(run, answered, deadline)


def run_job(node: DOMNode, job: SolverJob, compute: Callable[[SolverJob, Report], T], *, group: str,
            answer: Callable[[SolverJob, T], Message] | None,
            failed: Callable[[SolverJob, Exception], Message] = JobFailed,
            interval: float = 0.1) -> Worker[None]:
    """Run ``compute(job, report)`` in an exclusive thread worker of ``node`` (a newer job of ``group`` replaces it).

    Its result is posted as ``answer(job, result)``; ``answer=None`` posts nothing at the end (a job whose
    answers come one by one, posted by ``compute`` itself).  An exception is posted as ``failed(job, error)``.
    """
    stop_flags = koma_app(node).stop_flags

    def post_progress(info: dict[str, Any]) -> None:
        node.post_message(JobProgress(job, dict(info)))

    report = throttled(post_progress, interval)

    def body() -> None:
        with stop_flags.registered(job):
            try:
                result = compute(job, report)
            except Cancelled:
                return
            except Exception as error:  # a solver problem must not take the game down: the screen reports it
                node.post_message(failed(job, error))
                return
        if answer is not None and not job.cancelled:
            node.post_message(answer(job, result))

    return node.run_worker(body, thread=True, exclusive=True, group=group, name=group)


class QuitNowExecutor(ThreadPoolExecutor):
    """The event loop's default executor, where Textual runs thread workers: its shutdown never waits for them.

    asyncio's loop waits, when it closes, for every task of its default executor; a search stops at its stop
    flag at once, but numba compiling a kernel (a fresh install's warm-up: seconds) cannot be stopped, so
    quitting then waited for the compile.  Nothing a worker still does is wanted after a quit (the store is
    closed before), and ``koma`` ends its process with ``os._exit`` right after the app."""

    def __init__(self) -> None:
        super().__init__(thread_name_prefix="koma-worker")

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        super().shutdown(wait=False, cancel_futures=True)
