"""What a command loads: ``koma solve 8`` answers from the cached depth table with numpy alone (no numba, no
Textual), and its answer replays to the goal.  Speed itself is measured by ``koma bench`` and tests/tui/timing.py."""

from __future__ import annotations

import json
import subprocess
import sys

from solver.registry import get_puzzle

ARTICLE_BOARD = "8 6 7/2 5 4/3 _ 1"
PROBE = """
import json, sys
from tui.main import main
code = main(sys.argv[1:])
print(json.dumps({"code": code, "numba": "numba" in sys.modules, "textual": "textual" in sys.modules}))
"""


def run_probe(*argv: str) -> tuple[dict, dict]:
    result = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, timeout=300)
    answer, loaded = (json.loads(line) for line in result.stdout.strip().splitlines()[-2:])
    return answer, loaded


def test_solve_8_answers_from_the_table_without_numba_or_textual():
    run_probe("solve", "8", ARTICLE_BOARD, "--json")  # the first run may build and cache the table
    answer, loaded = run_probe("solve", "8", ARTICLE_BOARD, "--json")
    assert loaded == {"code": 0, "numba": False, "textual": False}
    assert answer["length"] == 31 and answer["optimal"] and answer["method"] == "table"
    puzzle = get_puzzle("8")
    path = puzzle.replay(puzzle.parse(ARTICLE_BOARD), answer["moves"])
    assert puzzle.is_goal(path[-1])


def test_an_unsolvable_board_still_gets_the_proof_without_numba():
    answer, loaded = run_probe("solve", "8", "1 2 3/4 5 6/8 7 _", "--json")
    assert loaded == {"code": 2, "numba": False, "textual": False}
    assert "cannot be solved" in answer["error"] and answer["solvable"] is False and answer["inversions"] == 1
