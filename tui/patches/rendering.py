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

A widget that only travels (a board's tile, which tells its screen: :meth:`DirtyOnlyRendering.travelled`) moves
without a layout pass: its
offset changes ask Textual for a repaint (which it does not need: it looks the same) and a full
``reflow`` of the screen (every widget arranged again).  :meth:`DirtyOnlyCompositor.reflow` instead
moves its region by how far it travelled, when nothing else asked for a layout since the last one.

A screen also skips work Textual does for every screen it shows, which the player never sees
(:class:`DirtyOnlyRendering`): a layout pass at a size it was just laid out at (Textual lays a screen out, and
then again on the Resize event that layout sends it, and lays out the screen below as well); and a second restyle of
the whole screen for its breakpoint classes (``-narrow``, ``-short``…: they are set before its first restyle instead
of by that Resize event).

A screen's frames come from :class:`FrameTimer` instead of Textual's update timer.  Textual's is an interval
timer, paused between frames and resumed by a change; resumed within two periods of its last tick, it waits for
the next tick of its schedule, so a change can show up to two periods (33 ms at 60 frames a second) after it was
made, and on a race screen, whose opponents' boards draw 20 times a second, most of the racer's own moves did.
:class:`FrameTimer` keeps Textual's schedule for every frame (it coalesces the changes of a screen opening, a burst
of opponents' moves) except the one that answers the player's input (a key, a click, a tap: :func:`answer_input`),
which it draws at once.  It relies on the screen's ``_update_timer`` (a property Textual reads to pause and resume
its frames, and only that), on ``_on_timer_update`` (a frame) and on the app's ``_exit`` and ``_handle_exception``
(as Textual's timers use them); if they are not as in Textual 8.2, screens keep Textual's timer.

It relies on the compositor's internals (``_dirty_regions``, ``_get_renders(crop)``,
``visible_widgets``, ``_full_map`` and the caches a reflow drops), on the screen's
``_layout_widgets`` (who asked for a layout), on the screen keeping its compositor in
``_compositor``, and on the screen's ``_screen_resized`` and ``_get_breakpoint_classes``; these are checked
when the first screen is made (:func:`compositor_misfit`), and then for each screen.  If they are not as in Textual 8.2,
screens keep Textual's own compositor, and Koma says so once (:func:`tui.patches.checks.step_aside`).
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import inspect
import time
from collections.abc import Callable, Iterable

from textual import constants, events
from textual._compositor import ChopsUpdate, Compositor, ReflowResult
from textual.app import App
from textual.geometry import Offset, Region, Size
from textual.screen import Screen
from textual.strip import Strip
from textual.widget import Widget

from tui.patches.checks import first_problem, missing, parameters_differ, step_aside, told_if_misfit


class DirtyOnlyCompositor(Compositor):
    """Textual's compositor; a partial update renders only the widgets that show in a changed region
    and are not covered there by a widget in front."""

    def __init__(self) -> None:
        super().__init__()
        self._changed: list[Region] = []  # the regions of the partial update under way
        self._travelled: dict[Widget, Offset] = {}  # widgets that only travelled since the last reflow: how far
        self._screen_layouts = -1  # the screen's own layout requests counted at the last reflow

    def travelled(self, widget: Widget, distance: Offset) -> None:
        """``widget`` moved by ``distance`` (its offset changed; its size and look did not)."""
        self._travelled[widget] = self._travelled.get(widget, Offset(0, 0)) + distance

    def reflow(self, parent: Widget, size: Size) -> ReflowResult:
        travelled, self._travelled = self._travelled, {}
        screen_layouts, self._screen_layouts = self._screen_layouts, parent._layout_updates
        if travelled and screen_layouts == parent._layout_updates and self._translate(parent, size, travelled):
            return ReflowResult(hidden=set(), shown=set(), resized=set())
        return super().reflow(parent, size)

    def _translate(self, parent: Widget, size: Size, travelled: dict[Widget, Offset]) -> bool:
        """Move the travelled widgets' regions, if they are all that asked for a layout and stay inside their clip."""
        if parent is not self.root or size != self.size or self._full_map_invalidated:
            return False
        asked = getattr(parent, "_layout_widgets", None)
        if not asked or not all(widget in travelled for widgets in asked.values() for widget in widgets):
            return False
        moved = {}
        for widget, distance in travelled.items():
            geometry = self._full_map.get(widget)
            if geometry is None:
                return False
            region = geometry.region.translate(distance)
            if not contains(geometry.clip, region) or not contains(geometry.clip, geometry.region):
                return False
            moved[widget] = geometry._replace(region=region)  # the virtual region is where it stands before its offset
        for widget, geometry in moved.items():
            self._dirty_regions.update((self._full_map[widget].region, geometry.region))
            self._full_map[widget] = geometry
        self._cuts = self._layers = self._layers_visible = self._visible_widgets = self._visible_map = None
        return True

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
            if shown is None or overlap(shown, crop) is None:  # most widgets lie wholly outside the changed area
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
        lambda: missing(Compositor(), ["_dirty_regions", "_full_map", "_full_map_invalidated", "_cuts", "_layers",
                                       "_layers_visible", "_visible_widgets", "_visible_map", "root", "size"]),
        lambda: parameters_differ(Compositor.reflow, ["self", "parent", "size"]),
        lambda: missing(Screen(), ["_layout_widgets", "_layout_updates", "_screen_resized", "_get_breakpoint_classes"]),
        lambda: parameters_differ(Screen._screen_resized, ["self", "size"]),
        lambda: parameters_differ(Screen._get_breakpoint_classes, ["self", "dimension", "breakpoints"]),
        lambda: parameters_differ(Widget.render_lines, ["self", "crop"]),
    )


