"""An SSH session channel that stores only the environment variables it is told to (asyncssh would store them all).

asyncssh has no public way to refuse a client's ``env`` request: its server channel stores every one
(``SSHServerChannel._process_env_request``, into ``_env``), so a flood of them costs the server memory.
:func:`session_channel` makes asyncssh's channel, with the connection's settings, and turns it into a
:class:`LimitedEnvironmentChannel`, which refuses a variable not allowed (or too long) before storing it.
What this relies on is checked on first use (:func:`misfit`); if asyncssh is not the one it was written
for (2.24), the channel is asyncssh's own, and Koma says so once (:func:`tui.patches.checks.step_aside`).
Never imports Textual.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any, cast

from tui.patches.asyncssh_import import asyncssh
from tui.patches.checks import first_problem, library_version, missing, parameters_differ, step_aside, told_if_misfit

OVERRIDE = "limit on SSH environment requests"
INSTEAD = "a session stores every variable a client sends (asyncssh's own channel)"


class LimitedEnvironmentChannel(asyncssh.SSHServerChannel):
    """A session channel that stores only the variables in :attr:`allowed` (name -> longest value); every other
    ``env`` request is refused before it is stored."""

    allowed: Mapping[bytes, int] = {}

    def _process_env_request(self, packet: Any) -> bool:
        name, value = packet.get_string(), packet.get_string()
        packet.check_end()
        if len(value) > self.allowed.get(name, -1):
            return False
        self._env[name] = value
        return True


def channel_misfit() -> str | None:
    """Why this asyncssh's server channel is not the one :class:`LimitedEnvironmentChannel` was written for, or None."""
    return first_problem(
        lambda: missing(asyncssh.SSHServerChannel, ["_process_env_request", "get_environment_bytes"]),
        lambda: parameters_differ(asyncssh.SSHServerChannel._process_env_request, ["self", "packet"]),
    )


@functools.cache
def misfit() -> str | None:
    """:func:`channel_misfit`, checked on first use and told once (:func:`tui.patches.checks.step_aside`) if there is one."""
    return told_if_misfit(OVERRIDE, channel_misfit(), INSTEAD, library_version("asyncssh"))


def session_channel(connection: asyncssh.SSHServerConnection, allowed: Mapping[bytes, int]) -> asyncssh.SSHServerChannel:
    """A new session channel of ``connection`` (asyncssh's, with the connection's settings) that stores only the
    ``allowed`` variables, with values at most that long; asyncssh's own when this asyncssh does not fit."""
    channel = connection.create_server_channel()
    if misfit():
        return channel
    if type(channel) is not asyncssh.SSHServerChannel or not isinstance(getattr(channel, "_env", None), dict):
        step_aside(OVERRIDE, "a session channel is not an SSHServerChannel with an _env dict", INSTEAD,
                   library_version("asyncssh"))
        return channel
    channel.__class__ = LimitedEnvironmentChannel  # the same object and state, with the env request handled here
    limited = cast(LimitedEnvironmentChannel, channel)
    limited.allowed = allowed
    return limited
