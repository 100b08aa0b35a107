"""Speed's import screen (o) and its links (l), driven with Pilot: pasted solves are read and replayed on a worker,
kept by the store, listed with their figures; a bad one is said in a line; the session's records list moves and TPS,
its graph plots times and TPS, and a solve's Slidysim replay link opens that solve back."""

from __future__ import annotations

import sqlite3

from test_speed_interop import MOVETIMES, SCRAMBLE, SOLUTION, TPS_THOUSANDTHS, slidysim_link
from test_speed_records import slidysim_database, solve
from test_speed_screen import StepClock, open_speed, panel, solve_by_keys
from textual.widgets import Input, TextArea
from tui_helpers import make_app, read_store, wait_for

from tui.game.speed_interop import results_from_link
from tui.screens.speed_import import SpeedImportScreen
from tui.screens.speed_session import SpeedSessionScreen
from tui.widgets.speed_graph import SpeedGraph


async def test_pasted_links_and_notation_are_imported_off_the_ui_thread(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_speed(pilot)
        await pilot.press("o")
        await wait_for(pilot, lambda: isinstance(app.screen, SpeedImportScreen), what="the import screen")
        screen = app.screen
        link = slidysim_link([SOLUTION, TPS_THOUSANDTHS, SCRAMBLE, MOVETIMES])
        bad = "scramble: 0 2 3/1 5 6/4 7 8\nsolution: U2L\nmovetimes: 0,1,2\n"
        screen.query_one(TextArea).text = f"my 4x4 PB: {link}\n\n{bad}"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: screen.report is not None, what="the import's report")
        text = panel(screen, "speed-import-result")
        assert "Kept 1 solve" in text and "4x4 10.504 (70 moves, 6.664 TPS)" in text
        assert "Not kept: 1" in text and "does not solve" in text
        stored = await read_store(pilot, lambda store: store.speed_solves("4x4"))
        assert [(r.time_ms, r.stm, r.source) for r in stored] == [(10504, 70, "slidysim-link")]
        records = await read_store(pilot, lambda store: store.speed_records("4x4"))
        assert [(r.statistic, r.time_ms) for _, _, r in records] == [("single", 10504)]


async def test_a_slidysim_database_by_its_path(tmp_path):
    path = tmp_path / "slidysim.db"
    slidysim_database(path, [(solve(1234), "Standard", "Mouse", 1234)])
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_speed(pilot)
        await pilot.press("o")
        await wait_for(pilot, lambda: isinstance(app.screen, SpeedImportScreen), what="the import screen")
        screen = app.screen
        screen.query_one(Input).value = str(path)
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: screen.report is not None, what="the import's report")
        assert "3x3 1.234 (4 moves, 3.241 TPS)" in panel(screen, "speed-import-result")
        sqlite3.connect(tmp_path / "empty.db").executescript("CREATE TABLE x (y);")
        screen.query_one(Input).value = str(tmp_path / "empty.db")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: "Nothing imported" in panel(screen, "speed-import-result"), what="the refusal")
        assert "not a Slidysim database" in panel(screen, "speed-import-result")


async def test_the_session_s_records_graph_and_replay_link(tmp_path):
    app = make_app(tmp_path)
    clock = app.clock = StepClock()
    async with app.run_test(size=(100, 40)) as pilot:
        screen = await open_speed(pilot, seed=2)
        for _ in range(2):
            await solve_by_keys(pilot, screen, clock)
            await pilot.press("space")
        await pilot.press("v")
        await wait_for(pilot, lambda: isinstance(app.screen, SpeedSessionScreen), what="the session screen")
        session = app.screen
        await wait_for(pilot, lambda: "moves" in panel(session, "speed-session-records"), what="the lasting records")
        best = min(r.time_ms for r in screen.session.results)
        from tui.game.averages import seconds_text
        assert f"single {seconds_text(best):>9}" in panel(session, "speed-session-records")
        graph = session.query_one(SpeedGraph)
        assert [r.time_ms for r in graph.results] == [r.time_ms for r in screen.session.results]
        assert all(r.control == "keyboard" for r in screen.session.results)
        await pilot.press("l")  # the newest solve's link
        [back] = results_from_link(app.clipboard)
        newest = screen.session.results[-1]
        assert (back.scramble, back.moves, back.times_ms) == (newest.scramble, newest.moves, newest.times_ms)
        await pilot.press("a")  # every stored solve
        await wait_for(pilot, lambda: session.stored is not None, what="the stored solves")
        assert len(graph.results) == 2 and "every stored solve" in graph.title
