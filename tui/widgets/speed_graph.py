"""A terminal graph of speed solves: each solve's time (s) and TPS, oldest first (textual-plotext's plot widget).

With fewer than two finished solves it hides itself.  Its markers are ASCII under ``ascii_only``, but
plotext's frame and axes are not: ASCII mode hides the graph (koma.tcss)."""

from __future__ import annotations

from collections.abc import Sequence

from textual_plotext import PlotextPlot

from tui.game.speed import SpeedResult


class SpeedGraph(PlotextPlot):
    """Times and TPS of ``results`` (DNFs left out), on two axes: time left, TPS right."""

    def __init__(self, *, ascii_only: bool = False, id: str | None = None):
        super().__init__(id=id)
        self.ascii_only = ascii_only
        self.title = ""
        self.results: list[SpeedResult] = []

    def show(self, results: Sequence[SpeedResult], title: str) -> None:
        self.results = [r for r in results if not r.dnf and r.time_ms]
        self.title = title
        self.display = len(self.results) > 1
        self.replot()

    def replot(self) -> None:
        plt = self.plt
        plt.clear_data()
        plt.clear_figure()
        plt.title(f"{self.title}: time (s) left, TPS right")
        numbers = list(range(1, len(self.results) + 1))
        if len(numbers) < 2:
            plt.title(f"{self.title}: too few solves to plot yet")
        else:
            marker_time, marker_tps = ("+", "x") if self.ascii_only else ("braille", "braille")
            plt.plot(numbers, [r.time_ms / 1000 for r in self.results], marker=marker_time)
            plt.plot(numbers, [r.tps or 0.0 for r in self.results], marker=marker_tps, yside="right")
            plt.xlabel("solve")
        if self.ascii_only:
            plt.frame(False)
        self.refresh()

    def on_resize(self) -> None:
        self.replot()
