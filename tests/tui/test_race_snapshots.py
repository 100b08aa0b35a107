"""Snapshots of the race lobby and the race screen at 40x20, 60x24 and 80x24: a 4x4 race of five, 12.3 s after
the reveal on a frozen wall clock (one finished, one DNF, two racing), seeded and drawn without a store or a link.

Regenerate after a deliberate change with ``pytest tests/tui/test_race_snapshots.py --snapshot-update``.
"""

from __future__ import annotations

import random
import threading
import time
from dataclasses import replace

import pytest
from rich.cells import cell_len
from test_small_screens import clipped_keys
from tui_helpers import make_app, record_calls, settled, wait_for

from tui.ascii import Static
from tui.game.race_rules import RacePhase, Racer, Room
from tui.game.speed import speed_puzzle
from tui.messages import RoomChanged, RoomMoved
from tui.screens.race import RaceScreen
from tui.screens.race_lobby import RaceLobbyScreen
from tui.screens.race_views import TICK_SLACK_SECONDS, next_clock_change
from tui.screens.race_watch import RaceSpectateScreen
from tui.storage.store import Store
from tui.widgets.board import Board
from tui.widgets.race_minis import RaceMinis

SIZES = [(40, 20), (60, 24), (80, 24)]
NOW = 1_800_000_000.0  # the frozen wall clock
REVEAL = NOW - 12.3


class StillLink:
    """A race link that never hears from the store: the screen shows the room it was given."""

    def __init__(self, connect, room, player, on_room, on_trouble, **options):
        pass

    def start(self) -> None: ...
    def stop(self) -> None: ...
    def send(self, moves, times, finished_ms=None, dnf=False) -> None: ...
    def ask_start(self) -> None: ...
    def ask_rematch(self) -> None: ...
    def leave(self) -> None: ...


def walk(puzzle, state, rng: random.Random, count: int) -> str:
    """``count`` random legal moves from ``state``, never undoing the last."""
    moves = ""
    while len(moves) < count:
        direction = rng.choice("UDLR")
        if moves and direction == UNDO[moves[-1]]:
            continue
        try:
            state = puzzle.apply(state, direction)
        except Exception:
            continue
        moves += direction
    return moves


UNDO = {"U": "D", "D": "U", "L": "R", "R": "L"}


def race_room() -> Room:
    """The scramble is 40 moves from the goal, so bob's finish undoes them (a board solved by its moves)."""
    rng = random.Random(35)
    puzzle = speed_puzzle(4, 4)
    walked = walk(puzzle, puzzle.goal, rng, 40)
    scramble = puzzle.replay(puzzle.goal, walked)[-1]

    def racer(name: str, moves: str, **kwargs) -> Racer:
        times = tuple(sorted(rng.randrange(300, 9000) for _ in moves))
        return Racer(f"user:{name}", name, NOW - 60, NOW, moves, times, **kwargs)

    solution = "".join(UNDO[move] for move in reversed(walked))
    bob = racer("bob", solution)
    bob = Racer(bob.player, bob.name, bob.joined, bob.seen, bob.moves, bob.times_ms, finished_ms=bob.times_ms[-1])
    racers = (racer("ann", walk(puzzle, scramble, rng, 23)), bob, racer("cyd", walk(puzzle, scramble, rng, 41)),
              racer("dee", walk(puzzle, scramble, rng, 12), dnf=True), racer("eve", walk(puzzle, scramble, rng, 30)))
    return Room("0" * 32, None, 4, 4, "user:ann", 0, RacePhase.RACING, REVEAL, scramble, racers, version=9)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_race_screen(snap_compare, tmp_path, size):
    async def open_race(pilot):
        await pilot.app.push_screen(RaceScreen(race_room(), now=lambda: NOW, link=StillLink))
        await pilot.pause(0.5)

    store = Store(tmp_path / "koma.db", player="user:ann", name="ann")
    assert snap_compare(make_app(tmp_path, store=store), terminal_size=size, run_before=open_race)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_race_lobby(snap_compare, tmp_path, size):
    async def open_lobby(pilot):
        await pilot.app.push_screen(RaceLobbyScreen())
        await settled(pilot)
        await pilot.pause(0.3)

    store = Store(tmp_path / "koma.db", player="user:ann", name="ann")
    assert snap_compare(make_app(tmp_path, store=store), terminal_size=size, run_before=open_lobby)


