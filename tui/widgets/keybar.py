"""The keys at the bottom of every screen: Textual's compact ``Footer`` drawn by one widget (folded onto a second
line when a narrow terminal cannot hold them on one; within its ``max-height``, the keys that do not fit are left to
the command palette, whose key then says ``more``).

Textual's footer is a container holding one widget per key (each with its own message queue, styles
and rendered lines), and it composes them all anew whenever a key turns on or off; its data binding
also keeps every key widget it ever composed alive.  In a game served over SSH that was 10 widgets
per screen and a growing heap.  :class:`KeyBar` shows the same keys, in the same places and colours,
as one line it repaints when the screen's bindings change.  A click on a key presses it, as on the footer.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, replace
from itertools import groupby

from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.geometry import Size
from textual.widget import Widget

from tui.ascii import ascii_mode

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
        height: auto;
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
        self._spans: list[tuple[int, int, int, Key]] = []  # where each key was drawn (line, start, end), for clicks
        self.left_off = 0  # the keys left off the bar (in a line limit), which the palette still lists

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self.bindings_changed)
        self.bindings_changed(self.screen)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def bindings_changed(self, screen) -> None:
        """Read the screen's keys again; repaint only if what the bar shows changed."""
        items, palette = self.read_keys()
        if (items, palette) != (self.items, self.palette):
            lines = len(self._lay_out(self.size.width)[0])
            self.items, self.palette = items, palette
            self.refresh(layout=len(self._lay_out(self.size.width)[0]) != lines)  # a fold moves what is above

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

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._lay_out(width)[0])

    def render(self) -> Text:
        lines, self._spans = self._lay_out(self.size.width)
        return Text("\n", end="").join(lines)

    def line_limit(self) -> int | None:
        """The most lines the bar may take: its ``max-height`` in cells (koma.tcss: 2 in a narrow terminal), if set."""
        limit = self.styles.max_height
        return int(limit.value) if limit is not None and limit.is_cells else None

    def _lay_out(self, width: int) -> tuple[list[Text], list[tuple[int, int, int, Key]]]:
        """The keys as lines of at most ``width`` cells, and where each key was drawn (line, start, end, key).

        Every key drawn stays whole: one that does not fit on the line goes to the next (a narrow terminal's bar
        folds instead of cutting keys off); the palette's key ends the lowest line with room for it, at the right
        edge.  Within a line limit (:meth:`line_limit`) the palette's key drops its description first; if the keys
        still need more lines, the last ones are left off and the palette's key (the palette lists every key)
        says ``more``.  ``self.left_off`` counts the keys left off."""
        chunks = self._chunks()
        limit = self.line_limit()
        self.left_off = 0
        if self.palette is None or limit is None:
            return self._pack(chunks, width, self.palette)
        for palette in (self.palette, replace(self.palette, description="")):
            lines, placed = self._pack(chunks, width, palette)
            if len(lines) <= limit:
                return lines, placed
        more = replace(self.palette, description="more")
        kept = len(chunks) - 1
        lines, placed = self._pack(chunks[:kept], width, more)
        while len(lines) > limit and kept > 0:
            kept -= 1
            lines, placed = self._pack(chunks[:kept], width, more)
        self.left_off = len(chunks) - kept
        return lines, placed

    def _drawn(self, key: Key, edge: str = "") -> Text:
        item = self.get_component_rich_style("keybar--item")
        base = item + Style(dim=True) if not key.enabled else item
        text = Text(end="")
        if edge:
            text.append(edge, base + self.get_component_rich_style("keybar--edge"))
        text.append(key.display, base + self.get_component_rich_style("keybar--key"))
        if key.description:
            text.append(" " + key.description, base + self.get_component_rich_style("keybar--description"))
        return text

    def _chunks(self) -> list[tuple[Text, list[tuple[int, int, Key]]]]:
        """What must stay on one line, in order: a key, or a group's keys with their description; with where each
        key is in it."""
        item = self.get_component_rich_style("keybar--item")
        description_style = self.get_component_rich_style("keybar--description")
        chunks: list[tuple[Text, list[tuple[int, int, Key]]]] = []
        for entry in self.items:
            text, spans = Text(end=""), []
            keys = entry.keys if isinstance(entry, Group) else (entry,)
            for number, key in enumerate(keys):
                if number and isinstance(entry, Group) and not entry.compact:
                    text.append(" ", item)
                start = text.cell_len
                text.append_text(self._drawn(key))
                spans.append((start, text.cell_len, key))
            if isinstance(entry, Group):
                text.append(" " + entry.description, item + description_style)
            chunks.append((text, spans))
        return chunks

    def _pack(self, chunks: list[tuple[Text, list[tuple[int, int, Key]]]], width: int,
              palette_key: Key | None) -> tuple[list[Text], list[tuple[int, int, int, Key]]]:
        """``chunks`` folded onto lines of ``width`` cells, then the palette's key (if any) at the right edge."""
        lines: list[Text] = [Text(no_wrap=True, overflow="crop", end="")]
        placed: list[tuple[int, int, int, Key]] = []
        for chunk, spans in chunks:
            text = chunk.copy()
            line = lines[-1]
            if line.cell_len and line.cell_len + text.cell_len > width:
                line = Text(no_wrap=True, overflow="crop", end="")
                lines.append(line)
            offset = line.cell_len
            line.append_text(text)
            line.append(" ")
            placed.extend((len(lines) - 1, offset + start, offset + end, key) for start, end, key in spans)
        if palette_key is not None:
            edge = PALETTE_EDGE["ascii" if ascii_mode(self) else "vkey"]
            palette = self._drawn(palette_key, edge)
            palette.append(" ")  # and a space, as Textual's
            row = next((row for row in range(len(lines) - 1, -1, -1)
                        if lines[row].cell_len + palette.cell_len <= width), None)
            if row is None:
                row = len(lines) - 1 if not lines[-1].cell_len else len(lines)
                if row == len(lines):
                    lines.append(Text(no_wrap=True, overflow="crop", end=""))
            line = lines[row]
            line.truncate(max(0, width - palette.cell_len), pad=True)
            placed.append((row, line.cell_len, line.cell_len + palette.cell_len - 1, palette_key))
            line.append_text(palette)
        return lines, placed

    def on_click(self, event: events.Click) -> None:
        for row, start, end, key in self._spans:
            if row == event.y and start <= event.x < end:
                if key.enabled:
                    self.app.simulate_key(key.key)
                else:
                    self.app.bell()
                return
