"""The scriptable CLI: real output, JSON fields, and one-line errors with exit status 2."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from solver.registry import get_puzzle
from tui.main import main

ARTICLE = "8 6 7/2 5 4/3 _ 1"


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys, *argv):
    code, out, err = run(capsys, *argv, "--json")
    return code, json.loads(out), err


def test_solve_json_has_the_contract_fields_and_replays(capsys):
    code, data, _ = run_json(capsys, "solve", "8", ARTICLE)
    assert code == 0
    assert {"length", "moves", "path", "optimal", "nodes", "seconds"} <= set(data)
    assert data["length"] == 31 == len(data["moves"]) and data["optimal"] is True
    puzzle = get_puzzle("8")
    path = puzzle.replay(puzzle.parse(ARTICLE), data["moves"])
    assert [puzzle.format(s) for s in path] == data["path"]
    assert puzzle.parse(data["path"][-1]) == puzzle.goal


def test_solve_bidirectional_reports_generated_states(capsys):
    code, data, _ = run_json(capsys, "solve", "8", ARTICLE, "--method", "bidirectional")
    assert code == 0 and data["nodes"] == 16_088 and data["length"] == 31


def test_solve_text(capsys):
    code, out, _ = run(capsys, "solve", "sliding", "--size", "2x3", "2 3/5 _/4 1")
    assert code == 0 and "moves (optimal" in out


def test_parity_json_and_text(capsys):
    board = "10 8 4 14 / 15 12 13 _ / 7 11 6 1 / 5 9 2 3"
    code, data, _ = run_json(capsys, "parity", "15", board)
    assert code == 0 and data["solvable"] is True
    assert data["smaller_counts"] == [9, 7, 3, 10, 10, 8, 8, 5, 6, 4, 0, 2, 2, 0, 0]
    assert data["inversions"] == 74 and data["total"] == 76
    code, out, _ = run(capsys, "parity", "15", board)
    assert "74" in out and "Verdict: solvable." in out


def test_longest_json(capsys):
    code, data, _ = run_json(capsys, "longest", "8")
    assert code == 0
    assert data["states"] == 181_440 and data["max_depth"] == 31
    assert sorted(data["positions"]) == ["6 4 7/8 5 _/3 2 1", "8 6 7/2 5 4/3 _ 1"]
    assert len(data["histogram"]) == 32 and sum(data["histogram"]) == 181_440


def test_generate_is_reproducible_and_exact(capsys):
    _, first, _ = run_json(capsys, "generate", "15", "--seed", "42")
    _, second, _ = run_json(capsys, "generate", "15", "--seed", "42")
    assert first == second and first["seed"] == 42
    assert get_puzzle("15").proof(get_puzzle("15").parse(first["board"])).solvable
    _, data, _ = run_json(capsys, "generate", "8", "--seed", "1", "--distance", "25")
    assert data["distance"] == 25


@pytest.mark.parametrize("argv, fragment", [
    (["solve", "8", "1 2 3"], "expected 9 cells"),
    (["solve", "8", "1 2 3 4 5 6 7 7 _"], "appears more than once"),
    (["solve", "8", "1 2 3 4 5 6 7 9 _"], "out of range"),
    (["solve", "8", "9" * 5000 + " 1 2 3 4 5 6 7 _"], "out of range"),  # beyond int()'s digit limit
    (["solve", "8", "1 2 3 4 5 6 7 8 1"], "no blank"),
    (["solve", "8", "1 2 3/4 5 6/8 7 _"], "cannot be solved"),
    (["solve", "nine", "1"], "unknown puzzle"),
    (["solve", "sliding", "--size", "21x9", "1"], "2x2 to 20x20"),
    (["solve", "sliding", "--size", "6x6", " ".join(map(str, [*range(1, 36), 0]))], "up to 5x5"),
    (["solve", "sliding", "--size", "big", "1"], "not of the form WxH"),
    (["solve", "8", ARTICLE, "--method", "magic"], "unknown method"),
    (["generate", "8", "--distance", "40"], "distance must be between"),
    (["generate", "8", "--seed", "x"], "invalid int value"),
    (["frobnicate"], "invalid choice"),
    (["solve", "8"], "required"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, argv, fragment):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert err.startswith("koma: error: ") and err.count("\n") == 1, err
    assert fragment in err
    assert "Traceback" not in out + err


def test_unsolvable_solve_prints_the_proof(capsys):
    code, out, _err = run(capsys, "solve", "8", "1 2 3/4 5 6/8 7 _")
    assert code == 2 and "Verdict: not solvable." in out
    code, out, _ = run(capsys, "solve", "8", "1 2 3/4 5 6/8 7 _", "--json")
    data = json.loads(out)
    assert code == 2 and data["solvable"] is False and "error" in data


def test_json_errors_are_json(capsys):
    code, out, _ = run(capsys, "parity", "8", "1 2", "--json")
    assert code == 2 and "expected 9 cells" in json.loads(out)["error"]


def test_installed_console_script():
    koma = shutil.which("koma") or str(__import__("pathlib").Path(sys.executable).with_name("koma"))
    done = subprocess.run([koma, "solve", "8", ARTICLE, "--json"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["length"] == 31
    bad = subprocess.run([koma, "parity", "8", "1 2 3"], capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and bad.stderr.strip().startswith("koma: error:") and "Traceback" not in bad.stderr


def test_doctor_reports_tables_and_problems(capsys, tmp_path, monkeypatch):
    import numpy as np

    from solver.engines import tables

    monkeypatch.setenv("KOMA_CACHE_DIR", str(tmp_path))
    tables.write_table(tables.table_path("good"), np.arange(10, dtype=np.int8), 1)
    bad = tables.table_path("bad")
    tables.write_table(bad, np.arange(10, dtype=np.int8), 1)
    bad.write_bytes(bad.read_bytes()[:-5])
    code, data, _ = run_json(capsys, "doctor")
    assert code == 1  # something is wrong: a corrupt table
    assert {"versions", "numba_cache", "tables", "terminal", "cache_dir", "data_dir", "serve", "problems"} <= set(data)
    status = {t["name"]: t["status"] for t in data["tables"]}
    assert status["good"] == "ok" and status["bad"].startswith("corrupt")
    assert any("bad" in p["problem"] and p["fix"].startswith("rm ") for p in data["problems"])
    code, out, _ = run(capsys, "doctor")
    assert code == 1 and "fix: rm" in out and "versions" in out
    bad.unlink()
    code, data, _ = run_json(capsys, "doctor")
    assert [p for p in data["problems"] if p["severity"] == "error"] == [] and code == 0


# --- boards that begin with "-" --------------------------------------------------------------------
DASH_BOARD = "-BBd/.WrS/-jli"  # Goat: a fence in the top-left corner


@pytest.mark.parametrize("argv", [
    ["solve", "goat", DASH_BOARD, "--json"],
    ["solve", "goat", DASH_BOARD, "--method", "pdb", "--json"],
    ["solve", "--json", "--method", "pdb", "goat", DASH_BOARD],
    ["solve", "--json", "goat", "--", DASH_BOARD],
])
def test_a_goat_board_that_begins_with_a_dash_is_a_board(capsys, argv):
    code, out, err = run(capsys, *argv)
    assert code == 0, err
    data = json.loads(out)
    puzzle = get_puzzle("goat")
    assert data["board"] == DASH_BOARD and data["length"] == 28
    assert puzzle.replay(puzzle.parse(DASH_BOARD), data["moves"])[-1] == puzzle.goal


def test_parity_and_play_take_a_dash_board_too(capsys):
    code, data, _ = run_json(capsys, "parity", "goat", DASH_BOARD)
    assert code == 0 and data["board"] == DASH_BOARD and data["solvable"] is True
    from tui.cli import parse_args

    for argv in (["play", "goat", "--board", DASH_BOARD], ["play", "--board", DASH_BOARD, "goat"]):
        args = parse_args(argv)
        assert args.board == DASH_BOARD and args.puzzle == "goat"


@pytest.mark.parametrize("argv", [
    ["solve", "goat", "-BBd/.WrS/-jl"],
    ["parity", "goat", "-BBd/.WrS/-jl"],
    ["play", "goat", "--board", "-BBd/.WrS/-jl"],
])
def test_a_dash_word_that_is_no_board_gets_an_error_naming_the_fix(capsys, argv):
    code, out, err = run(capsys, *argv)
    assert code == 2 and err.count("\n") == 1 and out == ""
    assert "'-BBd/.WrS/-jl'" in err and "put -- before it" in err and "--board=BOARD" in err


def test_after_the_double_dash_the_board_is_checked_as_a_board(capsys):
    code, _, err = run(capsys, "solve", "goat", "--", "-BBd/.WrS/-jl")
    assert code == 2 and "row 3 has 3 cells" in err


def test_negative_numbers_stay_numbers(capsys):
    """``-5`` is read as a number (not an option), and then refused as a seed: Python's random takes -5 for 5."""
    code, out, err = run(capsys, "generate", "8", "--seed", "-5", "--json")
    assert code == 2 and "a seed is 0 or more, not -5" in json.loads(out)["error"] and err.count("\n") == 1


