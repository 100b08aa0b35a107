"""A race as players run one: two SSH players on ``koma serve`` and a browser on ``koma web`` (Debian's Chromium), the
two servers sharing one store (a SQLite file on one box, or PostgreSQL as replicas share it), in one private room.

The host makes the room and reads its code off the screen; the others type it.  When the host starts the race, each
racer reads the scramble's ID off its own screen, solves that board with Koma's solver and types the solution as
arrow keys at a set pace.  Every racer's screen then shows the same finish order, and the store holds a finished
round whose every racer's moves replay from the scramble to the goal, with times that never go back.  A racer's
dropped connection mid-race and its return are in tests/tui/test_race_link.py (the link) and here: the second SSH
player drops and connects again before typing, and is put back in the race.
"""

from __future__ import annotations

import asyncio
import re

import pytest
from cdp_browser import CHROMIUM, Chromium
from web_helpers import WebServer

from koma_bench.serve.scenarios import HOME
from koma_bench.serve.ssh import BenchServer, Session
from solver.ids import parse_game_id
from solver.solving import solve
from tui.storage.store_choice import connect_store

pytest.importorskip("asyncssh")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no chromium-headless-shell")

DEADLINE = 120.0  # every wait on a condition: long enough for a loaded 2-core box
TPS = 6.0  # each racer types its solution at this pace
ARROWS = {"U": "\x1b[A", "D": "\x1b[B", "R": "\x1b[C", "L": "\x1b[D"}
BROWSER_ARROWS = {"U": "ArrowUp", "D": "ArrowDown", "R": "ArrowRight", "L": "ArrowLeft"}
CODE = re.compile(r"Room ([A-Z]{5})")
SCRAMBLE_ID = re.compile(r"ID (8[-\w]+)")
FINISH = re.compile(r"You finished (\w+)")


def solution_of(game_id: str) -> tuple[str, ...]:
    """The scramble an ID names, solved by Koma (optimal); the moves are the tiles' directions, as the arrows are."""
    puzzle, state = parse_game_id(game_id)
    solution = solve(puzzle, state)
    assert puzzle.replay(state, solution.moves)[-1] == puzzle.goal
    return solution.moves


async def ssh_racer(port: int, user: str) -> Session:
    session = Session(user)
    await session.connect(port)
    await session.wait_for(HOME, 0, DEADLINE)
    return session


async def ssh_type(session: Session, moves: tuple[str, ...]) -> None:
    for move in moves:
        session.key(ARROWS[move])
        await asyncio.sleep(1 / TPS)


async def browser_type(browser: Chromium, moves: tuple[str, ...]) -> None:
    for move in moves:
        await browser.key(BROWSER_ARROWS[move])
        await asyncio.sleep(1 / TPS)


