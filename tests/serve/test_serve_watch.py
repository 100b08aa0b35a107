"""The issue's check of live spectating: two real SSH players on one ``koma serve``; one plays the 15-puzzle,
the other presses w, then enter, and sees the board and the move counter change live."""

from __future__ import annotations

import time

import pytest
from serve_helpers import HAVE_ASYNCSSH, SSH, TMUX, Client, Server, moves_on, play_a_move

pytestmark = [
    pytest.mark.skipif(not HAVE_ASYNCSSH, reason="asyncssh is not installed (pip install -e '.[ssh]')"),
    pytest.mark.skipif(SSH is None, reason="the OpenSSH client (ssh) is not installed; CI installs openssh-client"),
    pytest.mark.skipif(TMUX is None, reason="tmux is not installed (CI installs it)"),
]


def board_rows(screen: str) -> list[str]:
    """The lines of the screen left of the side panel (the board), without blank ones."""
    return [line[:60].rstrip() for line in screen.splitlines()[1:-1] if line[:60].strip()]


def test_one_plays_the_15_puzzle_another_watches_live(tmp_path):
    server = Server(tmp_path / "data", "--open", "--rate-limit", "0")
    player = watcher = None
    try:
        player, watcher = Client(server, "ann", tmp_path), Client(server, "bob", tmp_path)
        player.wait_for("8-puzzle")
        player.keys("2")
        first = play_a_move(player)
        watcher.wait_for("8-puzzle")
        watcher.keys("w")
        watcher.wait_for(r"ann\s.*15\s", 60)  # the live list: player and puzzle
        watcher.keys("Enter")
        watched = watcher.wait_for(rf"Watching.*\n(.*\n)*.*Moves {first} ", 60)
        player.wait_for("1 watcher live", 30)  # the player sees the count
        before = board_rows(watched)
        after_move = play_a_move(player)
        screen = watcher.wait_for(rf"Moves {after_move} ", 30)  # the counter follows
        assert board_rows(screen) != before  # and so does the board
        watcher.keys("Left", "Right", "Up", "Down", "s")  # the watcher's keys never reach the player
        watcher.wait_for(rf"Moves {after_move} ", 30)
        assert moves_on(player.screen()) == after_move
        watcher.keys("Escape")  # stop watching: the player's count goes away
        deadline = time.monotonic() + 30
        while "watcher live" in player.screen() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert "watcher live" not in player.screen()
        assert "being played now" in watcher.screen()
    finally:
        for client in (player, watcher):
            if client is not None:
                client.close()
        server.kill()
