"""The warm pool of ``koma serve``: one pre-warmed process (:mod:`tui.zygote`) forks a game per connection.

The server starts ``python -m tui.zygote FD`` with one end of a Unix ``SOCK_SEQPACKET`` socket pair.
Messages are small JSON objects, one per packet:

- zygote -> server: ``{"ready": pid, "seconds": s}`` once warm; ``{"id": n, "pid": p}`` (or
  ``{"id": n, "error": why}``) for each request; ``{"exited": p, "status": s}`` when a game ends
  (``s`` as :attr:`subprocess.Popen.returncode`: negative for a signal).
- server -> zygote: ``{"id": n, "env": {...}, "cwd": dir, "cpu_limit": s, "memory_limit": mib}`` with the
  game's pty (its terminal end) passed as a file descriptor (``socket.send_fds``).

If the zygote dies, requests in flight fail (the caller falls back to a cold start), the games it
forked go on (they are in their own sessions; their ends are noticed through a pidfd), and a new
zygote is started.  This module never imports Textual: only the zygote does.
"""

from __future__ import annotations

import asyncio
import json
import os
import resource
import signal
import socket
import sys
import time
from collections.abc import Callable
from typing import Any

MESSAGE_BYTES = 1 << 16
RESTART_SECONDS = (1.0, 30.0)  # first and longest wait before starting a zygote again
REQUEST_SECONDS = 10.0
PR_SET_CHILD_SUBREAPER = 36  # from <linux/prctl.h>


def apply_limits(cpu_limit: int, memory_limit: int) -> None:
    """A game's limits: no core files, ``cpu_limit`` CPU seconds, ``memory_limit`` MiB of address space (0: none)."""
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if cpu_limit:
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_limit, cpu_limit + 5))
    if memory_limit:
        limit = memory_limit * 2**20
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def encode(message: dict[str, Any]) -> bytes:
    data = json.dumps(message).encode()
    if len(data) > MESSAGE_BYTES:
        raise ValueError("warm pool message too long")
    return data


def decode(data: bytes) -> dict[str, Any]:
    message = json.loads(data)
    if not isinstance(message, dict):
        raise ValueError("warm pool message is not an object")
    return message


class WarmGame:
    """A game forked by the zygote: ``pid``, ``returncode`` and ``wait()``, like an asyncio subprocess."""

    def __init__(self, pid: int):
        self.pid = pid
        self.returncode: int | None = None
        self._ended = asyncio.get_running_loop().create_future()

    def ended(self, status: int | None) -> None:
        if not self._ended.done():
            self.returncode = status
            self._ended.set_result(status)

    async def wait(self) -> int | None:
        return await asyncio.shield(self._ended)


