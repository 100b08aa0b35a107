"""The labs: the parity lab (edit, proof, fixes, play), the loop demo and the algorithm lab."""

from __future__ import annotations

import pytest
from tui_helpers import SNAPSHOT_SIZES, make_app, wait_for

from tui.play.screen import PlayScreen
from tui.screens.parity_lab import ParityLabScreen
from tui.widgets.board import Board

ARTICLE_15 = "10 8 4 14/15 12 13 _/7 11 6 1/5 9 2 3"


async def open_parity_lab(pilot, tab: str | None = None) -> ParityLabScreen:
    await pilot.press("p")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, ParityLabScreen), what="the parity lab")
    screen = pilot.app.screen
    if tab is not None:
        while screen.tab != tab:
            await pilot.press("right_square_bracket")
    await pilot.pause()
    return screen


def proof_text(screen) -> str:
    return str(screen.query_one("#lab-proof").render())


async def test_parity_lab_edits_to_unsolvable_and_back(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_parity_lab(pilot)
        puzzle = screen.puzzle
        assert screen.state == puzzle.parse(ARTICLE_15)
        text = proof_text(screen)
        assert "Total 74 + 2 = 76, even" in text and "Verdict: solvable" in text  # article 000's worked example
        assert "Pairs of tile 10: 9 smaller to its right: 8 4 7 6 1 5 9 2 3" in text
        await pilot.press("space", "right", "space")  # swap tiles 10 and 8
        assert screen.state == puzzle.parse("8 10 4 14/15 12 13 _/7 11 6 1/5 9 2 3")
        assert not puzzle.proof(screen.state).solvable
        assert "Verdict: NOT solvable" in proof_text(screen) and "Fixes:" in proof_text(screen)
        assert "solvable → NOT solvable (total 76 → 75)" in screen.message
        await pilot.press("left", "space", "right", "space")  # and back
        assert screen.state == puzzle.parse(ARTICLE_15)
        assert "NOT solvable → solvable" in screen.message and "Verdict: solvable" in proof_text(screen)


async def test_parity_lab_fixes_flip_the_verdict(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_parity_lab(pilot)
        puzzle = screen.puzzle
        await pilot.press("x")  # swap the first two tiles: unsolvable
        assert not puzzle.proof(screen.state).solvable
        broken = screen.state
        await pilot.press("f")  # the article's flipLR fixes it
        assert screen.state == puzzle.flip_lr(broken) and puzzle.proof(screen.state).solvable
        assert screen.message.startswith("flipLR: NOT solvable → solvable")
        await pilot.press("g")
        assert screen.state == puzzle.goal
        await pilot.press("p")
        await wait_for(pilot, lambda: isinstance(app.screen, PlayScreen), what="the play screen")
        assert app.screen.state == puzzle.goal and app.screen.puzzle.key == "15"


async def test_parity_lab_ura_and_goat(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_parity_lab(pilot, "p-ura-3")
        assert screen.puzzle.proof(screen.state).solvable  # the article's BWB/WBB/BBB
        await pilot.press("space")  # A1 turned over: orbit 0 has an odd number of blacks
        assert not screen.puzzle.proof(screen.state).solvable
        assert "odd blacks" in proof_text(screen) and "Verdict: NOT solvable" in proof_text(screen)
        await pilot.press("space")
        assert screen.puzzle.format(screen.state) == "BWB/WBB/BBB"
        await pilot.press("left_square_bracket", "left_square_bracket")
        assert screen.tab == "p-goat"
        await pilot.pause()
        assert screen.query_one(Board).look.width == 4
        text = proof_text(screen)
        assert "20 inversions, even" in text and "21 inversions, odd" in text
        await pilot.press("b")  # the big piece moves along the top row: r-BB -> Br-B? no: BBr- shape
        assert screen.state[:4].count(9) == 2 and screen.state.index(9) == 0
        assert screen.puzzle.proof(screen.state).solvable


@pytest.mark.parametrize("size", SNAPSHOT_SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("tab, keys", [("p-15", ("space", "right", "space")), ("p-ura-3", ("space",)),
                                       ("p-goat", ())], ids=["15", "ura", "goat"])
def test_parity_lab_snapshot(snap_compare, tmp_path, size, tab, keys):
    async def run_before(pilot):
        await open_parity_lab(pilot, tab)
        await pilot.press(*keys)
        await pilot.pause(0.3)

    assert snap_compare(make_app(tmp_path), terminal_size=size, run_before=run_before)


# --- the loop demo (article 003) ------------------------------------------------------------------------
from solver.sliding.loop import loop_length  # noqa: E402
from tui.screens import loop_demo  # noqa: E402
from tui.screens.loop_demo import LoopDemoScreen  # noqa: E402


def stats_workers(app):
    return [w for w in app.workers if w.group == "loop-stats" and not w.is_finished]


async def open_loop_demo(pilot) -> LoopDemoScreen:
    await pilot.press("o")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, LoopDemoScreen), what="the loop demo")
    screen = pilot.app.screen
    await pilot.press("space")  # pause the playback
    await wait_for(pilot, lambda: screen.run is not None, what="the loop run")
    return screen


async def test_loop_demo_ends_in_the_state_its_parity_predicts(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_loop_demo(pilot)
        puzzle = screen.puzzle
        assert screen.start == puzzle.parse(ARTICLE_15) and puzzle.proof(screen.start).solvable
        paused_at = screen.position
        await pilot.pause(0.2)
        assert screen.position == paused_at and not screen.playing
        await pilot.press("right_square_bracket")
        assert screen.position == paused_at + 1
        await pilot.press("e")
        assert screen.finished and screen.run.sorted_end
        assert screen.run.path[-1] == puzzle.goal
        assert "as the parity predicted" in str(screen.query_one("#loop-parity").render())
        await pilot.press("x")  # the other parity: the loop must end in 1, 3, 2, ...
        await wait_for(pilot, lambda: screen.run is not None, what="the new run")
        assert not puzzle.proof(screen.start).solvable
        await pilot.press("e")
        assert screen.finished and not screen.run.sorted_end
        assert screen.run.final_labels[1:5] == (1, 3, 2, 4)
        parity = str(screen.query_one("#loop-parity").render())
        assert "NOT solvable" in parity and "It ended in 1, 3, 2, 4, …, 15, as the parity predicted" in parity


async def test_loop_demo_statistics_over_random_boards(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_loop_demo(pilot)
        await wait_for(pilot, lambda: "loop" in screen.stats, what="the statistics")
        expected = [loop_length(screen.puzzle.random_state(seed))[0] for seed in range(loop_demo.STATS_BOARDS)]
        assert screen.stats["loop"] == expected
        text = str(screen.query_one("#loop-stats").render())
        assert f"min {min(expected)}" in text and f"max {max(expected)}" in text
        assert "o: compare with optimal solutions of 10 of these boards" in text


async def test_loop_demo_compares_with_the_real_optimal_solver(tmp_path, monkeypatch):
    monkeypatch.setattr(loop_demo, "OPTIMAL_BOARDS", 2)  # seeds 0 and 1: 60 and 49 moves, seconds at most
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_loop_demo(pilot)
        assert loop_demo.optimal_method(screen.puzzle) == "ida"
        await wait_for(pilot, lambda: "loop" in screen.stats, what="the loop statistics")
        await pilot.press("o")
        await wait_for(pilot, lambda: "optimal" in screen.stats, timeout=120, what="the optimal solves")
        optimal, loop = screen.stats["optimal"], screen.stats["optimal_loop"]
        assert loop == screen.stats["loop"][:2] and len(optimal) == 2
        for best, looped in zip(optimal, loop):
            assert 0 < best < looped and (looped - best) % 2 == 0  # same board, same goal: same parity
        text = str(screen.query_one("#loop-stats").render())
        assert "Optimal (IDA*) on the first 2" in text and "x as many" in text
        assert "not" not in text.lower() and not stats_workers(app)


async def test_loop_demo_escape_cancels_the_statistics(tmp_path, monkeypatch):
    monkeypatch.setattr(loop_demo, "STATS_BOARDS", 10**7)
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_loop_demo(pilot)
        await wait_for(pilot, lambda: screen.stats_job is not None and screen.stats_job.done > 0, what="progress")
        await pilot.press("escape")
        assert screen.stats_job is None and app.screen is screen
        await wait_for(pilot, lambda: not stats_workers(app), timeout=2, what="the worker to stop")
        assert all(flag[0] for flag in app.stop_flags.values())
        assert "cancelled" in str(screen.query_one("#loop-stats").render())
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, LoopDemoScreen), what="home")


@pytest.mark.parametrize("size", SNAPSHOT_SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_loop_demo_snapshot(snap_compare, tmp_path, size):
    async def run_before(pilot):
        screen = await open_loop_demo(pilot)
        await pilot.press("x")
        await wait_for(pilot, lambda: screen.run is not None, what="the new run")
        await pilot.press("e")
        await wait_for(pilot, lambda: "loop" in screen.stats, what="the statistics")
        await pilot.pause(0.2)

    assert snap_compare(make_app(tmp_path), terminal_size=size, run_before=run_before)


# --- the algorithm lab ----------------------------------------------------------------------------------
import time as _time  # noqa: E402

from solver.engines.stop import check_stop  # noqa: E402
from solver.tools.lab import LabResult  # noqa: E402
from tui.screens import algorithm_lab  # noqa: E402
from tui.screens.algorithm_lab import AlgorithmLabScreen  # noqa: E402


def algo_workers(app):
    return [w for w in app.workers if (w.group or "").startswith("algo-") and not w.is_finished]


async def open_algorithm_lab(pilot, tab: str = "a-8") -> AlgorithmLabScreen:
    await pilot.press("a")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, AlgorithmLabScreen), what="the algorithm lab")
    screen = pilot.app.screen
    while screen.tab != tab:
        await pilot.press("right_square_bracket")
    await pilot.pause()
    return screen


async def test_algorithm_lab_8_puzzle_bfs_against_bidirectional(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_algorithm_lab(pilot)
        assert [m for m, _ in screen.methods] == ["bfs", "bidirectional", "ida:md+lc", "ida:wd"]
        await pilot.press("r")
        await wait_for(pilot, lambda: len(screen.results) == 4 and not screen.jobs, timeout=60, what="the methods")
        bfs, bidirectional = screen.results["bfs"], screen.results["bidirectional"]
        assert (bfs.nodes, bfs.length) == (181_440, 31)  # article 002's figures on its board
        assert (bidirectional.nodes, bidirectional.length) == (16_088, 31)
        assert screen.results["ida:md+lc"].length == screen.results["ida:wd"].length == 31
        assert screen.results["ida:wd"].nodes < screen.results["ida:md+lc"].nodes
        table = str(screen.query_one("#algo-table").render())
        assert "181,440" in table and "16,088" in table
        assert not algo_workers(app)


async def test_algorithm_lab_goat_methods_agree(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_algorithm_lab(pilot, "a-goat")
        assert [m for m, _ in screen.methods] == ["bfs", "article", "pdb"]
        await pilot.press("r")
        await wait_for(pilot, lambda: len(screen.results) == 3 and not screen.jobs, timeout=120, what="the methods")
        assert {r.length for r in screen.results.values()} == {20}  # START -> GOAL, article 001
        assert screen.results["bfs"].nodes == 5_443_200


async def test_algorithm_lab_escape_cancels_every_run(tmp_path, monkeypatch):
    def slow(puzzle, state, method, *, stop=None, progress=None):
        while True:
            check_stop(stop)
            if progress:
                progress({"nodes": 1234567})
            _time.sleep(0.005)

    monkeypatch.setattr(algorithm_lab, "run_method", slow)
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_algorithm_lab(pilot)
        await pilot.press("r")
        await wait_for(pilot, lambda: screen.jobs and algo_workers(app), what="a run")
        await pilot.press("escape")
        assert not screen.jobs and not screen.queue and app.screen is screen
        await wait_for(pilot, lambda: not algo_workers(app), timeout=2, what="the workers to stop")
        assert all(flag[0] for flag in app.stop_flags.values())
        assert screen.results["bfs"] == "cancelled"
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, AlgorithmLabScreen), what="home")


@pytest.mark.parametrize("size", SNAPSHOT_SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_algorithm_lab_snapshot(snap_compare, tmp_path, size, monkeypatch):
    # measured on the article's board; fixed times keep the snapshot stable
    figures = {"bfs": (181_440, 0.25), "bidirectional": (16_088, 0.01), "ida:md+lc": (12_904, 0.004),
               "ida:wd": (5_290, 0.003)}

    def fixed(puzzle, state, method, *, stop=None, progress=None):
        nodes, seconds = figures[method]
        return LabResult(method, 31, nodes, seconds, True)

    monkeypatch.setattr(algorithm_lab, "run_method", fixed)
    monkeypatch.setattr(algorithm_lab, "TABS", {t: v for t, v in algorithm_lab.TABS.items() if t != "a-15"})

    async def run_before(pilot):
        screen = await open_algorithm_lab(pilot)
        await pilot.press("r")
        await wait_for(pilot, lambda: len(screen.results) == 4 and not screen.jobs, what="the methods")
        await pilot.pause(0.2)

    assert snap_compare(make_app(tmp_path), terminal_size=size, run_before=run_before)


async def test_algorithm_lab_15_puzzle_with_the_real_solver(tmp_path):
    """Korf's instance 16 (42 moves): every heuristic answers within seconds; stronger ones need fewer nodes."""
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_algorithm_lab(pilot, "a-15")
        puzzle = screen.puzzle
        assert screen.state == puzzle.parse(algorithm_lab.DEFAULT_BOARDS["a-15"])
        methods = [m for m, _ in screen.methods]
        assert methods[:3] == ["ida:md+lc", "ida:wd", "ida:pdb663"] and set(methods) <= {*methods[:3], "ida:pdb78"}
        await pilot.press("r")
        await wait_for(pilot, lambda: len(screen.results) == len(methods) and not screen.jobs, timeout=120,
                       what="the methods")
        results = [screen.results[m] for m in methods]
        assert all(isinstance(r, LabResult) and r.length == 42 and r.optimal for r in results), results
        assert results[0].nodes > results[2].nodes and results[1].nodes > results[2].nodes
        note = str(screen.query_one("#algo-note").render())
        assert "All optimal, the same length" in note and "Korf's instance 16" in note
        assert "joins once" not in note and not algo_workers(app)
        await pilot.press("a")
        assert screen.state == puzzle.parse(ARTICLE_15) and not screen.results
        await pilot.press("h")
        assert screen.state == puzzle.parse(algorithm_lab.TABS["a-15"][3])
