"""``koma bench serve`` and ``koma bench serve-crowd``: the scenarios of :mod:`koma_bench.serve.scenarios` on a private
``koma serve``, each player an asyncssh client with an ``xterm-256color`` pty of 80x24.  Imported only when a case
runs (asyncssh is imported only when a player connects)."""

from __future__ import annotations

import asyncio
from typing import Any

from koma_bench.serve import scenarios
from koma_bench.serve.race_scenarios import RACE_SCENARIOS, race_screens, run_with_replicas
from koma_bench.serve.scenarios import CONNECT_SECONDS, SCENARIOS, run_with_server


class Session(scenarios.Session):
    """One SSH client on a pty of ``size`` (80x24 unless the scenario says otherwise)."""

    async def connect(self, port: int) -> None:
        from tui.patches.asyncssh_import import asyncssh

        self.connection = await asyncio.wait_for(asyncssh.connect(
            "127.0.0.1", port, username=self.user, known_hosts=None, client_keys=None, agent_path=None,
            preferred_auth="none"), CONNECT_SECONDS)
        self.process = await self.connection.create_process(term_type="xterm-256color", term_size=self.size,
                                                            encoding=None)
        self.reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        while True:
            try:
                data = await self.process.stdout.read(65536)
            except Exception:
                data = b""
            if not data:
                self.changed.set()
                return
            self.take(data)

    def key(self, keys: str) -> None:
        self.process.stdin.write(keys.encode())

    async def close(self) -> None:
        if self.connection is not None:
            self.connection.close()
            try:
                await asyncio.wait_for(self.connection.wait_closed(), 10)
            except (TimeoutError, OSError):
                pass
        if self.reader is not None:
            self.reader.cancel()


class BenchServer(scenarios.BenchServer):
    """``koma serve --open`` on 127.0.0.1:0 with a temporary data dir."""

    ARGUMENTS = ("serve", "--open", "--host", "127.0.0.1", "--port", "0", "--rate-limit", "0", "--idle-timeout", "0",
                 "--max-sessions-per-player", "0")
    LISTENING = r"listening on 127\.0\.0\.1:(\d+)"

    def session(self, user: str) -> Session:
        return Session(user)


def run_scenario(name: str, *options: str, checkout: str | None = None) -> dict[str, Any]:
    """Run one scenario of :data:`koma_bench.serve.scenarios.SCENARIOS` (or of
    :data:`koma_bench.serve.race_scenarios.RACE_SCENARIOS`) against a private ``koma serve`` started with
    ``options`` (serving the code of ``checkout``, another checkout's directory, if given)."""
    return run_with_server(options, {**SCENARIOS, **RACE_SCENARIOS}[name], BenchServer, checkout=checkout)


def run_race_screens_on_replicas(url: str, replicas: int = 2) -> dict[str, Any]:
    """The race screens scenario (:func:`koma_bench.serve.race_scenarios.race_screens`) on ``replicas`` ``koma serve`` sharing the
    database at ``url`` (PostgreSQL: the racers' links LISTEN), the racers spread over them."""
    return run_with_replicas(("--database", url), replicas, race_screens, BenchServer)