def crowded_room(width: int, height: int) -> Room:
    """A race of eight on a ``width`` x ``height`` board, 12.3 s after the reveal: each racer a few moves in."""
    rng = random.Random(8)
    puzzle = speed_puzzle(width, height)
    scramble = puzzle.replay(puzzle.goal, walk(puzzle, puzzle.goal, rng, 60))[-1]
    names = ("ann", "bob", "cyd", "dee", "eve", "fay", "gus", "hal")
    racers = []
    for name in names:
        moves = walk(puzzle, scramble, rng, rng.randrange(5, 30))
        racers.append(Racer(f"user:{name}", name, NOW - 60, NOW, moves, tuple(sorted(rng.randrange(300, 12000)
                                                                                       for _ in moves))))
    return Room("1" * 32, None, width, height, "user:ann", 0, RacePhase.RACING, REVEAL, scramble, tuple(racers))


@pytest.mark.parametrize("size", [(40, 20), (44, 20), (48, 42), (60, 24), (80, 24)], ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("board", [(3, 3), (4, 4), (10, 10)], ids=lambda b: f"{b[0]}x{b[1]}")
async def test_nothing_is_cut_off_with_seven_opponents(tmp_path, size, board):
    store = Store(tmp_path / "koma.db", player="user:ann", name="ann")
    app = make_app(tmp_path, store=store)
    async with app.run_test(size=size) as pilot:
        screen = RaceScreen(crowded_room(*board), now=lambda: NOW, link=StillLink)
        await app.push_screen(screen)
        await pilot.pause(0.3)
        own = screen.query_one("#race-board", Board)
        columns, rows = board
        tile_w, tile_h = own.tile_size()
        assert own.size.width >= tile_w * columns and own.size.height >= tile_h * rows  # every tile has its room
        assert screen.region.contains_region(own.region)
        minis = screen.query_one(RaceMinis)
        assert screen.region.contains_region(minis.region) and minis.size.height >= 2
        drawn = minis.text_lines()
        assert len(drawn) <= minis.size.height
        assert all(cell_len(line.rstrip()) <= minis.size.width for line in drawn)
        shown = " ".join(drawn)
        # every opponent is drawn, or the last line says how many more there are
        named = sum(1 for name in ("bob", "cyd", "dee", "eve", "fay", "gus", "hal") if name in shown)
        assert named == 7 or f"and {7 - named} more" in shown
        assert clipped_keys(app) == []


@pytest.mark.parametrize("board", [(3, 3), (4, 4)], ids=lambda b: f"{b[0]}x{b[1]}")
async def test_on_a_phones_page_the_race_board_has_boxed_tiles(tmp_path, board):
    """``koma web`` on a phone (390x844 CSS pixels) gives the terminal 48x42: the board above the panel draws boxed
    tiles a thumb can tap, not the compact ones a short terminal needs."""
    store = Store(tmp_path / "koma.db", player="user:ann", name="ann")
    app = make_app(tmp_path, store=store)
    async with app.run_test(size=(48, 42)) as pilot:
        screen = RaceScreen(crowded_room(*board), now=lambda: NOW, link=StillLink)
        await app.push_screen(screen)
        await pilot.pause(0.3)
        own = screen.query_one("#race-board", Board)
        assert own.boxed and own.tile_size()[1] >= 3, own.tile_size()
        assert screen.region.contains_region(own.region)


class HeardLink(StillLink):
    """A race link whose snapshots the test hands to the screen, on a thread of their own as the link's are."""

    def __init__(self, connect, room, player, on_room, on_trouble, **options):
        self.on_room = on_room

    def hear(self, room: Room) -> None:
        thread = threading.Thread(target=self.on_room, args=(room,))
        thread.start()
        thread.join()


def moved_on(room: Room, name: str, finished: bool = False) -> Room:
    """``room`` one version on, ``name`` one legal move further (and finished, if ``finished``)."""
    puzzle = room.puzzle
    racer = next(r for r in room.racers if r.name == name)
    state = racer.state(puzzle, room.scramble)
    move = next(d for d in "UDLR" if d in puzzle.moves(state))
    time_ms = racer.times_ms[-1] + 100
    moved = replace(racer, moves=racer.moves + move, times_ms=(*racer.times_ms, time_ms),
                    finished_ms=time_ms if finished else None)
    return replace(room, racers=tuple(moved if r is racer else r for r in room.racers), version=room.version + 1)


async def test_an_opponents_moves_post_one_message_at_most_and_a_finish_is_shown_at_once(tmp_path):
    store = Store(tmp_path / "koma.db", player="user:ann", name="ann")
    app = make_app(tmp_path, store=store)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = RaceScreen(race_room(), now=lambda: NOW, link=HeardLink)
        await app.push_screen(screen)
        await pilot.pause(0.3)
        link = screen.link
        minis = screen.query_one(RaceMinis)
        posted: list = []
        post = screen.post_message
        screen.post_message = lambda message: posted.append(message) or post(message)  # type: ignore[method-assign]
        room = screen.room
        stm = next(r for r in room.racers if r.name == "cyd").stm
        for _ in range(3):  # cyd moves on: one RoomMoved for the three (the UI thread is busy here), no RoomChanged
            room = moved_on(room, "cyd")
            link.hear(room)
        assert not [m for m in posted if isinstance(m, RoomChanged)]
        assert len([m for m in posted if isinstance(m, RoomMoved)]) == 1
        await wait_for(pilot, lambda: any(m.title == "cyd" and m.figures.startswith(f"{stm + 3} ") for m in minis.minis),
                       timeout=10, what="cyd's moves drawn")
        room = moved_on(room, "cyd")  # taken: the next move posts again
        link.hear(room)
        assert len([m for m in posted if isinstance(m, RoomMoved)]) == 2
        await wait_for(pilot, lambda: any(m.title == "cyd" and m.figures.startswith(f"{stm + 4} ") for m in minis.minis),
                       timeout=10, what="cyd's next move drawn")
        assert screen.room is room
        room = moved_on(room, "cyd", finished=True)  # a finish changes the room's outline: posted at once
        link.hear(room)
        assert [m.room for m in posted if isinstance(m, RoomChanged)] == [room]
        await wait_for(pilot, lambda: "cyd" in str(screen.query_one("#race-order").render()), timeout=10,
                       what="cyd in the finish order")


def clock_and_minis_drawn(monkeypatch, clock: Static, screen) -> tuple[list[str], list[list[str]]]:
    """From now on: every text put on ``clock``, and every drawing of the screen's minis (each mini's figures)."""
    shown = record_calls(monkeypatch, clock, "update", lambda content="", **_: str(content))
    drawn = record_calls(monkeypatch, screen.query_one(RaceMinis), "show", lambda new, **_: [m.figures for m in new])
    return shown, drawn


async def test_an_idle_race_screen_redraws_its_clock_once_a_second(tmp_path, monkeypatch):
    """Nobody types: the running clock shows whole seconds and is drawn when its second changes, not ten times a
    second; the opponents' running clocks too; the next tick is the next whole second from the reveal."""
    store = Store(tmp_path / "koma.db", player="user:ann", name="ann")
    app = make_app(tmp_path, store=store)
    shift = time.time() - NOW  # the room's clock runs: the race 12.3 s old when the screen opens
    async with app.run_test(size=(80, 24)) as pilot:
        screen = RaceScreen(race_room(), now=lambda: time.time() - shift, link=StillLink)
        await app.push_screen(screen)
        await wait_for(pilot, lambda: "Time" in str(screen.query_one("#race-clock", Static).content), timeout=10,
                       what="the clock")
        shown, drawn = clock_and_minis_drawn(monkeypatch, screen.query_one("#race-clock", Static), screen)
        second = int(screen.now() - REVEAL)
        # counted from the first tick on: before it, the screen's first layouts may draw the clock again (a loaded
        # box delivers them late), which is no tick
        await wait_for(pilot, lambda: any(f" {second + 1}s " in line for line in shown), timeout=20,
                       what="the clock's first tick")
        shown.clear()
        drawn.clear()
        await wait_for(pilot, lambda: any(f" {second + 3}s " in line for line in shown), timeout=20,
                       what="the clock two seconds on")
        seconds = [line.split()[1] for line in shown]
        assert seconds == [f"{second + 2}s", f"{second + 3}s"], shown  # one a second
        # cyd and eve race on: their running clocks are drawn once a second too
        assert 1 <= len(drawn) <= 3 and any(figures.split()[1] == f"{second + 3}s" for figures in drawn[-1]), drawn
        ahead = screen.next_tick_seconds()
        assert ahead is not None and 0 < ahead <= 1.01
        assert abs((screen.now() - REVEAL + ahead) % 1 - TICK_SLACK_SECONDS) < 0.002


async def test_a_watched_race_redraws_its_clock_once_a_second_and_its_boards_on_a_move(tmp_path, monkeypatch):
    """Watching a race where nobody types: the title's clock shows whole seconds and is drawn when its second
    changes (no 10 Hz tick: it used to show tenths, twice a second), the boards once a second for their clocks; an
    opponent's move is one message, and the boards are drawn for it (at most twenty times a second)."""
    store = Store(tmp_path / "koma.db", player="user:carl", name="carl")
    app = make_app(tmp_path, store=store)
    shift = time.time() - NOW  # the race 12.3 s old when the screen opens
    async with app.run_test(size=(80, 24)) as pilot:
        room = race_room()
        screen = RaceSpectateScreen(room, now=lambda: time.time() - shift, link=StillLink)
        await app.push_screen(screen)
        title = screen.query_one("#race-spectate-title", Static)
        await wait_for(pilot, lambda: "racing" in str(title.content), timeout=10, what="the title's clock")
        shown, drawn = clock_and_minis_drawn(monkeypatch, title, screen)
        second = int(screen.now() - REVEAL)
        await wait_for(pilot, lambda: any(f"racing · {second + 2}s" in line for line in shown), timeout=20,
                       what="the clock two seconds on")
        assert [line.split("racing · ")[1].split()[0] for line in shown][-2:] == [f"{second + 1}s", f"{second + 2}s"]
        assert len(shown) <= 3, shown  # one a second
        assert 1 <= len(drawn) <= 3, drawn  # the boards' clocks, once a second
        racer = room.racers[0]  # ann: a snapshot where she has one move fewer is as good a move as one more
        moved = replace(room, version=room.version + 1,
                        racers=(replace(racer, moves=racer.moves[:-1], times_ms=racer.times_ms[:-1]), *room.racers[1:]))
        before = len(drawn)
        screen.news.heard(moved)  # as the link's thread hears it
        await wait_for(pilot, lambda: len(drawn) > before, timeout=10, what="the boards drawn for the move")
        assert screen.room is moved


def test_the_next_tick_is_when_the_shown_clock_changes():
    room = race_room()  # 12.3 s after the reveal: the clocks show 12 s until 13 s
    assert next_clock_change(room, NOW) == RaceScreen(room, now=lambda: NOW).next_tick_seconds()
    assert RaceScreen(room, now=lambda: NOW).next_tick_seconds() == pytest.approx(0.7 + TICK_SLACK_SECONDS, abs=1e-3)
    counting = replace(room, phase=RacePhase.COUNTDOWN, reveal_at=NOW + 2.6)  # shows 3 until 2.0 s are left
    assert RaceScreen(counting, now=lambda: NOW).next_tick_seconds() == pytest.approx(0.6 + TICK_SLACK_SECONDS, abs=1e-3)
    assert RaceScreen(replace(room, phase=RacePhase.DONE), now=lambda: NOW).next_tick_seconds() is None
    joined = tuple(replace(racer, joined=NOW - 2.2) for racer in room.racers)  # a quick room: starts in 7.8 s, "8 s"
    lobby = replace(room, phase=RacePhase.LOBBY, reveal_at=None, scramble=None, racers=joined[:2])
    assert RaceScreen(lobby, now=lambda: NOW).next_tick_seconds() == pytest.approx(0.3 + TICK_SLACK_SECONDS, abs=1e-3)
    private = replace(lobby, code="ABCDE")  # nothing in a private room's lobby runs by the clock
    assert RaceScreen(private, now=lambda: NOW).next_tick_seconds() is None