class WarmPool:
    """Keeps one zygote running; :meth:`spawn` asks it for a game (raises OSError when it cannot)."""

    def __init__(self, env: dict[str, str], log: Callable[[str], None]):
        self.env = env
        self.log = log
        self.process: asyncio.subprocess.Process | None = None
        self.sock: socket.socket | None = None
        self.ready = False
        self.became_ready = asyncio.Event()  # set while :attr:`ready`
        self.closing = False
        self.games: dict[int, WarmGame] = {}
        self.requests: dict[int, asyncio.Future] = {}
        self.next_id = 0
        self.restart_wait = RESTART_SECONDS[0]
        self.started_at = 0.0
        self.task: asyncio.Task | None = None

    def start(self) -> None:
        """Start the zygote in the background; games start cold until it says it is ready."""
        self.task = asyncio.ensure_future(self._keep_running())

    @property
    def warming(self) -> bool:
        """A zygote is running and warming up (not yet ready, not stopping)."""
        return (not self.ready and not self.closing and self.process is not None and self.process.returncode is None
                and self.sock is not None)

    async def wait_until_ready(self, seconds: float) -> bool:
        """Wait at most ``seconds`` for the zygote to be ready; whether it is."""
        try:
            await asyncio.wait_for(self.became_ready.wait(), seconds)
        except TimeoutError:
            pass
        return self.ready

    async def _keep_running(self) -> None:
        while not self.closing:
            try:
                await self._run_one()
            except OSError as problem:
                self.log(f"cannot start the warm process ({problem}); games start cold")
            if self.closing:
                return
            self.log(f"the warm process is gone; games start cold, a new one in {self.restart_wait:g} s")
            await asyncio.sleep(self.restart_wait)
            lived = time.monotonic() - self.started_at
            self.restart_wait = RESTART_SECONDS[0] if lived > 60 else min(self.restart_wait * 2, RESTART_SECONDS[1])

    async def _run_one(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            self.started_at = time.monotonic()
            self.process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "tui.zygote", str(theirs.fileno()), pass_fds=[theirs.fileno()], env=self.env,
                stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL, start_new_session=True)
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        ours.setblocking(False)
        self.sock = ours
        loop = asyncio.get_running_loop()
        try:
            while True:
                data = await loop.sock_recv(ours, MESSAGE_BYTES)
                if not data:
                    break
                self._received(decode(data))
        except (OSError, ValueError) as problem:
            self.log(f"warm process: {problem}")
        finally:
            self.ready = False
            self.became_ready.clear()
            self.sock = None
            ours.close()
            for future in self.requests.values():
                if not future.done():
                    future.set_exception(OSError("the warm process stopped"))
            self.requests.clear()
            orphans, self.games = self.games, {}
            for game in orphans.values():
                watch_orphan(game)
            if self.process.returncode is None:
                try:
                    self.process.kill()
                except ProcessLookupError:
                    pass
            await self.process.wait()

    def _received(self, message: dict[str, Any]) -> None:
        if "ready" in message:
            self.ready = True
            self.became_ready.set()
            self.log(f"warm process ready (pid {message['ready']}, warmed with {float(message.get('seconds', 0)):.2f} s of CPU)")
        elif "exited" in message:
            game = self.games.pop(int(message["exited"]), None)
            if game is not None:
                game.ended(int(message["status"]))
        elif "id" in message:
            future = self.requests.pop(int(message["id"]), None)
            waiting = future if future is not None and not future.done() else None
            if "pid" in message:  # registered here, before its "exited" can arrive
                game = self.games[int(message["pid"])] = WarmGame(int(message["pid"]))
                if waiting is not None:
                    waiting.set_result(game)
                else:  # nobody waits for it any more (its client went, or the answer came too late): no game
                    signal_game(game.pid, signal.SIGKILL)
            elif waiting is not None:
                waiting.set_exception(OSError(str(message.get("error", "the warm process refused"))))

    async def spawn(self, terminal: int, env: dict[str, str], cwd: str | None, cpu_limit: int, memory_limit: int) -> WarmGame:
        """Fork a game on the pty whose terminal end is ``terminal``; OSError if the zygote cannot."""
        sock = self.sock
        if not self.ready or sock is None:
            raise OSError("the warm process is not ready")
        self.next_id += 1
        request = self.next_id
        future = asyncio.get_running_loop().create_future()
        self.requests[request] = future
        message = encode({"id": request, "env": env, "cwd": cwd, "cpu_limit": cpu_limit, "memory_limit": memory_limit})
        try:
            socket.send_fds(sock, [message], [terminal])
            return await asyncio.wait_for(future, REQUEST_SECONDS)
        except TimeoutError:
            self.log(f"the warm process did not answer in {REQUEST_SECONDS:g} s; replacing it")
            self.ready = False
            self.became_ready.clear()
            if self.process is not None and self.process.returncode is None:
                self.process.kill()  # the reader then sees it gone and starts another
            raise OSError("the warm process did not answer") from None
        finally:
            self.requests.pop(request, None)

    async def close(self) -> None:
        """Stop the zygote (the games it forked are stopped by the server, one by one)."""
        self.closing = True
        self.became_ready.set()  # nobody waits for it any more
        if self.process is not None and self.process.returncode is None:
            try:
                self.process.terminate()
            except ProcessLookupError:
                pass
        if self.task is not None:
            try:
                await asyncio.wait_for(self.task, 5.0)
            except (TimeoutError, asyncio.CancelledError):
                self.task.cancel()


def signal_game(pid: int, how: int) -> bool:
    """Signal game ``pid`` and everything it started (its process group); False when it is gone.  A game forked a
    moment ago may not have made its own session yet (the warm process reports the pid as soon as it has forked):
    then there is no such group, and the process itself is signalled."""
    try:
        os.killpg(pid, how)
        return True
    except ProcessLookupError:
        pass
    try:
        os.kill(pid, how)
        return True
    except ProcessLookupError:
        return False


def become_subreaper() -> bool:
    """Make this process the reaper of its orphaned descendants (Linux ``PR_SET_CHILD_SUBREAPER``): the games
    of a zygote that died become the server's children, so their exit statuses are still known."""
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def watch_orphan(game: WarmGame) -> None:
    """A game whose zygote died: notice its end through a pidfd, and reap it when it became our child."""
    try:
        pidfd = os.pidfd_open(game.pid)
    except OSError:  # already gone
        game.ended(None)
        return
    loop = asyncio.get_running_loop()

    def gone() -> None:
        loop.remove_reader(pidfd)
        status = None
        try:
            result = os.waitid(os.P_PIDFD, pidfd, os.WEXITED | os.WNOHANG)
            if result is not None:
                status = result.si_status if result.si_code == os.CLD_EXITED else -result.si_status
        except ChildProcessError:  # not ours (no subreaper): the status is unknown
            pass
        os.close(pidfd)
        game.ended(status)

    loop.add_reader(pidfd, gone)