# --- --json on argument errors ---------------------------------------------------------------------
@pytest.mark.parametrize("argv, fragment", [
    (["solve", "8", "--json"], "a board is required: give PUZZLE BOARD, or a game ID"),
    (["--json", "solve", "8"], "unrecognized arguments: --json"),  # --json belongs after the command
    (["--json"], "unrecognized arguments: --json"),
    (["generate", "8", "--seed", "x", "--json"], "invalid int value"),
    (["solve", "8", ARTICLE, "--frobnicate", "--json"], "unrecognized arguments: --frobnicate"),
    (["tables", "build", "8", "--json"], "invalid choice: '8'"),
    (["bench", "8", "foo", "--json"], "unknown benchmark group 'foo'"),
    (["play", "8", "--json"], "no JSON output"),
    (["frobnicate", "--json"], "invalid choice"),
    (["solve", "goat", "-BBd/.WrS/-jl", "--json"], "put -- before it"),
])
def test_every_error_is_json_under_json(capsys, argv, fragment):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert fragment in json.loads(out)["error"]
    assert err.startswith("koma: error: ") and err.count("\n") == 1 and fragment in err


def test_without_json_errors_leave_stdout_empty(capsys):
    code, out, err = run(capsys, "generate", "8", "--seed", "x")
    assert code == 2 and out == "" and "invalid int value" in err