@pytest.fixture(params=["sqlite", "postgres"])
def shared_store(request, tmp_path):
    """The store both servers use: one SQLite file (one box), or PostgreSQL (replicas, notified by LISTEN/NOTIFY)."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'koma.db'}"
    return request.getfixturevalue("postgres_server").new_database()


def test_ssh_and_browser_players_race_in_one_room_and_agree_on_the_result(tmp_path, shared_store):
    url = shared_store
    ssh_server = BenchServer("--database", url, data_dir=tmp_path / "ssh-data")
    web_server = WebServer(tmp_path / "web-data", "--open", "--database", url)
    browser = Chromium()

    async def race() -> tuple[str, dict[str, str]]:
        await ssh_server.started()
        await ssh_server.wait_for_log(r"warm process ready", 180)
        host = await ssh_racer(ssh_server.port, "ann")
        mark = len(host.text)
        host.key("x")  # the race lobby
        await host.wait_for("private room", mark, DEADLINE)
        host.key("---")  # 4x4 -> 3x3
        await host.wait_for(r"3x3", mark, DEADLINE)
        mark = len(host.text)
        host.key("c")
        code = (await host.wait_for(CODE.pattern, mark, DEADLINE)).group(1)

        friend = await ssh_racer(ssh_server.port, "bob")
        friend.key("x")
        await friend.wait_for("join by code", 0, DEADLINE)
        mark = len(friend.text)
        friend.key("j")
        await friend.wait_for("Type the room's code", mark, DEADLINE)  # the code's field has focus: keys go in it
        friend.key(code + "\r")
        await friend.wait_for(rf"Room {code}", 0, DEADLINE)

        await browser.page()
        await browser.call("Page.navigate", url=web_server.url)
        await browser.wait_for(HOME, DEADLINE)
        await browser.evaluate("koma.terminal.focus()")
        await browser.key("x")
        await browser.wait_for("join by code", DEADLINE)
        await browser.key("j")
        await browser.wait_for("Type the room's code", DEADLINE)
        for letter in code:
            await browser.key(letter)
        await browser.key("Enter")
        await browser.wait_for(rf"Room {code}", DEADLINE)
        await host.wait_for(r"3 racers|racers: 3|3/8", 0, DEADLINE)

        mark = {"ann": len(host.text), "bob": len(friend.text)}
        host.key("s")  # the host starts: a countdown, then the same scramble for everyone
        ids = {"ann": (await host.wait_for(SCRAMBLE_ID.pattern, mark["ann"], DEADLINE)).group(1),
               "bob": (await friend.wait_for(SCRAMBLE_ID.pattern, mark["bob"], DEADLINE)).group(1),
               "browser": SCRAMBLE_ID.search(await browser.wait_for(SCRAMBLE_ID.pattern, DEADLINE)).group(1)}
        assert len(set(ids.values())) == 1, ids
        moves = solution_of(ids["ann"])

        # bob's connection drops before he types; he comes back, and the lobby puts him back in the race
        await friend.close()
        friend = await ssh_racer(ssh_server.port, "bob")
        friend.key("x")
        await friend.wait_for("back to your race", 0, DEADLINE)
        friend.key("r")
        await friend.wait_for(SCRAMBLE_ID.pattern, 0, DEADLINE)

        await asyncio.gather(ssh_type(host, moves), ssh_type(friend, moves), browser_type(browser, moves))
        places = {"ann": (await host.wait_for(FINISH.pattern, mark["ann"], DEADLINE)).group(1),
                  "bob": (await friend.wait_for(FINISH.pattern, 0, DEADLINE)).group(1),
                  "browser": FINISH.search(await browser.wait_for(FINISH.pattern, DEADLINE)).group(1)}
        for session in (host, friend):
            session.key("\x1b")
            await session.close()
        return code, places

    try:
        code, places = asyncio.run(asyncio.wait_for(race(), 600))
    finally:
        asyncio.run(browser.close())
        ssh_server.stop()
        web_server.stop()
    assert sorted(places.values()) == ["1st", "2nd", "3rd"], places

    store = connect_store(url, "user:ann")
    try:
        room = store.room_of_code(code, open_only=False)
        assert room is not None, f"no room has the code {code}"
        history = store.race_history(room)
    finally:
        store.close()
    finished = [r for r in history if all(racer.finished for racer in r.racers)]
    assert finished, "no round of the room ended with every racer finished"
    final = finished[-1]
    assert len(final.racers) == 3
    for racer in final.racers:
        board = racer.state(final.puzzle, final.scramble)
        assert final.puzzle.is_goal(board), f"{racer.name}'s moves do not solve the scramble"
        assert list(racer.times_ms) == sorted(racer.times_ms) and racer.times_ms[0] >= 0
    stored = {p.racer.player: p.place for p in final.results()}
    assert sorted(stored.values()) == [1, 2, 3]
    ordinal = {1: "1st", 2: "2nd", 3: "3rd"}
    # each racer's screen said the place the store holds (the browser's player is its guest)
    assert places["ann"] == ordinal[stored["user:ann"]] and places["bob"] == ordinal[stored["user:bob"]]
    guest = next(player for player in stored if player.startswith("web:"))
    assert places["browser"] == ordinal[stored[guest]]
