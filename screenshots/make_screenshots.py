"""Regenerate an SVG of every Koma screen from the real app: ``python screenshots/make_screenshots.py``.

Each screen is driven with Pilot at 100x30 (``--size WxH`` to change it), with a private database
and cache, fixed boards and a frozen clock, and saved as ``screenshots/<name>.svg``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
os.environ.setdefault("KOMA_DATA_DIR", tempfile.mkdtemp(prefix="koma-shots-data-"))

from solver.registry import get_puzzle  # noqa: E402
from tui.app import KomaApp  # noqa: E402
from tui.game.records import SavedGame  # noqa: E402
from tui.storage.store import Store  # noqa: E402

DATABASE: list[Path] = []  # the shot's own database file (the other players of a shot write to it too)


async def until(pilot, condition, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError("the app did not get there in time")
        await pilot.pause(0.05)


async def settle(pilot) -> None:
    screen = pilot.app.screen
    await until(pilot, screen.warm.is_set)
    await until(pilot, lambda: not screen.solver.distance_pending(screen.state) or not screen.proof.solvable)
    await pilot.pause(0.2)


async def nothing(pilot) -> None:
    await pilot.pause(0.2)


def keys(*pressed):
    async def run(pilot) -> None:
        await settle(pilot)
        await pilot.press(*pressed)
        await pilot.pause(0.3)

    return run


async def mid_playback(pilot) -> None:
    await settle(pilot)
    screen = pilot.app.screen
    await pilot.press("s")
    await until(pilot, lambda: screen.playback.active)
    await until(pilot, lambda: screen.position >= 8)
    await pilot.press("space")
    await pilot.pause(0.3)


async def hint(pilot) -> None:
    await settle(pilot)
    screen = pilot.app.screen
    await pilot.press("t")
    await until(pilot, lambda: screen.message.startswith("Hint"))
    await pilot.pause(0.3)


async def won(pilot) -> None:
    await settle(pilot)
    screen = pilot.app.screen
    await pilot.press("left", "left")
    await until(pilot, lambda: screen.won)
    pilot.app.clear_notifications()
    await pilot.pause(0.3)


def gallery(tab: str, *pressed):
    async def run(pilot) -> None:
        await pilot.press("g")
        await until(pilot, lambda: hasattr(pilot.app.screen, "figures"))
        screen = pilot.app.screen
        while screen.tab != tab:
            await pilot.press("right_square_bracket")
        await until(pilot, lambda: screen.figures is not None)
        await pilot.press(*pressed)
        await pilot.pause(0.3)

    return run


def lab(key: str, tab: str, *pressed):
    async def run(pilot) -> None:
        await pilot.press(key)
        await until(pilot, lambda: hasattr(pilot.app.screen, "tab"))
        screen = pilot.app.screen
        while screen.tab != tab:
            await pilot.press("right_square_bracket")
        await pilot.pause(0.2)
        await pilot.press(*pressed)
        await pilot.pause(0.3)

    return run


async def loop_demo(pilot) -> None:
    await pilot.press("o")
    await until(pilot, lambda: hasattr(pilot.app.screen, "stats"))
    screen = pilot.app.screen
    await until(pilot, lambda: screen.run is not None and "loop" in screen.stats)
    await pilot.press("space", "x")
    await until(pilot, lambda: screen.run is not None)
    await pilot.press("e")
    await pilot.pause(0.3)


def algorithm_lab(tab: str):
    async def run(pilot) -> None:
        await pilot.press("a")
        await until(pilot, lambda: hasattr(pilot.app.screen, "jobs"))
        screen = pilot.app.screen
        while screen.tab != tab:
            await pilot.press("right_square_bracket")
        await pilot.press("r")
        await until(pilot, lambda: len(screen.results) == len(screen.methods) and not screen.jobs)
        await pilot.pause(0.3)

    return run


async def leaderboard(pilot) -> None:
    """Today's 8-puzzle leaderboard (a fixed day) with a few players' results."""
    os.environ["KOMA_DAY"] = "2025-01-31"
    path = DATABASE[0]
    for name, moves, optimal, seconds, hints in (("hana", 22, 22, 41.0, 0), ("kenji", 22, 22, 73.5, 1),
                                                 ("alice", 24, 22, 38.2, 0), ("bob", 30, 22, 95.0, 2),
                                                 ("yuki", 26, None, 120.0, 0)):
        Store(path, player=f"user:{name}", name=name).record_daily("2025-01-31", "8", moves, optimal, seconds, hints)
    await pilot.press("d")
    await until(pilot, lambda: hasattr(pilot.app.screen, "day"))
    await pilot.pause(0.3)


async def your_stats(pilot) -> None:
    """Your stats: a few 8-puzzle games you finished (real solutions, one of them Koma's), with the trend."""
    from solver import solving as search
    from tui.game.records import Replay

    store = Store(DATABASE[0], player="user:you", name="you")  # the app's player, as shoot() makes its store
    eight = get_puzzle("8")
    for k, (board, detour, by_koma) in enumerate((("8 6 7/2 5 4/3 _ 1", 4, False), ("5 1 3/4 2 6/7 _ 8", 2, False),
                                                    ("1 2 3/4 5 6/_ 7 8", 0, False), ("4 1 3/7 2 6/5 8 _", 0, True))):
        start = eight.parse(board)
        moves = list(search.solve(eight, start).moves)
        optimal = len(moves)
        if detour:  # a player's game: a few moves there and back before the optimal ones
            back = {"U": "D", "D": "U", "L": "R", "R": "L"}
            first = eight.moves(start)[0]
            moves = [first, back[first]] * (detour // 2) + moves
        store.record_replay(Replay("8", eight.format(start), moves, ("k" if by_koma else "p") * len(moves),
                                   30.0 + 12 * k, optimal, by_koma, 1_738_000_000 + 3600 * k))
        if by_koma:
            store.record_koma_finish("8")
        else:
            store.record_win("8", len(moves), optimal, 30.0 + 12 * k)
    await pilot.press("v")
    await pilot.pause(0.5)


async def watch_list(pilot) -> None:
    """Watch: two other players' games being played right now."""
    path = DATABASE[0]
    for name, key, board, moves in (("hana", "15", "5 1 2 4/9 6 3 8/13 10 7 11/14 _ 15 12", ["R", "D"]),
                                    ("kenji", "goat", "r-BB/i.dS/l-jW", ["U"])):
        other = Store(path, player=f"user:{name}", name=name)
        other.save_game(key, SavedGame(board, moves, "p" * len(moves), len(moves), 42.0))
        other.touch_game(key)
    await pilot.press("w")
    await pilot.pause(0.8)


async def speed(pilot) -> None:
    await pilot.press("s")  # Speed, from the home screen: a random-state scramble, the clock waits for the first move
    await until(pilot, lambda: type(pilot.app.screen).__name__ == "SpeedScreen")
    await pilot.pause(0.3)


async def race_lobby(pilot) -> None:
    await pilot.press("x")
    await until(pilot, lambda: type(pilot.app.screen).__name__ == "RaceLobbyScreen")
    await pilot.pause(0.5)


async def race(pilot) -> None:
    """A private 4x4 race of four: three friends joined by the room's code (their moves written as their games
    write them), seconds after the reveal, the player a few moves in."""
    await race_lobby(pilot)
    await pilot.press("c")
    await until(pilot, lambda: type(pilot.app.screen).__name__ == "RaceScreen")
    screen = pilot.app.screen
    path = DATABASE[0]
    friends = [Store(path, player=f"user:{name}", name=name) for name in ("hana", "kenji", "yuki")]
    for friend in friends:
        friend.join_code(friend.player, friend.player.removeprefix("user:"), screen.room.code)
    await until(pilot, lambda: len(screen.room.racers) == 4)
    await pilot.press("s")
    await until(pilot, lambda: screen.revealed_round == screen.room.round)
    room = screen.room
    rng = random.Random(7)
    for k, friend in enumerate(friends):
        state, moves = room.scramble, []
        for _ in range(8 + 5 * k):
            move = rng.choice([m for m in room.puzzle.moves(state) if not moves or m != UNDO[moves[-1]]])
            moves.append(move)
            state = room.puzzle.apply(state, move)
        friend.push(room.room, room.round, friend.player, "".join(moves),
                    [1400 * (j + 1) // len(moves) for j in range(len(moves))])
    state = room.scramble
    for _ in range(6):
        move = next(m for m in room.puzzle.moves(state))
        state = room.puzzle.apply(state, move)
        await pilot.press({"U": "up", "D": "down", "L": "left", "R": "right"}[move])
    await pilot.pause(1.2)


UNDO = {"U": "D", "D": "U", "L": "R", "R": "L"}


# name -> (puzzle, board, size, ascii, what to do before the shot[, the terminal's size instead of --size])
SHOTS = {
    "home": (None, None, None, False, nothing),
    "play-8": ("8", "8 6 7/2 5 4/3 _ 1", None, False, settle),
    "play-8-hint": ("8", "5 1 3/4 2 6/7 _ 8", None, False, hint),
    "play-8-won": ("8", "1 2 3/4 5 6/_ 7 8", None, False, won),
    "play-8-playback": ("8", "8 6 7/2 5 4/3 _ 1", None, False, mid_playback),
    "play-15": ("15", "5 1 2 4/9 6 3 8/13 10 7 11/14 _ 15 12", None, False, settle),
    "play-goat": ("goat", "r-BB/i.dS/l-jW", None, False, settle),
    "play-goat-ascii": ("goat", "r-BB/i.dS/l-jW", None, True, settle),
    "play-ura-3x3": ("ura", "BWB/WBB/BBB", "3x3", False, settle),
    "play-ura-6x6": ("ura", "BWWWWB/BWWBWB/WBWBWW/WBWBWW/WWWBWW/BWBBWB", "6x6", False, settle),
    "proof-15": ("15", "1 2 3 4/5 6 7 8/9 10 11 12/13 15 14 _", None, False, keys("p")),
    "proof-goat": ("goat", "r-BB/i.dS/l-jW", None, False, keys("p")),
    "help": ("8", "8 6 7/2 5 4/3 _ 1", None, False, keys("question_mark")),
    "gallery-8": (None, None, None, False, gallery("g-8")),
    "gallery-goat": (None, None, None, False, gallery("g-goat")),
    "gallery-ura-5x5-classes": (None, None, None, False, gallery("g-ura-5", "c", "right")),
    "parity-lab-15": (None, None, None, False, lab("p", "p-15", "space", "right", "space")),
    "parity-lab-ura": (None, None, None, False, lab("p", "p-ura-3", "space")),
    "parity-lab-goat": (None, None, None, False, lab("p", "p-goat")),
    "loop-demo": (None, None, None, False, loop_demo),
    "algorithm-lab-8": (None, None, None, False, algorithm_lab("a-8")),
    "algorithm-lab-goat": (None, None, None, False, algorithm_lab("a-goat")),
    "leaderboard": (None, None, None, False, leaderboard),
    "stats": (None, None, None, False, your_stats),
    "watch": (None, None, None, False, watch_list),
    "new-game": ("8", "8 6 7/2 5 4/3 _ 1", None, False, keys("n", "down", "down", "enter", *"1 2 3/4 5 6/8 7 _")),
    "speed": (None, None, None, False, speed),
    "play-10x10": ("sliding", None, "10x10", False, nothing, (80, 24)),
    "play-15-44x20": ("15", "5 1 2 4/9 6 3 8/13 10 7 11/14 _ 15 12", None, False, settle, (44, 20)),
    "home-44x20": (None, None, None, False, nothing, (44, 20)),
    "race-lobby": (None, None, None, False, race_lobby),
    "race": (None, None, None, False, race),
    "race-44x20": (None, None, None, False, race, (44, 20)),
}


async def shoot(name: str, size: tuple[int, int], out: Path) -> Path:
    puzzle_name, board, board_size, ascii_only, before, *own_size = SHOTS[name]
    size = own_size[0] if own_size else size
    puzzle = get_puzzle(puzzle_name, board_size) if puzzle_name else None
    start = puzzle.parse(board) if board else (puzzle.random_state(3) if puzzle is not None else None)
    with tempfile.TemporaryDirectory() as data:
        DATABASE[:] = [Path(data) / "koma.db"]
        store = Store(DATABASE[0], player="user:you", name="you")
        app = KomaApp(puzzle=puzzle, start=start, ascii_only=ascii_only, store=store,
                      clock=lambda: 0.0, animate_spinner=False, keymap={})
        async with app.run_test(size=size) as pilot:
            await before(pilot)
            path = out / f"{name}.svg"
            app.save_screenshot(filename=path.name, path=str(out))
    return path


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help=f"only these ({', '.join(SHOTS)})")
    parser.add_argument("--size", default="100x30", help="terminal size WxH")
    parser.add_argument("--out", default=str(HERE), help="output directory")
    args = parser.parse_args(argv)
    width, height = (int(v) for v in args.size.lower().split("x"))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for name in args.names or SHOTS:
        if name not in SHOTS:
            parser.error(f"unknown screen {name!r}")
        path = asyncio.run(shoot(name, (width, height), out))
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
