"""A per-depth bar chart: one column per depth, labelled axes, a depth cursor and a caption.

It draws counts only; where they come from (a full BFS) is the screen's business.  Bars use
eighth blocks (``#`` in ASCII mode) and every non-zero count gets at least one eighth, so the
few positions at the maximum depth stay visible next to a peak of tens of thousands.
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from tui.ascii import to_ascii

EIGHTHS = " ▁▂▃▄▅▆▇█"
ASCII_EIGHTHS = " ..::==##"
FIXED_ROWS = 3  # axis, depth labels, caption


def count_text(n: int) -> str:
    """A count short enough for the y axis: 181440 -> 181k, 5443200 -> 5.4M."""
    if n >= 1_000_000:
        return f"{n / 1e6:.1f}M"
    if n >= 10_000:
        return f"{n / 1e3:.0f}k"
    return f"{n:,}"


class Histogram(Widget):
    """Positions per optimal distance; ``cursor`` picks the depth the caption reads out."""

    COMPONENT_CLASSES = {"histogram--bar", "histogram--cursor", "histogram--axis"}
    DEFAULT_CSS = """
    Histogram { height: 8; }
    """

    cursor: reactive[int] = reactive(0)

    def __init__(self, counts=(), *, ascii_only: bool = False, id: str | None = None):
        super().__init__(id=id)
        self.counts: list[int] = list(counts)
        self.ascii_only = ascii_only
        self.unit = "position"

    def set_counts(self, counts, cursor: int | None = None) -> None:
        self.counts = [int(c) for c in counts]
        self.set_reactive(Histogram.cursor, len(self.counts) - 1 if cursor is None else cursor)
        self.refresh()

    def move_cursor(self, delta: int) -> None:
        if self.counts:
            self.cursor = max(0, min(len(self.counts) - 1, self.cursor + delta))

    def caption(self) -> str:
        if not self.counts:
            return ""
        d = self.cursor
        n = self.counts[d]
        total = sum(self.counts)
        share = f" ({100 * n / total:.2g}%)" if total else ""
        peak = max(range(len(self.counts)), key=self.counts.__getitem__)
        text = (f"{d} move{'s' if d != 1 else ''}: {n:,} {self.unit}{'s' if n != 1 else ''}{share}"
                f" · peak {self.counts[peak]:,} at {peak}")
        return to_ascii(text) if self.ascii_only else text

    def render(self):
        counts = self.counts
        width, height = self.size
        if not counts or width < 10 or height < FIXED_ROWS + 1:
            return Text(self.caption())
        bar = self.get_component_rich_style("histogram--bar", partial=True)
        cursor_style = self.get_component_rich_style("histogram--cursor", partial=True)
        axis = self.get_component_rich_style("histogram--axis", partial=True)
        blocks = ASCII_EIGHTHS if self.ascii_only else EIGHTHS
        peak = max(counts) or 1
        label_w = max(cell_len(count_text(peak)), 1) + 1
        n = len(counts)
        bar_w = max(1, min(3, (width - label_w - 1) // n))
        rows = height - FIXED_ROWS
        levels = rows * 8
        heights = [0 if c == 0 else max(1, round(c * levels / peak)) for c in counts]
        lines: list[Text] = []
        for r in range(rows):
            line = Text()
            label = count_text(peak) if r == 0 else ""
            line.append(label.rjust(label_w - 1) + ("│" if not self.ascii_only else "|"), axis)
            floor = (rows - 1 - r) * 8
            for d, h in enumerate(heights):
                fill = max(0, min(8, h - floor))
                glyph = blocks[fill] * bar_w
                if bar_w > 1:
                    glyph = glyph[:-1] + " "
                line.append(glyph, cursor_style if d == self.cursor else bar)
            lines.append(line)
        corner, dash = ("+", "-") if self.ascii_only else ("└", "─")
        axis_line = Text("0".rjust(label_w - 1) + corner, axis)
        axis_line.append(dash * (self.cursor * bar_w), axis)
        axis_line.append("^" if self.ascii_only else "▲", cursor_style)
        axis_line.append(dash * ((n - self.cursor) * bar_w - 1), axis)
        lines.append(axis_line)
        ticks = [" "] * (n * bar_w + 1)
        step = 1 if n * bar_w >= 3 * n else (5 if n <= 60 else 10)
        if bar_w >= 3:
            step = 2 if n > 12 else 1
        for d in range(0, n, step):
            text = str(d)
            at = d * bar_w
            if at + len(text) <= len(ticks) and all(ch == " " for ch in ticks[max(0, at - 1):at + len(text)]):
                ticks[at:at + len(text)] = list(text)
        last = str(n - 1)
        at = (n - 1) * bar_w
        if at + len(last) <= len(ticks) + 2 and all(ch == " " for ch in ticks[max(0, at - 1):]):
            ticks[at:] = list(last)
        lines.append(Text(" " * label_w + "".join(ticks).rstrip() + "  moves", axis))
        lines.append(Text(self.caption()))
        return Text("\n").join(lines)

    def watch_cursor(self) -> None:
        self.refresh()