# --- small lies ------------------------------------------------------------------------------------
def test_loop_method_on_the_solved_board_answers_zero_moves(capsys):
    code, data, _ = run_json(capsys, "solve", "15", "1 2 3 4/5 6 7 8/9 10 11 12/13 14 15 _", "--method", "loop")
    assert code == 0 and data["length"] == 0 and data["moves"] == []


# --- through the installed command: `--` anywhere, --version, seeds, bounded error lines --------------
KOMA = shutil.which("koma") or str(__import__("pathlib").Path(sys.executable).with_name("koma"))
LONG_WORD = "9" * 120_000  # about the longest one argument Linux passes (MAX_ARG_STRLEN is 128 KiB)


def koma(*argv: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([KOMA, *argv], capture_output=True, text=True, timeout=timeout)


def assert_one_line_error(done: subprocess.CompletedProcess, fragment: str, as_json: bool = False) -> None:
    assert done.returncode == 2, (done.returncode, done.stderr[:500])
    assert done.stderr.startswith("koma: error: ") and done.stderr.count("\n") == 1, done.stderr[:500]
    assert fragment in done.stderr and "Traceback" not in done.stdout + done.stderr
    if as_json:
        assert fragment in json.loads(done.stdout)["error"]
    else:
        assert done.stdout == ""


@pytest.mark.parametrize("argv, board", [
    (["solve", "8", "--json", "--", ARTICLE], ARTICLE),  # the README's form: options, then --, then the board
    (["solve", "8", "--json", ARTICLE], ARTICLE),
    (["solve", "--json", "8", "--", ARTICLE], ARTICLE),
    (["solve", "--json", "--", "8", ARTICLE], ARTICLE),
    (["solve", "goat", "--json", "--", DASH_BOARD], DASH_BOARD),
    (["solve", "goat", "--method", "table", "--json", "--", DASH_BOARD], DASH_BOARD),
    (["solve", "sliding", "--size", "2x3", "--json", "--", "2 3/5 _/4 1"], "2 3/5 _/4 1"),
    (["solve", "--size", "2x3", "--json", "--", "sliding", "2 3/5 _/4 1"], "2 3/5 _/4 1"),
])
def test_options_before_the_double_dash_work_in_any_order(argv, board):
    done = koma(*argv)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    puzzle = get_puzzle(data["puzzle"], data["size"])
    assert data["board"] == board
    assert puzzle.replay(puzzle.parse(board), data["moves"])[-1] == puzzle.goal


@pytest.mark.parametrize("argv", [["parity", "8", "--json", "--", ARTICLE], ["parity", "goat", "--json", "--", DASH_BOARD]])
def test_parity_takes_options_before_the_double_dash(argv):
    done = koma(*argv)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["board"] == argv[-1] and json.loads(done.stdout)["solvable"] is True


def test_after_the_double_dash_every_word_is_an_argument():
    """``--json`` after ``--`` is a word, not an option: one more argument than solve takes."""
    assert_one_line_error(koma("solve", "8", "--", ARTICLE, "--json"), "unrecognized arguments: --json")


def test_a_game_id_alone_still_takes_options_after_it():
    done = koma("solve", "8-0eYgW", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["length"] == 24


def test_version():
    from importlib import metadata

    done = koma("--version")
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout == f"koma {metadata.version('koma')}\n"


def test_version_without_package_metadata(monkeypatch):
    from importlib import metadata

    from tui.cli_frame import package_version

    def missing(name):
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "version", missing)
    assert package_version() == "unknown (not installed)"


@pytest.mark.parametrize("argv", [["generate", "8", "--seed", "-1"], ["generate", "8", "--seed=-1"], ["play", "8", "--seed", "-1"]])
def test_a_negative_seed_is_refused_not_taken_for_its_positive_twin(argv):
    assert_one_line_error(koma(*argv), "a seed is 0 or more, not -1")


def test_seeds_zero_and_up_are_honoured():
    boards = {seed: json.loads(koma("generate", "8", "--seed", seed, "--json").stdout)["board"] for seed in ("0", "1", "2")}
    assert len(set(boards.values())) == 3


MAX_ERROR_LINE = 600  # "koma: error: " and a bounded message (solver.errors.MAX_LINE is 400, plus the length)


@pytest.mark.parametrize("argv", [
    ["solve", "8", LONG_WORD],  # a board check
    ["generate", "8", "--seed", LONG_WORD],  # argparse's type check
    ["solve", LONG_WORD, "1"],  # the puzzle registry
    [LONG_WORD],  # argparse's choice of command
    ["solve", "8", "1", *[LONG_WORD] * 12],  # argparse's leftovers, 1.4 MB in one message
    ["solve", "8", ARTICLE, "--method", LONG_WORD],  # a solver's option
    ["solve", "8", "--" + LONG_WORD],  # an unknown option
    ["generate", "8", "--size", LONG_WORD],
    ["--theme", LONG_WORD, "play", "8"],  # the game's launcher
    ["play", "8", "--board", "1 2 3\n4 5 6\n\x1b[2J7 8 8"],  # control characters stay escaped, on one line
])
def test_every_error_line_is_bounded(argv):
    for as_json in (False, True):
        if as_json and "play" in argv:
            continue  # play has no JSON output
        done = koma(*argv, *(["--json"] if as_json else []), timeout=60)
        assert done.returncode == 2, done.stderr[:500]
        assert done.stderr.count("\n") == 1 and len(done.stderr) < MAX_ERROR_LINE, done.stderr[:MAX_ERROR_LINE]
        assert "\x1b" not in done.stderr and "Traceback" not in done.stderr
        if as_json:
            assert len(json.loads(done.stdout)["error"]) < MAX_ERROR_LINE
        if LONG_WORD in argv:
            assert "characters)" in done.stderr or "'999999999999999'…" in done.stderr


def test_one_line_shortens_long_words_and_says_their_length():
    from solver.errors import one_line

    assert one_line("short and plain") == "short and plain"
    assert one_line("bad\nline\x1b[0m") == "bad\\nline\\x1b[0m"
    assert one_line(f"invalid int value: '{'9' * 5_000_000}'") == "invalid int value: '99999999999999999999999… (5,000,002 characters)"
    long = one_line("unrecognized arguments: " + "1 2 " * 1_000_000)
    assert len(long) < 500 and long.endswith("… (4,000,024 characters in all)")


@pytest.mark.skipif(not __import__("os").path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("argv", [["solve", "8", ARTICLE], ["longest", "8", "--json"]])
def test_output_that_cannot_be_written_is_one_line_not_a_traceback(argv):
    with open("/dev/full", "w") as full:
        done = subprocess.run([KOMA, *argv], stdout=full, stderr=subprocess.PIPE, text=True, timeout=120)
    assert done.returncode == 2 and done.stderr == "koma: error: No space left on device\n", done.stderr


# --- koma doctor and a data dir that cannot be used -------------------------------------------------
def doctor(data_dir, **env):
    done = subprocess.run([KOMA, "doctor", "--json"], capture_output=True, text=True, timeout=300,
                          env={**__import__("os").environ, "KOMA_DATA_DIR": str(data_dir), **env})
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, json.loads(done.stdout)


def data_dir_problems(report):
    return [p for p in report["problems"] if "data dir" in p["problem"] and p["severity"] == "error"]


def unusable_dirs(tmp_path):
    import os

    (tmp_path / "a-file").write_text("not a directory\n")
    dirs = {"a regular file": (tmp_path / "a-file", "it is not a directory"),
            "below a regular file": (tmp_path / "a-file" / "koma", "it cannot be created: Not a directory")}
    if os.path.isdir("/proc/self"):
        dirs["under /proc, where nothing can be made"] = (Path("/proc/x"), "it cannot be created")
        dirs["an existing directory nobody can write"] = (Path("/proc/self"), "it cannot be written")
    if os.geteuid() != 0:  # root writes through permission bits
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o555)
        dirs["a directory without write permission"] = (locked, "it cannot be written: Permission denied")
        dirs["below a directory without write permission"] = (locked / "koma", "it cannot be created: Permission denied")
    return dirs


@pytest.mark.parametrize("case", ["a regular file", "below a regular file", "under /proc, where nothing can be made",
                                  "an existing directory nobody can write", "a directory without write permission",
                                  "below a directory without write permission"])
def test_doctor_reports_a_data_dir_it_cannot_use(tmp_path, case):
    dirs = unusable_dirs(tmp_path)
    if case not in dirs:
        pytest.skip("not possible here (running as root, or no /proc)")
    data_dir, reason = dirs[case]
    code, report = doctor(data_dir)
    assert code == 1
    [problem] = data_dir_problems(report)
    assert str(data_dir) in problem["problem"] and reason in problem["problem"] and "cannot be saved" in problem["problem"]
    assert "KOMA_DATA_DIR" in problem["fix"]
    assert reason in report["data_dir_problem"]
    text = subprocess.run([KOMA, "doctor"], capture_output=True, text=True, timeout=300,
                          env={**__import__("os").environ, "KOMA_DATA_DIR": str(data_dir)})
    assert text.returncode == 1 and "no problems found" not in text.stdout and reason in text.stdout


def test_doctor_accepts_a_data_dir_it_can_make_and_leaves_nothing_behind(tmp_path):
    data_dir = tmp_path / "not" / "yet" / "made"
    _, report = doctor(data_dir)
    assert data_dir_problems(report) == [] and report["data_dir_problem"] is None
    assert list(tmp_path.iterdir()) == []  # the check made the directories and removed them again
    (tmp_path / "made").mkdir()
    _, report = doctor(tmp_path / "made")
    assert data_dir_problems(report) == [] and list((tmp_path / "made").iterdir()) == []


def test_doctor_reports_a_table_cache_it_cannot_use(tmp_path):
    (tmp_path / "a-file").write_text("")
    code, report = doctor(tmp_path / "data", KOMA_CACHE_DIR=str(tmp_path / "a-file"))
    assert code == 1
    assert any("table cache" in p["problem"] and "it cannot be created: Not a directory" in p["problem"] for p in report["problems"])
