"""Progress reporting helpers shared by the CLI and the TUI."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any


def throttled(callback: Callable[[dict[str, Any]], None], interval: float = 0.1) -> Callable[[dict[str, Any]], None]:
    """Wrap a progress callback so that it runs at most once every ``interval`` seconds."""
    last = [float("-inf")]

    def report(info: dict[str, Any]) -> None:
        now = time.monotonic()
        if now - last[0] >= interval:
            last[0] = now
            callback(info)

    return report
