"""Partial screen updates that render only the widgets under the change.

Textual's compositor, asked to redraw one changed line, picks the widgets to render by their
*clip* (the region of the container that clips them), which for a widget on the screen is the
whole screen: so every visible widget runs ``render_lines`` on every update, a clock tick
included.  :class:`DirtyOnlyCompositor` picks them by the part of them that shows, and by the
regions that changed rather than the rectangle around them all: a move that changes two tiles
and two lines of the side panel renders those four widgets, not the board, the panel and the
tiles between.  It also skips a widget whose changed part is wholly covered by one in front of
it, as the containers behind a line of text are: the compositor paints front to back and keeps
the first strip it gets for each span, so a covered widget's lines would be thrown away.  What
reaches the terminal is the same: an update only ever writes the changed spans.

It relies on the compositor's internals (``_dirty_regions``, ``_get_renders(crop)``,
``visible_widgets``) and on the screen keeping its compositor in ``_compositor``; these are checked
when the first screen is made (:func:`compositor_misfit`), and then for each screen.  If they are not as in Textual 8.2,
screens keep Textual's own compositor, and Koma says so once (:func:`tui.overrides.step_aside`).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

from textual._compositor import ChopsUpdate, Compositor
from textual.geometry import Region
from textual.screen import Screen
from textual.strip import Strip
from textual.widget import Widget

from tui.overrides import first_problem, missing, parameters_differ, step_aside, told_if_misfit


class DirtyOnlyCompositor(Compositor):
    """Textual's compositor; a partial update renders only the widgets that show in a changed region
    and are not covered there by a widget in front."""

    def __init__(self) -> None:
        super().__init__()
        self._changed: list[Region] = []  # the regions of the partial update under way

    def render_partial_update(self) -> ChopsUpdate | None:
        self._changed = list(self._dirty_regions)
        try:
            return super().render_partial_update()
        finally:
            self._changed = []

    def _get_renders(self, crop: Region | None = None) -> Iterable[tuple[Region, Region, list[Strip]]]:
        if not crop:
            yield from super()._get_renders(crop)
            return
        changed = [part for part in (overlap(crop, region) for region in self._changed) if part] or [crop]
        in_front: list[Region] = []  # the shown parts of the widgets rendered so far, front first
        for widget, (region, clip) in self.visible_widgets.items():
            shown = overlap(region, clip)
            if shown is None:
                continue
            needed = [part for part in (overlap(shown, region) for region in changed) if part]
            if not needed or all(any(contains(front, part) for front in in_front) for part in needed):
                continue
            in_front.append(shown)
            x, y, width, height = shown
            yield region, clip, widget.render_lines(Region(x - region.x, y - region.y, width, height))


def overlap(a: Region, b: Region) -> Region | None:
    """The part of ``a`` inside ``b``, or None if they do not overlap.

    ``Region.intersection`` without its LRU cache, which would keep every pair of regions a
    partial update compares, up to 4,096 of them, alive in each game.
    """
    ax, ay, aw, ah = a
    bx, by, bw, bh = b
    left, top = max(ax, bx), max(ay, by)
    right, bottom = min(ax + aw, bx + bw), min(ay + ah, by + bh)
    if right <= left or bottom <= top:
        return None
    return Region(left, top, right - left, bottom - top)


def contains(outer: Region, inner: Region) -> bool:
    """Whether ``inner`` lies wholly inside ``outer`` (``Region.contains_region`` without its LRU cache)."""
    ox, oy, ow, oh = outer
    ix, iy, iw, ih = inner
    return ox <= ix and oy <= iy and ix + iw <= ox + ow and iy + ih <= oy + oh


OVERRIDE = "partial-update compositor"
INSTEAD = "screens use Textual's own compositor, which renders every visible widget on each update"


def compositor_misfit() -> str | None:
    """Why this Textual's compositor is not the one :class:`DirtyOnlyCompositor` was written for, or None."""
    return first_problem(
        lambda: missing(Compositor, ["render_partial_update", "_get_renders", "visible_widgets"]),
        lambda: parameters_differ(Compositor.render_partial_update, ["self"]),
        lambda: parameters_differ(Compositor._get_renders, ["self", "crop"]),
        lambda: missing(Compositor(), ["_dirty_regions"]),
        lambda: parameters_differ(Widget.render_lines, ["self", "crop"]),
    )


def check() -> str | None:
    """:func:`compositor_misfit`, told once (:func:`tui.overrides.step_aside`) if there is one."""
    return told_if_misfit(OVERRIDE, compositor_misfit(), INSTEAD)


@functools.cache
def misfit() -> str | None:
    """:func:`check`, run on first use (not at import) and remembered: None while the override is on."""
    return check()


class DirtyOnlyRendering(Screen):
    """A screen whose partial updates render only what they touch (see :class:`DirtyOnlyCompositor`)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        if misfit():
            return  # told once
        if type(getattr(self, "_compositor", None)) is not Compositor:
            step_aside(OVERRIDE, "a Screen keeps no Compositor in _compositor", INSTEAD)
            return
        self._compositor = DirtyOnlyCompositor()
