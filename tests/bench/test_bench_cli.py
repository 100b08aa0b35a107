"""``koma bench``: the bench package's command, which the ``koma`` command line finds through the ``koma.commands``
entry point group (the product imports no bench module); its groups, its cases, and a plugin that cannot load."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from koma_bench.cases import CASES, cases, groups
from koma_bench.cli import add_bench_command, register
from koma_bench.harness import Case
from tui.cli import COMMANDS_GROUP, main, registered_commands

ROOT = Path(__file__).resolve().parents[2]


def run(capsys, *argv, registered=None):
    code = main(list(argv), registered)
    out, err = capsys.readouterr()
    return code, out, err


def test_koma_finds_bench_through_the_entry_point_group_only(capsys):
    assert register in registered_commands()  # installed with koma: pyproject.toml's [project.entry-points."koma.commands"]
    assert COMMANDS_GROUP == "koma.commands"
    code, out, err = run(capsys, "bench", "8", registered=())  # without them, koma has no bench of its own
    assert code == 2 and out == "" and "invalid choice: 'bench'" in err


def test_koma_help_lists_bench_beside_the_products_commands():
    shown = subprocess.run([sys.executable, "-m", "tui.main", "--help"], capture_output=True, text=True, timeout=120)
    assert shown.returncode == 0, shown.stderr
    listed = [line.split()[0] for line in shown.stdout.split("COMMAND\n", 1)[1].split("\n\n", 1)[0].splitlines()
              if line.startswith("    ") and not line.startswith("     ")]
    assert listed == ["play", "solve", "parity", "longest", "generate", "tables", "doctor", "speed", "serve", "web", "bench"]


@pytest.mark.parametrize("groups_named, named", [(["8", "foo"], "'foo'"), ([""], "''")])
def test_bench_rejects_unknown_groups_by_name(capsys, groups_named, named):
    code, out, err = run(capsys, "bench", *groups_named)
    assert code == 2 and out == ""
    assert f"unknown benchmark group {named}; choose from 8, goat, ura, 15" in err


def test_bench_runs_the_cases_of_its_table_and_knows_only_their_groups(capsys):
    """A group is known only if some case of the table has it; an on-request case runs only when its group is named."""
    extra = Case("a case of another table", "extra", lambda: {"answer": 42}, runs=1, on_request=True)
    table = (*CASES, extra)
    assert groups(table) == [*groups(), "extra"] and groups()[:5] == ["8", "goat", "ura", "15", "24"]
    assert extra not in cases(full=True, table=table)  # only when named
    code, out, _ = run(capsys, "bench", "extra", "--json", registered=[lambda commands: add_bench_command(commands, table)])
    data = json.loads(out)
    assert code == 0 and [r["name"] for r in data["results"]] == ["a case of another table"]
    assert data["results"][0]["answer"] == 42 and data["results"][0]["warm_runs"] == 1
    code, out, _ = run(capsys, "bench", "extra", "--json")  # the installed command's table has no such group
    assert code == 2 and "unknown benchmark group 'extra'" in json.loads(out)["error"]


def test_a_group_of_long_cases_alone_asks_for_full(capsys):
    long_only = Case("a long case", "long", lambda: {}, runs=0, quick=False)
    code, out, err = run(capsys, "bench", "long", registered=[lambda commands: add_bench_command(commands, (long_only,))])
    assert code == 2 and out == "" and err.strip() == "koma: error: group(s) long only have long cases: add --full"


def test_koma_bench_runs_the_serve_groups_only_when_named(capsys):
    assert not [c for c in cases(None, True) if c.group.startswith(("serve", "web", "race", "cli", "keys", "open"))]
    named = cases(["serve"], False)
    assert named and {c.group for c in named} == {"serve"}
    crowd = {c.name for c in cases(["serve-crowd"], False)}
    assert not any("200 idle" in name for name in crowd)  # the long crowd needs --full
    assert any("200 idle" in c.name for c in cases(["serve-crowd"], True))
    code, _, err = run(capsys, "bench", "serve-nonsense")
    assert code == 2 and "unknown benchmark group 'serve-nonsense'" in err


def test_a_command_that_cannot_load_is_one_line_and_koma_still_works(tmp_path):
    """An installed package whose ``koma.commands`` entry point is broken costs its own commands, never koma's."""
    info = tmp_path / "broken_plugin-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-plugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[koma.commands]\nbroken = no_such_module_anywhere:register\n")
    done = subprocess.run([sys.executable, "-m", "tui.main", "parity", "8", "1 2 3/4 5 6/7 8 _", "--json"],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": str(tmp_path)})
    assert done.returncode == 0 and json.loads(done.stdout)["solvable"] is True
    assert done.stderr == ("koma: the broken commands could not be loaded: ModuleNotFoundError: "
                           "No module named 'no_such_module_anywhere'\n")

