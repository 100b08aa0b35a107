"""keymap.toml: each bad file or binding is one notice and the defaults stay; quit always keeps a key.
The checks (``tui.game.keymap``), the real app reading the file (Pilot), and ``koma doctor`` (a subprocess)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from tui_helpers import wait_for

from tui.app import KomaApp
from tui.config.keymap import read_keymap
from tui.screens.home import HomeScreen
from tui.storage.store import Store
from tui.widgets.game_texts import playback_text

KOMA = str(Path(sys.executable).with_name("koma"))
GOOD = '"app.help" = "f1"\n'


@pytest.mark.parametrize("content, problem", [
    (b"[keymap]\n" + GOOD.encode() + b'"play.solve" = "\xff\xfe"\n', "not UTF-8"),
    (b"keymap = 5\n", "must be a table"),
    (b"[keymap\n" + GOOD.encode(), "not valid TOML"),
    (b'[keymap]\n"app.help" = "f1"\n"app.quit" = ",,,"\n', "names no key"),
    (b'[keymap]\n"app.help" = "f1"\n"play.solve" = 5\n', "must be keys in a string"),
    (b'[keymap]\n"app.help" = "f1"\n"play.solve" = "ctrl x"\n', "key with spaces"),
    (b'[keymap]\n"app.help" = "f1"\n"play.solve" = "s,q"\n', "takes quit's key"),
])
def test_each_bad_keymap_is_one_line_and_the_defaults_stay(tmp_path, content, problem):
    path = tmp_path / "keymap.toml"
    path.write_bytes(content)
    keymap = read_keymap(path)
    assert len(keymap.problems) == 1 and problem in keymap.problems[0] and "\n" not in keymap.problems[0]
    assert keymap.bindings in ({}, {"app.help": "f1"})  # a bad file is ignored whole, a bad binding alone
    assert "app.quit" not in keymap.bindings and "play.solve" not in keymap.bindings


def test_a_good_keymap_and_a_missing_one(tmp_path):
    path = tmp_path / "keymap.toml"
    assert read_keymap(path).bindings == {} and read_keymap(path).problems == []
    path.write_text('[keymap]\n"app.quit" = "x, ctrl+w"\n"play.solve" = "q"\n', encoding="utf-8")
    keymap = read_keymap(path)  # quit moved to x: q is free for another binding
    assert keymap.bindings == {"app.quit": "x,ctrl+w", "play.solve": "q"} and keymap.problems == []
    path.unlink()
    path.mkdir()
    assert "cannot be read" in read_keymap(path).problems[0]


async def test_the_app_says_so_and_quit_still_works(tmp_path, monkeypatch):
    monkeypatch.setenv("KOMA_DATA_DIR", str(tmp_path))
    (tmp_path / "keymap.toml").write_bytes(b'[keymap]\n"app.quit" = ",,,"\n"app.help" = "f1"\n')
    app = KomaApp(store=Store(tmp_path / "koma.db"), clock=lambda: 0.0, animate_spinner=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen), what="the home screen")
        notes = [n.message for n in app._notifications]
        assert len([n for n in notes if "keymap.toml" in n]) == 1 and "names no key" in notes[0]
        await pilot.press("f1")  # the good binding applies
        await wait_for(pilot, lambda: not isinstance(app.screen, HomeScreen), what="help on f1")
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen), what="the home screen again")
        await pilot.press("q")
        await wait_for(pilot, lambda: app._exit, what="quit on q")


async def test_invalid_utf8_keymap_does_not_stop_the_app(tmp_path, monkeypatch):
    monkeypatch.setenv("KOMA_DATA_DIR", str(tmp_path))
    (tmp_path / "keymap.toml").write_bytes(b"[keymap]\n\"app.quit\" = \"\xff\"\n")
    app = KomaApp(store=Store(tmp_path / "koma.db"), clock=lambda: 0.0, animate_spinner=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen), what="the home screen")
        assert any("not UTF-8" in n.message for n in app._notifications)
        await pilot.press("q")
        await wait_for(pilot, lambda: app._exit, what="quit on q")


def doctor(data_dir: Path) -> tuple[int, dict]:
    done = subprocess.run([KOMA, "doctor", "--json"], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "KOMA_DATA_DIR": str(data_dir)})
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, json.loads(done.stdout)


@pytest.mark.skipif(not Path(KOMA).exists(), reason="the koma console script is not installed")
def test_koma_doctor_reports_a_bad_keymap(tmp_path):
    code, healthy = doctor(tmp_path)
    assert healthy["game"]["keymap"]["problems"] == [] and code == (1 if any(p["severity"] == "error" for p in healthy["problems"]) else 0)
    (tmp_path / "keymap.toml").write_text("keymap = 5\n", encoding="utf-8")
    code, report = doctor(tmp_path)
    assert code == 1
    [problem] = [p for p in report["problems"] if "keymap.toml" in p["problem"]]
    assert "must be a table" in problem["problem"] and problem["fix"] == f"edit {tmp_path / 'keymap.toml'}"
    text = subprocess.run([KOMA, "doctor"], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "KOMA_DATA_DIR": str(tmp_path)})
    assert text.returncode == 1 and "must be a table" in text.stdout and f"fix: edit {tmp_path}" in text.stdout


async def test_remapped_keys_are_named_as_remapped_in_the_game_texts(tmp_path):
    """The playback's line and the game's messages name the keys bound now, not the defaults."""
    from tui_helpers import make_app

    from tui.play.screen import PlayScreen

    keymap = {"play.faster": "ctrl+f", "play.slower": "ctrl+b", "play.new": "ctrl+n", "play.step_back": "comma"}
    # 24 moves from solved: the playback lasts seconds, so a busy box's stalls cannot hide it from the wait
    app = make_app(tmp_path, "8", "3 7 8/4 1 2/_ 5 6", keymap=keymap)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.screen
        assert isinstance(screen, PlayScreen)
        await wait_for(pilot, screen.warm.is_set, what="the warm-up")
        await pilot.press("s")
        await wait_for(pilot, lambda: screen.playback.active, what="the playback")
        line = playback_text(screen.playback.lines(screen.key_for))
        assert "^f/^b speed" in line and "+/-" not in line and ", ] step" in line, line
    app = make_app(tmp_path, "8", "1 2 3/4 5 6/7 8 _", keymap=keymap)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("s")
        assert "Press ^n for a new game" in app.screen.message, app.screen.message
