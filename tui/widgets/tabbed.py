"""A screen with a row of puzzle tabs (the gallery, the labs): ``[`` ``]`` or a click switch tabs; the row folds onto
more rows when the terminal is too narrow for it."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable

from textual import on
from textual.widgets import Tab, Tabs

from tui.patches.rendering import DirtyOnlyRendering


class TabbedScreen(DirtyOnlyRendering):
    """Shows one tab of its ``Tabs`` row at a time: ``self.tab`` is its id; ``open_tab(id)`` shows another.

    ``open_tab`` may be a coroutine (a screen that remounts widgets); it is awaited then.
    """

    tab: str

    def open_tab(self, tab: str) -> Awaitable[None] | None:
        raise NotImplementedError

    async def _open(self, tab: str) -> None:
        opened = self.open_tab(tab)
        if inspect.isawaitable(opened):
            await opened

    @on(Tabs.TabActivated)
    async def _tab_activated(self, event: Tabs.TabActivated) -> None:
        event.stop()
        if event.tab.id and event.tab.id != self.tab:
            await self._open(event.tab.id)

    async def action_tab(self, delta: int) -> None:
        """Open the tab ``delta`` places along the row (round from the end to the start) and mark it active."""
        tabs = self.query_one(Tabs)
        ids = [tab.id for tab in tabs.query(Tab) if tab.id]
        tab = ids[(ids.index(self.tab) + delta) % len(ids)]
        await self._open(tab)
        tabs.active = tab


class FoldingTabs(Tabs):
    """Textual's ``Tabs``, which fold onto rows (class ``-folded``, a grid of as many columns as fit) when the row of
    tabs is wider than the screen: in a narrow terminal every tab stays in view instead of running off at the right.
    Folded, the active tab is marked by its own style (koma.tcss), as the underline follows one row only."""

    def on_resize(self) -> None:
        self.fold()

    def fold(self) -> None:
        tabs = list(self.query(Tab))
        widths = [tab.get_content_width(self.size, self.size) + tab.styles.gutter.width for tab in tabs]
        columns = len(widths)
        while columns > 1 and sum(max(widths[column::columns]) for column in range(columns)) > self.size.width:
            columns -= 1
        folded = columns < len(widths)
        if folded:
            self.query_one("#tabs-list").styles.grid_size_columns = columns
        self.set_class(folded, "-folded")
