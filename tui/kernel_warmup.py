"""The warm-up of the solvers' kernels in one ``koma`` process, apart from the app that shows the games.

Two things warm the kernels before a player needs them:

- on a fresh install, the processes beside this one that compile them (:func:`solver.tools.warm.start_beside`);
- from the home screen on, a thread that loads (or builds) the solvers of the puzzles a key opens
  (:data:`BACKGROUND_PUZZLES`), the 15-puzzle's first.

A 15-puzzle opened while the ``table`` process beside builds its table waits for that table (or for that process to
end) rather than build it in this process: numba compiles holding the GIL, the interface's too.  Nothing here sleeps
to wait: a thread per ``table`` process reads the line it writes once its table is built
(:data:`solver.tools.warm.TABLE_BUILT`), or waits for its end, and wakes the waiters through a condition; a puzzle
opened meanwhile (:meth:`KernelWarmUp.give_way`) and quitting (:meth:`KernelWarmUp.stop`) wake them too.
Never imports Textual.
"""

from __future__ import annotations

import subprocess
import threading

from solver.puzzle import Puzzle
from tui.game.daily import puzzle_id
from tui.game.solver_jobs import SolverJob

# What a key opens from the home screen, warmed in the background from the start: the 15-puzzle first (the longest to
# compile)
BACKGROUND_PUZZLES = (("15", None), ("8", None), ("goat", None), ("ura", "3x3"))


class KernelWarmUp:
    """The processes beside (by part, see :data:`solver.tools.warm.PARTS`) and the background warm-up of one process.

    ``warming`` is the puzzle the background warm-up is on (its id) and its job; ``warmed`` the puzzles it has
    warmed, in order."""

    def __init__(self, processes: dict[str, subprocess.Popen] | None = None):
        """``processes``: the processes beside, if the caller started them already (``koma`` does, before it loads
        the interface); otherwise :meth:`start_processes` starts them."""
        self.processes: dict[str, subprocess.Popen] = dict(processes or {})
        self.warming: tuple[str, SolverJob] | None = None
        self.warmed: list[str] = []
        self._changed = threading.Condition()
        self._table_done = False  # the table process beside built its table, or ended
        self._stopped = False
        self._watched: set[int] = set()  # the processes a thread waits on, by pid

    def start_processes(self) -> None:
        """Start the processes beside, unless there are some already or the kernels are all in the cache."""
        if not self.processes and not self._stopped:
            from solver.tools.warm import start_beside

            self.processes = start_beside()

    def warm_in_background(self) -> threading.Thread:
        """Start the background warm-up (the processes beside first, on a fresh install); the thread doing it."""
        thread = threading.Thread(target=self._warm_solvers, name="kernel-warm-up", daemon=True)
        thread.start()
        return thread

    def wait_for_the_table(self, puzzle: Puzzle, job: SolverJob) -> None:
        """While the ``table`` process beside builds the table ``puzzle`` needs (the 15-puzzle's), wait for the table
        or for that process to end; then the search's kernel is loaded once the other process beside compiled it
        (its compile lock).  At once for other puzzles, without that process, or once ``job`` is cancelled through
        :meth:`give_way` or :meth:`stop`."""
        from solver.tools.warm import needs_the_table, table_built

        if "table" not in self.processes or not needs_the_table(puzzle):
            return
        self._watch()
        with self._changed:
            self._changed.wait_for(lambda: self._table_done or self._stopped or job.cancelled or table_built())

    def give_way(self, puzzle: Puzzle) -> None:
        """A puzzle was opened (it warms itself): the background warm-up stops, unless it is warming that puzzle."""
        warming = self.warming
        if warming is not None and warming[0] != puzzle_id(puzzle):
            self._cancel(warming[1])

    def stop(self) -> None:
        """Quitting: stop the background warm-up and the processes beside, and end every wait for the table."""
        beside, self.processes = self.processes, {}
        for process in beside.values():
            if process.poll() is None:
                process.terminate()  # not waited for: it removes its temporary files as it goes
        with self._changed:
            self._stopped = True
            self._changed.notify_all()
        warming = self.warming
        if warming is not None:
            self._cancel(warming[1])

    def _cancel(self, job: SolverJob) -> None:
        job.cancel()
        with self._changed:
            self._changed.notify_all()  # a wait for the table on this job's behalf ends

    def _watch(self) -> None:
        """A thread waits on the ``table`` process (once): what it wrote meanwhile waits in the pipe."""
        table = self.processes.get("table")
        with self._changed:  # two threads may ask at once: one watcher
            if table is None or table.pid in self._watched:
                return
            self._watched.add(table.pid)
            threading.Thread(target=self._wait_for_table_process, args=(table,), name="table-beside", daemon=True).start()

    def _wait_for_table_process(self, process: subprocess.Popen) -> None:
        """Until the ``table`` process says its table is built (a line on its stdout, when it is a pipe) or ends."""
        from solver.tools.warm import TABLE_BUILT

        said = process.stdout
        if said is None:
            process.wait()
        else:
            for line in said:
                if line.strip() == TABLE_BUILT.encode():
                    break
        with self._changed:
            self._table_done = True
            self._changed.notify_all()
        if said is not None:
            with said:
                said.read()  # until the process ends: then its end of the pipe closes

    def _warm_solvers(self) -> None:
        """The solvers of :data:`BACKGROUND_PUZZLES`, in order; a puzzle opened meanwhile warms itself, and this steps
        aside unless it is warming that very one (:meth:`give_way`)."""
        from solver import solving as search
        from solver.registry import get_puzzle

        self.start_processes()  # a fresh install: processes beside compile the kernels, on two cores
        for name, size in BACKGROUND_PUZZLES:
            puzzle = get_puzzle(name, size)
            job = SolverJob("background warm-up")
            self.warming = (puzzle_id(puzzle), job)
            if self._stopped:
                job.cancel()
            try:
                self.wait_for_the_table(puzzle, job)
                if job.cancelled:
                    return
                if puzzle.enumerable:
                    puzzle.depth_table(stop=job.stop)
                elif search.methods(puzzle):  # as the play screen warms up: a board two moves from the goal
                    near = puzzle.goal
                    for _ in range(2):
                        near = puzzle.apply(near, puzzle.moves(near)[0])
                    search.solve(puzzle, near, stop=job.stop)
            except Exception:  # cancelled, or a solver problem: the play screen warms (and reports) it itself
                pass
            finally:
                self.warming = None
            if job.cancelled:
                return
            self.warmed.append(puzzle_id(puzzle))
