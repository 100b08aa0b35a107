"""The line of keys at the bottom of every screen: Textual's compact ``Footer`` drawn by one widget.

Textual's footer is a container holding one widget per key (each with its own message queue, styles
and rendered lines), and it composes them all anew whenever a key turns on or off; its data binding
also keeps every key widget it ever composed alive.  In a game served over SSH that was 10 widgets
per screen and a growing heap.  :class:`KeyBar` shows the same keys, in the same places and colours,
as one line it repaints when the screen's bindings change.  A click on a key presses it, as on the footer.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from itertools import groupby

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.widget import Widget

from ..ascii import ascii_mode

PALETTE_EDGE = {"vkey": "▏", "ascii": "|"}  # the border left of the palette key, as Textual draws it


@dataclass(frozen=True)
class Key:
    """One key on the bar: ``display`` then ``description`` (empty for the keys of a group)."""

    key: str
    display: str
    description: str
    enabled: bool


@dataclass(frozen=True)
class Group:
    """Several keys and one description for them all (a ``Binding.Group`` with more than one key shown):
    ``↑↓ move`` when compact, else ``↑ ↓ move``."""

    keys: tuple[Key, ...]
    description: str
    compact: bool


class KeyBar(Widget, can_focus=False):
    """The screen's keys and the command palette's, on one line docked at the bottom."""

    ALLOW_SELECT = False
    COMPONENT_CLASSES = {"keybar--key", "keybar--description", "keybar--item", "keybar--edge"}
    DEFAULT_CSS = """
    KeyBar {
        dock: bottom;
        height: 1;
        color: $footer-foreground;
        background: $footer-background;
        .keybar--item {
            color: $footer-foreground;
            background: $footer-item-background;
        }
        .keybar--key {
            color: $footer-key-foreground;
            background: $footer-key-background;
            text-style: bold;
        }
        .keybar--description {
            color: $footer-description-foreground;
            background: $footer-description-background;
        }
        .keybar--edge {
            color: $foreground 20%;
            background: $footer-item-background;
        }
    }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.items: tuple[Key | Group, ...] = ()
        self.palette: Key | None = None
        self._spans: list[tuple[int, int, Key]] = []  # where each key was drawn, for clicks

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self.bindings_changed)
        self.bindings_changed(self.screen)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def bindings_changed(self, screen) -> None:
        """Read the screen's keys again; repaint only if what the bar shows changed."""
        items, palette = self.read_keys()
        if (items, palette) != (self.items, self.palette):
            self.items, self.palette = items, palette
            self.refresh()

    def read_keys(self) -> tuple[tuple[Key | Group, ...], Key | None]:
        """The keys to show, as Textual's footer chooses them: one per action, in the screen's order, grouped
        by their ``Binding.Group``; and the command palette's key, if the app has the palette."""
        app = self.app
        active = self.screen.active_bindings
        by_action: defaultdict[str, list[tuple[Binding, bool]]] = defaultdict(list)
        for _node, binding, enabled, _tooltip in active.values():
            if binding.show:
                by_action[binding.action].append((binding, enabled))

        def key_of(binding: Binding, enabled: bool, description: str) -> Key:
            return Key(binding.key, app.get_key_display(binding), description, enabled)

        items: list[Key | Group] = []
        for group, actions in groupby(by_action.values(), lambda bindings: bindings[0][0].group):
            firsts = [bindings[0] for bindings in actions]
            if group is not None and len(firsts) > 1:
                items.append(Group(tuple(key_of(b, enabled, "") for b, enabled in firsts), group.description, group.compact))
            else:
                items.extend(key_of(b, enabled, b.description) for b, enabled in firsts)
        palette = None
        if app.ENABLE_COMMAND_PALETTE and app.COMMAND_PALETTE_BINDING in active:
            _node, binding, enabled, _tooltip = active[app.COMMAND_PALETTE_BINDING]
            palette = key_of(binding, enabled, binding.description)
        return tuple(items), palette

    def render(self) -> Text:
        width = self.size.width
        item = self.get_component_rich_style("keybar--item")
        key_style = self.get_component_rich_style("keybar--key")
        description_style = self.get_component_rich_style("keybar--description")
        dim = Style(dim=True)
        spans: list[tuple[int, int, Key]] = []
        line = Text(no_wrap=True, overflow="crop", end="")

        def add_key(key: Key, edge: str = "") -> None:
            base = item + dim if not key.enabled else item
            start = line.cell_len
            if edge:
                line.append(edge, base + self.get_component_rich_style("keybar--edge"))
            line.append(key.display, base + key_style)
            if key.description:
                line.append(" " + key.description, base + description_style)
            spans.append((start, line.cell_len, key))

        for entry in self.items:
            if isinstance(entry, Group):
                for number, key in enumerate(entry.keys):
                    if number and not entry.compact:
                        line.append(" ", item)
                    add_key(key)
                line.append(" " + entry.description, item + description_style)
                line.append(" ")
            else:
                add_key(entry)
                line.append(" ")
        if self.palette is not None:
            edge = PALETTE_EDGE["ascii" if ascii_mode(self) else "vkey"]
            palette_width = len(edge) + cell_len(f"{self.palette.display} {self.palette.description} ")  # and a space, as Textual's
            line.truncate(max(0, width - palette_width), pad=True)
            spans = [span for span in spans if span[1] <= line.cell_len]
            add_key(self.palette, edge)
            line.append(" ")
        self._spans = spans
        return line

    def on_click(self, event: events.Click) -> None:
        for start, end, key in self._spans:
            if start <= event.x < end:
                if key.enabled:
                    self.app.simulate_key(key.key)
                else:
                    self.app.bell()
                return
