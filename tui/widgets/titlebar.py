"""The title line at the top of every screen: Textual's ``Header`` (no clock) drawn by one widget.

Textual's header composes an icon, a title and a clock space, three widgets inside a fourth.  A game
served over SSH keeps two screens at least, so that was eight widgets with their message queues and
rendered lines, for one line of text.  :class:`TitleBar` draws the same line: the 駒 icon (``*`` in
ASCII mode) in the first eight columns, the screen's title and sub-title centred between it and ten
empty columns at the right (in a narrow terminal, the sub-title alone, over those columns too).  As on
Textual's header, a click on the icon opens the command palette, and a click elsewhere makes the bar
three lines tall (and back).
"""

from __future__ import annotations

from textual import events
from textual.content import Content
from textual.widget import Widget

from tui.ascii import text_for

ICON = "駒"
ICON_WIDTH = 8  # the icon's columns, as Textual's HeaderIcon (padding 0 1)
RIGHT_WIDTH = 10  # the empty columns at the right, where Textual's header would put a clock


class TitleBar(Widget, can_focus=False):
    """The icon and the screen's title and sub-title (or the app's), on one line docked at the top."""

    DEFAULT_CSS = """
    TitleBar {
        dock: top;
        width: 100%;
        height: 1;
        background: $panel;
        color: $foreground;
        content-align: left middle;
        &.-tall {
            height: 3;
        }
    }
    """

    def on_mount(self) -> None:
        for node in (self.app, self.screen):
            self.watch(node, "title", self.title_changed, init=False)
            self.watch(node, "sub_title", self.title_changed, init=False)

    def title_changed(self) -> None:
        self.refresh()

    def title_content(self) -> Content:
        """The title as the app formats it, with the screen's title and sub-title before the app's."""
        screen, app = self.screen, self.app
        title = screen.title if screen.title is not None else app.title
        sub_title = screen.sub_title if screen.sub_title is not None else app.sub_title
        return app.format_title(title, sub_title)

    def render(self) -> Content:
        middle = max(0, self.size.width - ICON_WIDTH - RIGHT_WIDTH)
        title = self.title_content()
        if title.cell_length > middle:  # a narrow terminal: the sub-title alone, over the clock's columns too
            middle = max(0, self.size.width - ICON_WIDTH - 1)
            sub_title = self.screen.sub_title if self.screen.sub_title is not None else self.app.sub_title
            title = self.app.format_title(sub_title, "") if sub_title else title
        if title.cell_length > middle:
            title = title.truncate(middle, ellipsis=True)
        left = (middle - title.cell_length) // 2
        icon = Content(" " + text_for(self, ICON))
        return Content.assemble(icon.pad_right(ICON_WIDTH - icon.cell_length), " " * left, title)

    async def on_click(self, event: events.Click) -> None:
        event.stop()
        if event.x < ICON_WIDTH and self.app.ENABLE_COMMAND_PALETTE:
            await self.run_action("app.command_palette")
        else:
            self.toggle_class("-tall")