def check() -> str | None:
    """:func:`compositor_misfit`, told once (:func:`tui.patches.checks.step_aside`) if there is one."""
    return told_if_misfit(OVERRIDE, compositor_misfit(), INSTEAD)


@functools.cache
def misfit() -> str | None:
    """:func:`check`, run on first use (not at import) and remembered: None while the override is on."""
    return check()


def next_boundary(start: float, count: int, period: float, now: float) -> int:
    """The schedule's next tick after one that ended at ``now``, as Textual's interval timer counts it: ticks fall at
    ``start + k * period``; the one after tick ``count``, unless that time has passed, in which case Textual skips
    to ``int((now - start) / period + 1) + 1`` (one to two periods on)."""
    following = count + 1
    if start + following * period < now:
        following = int((now - start) / period + 1) + 1
    return following


class FrameTimer:
    """A screen's frames (see the module's docstring): :meth:`resume` asks for one, :meth:`pause` takes the request
    back.  A frame comes on Textual's schedule (:func:`next_boundary`: the first a period after the first ask, then
    at ticks of the period, a late one at once and the next one to two periods on), except the frame that answers
    the player's input (:meth:`answer_input`), which comes at once.  ``frame`` draws (``Screen._on_timer_update``)."""

    def __init__(self, screen: Screen, frame: Callable[[], None], period: float) -> None:
        self.screen, self.frame, self.period = screen, frame, period
        self.start: float | None = None  # the schedule's origin: the first ask, as Textual's timer starts there
        self.count = 0  # the schedule's next tick, at start + count * period
        self.input_waiting = False
        self.drawn = 0  # frames drawn
        self._handle: asyncio.Handle | asyncio.TimerHandle | None = None
        self._at_once = False  # the handle is the next turn of the loop (no wait)
        self._context = contextvars.copy_context()  # the screen's: the active app, as Textual's timer task has

    @property
    def next_at(self) -> float:
        """When the schedule's next tick falls (time.monotonic())."""
        return (self.start or 0.0) + self.count * self.period

    def resume(self) -> None:
        """A frame is wanted: at the schedule's next tick, at once if that has passed or the player's input waits."""
        if self._handle is not None and (self._at_once or not self.input_waiting):
            return
        if self._handle is not None:
            self._handle.cancel()  # the player's input: no waiting for the tick
        now = time.monotonic()
        if self.start is None:
            self.start, self.count = now, 1
        loop = asyncio.get_running_loop()
        wait = self.next_at - now
        self._at_once = self.input_waiting or wait <= 0
        if self._at_once:
            self._handle = loop.call_soon(self._draw, context=self._context)
        else:
            self._handle = loop.call_later(wait, self._draw, context=self._context)

    def pause(self) -> None:
        """No frame is wanted (any asked for is taken back; the schedule runs on, as Textual's does)."""
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None

    def answer_input(self) -> None:
        """The player pressed, clicked or tapped: the next frame is drawn as soon as it is asked for."""
        self.input_waiting = True

    def _draw(self) -> None:
        self._handle = None
        self.input_waiting = False
        app = self.screen.app
        if app._exit:  # as Textual's timers: nothing more once the app exits
            return
        try:
            self.drawn += 1
            self.frame()
        except Exception as error:  # as Textual's timers: the app shows it and exits
            app._handle_exception(error)
        finally:
            ended = time.monotonic()
            if ended >= self.next_at and self.start is not None:  # (a frame drawn ahead for input leaves the tick due)
                self.count = next_boundary(self.start, self.count, self.period, ended)


