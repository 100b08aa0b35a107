"""Textual's strips make their caches when first used, not when made.

Every :class:`textual.strip.Strip` (a rendered line) makes seven ``FIFOCache`` objects as it is
made: about 1 KiB, several times the line itself.  Most strips never use one: the pieces the
compositor cuts a line into, the lines a style or a filter produced.  A game holds about 1,200
strips on the play screen, so the empty caches cost it about 1 MiB.

:func:`defer_strip_caches` makes each of those caches on first use, as Textual's own ``Content``
does with its divide cache.  What a strip computes and caches is unchanged.
"""

from __future__ import annotations

from types import MemberDescriptorType
from typing import Any

from textual import strip as strip_module
from textual.cache import FIFOCache
from textual.strip import Strip

CACHE_SLOTS = ("_divide_cache", "_crop_cache", "_style_cache", "_filter_cache", "_line_length_cache",
               "_crop_extend_cache", "_offsets_cache")


def _size_only(maxsize: int) -> int:
    """Stands in for ``FIFOCache`` in ``Strip.__init__``: the slot keeps the size until the cache is needed."""
    return maxsize


class DeferredCache:
    """A ``Strip`` cache slot that holds the cache's size until first use, then the cache."""

    def __init__(self, slot: Any):
        self.slot = slot  # the slot's own member descriptor, where the value lives

    def __get__(self, strip: Strip | None, owner: type | None = None) -> Any:
        if strip is None:
            return self
        value = self.slot.__get__(strip, owner)
        if type(value) is int:
            value = FIFOCache(value)
            self.slot.__set__(strip, value)
        return value

    def __set__(self, strip: Strip, value: Any) -> None:
        self.slot.__set__(strip, value)


def defer_strip_caches() -> bool:
    """Make every ``Strip`` made from now on create its caches on first use (idempotent).  False, and
    nothing changed, if this Textual's ``Strip`` is not made the way this module expects."""
    if strip_module.FIFOCache is _size_only:
        return True
    slots = {name: Strip.__dict__.get(name) for name in CACHE_SLOTS}
    if strip_module.FIFOCache is not FIFOCache or not all(isinstance(slot, MemberDescriptorType) for slot in slots.values()):
        return False
    for name, slot in slots.items():
        setattr(Strip, name, DeferredCache(slot))
    strip_module.FIFOCache = _size_only  # type: ignore[assignment, misc]
    return True
