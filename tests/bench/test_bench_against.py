"""``koma bench --against REV``: another checkout for the same scenarios, and the figures side by side."""

import os
from pathlib import Path

import pytest

from koma_bench.harness import beside_the_other, checkout_of, side_by_side
from solver.errors import KomaError

ROOT = Path(__file__).resolve().parents[2]


def test_the_figures_of_both_checkouts_and_their_ratios():
    figures = side_by_side({"move_cpu_ms": 2.0, "served": 40, "note": "x"}, {"move_cpu_ms": 10.0, "served": 0})
    assert figures == {"move_cpu_ms": 2.0, "move_cpu_ms@against": 10.0, "move_cpu_ms/against": 0.2,
                       "served": 40, "served@against": 0, "note": "x"}


def test_a_scenario_that_fails_on_the_other_checkout_leaves_this_ones_figures_and_says_why():
    def fails_there():
        raise AssertionError("'STM 0\\b' never appeared on the screen\nthe screen: ...")

    figures = beside_the_other({"move_cpu_ms": 2.0}, fails_there)
    assert figures == {"move_cpu_ms": 2.0, "against": "not run there: 'STM 0\\b' never appeared on the screen"}
    assert beside_the_other({"move_cpu_ms": 2.0}, lambda: {"move_cpu_ms": 4.0})["move_cpu_ms/against"] == 0.5


def test_a_revision_is_checked_out_for_the_run_and_removed_after():
    with checkout_of("HEAD") as folder:
        assert (folder / "koma_bench" / "serve" / "ssh.py").is_file() and folder != ROOT
    assert not folder.exists()


def test_a_checkouts_directory_is_used_as_it_is():
    with checkout_of(str(ROOT)) as folder:
        assert folder == ROOT
    assert ROOT.exists()


def test_an_unknown_revision_is_one_clear_error():
    with pytest.raises(KomaError, match="cannot check out"), checkout_of("no-such-revision-anywhere"):
        pass


def test_koma_bench_cli_times_whole_processes_of_both_checkouts_in_turn():
    from koma_bench.command_process import solve_processes

    figures = solve_processes(against=str(ROOT), runs=1)
    for name in ("process_s", "process_cpu_s", "fastest_s"):
        assert 0 < figures[name] < 60 and 0 < figures[f"{name}@against"] < 60 and f"{name}/against" in figures


def test_koma_bench_cli_says_what_failed_rather_than_timing_it():
    from koma_bench.command_process import one_process

    with pytest.raises(RuntimeError, match=r"koma solve 15 1 2 3 failed: .*16 cells"):
        one_process(("solve", "15", "1 2 3"))


def test_koma_bench_keys_types_into_koma_the_floor_and_the_other_checkout_and_counts_every_key():
    from koma_bench.keys import keys_beside_the_floor

    figures = keys_beside_the_floor(against=str(ROOT), rounds=1, keys=6)  # typed() fails unless each screen shows 7
    assert 0 < figures["koma_key_cpu_ms"] < 1000 and 0 < figures["floor_key_cpu_ms"] < 1000
    assert 0 < figures["against_key_cpu_ms"] < 1000
    # the ratio is of the unrounded figures: from the rounded ones it may differ in its last digit
    assert figures["koma/floor"] == pytest.approx(figures["koma_key_cpu_ms"] / figures["floor_key_cpu_ms"], abs=0.011)
    assert {name: len(values) for name, values in figures["runs_ms"].items()} == {"koma": 1, "floor": 1, "against": 1}
    # the main thread's share: some of the whole, never all of Koma's (its terminal and storage threads work too)
    assert 0 < figures["koma_main_thread_ms"] < figures["koma_key_cpu_ms"]
    assert 0 < figures["floor_main_thread_ms"] <= figures["floor_key_cpu_ms"]
    assert 0 < figures["against_main_thread_ms"] < figures["against_key_cpu_ms"]
    assert figures["koma_other_threads_ms"] == pytest.approx(figures["koma_key_cpu_ms"] - figures["koma_main_thread_ms"],
                                                             abs=0.011)


def test_the_main_threads_cpu_is_its_own_not_the_processs():
    import threading
    import time

    from koma_bench.keys import main_thread_cpu_seconds
    from tui.server.procfs import cpu_seconds

    pid = os.getpid()
    stop = threading.Event()

    def spin() -> None:
        while not stop.is_set():
            sum(range(1000))

    helper = threading.Thread(target=spin)
    main_before, all_before = main_thread_cpu_seconds(pid), cpu_seconds(pid, children=False)
    helper.start()
    deadline = time.monotonic() + 60
    while cpu_seconds(pid, children=False) - all_before < 0.2:  # the main thread mostly sleeps while the helper spins
        assert time.monotonic() < deadline, "the helper thread never ran"
        time.sleep(0.05)
    stop.set()
    helper.join()
    main_spent, all_spent = main_thread_cpu_seconds(pid) - main_before, cpu_seconds(pid, children=False) - all_before
    assert 0 < main_spent < all_spent / 2


def test_a_key_that_never_reaches_the_screen_is_an_error_not_a_figure():
    import sys

    from koma_bench.keys import Terminal, typed

    terminal = Terminal([sys.executable, "-c", "import time; print('Keys 0', flush=True); time.sleep(60)"], {})
    try:
        terminal.wait_for("Keys 0", 30)
        with pytest.raises(RuntimeError, match="never appeared"):
            typed(terminal, "Keys", keys=2)
    finally:
        terminal.close()


def test_koma_bench_open_opens_the_15_puzzle_and_the_floors_screen_and_the_other_checkouts():
    from koma_bench.open_screen import open_beside_the_floor

    figures = open_beside_the_floor(against=str(ROOT), rounds=1, counted=1)
    assert figures["openings"] == {"koma": 1, "floor": 1, "against": 1}  # each process saw its screen open and close
    for name in ("koma_open_main_thread_ms", "floor_open_main_thread_ms", "against_open_main_thread_ms"):
        assert 1 < figures[name] < 5000, figures
    assert figures["koma/floor"] == pytest.approx(figures["koma_open_main_thread_ms"] / figures["floor_open_main_thread_ms"],
                                                  abs=0.011)


def test_an_opening_that_never_comes_is_an_error_not_a_figure(monkeypatch):
    import asyncio

    from koma_bench import open_measure
    from koma_bench.floor_app import FloorOpenApp

    monkeypatch.setattr(open_measure, "READY_SECONDS", 0.5)
    with pytest.raises(RuntimeError, match="never came"):
        asyncio.run(open_measure.openings(FloorOpenApp(), "NoSuchScreen", "FloorHomeScreen", 1))