def answer_input(screen: Screen) -> None:
    """The player's input came to ``screen``: its next frame is drawn at once (:meth:`FrameTimer.answer_input`)."""
    frames = getattr(screen, "_frames", None)
    if isinstance(frames, FrameTimer):
        frames.answer_input()


FRAMES = "frame timer"
FRAMES_INSTEAD = "screens keep Textual's update timer, which can show a change up to two frames late"


def frames_misfit() -> str | None:
    """Why this Textual's screens do not take :class:`FrameTimer` as their update timer, or None."""
    return first_problem(
        lambda: None if isinstance(inspect.getattr_static(Screen, "_update_timer", None), property)
        else "Screen._update_timer is not a property",
        lambda: missing(Screen, ["_on_timer_update"]),
        lambda: parameters_differ(Screen._on_timer_update, ["self"]),
        lambda: "Screen._on_timer_update is a coroutine" if inspect.iscoroutinefunction(Screen._on_timer_update)
        else None,
        lambda: missing(App, ["_handle_exception"]),
        lambda: None if "_exit" in App.__init__.__code__.co_names else "no App._exit",  # set there, read at a frame
    )


@functools.cache
def frames_off() -> str | None:
    """:func:`frames_misfit`, told once, on first use (not at import) and remembered: None while the timer is on."""
    return told_if_misfit(FRAMES, frames_misfit(), FRAMES_INSTEAD)


class DirtyOnlyRendering(Screen):
    """A screen whose partial updates render only what they touch (see :class:`DirtyOnlyCompositor`)."""

    # Set the breakpoint classes before the screen's first restyle (see _on_screen_resume).  Not for every screen: one
    # whose first layout scrolls its focused widget into view would scroll to where the folded layout puts it (the
    # leaderboard at 40x20 would open scrolled past its title), where Textual's order unfolds it at the top.
    EARLY_BREAKPOINTS = False

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._frames: FrameTimer | None = None
        if misfit():
            return  # told once
        if type(getattr(self, "_compositor", None)) is not Compositor:
            step_aside(OVERRIDE, "a Screen keeps no Compositor in _compositor", INSTEAD)
            return
        self._compositor = DirtyOnlyCompositor()

    @property
    def _update_timer(self):
        """Textual's frames (it pauses and resumes them), from a :class:`FrameTimer` where Textual fits."""
        if frames_off():
            return Screen._update_timer.fget(self)
        if self._frames is None:
            self._frames = FrameTimer(self, self._on_timer_update, 1 / constants.MAX_FPS)
        return self._frames

    def _on_unmount(self) -> None:  # (Textual calls each class's handler: Widget's runs as well)
        if self._frames is not None:
            self._frames.pause()

    def travelled(self, widget: Widget, distance: Offset) -> None:
        """``widget`` only moved, by ``distance``: its offset changed, its size and look did not (a board's tile).
        The next layout pass moves its region instead of arranging the screen again (see :class:`DirtyOnlyCompositor`)."""
        if isinstance(self._compositor, DirtyOnlyCompositor):
            self._compositor.travelled(widget, distance)

    def _on_screen_resume(self, event: events.ScreenResume) -> None:
        """Runs before Textual's own handler, which restyles the whole screen: on a screen that asks for it
        (:attr:`EARLY_BREAKPOINTS`) the breakpoint classes for the terminal's size are set first, so that restyle is
        the only one (Textual would set them on the Resize event its first layout sends, and restyle the whole screen
        again)."""
        if self.EARLY_BREAKPOINTS and event.refresh_styles and isinstance(self._compositor, DirtyOnlyCompositor):
            self.update_classes(self.breakpoint_classes(self.app.size), update=False)

    def breakpoint_classes(self, size: Size) -> dict[str, bool]:
        """The breakpoint classes at ``size``, as Textual's ``Screen._on_resize`` sets them (True: the screen has it)."""
        horizontal = (self.app.HORIZONTAL_BREAKPOINTS if self.HORIZONTAL_BREAKPOINTS is None
                      else self.HORIZONTAL_BREAKPOINTS) or []
        vertical = (self.app.VERTICAL_BREAKPOINTS if self.VERTICAL_BREAKPOINTS is None else self.VERTICAL_BREAKPOINTS) or []
        classes = {name: False for _, name in [*horizontal, *vertical]}
        for name in [*self._get_breakpoint_classes(size.width, horizontal), *self._get_breakpoint_classes(size.height, vertical)]:
            classes[name] = True
        return classes

    def _screen_resized(self, size: Size) -> None:
        """Textual's, but no layout pass at the size the screen was last laid out at: what else asks for one is
        laid out on the screen's next update, as ever."""
        if isinstance(self._compositor, DirtyOnlyCompositor) and self._compositor.size == size and size:
            return
        super()._screen_resized(size)
