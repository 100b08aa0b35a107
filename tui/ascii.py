"""ASCII mode (``koma --ascii``, or a locale that is not UTF-8): every screen in plain ASCII.

One mapping, :data:`GLYPHS`, turns Koma's glyphs into ASCII; everything else builds on it:

* :class:`Static` is Textual's ``Static`` whose text (markup, the solver's proofs) goes through the
  mapping in ASCII mode, and is unchanged otherwise; every screen uses it instead of Textual's;
* :class:`KomaApp <tui.app.KomaApp>` passes its title, key names and notifications through it, and
  uses :class:`AsciiScrollBarRender`, :class:`AsciiCommandPalette` and :class:`RadioButton`;
* borders switch to ``ascii`` in ``koma.tcss`` under ``App.-ascii``;
* the board widgets (looks, histogram, mini grids, loop board) draw their own ASCII pieces.

Box-drawing glyphs only ever appear in Koma's text as Goat's fences, so they map to Goat's ASCII
letters (``r i l j d -``), as do the sheep, the wolf and the big piece: the text then names pieces
the way the ASCII board draws them.
"""

from __future__ import annotations

import unicodedata

from textual.command import CommandPalette, SearchIcon
from textual.content import Content, Span
from textual.geometry import Size
from textual.scrollbar import ScrollBarRender
from textual.widgets import RadioButton as TextualRadioButton
from textual.widgets import Static as TextualStatic

GLYPHS = {
    # Goat's pieces, as in its ASCII notation (solver/goat.py)
    "┌": "r", "│": "i", "└": "l", "┘": "j", "‖": "d", "─": "-", "羊": "S", "狼": "W", "大": "B", "駒": "*",
    # Ura-omote's faces, as in its notation (solver/ura.py): white ., black #
    "□": ".", "■": "#", "○": "o", "●": "*",
    # punctuation and marks
    "·": "|", "…": "...", "—": "-", "–": "-", "×": "x", "✓": "ok", "✗": "x", "µ": "u", "　": "  ",
    "→": "->", "←": "<-", "↑": "^", "↓": "v", "▶": ">", "◀": "<", "▲": "^", "▼": "v",
}
# left and right as arrows, which are as short as the glyphs: the key bar stays within 80 columns
KEY_NAMES = {"↑": "up", "↓": "down", "←": "<-", "→": "->", "⏎": "enter", "⌫": "backspace", "⇥": "tab"}


def ascii_char(char: str) -> str:
    """One character in ASCII: itself, its mapping, its unaccented letter (``ü`` -> ``u``), else ``?``."""
    if char.isascii():
        return char
    if char in GLYPHS:
        return GLYPHS[char]
    plain = unicodedata.normalize("NFKD", char).encode("ascii", "ignore").decode()
    return plain or "?"


def to_ascii(text: str) -> str:
    """``text`` with every character in ASCII (markup stays markup: the mapping never makes a ``[``)."""
    return text if text.isascii() else "".join(ascii_char(c) for c in text)


def ascii_key(display: str) -> str:
    """A key as Textual displays it (``↑``, ``shift+⏎``, ``^p``) in ASCII: arrows and enter by name."""
    return "+".join(KEY_NAMES.get(part) or to_ascii(part) for part in display.split("+"))


def ascii_content(content: Content) -> Content:
    """Textual ``Content`` in ASCII, its styled spans moved along with the text they cover."""
    plain = content.plain
    if plain.isascii():
        return content
    parts, ends = [], [0]
    for char in plain:
        part = ascii_char(char)
        parts.append(part)
        ends.append(ends[-1] + len(part))
    spans = [Span(ends[span.start], ends[span.end], span.style) for span in content.spans]
    return Content("".join(parts), spans)


def ascii_mode(node) -> bool:
    """Whether the app ``node`` belongs to draws in ASCII."""
    return bool(getattr(node.app, "ascii_only", False))


def text_for(node, text: str) -> str:
    """``text`` as ``node`` shows it: in ASCII in ASCII mode (for text that is not in a Static)."""
    return to_ascii(text) if ascii_mode(node) else text


class Static(TextualStatic):
    """Textual's ``Static``, in ASCII when the app is in ASCII mode (otherwise exactly the same)."""

    def render(self):
        visual = super().render()
        if isinstance(visual, Content) and ascii_mode(self):
            return ascii_content(visual)
        return visual


class RadioButton(TextualRadioButton):
    """Textual's ``RadioButton``; in ASCII mode drawn ``(*)`` when pressed and ``( )`` when not.  With
    ``text-wrap: wrap`` (a narrow terminal's dialog) a long label folds onto more lines, under its first word,
    instead of ending in ``…``."""

    def render(self):
        if ascii_mode(self):
            self.BUTTON_LEFT, self.BUTTON_RIGHT = "(", ")"
            self.BUTTON_INNER = "*" if self.value else " "
        whole = super().render()  # the button, then the label padded by a space each side
        lines = self.label_lines(self.content_size.width)
        if len(lines) < 2:
            return whole
        button = whole[:self.button_width()]
        label_style = self.get_visual_style("toggle--label")
        indent = Content(" " * button.cell_length)
        return Content("\n").join(Content.assemble(button if number == 0 else indent,
                                                    line.pad(1, 1).stylize_before(label_style))
                                   for number, line in enumerate(lines))

    def button_width(self) -> int:
        return Content(self.BUTTON_LEFT + self.BUTTON_INNER + self.BUTTON_RIGHT).cell_length

    def label_lines(self, width: int) -> list[Content]:
        """The label's lines beside the button in ``width`` cells: one unless the label wraps and is too long."""
        room = width - self.button_width() - 2
        if self.styles.text_wrap != "wrap" or room < 1 or self.label.cell_length <= room:
            return [self.label]
        return self.label.wrap(room)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.label_lines(width))


class AsciiScrollBarRender(ScrollBarRender):
    """Scroll bars without the eighth-block glyphs at the thumb's ends: the thumb is whole cells."""

    VERTICAL_BARS = [" "] * 8
    HORIZONTAL_BARS = [" "] * 8


class AsciiCommandPalette(CommandPalette):
    """The command palette with an ASCII search icon and placeholder."""

    def __init__(self, **options):
        super().__init__(placeholder="Search for commands...", **options)

    def on_mount(self) -> None:
        self.query_one(SearchIcon).icon = ">"
