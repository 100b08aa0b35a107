"""Admission of ``koma serve``: games start a few at a time (:mod:`tui.server.admission`), the arrivals beyond wait in
order and are told their place; a burst larger than the old limits waits instead of being dropped; the metrics say
what the admission is doing."""

from __future__ import annotations

import asyncio
import re

import pytest
from admin_helpers import samples, value
from serve_helpers import HAVE_ASYNCSSH, SCREEN_SECONDS, SSH, Server

from tui.server.admission import StartQueue

needs_asyncssh = pytest.mark.skipif(not HAVE_ASYNCSSH, reason="asyncssh is not installed (pip install -e '.[ssh]')")
ANSI = re.compile(rb"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[PX^_][^\x1b]*\x1b\\|[@-Z\\-_])")


# --- the queue itself ----------------------------------------------------------------------------------------------

async def test_turns_are_given_at_most_at_once_in_order_and_each_waiter_is_told_its_place():
    queue = StartQueue(1)
    told: dict[str, list[int]] = {"b": [], "c": []}
    first = await queue.turn()
    second = asyncio.ensure_future(queue.turn(told["b"].append))
    third = asyncio.ensure_future(queue.turn(told["c"].append))
    await asyncio.sleep(0)
    assert not second.done() and not third.done()
    assert queue.state()["starting"] == 1 and queue.state()["waiting"] == 2
    first.done()
    turn_b = await asyncio.wait_for(second, 5)
    assert not third.done()
    assert told["b"][0] == 0 and told["c"][0] == 1 and told["c"][-1] == 0  # c moved up when b's turn came
    first.done()  # giving a turn back twice gives back one turn
    await asyncio.sleep(0)
    assert not third.done()
    turn_b.done()
    (await asyncio.wait_for(third, 5)).done()
    assert queue.state() == {"starting": 0, "waiting": 0, "admitted": 3, "waited_seconds": pytest.approx(
        queue.waited_seconds), "at_once": 1}


async def test_a_waiter_that_leaves_gives_up_its_place_and_the_others_move_up():
    queue = StartQueue(1)
    told: list[int] = []
    first = await queue.turn()
    leaving = asyncio.ensure_future(queue.turn())
    staying = asyncio.ensure_future(queue.turn(told.append))
    await asyncio.sleep(0)
    assert told == [1]
    leaving.cancel()
    await asyncio.sleep(0)
    assert told[-1] == 0 and queue.state()["waiting"] == 1
    first.done()
    (await asyncio.wait_for(staying, 5)).done()
    assert queue.state()["starting"] == 0


async def test_a_turn_that_comes_as_its_waiter_leaves_is_passed_on():
    queue = StartQueue(1)
    first = await queue.turn()
    leaving = asyncio.ensure_future(queue.turn())
    staying = asyncio.ensure_future(queue.turn())
    await asyncio.sleep(0)
    first.done()  # the turn is leaving's now, but it is cancelled before it runs
    leaving.cancel()
    turn = await asyncio.wait_for(staying, 5)
    assert queue.state()["starting"] == 1
    turn.done()
    assert queue.state()["starting"] == 0


# --- a real server -------------------------------------------------------------------------------------------------

async def open_game(port: int, user: str):
    import asyncssh

    conn = await asyncssh.connect("127.0.0.1", port, username=user, known_hosts=None, connect_timeout=120)
    process = await conn.create_process(term_type="xterm-256color", term_size=(100, 30), encoding=None)
    return conn, process


async def until_home(process, timeout: float = 4 * SCREEN_SECONDS) -> bytes:
    """What the session received until the home screen (escape sequences out)."""
    received = b""
    deadline = asyncio.get_running_loop().time() + timeout
    while b"8-puzzle" not in ANSI.sub(b"", received):
        left = deadline - asyncio.get_running_loop().time()
        assert left > 0, f"no home screen; received {ANSI.sub(b'', received)[-500:]!r}"
        try:
            data = await asyncio.wait_for(process.stdout.read(65536), left)
        except TimeoutError:
            continue
        assert data, f"the session ended; received {ANSI.sub(b'', received)[-500:]!r}"
        received += data
    return ANSI.sub(b"", received)


async def arrive_at_once(port: int, users: list[str]) -> list[bytes]:
    async def one(user: str) -> bytes:
        conn, process = await open_game(port, user)
        try:
            return await until_home(process)
        finally:
            conn.close()

    return list(await asyncio.gather(*(one(user) for user in users)))


@needs_asyncssh
@pytest.mark.skipif(SSH is None, reason="the OpenSSH client is not installed")
async def test_arrivals_beyond_the_starting_games_wait_told_their_place_and_all_get_in(tmp_path):
    server = Server(tmp_path / "data", "--open", "--rate-limit", "0", "--max-starting", "1", "--admin-port", "0")
    try:
        screens = await arrive_at_once(server.port, [f"queued{k}" for k in range(4)])
        assert all(b"8-puzzle" in screen for screen in screens)
        places = [re.findall(rb"Starting, (\d+) ahead of you", screen) for screen in screens]
        assert any(places), "nobody waited: the games did not start one at a time"
        for told in places:  # each waiter's place only ever went down
            numbers = [int(n) for n in told]
            assert numbers == sorted(numbers, reverse=True)
        found = samples(server.admin_port)
        assert value(found, "koma_games_starting_at_once") == 1
        assert value(found, "koma_start_turns_total") >= 4
        assert value(found, "koma_start_queue") == 0
        assert value(found, "koma_start_wait_seconds_total") > 0
    finally:
        server.kill()


@needs_asyncssh
async def test_a_burst_larger_than_the_old_startup_limit_waits_instead_of_being_dropped(tmp_path):
    """24 players at once under the default settings (the old default of 20 not-logged-in connections dropped the
    oldest beyond it): every one reaches the home screen, none is dropped."""
    server = Server(tmp_path / "data", "--open", "--rate-limit", "0")
    try:
        screens = await arrive_at_once(server.port, [f"burst{k:02d}" for k in range(24)])
        assert len(screens) == 24 and all(b"8-puzzle" in screen for screen in screens)
        assert "dropped" not in server.text()
    finally:
        server.kill()
