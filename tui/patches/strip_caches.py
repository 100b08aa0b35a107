"""Textual's strips make their caches when first used, not when made.

Every :class:`textual.strip.Strip` (a rendered line) makes seven ``FIFOCache`` objects as it is
made: about 1 KiB, several times the line itself.  Most strips never use one: the pieces the
compositor cuts a line into, the lines a style or a filter produced.  A game holds about 1,200
strips on the play screen, so the empty caches cost it about 1 MiB.

:func:`defer_strip_caches` makes each of those caches on first use, as Textual's own ``Content``
does with its divide cache: ``Strip`` gets an ``__init__`` that leaves the cache slots empty, and
each cache slot a descriptor that makes its cache when first read.  It does so only when ``Strip``
has exactly the slots and the ``__init__`` parameters this module knows (Textual 8.2); otherwise it
leaves Textual as it is and says so once (:func:`tui.patches.checks.step_aside`).  What a strip computes
and caches is unchanged.
"""

from __future__ import annotations

from collections.abc import Iterable
from types import MemberDescriptorType
from typing import Any

from rich.segment import Segment
from textual.cache import FIFOCache
from textual.strip import Strip

from tui.patches.checks import first_problem, parameters_differ, step_aside

CACHE_SIZES = {"_divide_cache": 4, "_crop_cache": 16, "_style_cache": 16, "_filter_cache": 4,
               "_line_length_cache": 4, "_crop_extend_cache": 4, "_offsets_cache": 4}  # as Textual makes them
STRIP_SLOTS = {"_segments", "_cell_length", *CACHE_SIZES, "_render_cache", "_link_ids", "_cell_count"}


class DeferredCache:
    """A ``Strip`` cache slot, empty until first read, when it gets its ``FIFOCache``."""

    def __init__(self, slot: MemberDescriptorType, maxsize: int):
        self.slot = slot  # the slot's own member descriptor, where the cache lives
        self.maxsize = maxsize

    def __get__(self, strip: Strip | None, owner: type | None = None) -> Any:
        if strip is None:
            return self
        try:
            return self.slot.__get__(strip, owner)
        except AttributeError:
            cache: FIFOCache = FIFOCache(self.maxsize)
            self.slot.__set__(strip, cache)
            return cache

    def __set__(self, strip: Strip, value: Any) -> None:
        self.slot.__set__(strip, value)


def lean_init(self: Strip, segments: Iterable[Segment], cell_length: int | None = None) -> None:
    """``Strip.__init__`` without the caches (:class:`DeferredCache` makes each when first read)."""
    self._segments = list(segments)
    self._cell_length = cell_length
    self._render_cache = None
    self._link_ids = None
    self._cell_count = None


TEXTUAL_INIT = Strip.__init__  # Textual's own, kept to tell it from lean_init
INSTEAD = "strips make their seven caches as Textual makes them (about 1 MiB more per game)"


def strip_misfit() -> str | None:
    """Why this Textual's ``Strip`` is not the one :func:`lean_init` and :class:`DeferredCache` were written for, or None."""

    def slots() -> str | None:
        if set(Strip.__slots__) != STRIP_SLOTS:
            return f"Strip.__slots__ differ: {sorted(set(Strip.__slots__) ^ STRIP_SLOTS)}"
        odd = [name for name in CACHE_SIZES if not isinstance(Strip.__dict__.get(name), (MemberDescriptorType, DeferredCache))]
        return f"Strip.{odd[0]} is not a slot" if odd else None

    init = TEXTUAL_INIT if Strip.__init__ is lean_init else Strip.__init__
    return first_problem(slots, lambda: parameters_differ(init, ["self", "segments", "cell_length"]))


def defer_strip_caches() -> bool:
    """Make every ``Strip`` made from now on create its caches on first use (idempotent).  False, nothing
    changed and one notice, if this Textual's ``Strip`` is not the one this module knows."""
    problem = strip_misfit()
    if problem:
        step_aside("strip caches", problem, INSTEAD)
        return False
    if Strip.__init__ is lean_init:
        return True
    for name in CACHE_SIZES:
        setattr(Strip, name, DeferredCache(Strip.__dict__[name], CACHE_SIZES[name]))
    Strip.__init__ = lean_init  # type: ignore[method-assign]
    return True
