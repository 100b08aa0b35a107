"""Stop flags: how a caller cancels a long numba computation from another thread.

A stop flag is a one-byte numpy array shared with the kernel, which polls ``flag[0]`` every few
thousand nodes; setting it to 1 makes the computation raise :class:`~solver.errors.Cancelled`.
"""

from __future__ import annotations

import numpy as np

from solver.errors import Cancelled

StopFlag = np.ndarray  # shape (1,), dtype uint8


def new_stop_flag() -> StopFlag:
    """A fresh stop flag for one job: ``request_stop(flag)`` (or ``flag[0] = 1``) cancels it."""
    return np.zeros(1, np.uint8)


def request_stop(flag: StopFlag | None) -> None:
    """Ask the computation that polls ``flag`` to stop (a no-op for ``None``)."""
    if flag is not None:
        flag[0] = 1


def stop_requested(flag: StopFlag | None) -> bool:
    return flag is not None and bool(flag[0])


def check_stop(flag: StopFlag | None) -> None:
    """Raise :class:`~solver.errors.Cancelled` if ``flag`` was set."""
    if stop_requested(flag):
        raise Cancelled()
