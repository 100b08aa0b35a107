"""The admin listener of ``koma serve`` as a test sees it: HTTP GETs, and metrics read with prometheus-client's parser."""

from __future__ import annotations

import time
import urllib.error
import urllib.request

from prometheus_client.parser import text_string_to_metric_families


def get(port: int, path: str, timeout: float = 10.0) -> tuple[int, str]:
    """``GET http://127.0.0.1:port/path``: (status, body); (0, why) when nothing answers."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=timeout) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as problem:
        return problem.code, problem.read().decode()
    except OSError as problem:
        return 0, str(problem)


def samples(port: int) -> dict[tuple[str, frozenset], float]:
    """Every sample of ``/metrics``: {(name, labels): value}."""
    status, text = get(port, "/metrics")
    assert status == 200, text
    return {(s.name, frozenset(s.labels.items())): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def value(found: dict[tuple[str, frozenset], float], name: str, **labels: str) -> float:
    """The sum of ``name``'s samples whose labels include ``labels`` (0 when there is none)."""
    return sum(v for (n, ls), v in found.items() if n == name and set(labels.items()) <= ls)


def wait_until(condition, timeout: float, what: str, poll: float = 0.05):
    """Poll ``condition()`` until it is truthy (returned), for at most ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        result = condition()
        if result:
            return result
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {timeout:g} s (last: {result!r})")
        time.sleep(poll)
