"""Snapshots of the race lobby and the race screen at 40x20, 60x24 and 80x24: a 4x4 race of five, 12.3 s after
the reveal on a frozen wall clock (one finished, one DNF, two racing), seeded and drawn without a store or a link.

Regenerate after a deliberate change with ``pytest tests/tui/test_race_snapshots.py --snapshot-update``.
"""

from __future__ import annotations

import random

import pytest
from tui_helpers import make_app, settled

from tui.game.race import RacePhase, Racer, Room
from tui.game.speed import speed_puzzle
from tui.screens.race import RaceScreen
from tui.screens.race_lobby import RaceLobbyScreen
from tui.storage.store import Store

SIZES = [(40, 20), (60, 24), (80, 24)]
NOW = 1_800_000_000.0  # the frozen wall clock
REVEAL = NOW - 12.3


class StillLink:
    """A race link that never hears from the store: the screen shows the room it was given."""

    def __init__(self, connect, room, player, on_room, on_trouble):
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
