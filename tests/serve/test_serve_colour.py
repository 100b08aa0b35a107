"""Colours over SSH: truecolor when the client sends COLORTERM (an SSH env request), else 256 colours."""

from __future__ import annotations

import re
import subprocess

import pytest
from serve_helpers import HAVE_ASYNCSSH, SSH, TMUX, Client, Server

from tui.server.colour import colour_environment

needs_server = pytest.mark.skipif(not HAVE_ASYNCSSH or SSH is None or TMUX is None,
                                  reason="needs asyncssh (the ssh extra), the OpenSSH client and tmux (CI installs them)")


@pytest.mark.parametrize("terminal,client,operator,expected", [
    ("xterm-256color", {"COLORTERM": "truecolor"}, {}, {"COLORTERM": "truecolor"}),
    ("xterm", {"COLORTERM": "24BIT"}, {}, {"COLORTERM": "24bit"}),
    ("xterm", {}, {}, {"TEXTUAL_COLOR_SYSTEM": "256"}),
    ("xterm-256color", {}, {}, {}),  # TERM says 256 already
    ("xterm", {"COLORTERM": "yes please; rm -rf /"}, {}, {"TEXTUAL_COLOR_SYSTEM": "256"}),  # only the two values pass
    ("xterm", {"COLORTERM": "truecolor"}, {"TEXTUAL_COLOR_SYSTEM": "standard"}, {}),  # the operator's choice is inherited
    ("xterm", {}, {"KOMA_SERVE_COLORTERM": "truecolor"}, {"COLORTERM": "truecolor"}),
])
def test_colour_environment(terminal, client, operator, expected):
    assert colour_environment(terminal, client, operator) == expected


def styled_screen(client: Client) -> str:
    """The client's screen with its colour escapes, as tmux holds them."""
    return subprocess.run([TMUX, "capture-pane", "-e", "-p", "-t", client.name], capture_output=True, text=True).stdout




@needs_server
def test_a_client_that_sends_colorterm_gets_truecolor_and_others_256(tmp_path):
    server = Server(tmp_path / "data", "--open", "--rate-limit", "0")
    clients = []
    try:
        clients.append(Client(server, "iris", tmp_path, "-o", "SetEnv=COLORTERM=truecolor"))
        clients[0].wait_for("8-puzzle")  # the home screen: the game has drawn
        # what the game draws is the check: a game forked from the warm process keeps the warm process's
        # environment block in /proc/PID/environ, whatever it was given
        assert re.search(r"\x1b\[[0-9;]*[34]8;2;\d+;\d+;\d+", styled_screen(clients[0]))  # 24-bit colours drawn

        clients.append(Client(server, "otto", tmp_path))
        clients[1].wait_for("8-puzzle")
        # tmux's TERM says 256 colours and the client sent no COLORTERM: 256 colours
        screen = styled_screen(clients[1])
        assert re.search(r"\x1b\[[0-9;]*[34]8;5;\d+", screen) and not re.search(r"[34]8;2;", screen)
    finally:
        for client in clients:
            client.close()
        server.kill()
