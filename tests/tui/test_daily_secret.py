"""The daily boards come from a server secret (tui/config/daily_secret.py): made once in the data dir, or the
operator's file (shared by replicas); without it nobody computes a day's board, today's or tomorrow's."""

from __future__ import annotations

import os
import stat

import pytest

from solver.errors import KomaError
from solver.registry import get_puzzle
from tui.config.daily_secret import SECRET_VARIABLE, daily_secret, daily_secret_path
from tui.game.daily import daily_board, daily_seed, shift_day


def test_the_secret_is_made_once_in_the_data_dir_and_kept(tmp_path, monkeypatch):
    monkeypatch.setenv("KOMA_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv(SECRET_VARIABLE, raising=False)
    secret = daily_secret()
    path = daily_secret_path()
    assert path == tmp_path / "data" / "daily-secret" and path.read_bytes().strip() == secret and len(secret) == 64
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and os.listdir(path.parent) == ["daily-secret"]
    monkeypatch.setenv("KOMA_DATA_DIR", str(tmp_path / "other"))
    assert daily_secret() != secret  # another install, another secret
    monkeypatch.setenv("KOMA_DATA_DIR", str(tmp_path / "data"))
    assert daily_secret() == secret


def test_the_operator_gives_the_file_replicas_share(tmp_path, monkeypatch):
    shared = tmp_path / "secret"
    shared.write_text("9f" * 20 + "\n")
    monkeypatch.setenv(SECRET_VARIABLE, str(shared))
    assert daily_secret() == b"9f" * 20 and not (tmp_path / "data").exists()
    short = tmp_path / "short"
    short.write_text("abc")
    monkeypatch.setenv(SECRET_VARIABLE, str(short))
    with pytest.raises(KomaError, match="has 3 bytes; give at least 16"):
        daily_secret()
    monkeypatch.setenv(SECRET_VARIABLE, str(tmp_path / "missing"))
    with pytest.raises(KomaError, match="cannot read the daily boards' secret"):
        daily_secret()


def test_a_day_s_boards_cannot_be_computed_without_the_secret():
    puzzle = get_puzzle("15")
    tomorrow = shift_day("2025-01-31", 1)
    ours, theirs = b"a" * 32, b"b" * 32
    assert daily_board(puzzle, tomorrow, ours) == daily_board(get_puzzle("15"), tomorrow, ours)  # same everywhere
    assert daily_board(puzzle, tomorrow, ours) != daily_board(puzzle, tomorrow, theirs)
    seeds = {daily_seed(tomorrow, "15", bytes([k]) * 32) for k in range(50)}
    assert len(seeds) == 50  # the date alone says nothing of the board


def test_a_filesystem_without_hard_links_still_gets_its_secret(tmp_path, monkeypatch):
    """FUSE and some network filesystems refuse link(2) (EPERM): the secret is renamed into place instead."""
    monkeypatch.setenv("KOMA_DATA_DIR", str(tmp_path / "fuse"))
    monkeypatch.delenv(SECRET_VARIABLE, raising=False)

    def no_links(source, target, *args, **kwargs):
        raise PermissionError(1, "Operation not permitted", str(source))

    monkeypatch.setattr(os, "link", no_links)
    secret = daily_secret()
    path = daily_secret_path()
    assert len(secret) == 64 and path.read_bytes().strip() == secret
    assert os.listdir(path.parent) == ["daily-secret"]  # no draft left behind
