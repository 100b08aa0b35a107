"""Game IDs on the command line: ``koma generate --json`` gives one, ``koma solve|parity|play ID`` take it."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from solver.ids import game_id
from solver.registry import get_puzzle
from tui.cli import parse_args
from tui.launch import prepare
from tui.main import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys, *argv):
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


GENERATED = [("8", None, ("--distance", "20")), ("sliding", "2x3", ("--distance", "12")), ("sliding", "2x4", ()),
             ("goat", None, ("--distance", "30")), ("ura", "3x3", ()), ("ura", "4x4", ()), ("ura", "5x4", ())]


@pytest.mark.parametrize("name,size,options", GENERATED, ids=[f"{n}-{s or ''}" for n, s, _ in GENERATED])
def test_generate_then_solve_the_id(capsys, name, size, options):
    sized = ("--size", size) if size else ()
    generated = run_json(capsys, "generate", name, *sized, *options, "--seed", "1")
    puzzle = get_puzzle(name, size)
    start = puzzle.parse(generated["board"])
    assert generated["id"] == game_id(puzzle, start)
    solved = run_json(capsys, "solve", generated["id"])
    assert solved["board"] == generated["board"] and solved["size"] == puzzle.size_label
    assert solved["length"] == generated["distance"] and solved["optimal"] is True
    path = puzzle.replay(start, solved["moves"])
    assert puzzle.is_goal(path[-1]) and [puzzle.format(s) for s in path] == solved["path"]


def test_generate_text_shows_the_id(capsys):
    code, out, _ = run(capsys, "generate", "goat", "--seed", "3")
    data = run_json(capsys, "generate", "goat", "--seed", "3")
    assert code == 0 and f"id {data['id']}" in out.splitlines()


def test_a_fifteen_puzzle_id_round_trips_through_parity_and_solve(capsys):
    generated = run_json(capsys, "generate", "15", "--seed", "9")
    parity = run_json(capsys, "parity", generated["id"])
    assert parity["board"] == generated["board"] and parity["solvable"] is True
    fifteen = get_puzzle("15")
    near = fifteen.replay(fifteen.goal, ["D", "R", "D", "R", "U", "L"])[-1]  # a short solve: the ID path, not the solver, is under test
    solved = run_json(capsys, "solve", game_id(fifteen, near))
    path = fifteen.replay(near, solved["moves"])
    assert fifteen.is_goal(path[-1]) and solved["length"] == 6


def test_parity_of_an_unsolvable_id(capsys):
    eight = get_puzzle("8")
    unsolvable = eight.parity_fix(eight.goal)
    data = run_json(capsys, "parity", game_id(eight, unsolvable))
    assert data["solvable"] is False and eight.parse(data["board"]) == unsolvable
    code, _, err = run(capsys, "solve", game_id(eight, unsolvable))
    assert code == 2 and "cannot be solved" in err


@pytest.mark.parametrize("argv,message", [
    (["solve", "15-000000000"], "check character"),
    (["solve", "15-00000"], "IDs have 9 characters"),
    (["parity", "ura9x9-000"], "not 9x9"),
    (["solve", "chess-123"], "unknown puzzle 'chess-123'"),
    (["parity", "8-0C1hw", "1 2 3/4 5 6/7 8 _"], "not both"),
    (["solve", "8-0C1hw", "--size", "3x3"], "drop --size"),
    (["solve", "8"], "a board is required"),
    (["parity", "8", "--size", "3x3", "1 2 3/4 5 6/7 8 _", "extra"], "unrecognized arguments: extra"),  # the board is placed
    (["play", "8", "1 2 3/4 5 6/7 8 _"], "unrecognized arguments"),
    (["play", "8-0C1hx"], "check character"),
    (["play", "8-0C1hw", "--seed", "3"], "not both"),
])
def test_bad_ids_are_one_line_and_exit_2(capsys, argv, message):
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("koma: error: ") and message in err


def test_options_may_come_between_the_puzzle_and_the_board(capsys):
    data = run_json(capsys, "parity", "ura", "--size", "2x3", "WB/BW/WW")
    assert data["size"] == "2x3" and data["board"] == "WB/BW/WW"


def test_play_takes_an_id():
    ura = get_puzzle("ura", "4x4")
    state = ura.random_state(8)
    puzzle, start = prepare(parse_args(["play", game_id(ura, state)]))
    assert puzzle.size_label == "4x4" and start == state


def test_a_bad_id_through_the_installed_command_has_no_traceback():
    result = subprocess.run([sys.executable, "-m", "tui.main", "solve", "goat-zzzzz"], capture_output=True, text=True, timeout=120)
    assert result.returncode == 2
    assert result.stderr.startswith("koma: error: game ID 'goat-zzzzz'") and "Traceback" not in result.stderr
