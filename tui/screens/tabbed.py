"""A screen with a row of puzzle tabs (the gallery, the algorithm lab): ``[`` ``]`` or a click switch tabs."""

from __future__ import annotations

from textual import on
from textual.screen import Screen
from textual.widgets import Tab, Tabs


class TabbedScreen(Screen):
    """Shows one tab of its ``Tabs`` row at a time: ``self.tab`` is its id; ``open_tab(id)`` shows another."""

    tab: str

    def open_tab(self, tab: str) -> None:
        raise NotImplementedError

    @on(Tabs.TabActivated)
    def _tab_activated(self, event: Tabs.TabActivated) -> None:
        event.stop()
        if event.tab.id and event.tab.id != self.tab:
            self.open_tab(event.tab.id)

    def action_tab(self, delta: int) -> None:
        """Open the tab ``delta`` places along the row (round from the end to the start) and mark it active."""
        tabs = self.query_one(Tabs)
        ids = [tab.id for tab in tabs.query(Tab)]
        tab = ids[(ids.index(self.tab) + delta) % len(ids)]
        self.open_tab(tab)
        tabs.active = tab
