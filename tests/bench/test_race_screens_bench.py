"""The race screens benchmark (``koma bench serve``'s "race screens", koma_bench/serve/race_scenarios.py) reads what it says it
reads: real SSH racers on a real ``koma serve`` race one room, each reading its opponents' move counts off its own
screen (a grid of the terminal's cells), and every opponent's every move is found on every screen, with the reveal.
The grid itself is checked on the output of a real game."""

from __future__ import annotations

import asyncio

import pytest

from koma_bench.serve.race_scenarios import MiniReader, race_screens, run_with_replicas
from koma_bench.serve.scenarios import HOME, ScreenGrid
from koma_bench.serve.ssh import BenchServer, Session

pytest.importorskip("asyncssh")

DEADLINE = 120.0


def test_the_grid_writes_text_where_the_cursor_is():
    grid = ScreenGrid(20, 4)
    grid.feed("\x1b[?1049h\x1b[1;1Hhello\r\nworld\x1b[38;2;1;2;3m!\x1b[0m")
    grid.feed("\x1b[3;5Hracer1\x1b[4;5H12 3.4s 5.6")
    assert grid.lines() == ["hello".ljust(20), "world!".ljust(20), "    racer1".ljust(20), "    12 3.4s 5.6".ljust(20)]
    reader = MiniReader(["racer1", "racer2"])
    reader.read(grid, 1.5)
    assert reader.shown == {"racer1": 12, "racer2": 0} and reader.seen["racer1"][1] == reader.seen["racer1"][12] == 1.5
    grid.feed("\x1b[1;1Hracer2\x1b[2;1H7 13s 0.5     ")  # a running clock: whole seconds
    reader.read(grid, 2.5)
    assert reader.shown == {"racer1": 12, "racer2": 7}


def test_the_grid_reads_a_real_games_screen(tmp_path):
    async def main() -> list[str]:
        server = BenchServer(data_dir=tmp_path / "data")
        session = Session("ann")
        try:
            await server.started()
            await session.connect(server.port)
            session.watch_screen()
            await session.wait_for(HOME, 0, DEADLINE)
            await asyncio.sleep(0.5)
            return session.grid.lines()
        finally:
            await session.close()
            server.stop()

    lines = asyncio.run(main())
    assert len(lines) == 24 and all(len(line) == 80 for line in lines)
    assert any("8-puzzle" in line for line in lines)  # the home screen's cards, each in its place


def test_every_opponents_every_move_is_read_off_every_screen(tmp_path):
    keys = 12

    async def scenario(servers):
        return await race_screens(servers, racers=3, tps=5.0, moves=keys)

    figures = run_with_replicas((), 1, scenario, BenchServer)
    assert figures["race_screens_revealed"] == 3
    assert figures["race_opponent_moves_never_shown"] == 0
    assert figures["race_opponent_moves_on_screen"] == 3 * 2 * keys  # each racer sees each other's every key
    assert 0 < figures["race_opponent_move_to_screen_median_ms"] <= figures["race_opponent_move_to_screen_p95_ms"]
    assert figures["race_reveal_spread_on_screens_ms"] >= 0
