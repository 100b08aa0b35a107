"""Speedsolving averages against values worked out by hand (tui/game/averages.py)."""

from __future__ import annotations

import pytest

from tui.game.averages import DNF, average_of, mean_of, result_text, rolling, seconds_text, summarize, trimmed


def test_trimming_is_five_percent_rounded_up():
    assert [trimmed(n) for n in (5, 12, 50, 100)] == [1, 1, 3, 5]  # 0.25, 0.6, 2.5, 5 rounded up


def test_ao5_drops_the_best_and_the_worst():
    assert average_of([10_000, 12_000, 11_000, 9_000, 15_000]) == 11_000  # (10 + 12 + 11) / 3


def test_ao5_with_one_dnf_drops_it_as_the_worst():
    assert average_of([10_000, DNF, 11_000, 9_000, 15_000]) == 12_000  # (10 + 11 + 15) / 3


def test_ao5_with_two_dnfs_is_a_dnf():
    assert average_of([10_000, DNF, 11_000, DNF, 15_000]) == DNF


def test_mo3_is_the_plain_mean_and_any_dnf_spoils_it():
    assert mean_of([10_000, 11_000, 12_500]) == pytest.approx(33_500 / 3)
    assert mean_of([10_000, DNF, 12_500]) == DNF


def test_ao12_drops_one_at_each_end():
    times = [s * 1000 for s in range(1, 13)]
    assert average_of(times) == 6_500  # mean of 2..11
    assert average_of(times[:-1] + [DNF]) == 6_500
    assert average_of(times[:-2] + [DNF, DNF]) == DNF


def test_ao50_drops_three_at_each_end():
    # 3 fast solves among 47 of 10 s: all three dropped (5% of 50 = 2.5, rounded up); dropping 2 would keep a 1 s
    assert average_of([1_000] * 3 + [10_000] * 47) == 10_000
    assert average_of([s * 1000 for s in range(1, 48)] + [DNF] * 3) == pytest.approx(sum(range(4, 48)) * 1000 / 44)
    assert average_of([10_000] * 46 + [DNF] * 4) == DNF


def test_ao100_drops_five_at_each_end():
    assert average_of([2_000] * 5 + [20_000] * 95) == 20_000
    assert average_of([s * 1000 for s in range(1, 101)]) == 50_500  # mean of 6..95
    assert average_of([20_000] * 95 + [DNF] * 5) == 20_000
    assert average_of([20_000] * 94 + [DNF] * 6) == DNF


def test_rolling_best_and_current():
    results = [12_000, 10_000, 11_000, 13_000, 9_000, 14_000]
    ao5 = rolling("ao5", 5, results)
    assert ao5.best == 11_000  # 12 10 11 13 9: drop 9 and 13
    assert ao5.current == pytest.approx(34_000 / 3)  # 10 11 13 9 14: drop 9 and 14
    mo3 = rolling("mo3", 3, results)
    assert (mo3.best, mo3.current) == (11_000, 12_000)  # windows 11, 11.333, 11, 12
    assert rolling("ao12", 12, results).current is None


def test_summary_counts_mean_and_standard_deviation_without_dnfs():
    summary = summarize([10_000, DNF, 12_000, 14_000])
    assert (summary.count, summary.solved, summary.dnfs) == (4, 3, 1)
    assert summary.mean == 12_000
    assert summary.std_dev == pytest.approx(2_000)  # sample deviation: sqrt((4 + 0 + 4) / 2) s
    assert (summary.single.best, summary.single.current) == (10_000, 14_000)
    assert summary.averages["mo3"].current == DNF and summary.averages["mo3"].best == DNF
    assert summary.averages["ao5"].current is None


def test_texts():
    assert result_text(None) == "-"
    assert result_text(DNF) == "DNF"
    assert seconds_text(12_345) == "12.345"
    assert seconds_text(61_234) == "1:01.234"
    assert seconds_text(34_000 / 3) == "11.333"
    assert seconds_text(1_000.5) == "1.001"  # half up
