"""Partial screen updates that render only the widgets under the change.

Textual's compositor, asked to redraw one changed line, picks the widgets to render by their
*clip* (the region of the container that clips them), which for a widget on the screen is the
whole screen: so every visible widget runs ``render_lines`` on every update, a clock tick
included.  :class:`DirtyOnlyCompositor` picks them by the part of them that shows, so a clock tick
renders the clock's line and the containers behind it, not the board or the footer.  What reaches
the terminal is the same: the update only ever writes the changed spans.
"""

from __future__ import annotations

from collections.abc import Iterable

from textual._compositor import Compositor
from textual.geometry import Region
from textual.screen import Screen
from textual.strip import Strip


class DirtyOnlyCompositor(Compositor):
    """Textual's compositor; a cropped render skips widgets whose visible part misses the crop."""

    def _get_renders(self, crop: Region | None = None) -> Iterable[tuple[Region, Region, list[Strip]]]:
        if not crop:
            yield from super()._get_renders(crop)
            return
        overlaps = crop.overlaps
        for widget, (region, clip) in self.visible_widgets.items():
            shown = region.intersection(clip)
            if not overlaps(shown):
                continue
            x, y, width, height = shown
            yield region, clip, widget.render_lines(Region(x - region.x, y - region.y, width, height))


class DirtyOnlyRendering(Screen):
    """A screen whose partial updates render only what they touch (see :class:`DirtyOnlyCompositor`)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._compositor = DirtyOnlyCompositor()
