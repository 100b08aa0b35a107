"""Times a human could not have set (tui/game/plausibility.py): the probe's bots are marked, kept, and kept off the
boards and the race places (on both backends); human solves built from real move-time patterns pass.

The human solves are legal solves (a random walk from the goal, played back) timed as people play: line moves of one
to three tiles, a mouse click sliding a line's tiles at one millisecond or a hover sliding them a few ms apart,
keyboard runs of presses, gaps drawn around the pace of the speedsolving community's best (20-40 TPS), and the
pauses of recognition between blocks.
"""

from __future__ import annotations

import random
import time
from itertools import groupby

import pytest

from solver.sliding.model import SlidingPuzzle
from tui.game.plausibility import (
    BURST_LINE_MOVES,
    REACTION_MS,
    implausible_game,
    implausible_moves,
    implausible_race,
    implausible_speed_solve,
)
from tui.game.race_rules import RacePhase, Racer, Room
from tui.game.speed import SpeedResult
from tui.game.speed_events import EventResult, event_for
from tui.game.speed_notation import solve_record
from tui.storage.store_choice import open_store

OPPOSITE = {"U": "D", "D": "U", "L": "R", "R": "L"}


def legal_solve(width: int, height: int, tiles: int, rng: random.Random) -> tuple[tuple[int, ...], list[str]]:
    """A scramble and a legal solve of it of ``tiles`` single-tile moves: a random walk from the goal (never undoing
    its last move), reversed."""
    puzzle = SlidingPuzzle(width, height)
    state = puzzle.goal
    walk: list[str] = []
    while len(walk) < tiles:
        options = [m for m in puzzle.moves(state) if not walk or m != OPPOSITE[walk[-1]]]
        move = rng.choice(options)
        state = puzzle.apply(state, move)
        walk.append(move)
    solve = [OPPOSITE[m] for m in reversed(walk)]
    assert puzzle.is_goal(puzzle.replay(state, solve)[-1])
    return state, solve


def human_times(moves: list[str], rng: random.Random, *, tps: float, input_kind: str) -> list[int]:
    """Times for ``moves`` as a hand makes them: per line move (a run of one direction) a gap around the pace of
    ``tps``, its tiles at one ms (a click), a few ms apart (a hover), or as separate presses (keys); a recognition
    pause of 150-600 ms every 10-25 tiles."""
    times: list[int] = []
    now = 0.0
    next_pause = rng.randint(10, 25)
    mean_tile_gap = 1000 / tps
    for _, run in groupby(moves):
        count = len(list(run))
        if times:
            now += rng.uniform(0.6, 1.5) * mean_tile_gap * (count if input_kind == "keys" else max(1.0, count * 0.8))
        if len(times) >= next_pause:
            now += rng.uniform(150, 600)
            next_pause = len(times) + rng.randint(10, 25)
        at = now
        for k in range(count):
            if k and input_kind == "hover":
                at += rng.uniform(1, 4)
            elif k and input_kind == "keys":
                at += rng.uniform(0.7, 1.3) * mean_tile_gap
            times.append(round(at))
        now = times[-1]
    return [t - times[0] for t in times]


HUMANS = [(size, kind, tps, seed) for size in ((3, 3), (4, 4), (5, 5)) for kind in ("click", "hover", "keys")
          for tps, seed in ((20, 1), (30, 2), (40, 3))]


@pytest.mark.parametrize(("size", "input_kind", "tps", "seed"), HUMANS)
def test_human_solves_at_record_paces_pass(size, input_kind, tps, seed):
    rng = random.Random(seed)
    width, height = size
    scramble, moves = legal_solve(width, height, {3: 24, 4: 70, 5: 160}[width], rng)
    times = human_times(moves, rng, tps=tps, input_kind=input_kind)
    result = SpeedResult(width, height, scramble, tuple(moves), tuple(times))
    assert SlidingPuzzle(width, height).is_goal(result.final_state())
    assert implausible_speed_solve(result.moves, result.times_ms) is None, (result.tps, times[:30])
    assert result.tps is not None and result.tps > tps * 0.4  # really that fast, pauses and all


def test_a_wr_pace_3x3_lucky_solve_and_a_mouse_line_of_tiles_at_one_ms_pass():
    # a 0.2 s 3x3: nine tiles in six line moves, the lines slid by clicks (their tiles at one ms)
    moves = tuple("UULLDR") + tuple("RU")
    times = (0, 0, 35, 35, 70, 110, 150, 185)
    assert implausible_speed_solve(moves, times) is None
    # a 4x4 at 40 TPS sustained over 60 tiles by hover, and a race begun 150 ms after the reveal
    rng = random.Random(7)
    _, solve = legal_solve(4, 4, 60, rng)
    hover = [round(k * 25 + rng.uniform(0, 3)) for k in range(len(solve))]
    hover = [max(hover[: k + 1]) for k in range(len(hover))]
    assert implausible_moves(solve, hover) is None
    assert implausible_race(solve, [150 + t for t in hover]) is None


def test_a_few_keys_bunched_by_the_network_pass():
    # a keyboard player at 15 TPS whose connection stalled 250 ms: four presses arrive in one read
    moves = list("ULDRULDRULDRUL")
    times = [0, 66, 133, 200, 266, 600, 600, 601, 601, 666, 733, 800, 866, 933]
    assert implausible_moves(moves, times) is None


def test_the_probes_bots_are_marked():
    rng = random.Random(5)
    # the daily speed board's bot: 21 tiles 0-3 ms apart, time 3 ms
    _, moves = legal_solve(3, 3, 21, rng)
    times = sorted(rng.randint(0, 3) for _ in moves)
    times[0] = 0
    reason = implausible_speed_solve(moves, times)
    assert reason is not None and f"{BURST_LINE_MOVES} line moves within" in reason
    assert implausible_speed_solve(moves, times, dnf=True) is None  # a DNF sets no time
    # the race's bot: 20 tiles of a 4x4 in one write, 250 ms after the reveal
    _, race_moves = legal_solve(4, 4, 20, rng)
    race_times = [240 + k // 2 for k in range(20)]
    assert race_times[-1] < 250 and implausible_race(race_moves, race_times) is not None
    # a false start: a human pace, but the first move within a reaction of the reveal
    reason = implausible_race(race_moves, [60 + 120 * k for k in range(20)])
    assert reason is not None and f"at least {REACTION_MS} ms" in reason
    # sustained: 20 line moves at 80 a second, no burst
    alternating = list("LRLRLRLRLRLRLRLRLRLRLR")
    reason = implausible_moves(alternating, [12 * k for k in range(len(alternating))])
    assert reason is not None and "beyond the human limit of 60" in reason
    # sustained TPS: 60 tiles at 150 TPS in lines of three
    lines = [d for d in "LURD" * 5 for _ in range(3)]
    reason = implausible_moves(lines, [round(k * 6.7) for k in range(len(lines))])
    assert reason is not None and "TPS" in reason


def test_a_daily_game_known_only_by_its_moves_and_time():
    assert implausible_game(22, 0.015, 2) is not None  # the probe's 8-puzzle at 0.015 s
    assert implausible_game(22, 1.8, 2) is None  # a quick human
    assert implausible_game(50, 0.2, 3) is not None and implausible_game(50, 4.0, 3) is None
    assert implausible_game(1, 0.0) is None  # one move takes no time at all


def test_an_event_is_unverified_by_its_first_leg_a_hand_could_not_play():
    rng = random.Random(11)
    scramble, moves = legal_solve(3, 3, 21, rng)
    human = SpeedResult(3, 3, scramble, tuple(moves), tuple(human_times(moves, rng, tps=20, input_kind="keys")))
    bot = SpeedResult(3, 3, scramble, tuple(moves), tuple(k // 8 for k in range(len(moves))))
    assert EventResult(event_for("single"), (human,)).unverified is None
    assert "line moves within" in (EventResult(event_for("single"), (bot,)).unverified or "")


def racer(name: str, moves: str, times: list[int], finished_ms: int | None = None, unverified: str | None = None):
    return Racer(f"user:{name}", name, 0.0, 0.0, moves, tuple(times), finished_ms, unverified=unverified)


def test_an_unverified_finish_takes_no_place_and_wins_nothing():
    bot = racer("bot", "LU", [240, 241], 241, "first move …")
    ann = racer("ann", "LU", [900, 1500], 1500)
    bob = racer("bob", "L", [800])
    room = Room("r", "ABCDE", 3, 3, "user:ann", 0, RacePhase.RACING, 0.0, (1, 2, 3, 4, 0, 5, 7, 8, 6), (bot, ann, bob))
    assert [(p.place, p.racer.name) for p in room.results()] == [(1, "ann"), (None, "bot"), (None, "bob")]
    assert room.winner() == ann and room.place_of("user:bot") is None
    assert "unverified: first move" in room.results()[1].line()


def test_a_bots_daily_speed_time_is_kept_marked_and_off_the_board(database):
    rng = random.Random(3)
    scramble, moves = legal_solve(3, 3, 21, rng)
    day = "daily/2025-01-31"
    bot_times = [min(3, k // 6) for k in range(len(moves))]  # 21 tiles 0-3 ms apart: time_ms 3
    bot_solve = SpeedResult(3, 3, scramble, tuple(moves), tuple(bot_times), event=day)
    human_solve = SpeedResult(3, 3, scramble, tuple(moves), tuple(human_times(moves, rng, tps=12, input_kind="keys")),
                              event=day)
    bot, ann = open_store(database, "user:bot", "bot"), open_store(database, "user:ann", "ann")
    for store in (bot, ann):
        store.seen()
    bot.record_speed_solve("bot-1", solve_record(bot_solve), 10.0)
    ann.record_speed_solve("ann-1", solve_record(human_solve), 11.0)
    assert bot_solve.time_ms == 3
    assert [(e.name, e.unverified) for e in ann.speed_board(day, "3x3")] == [("ann", None)]
    standing = bot.speed_standing(day, "3x3")
    assert [e.name for e in standing.top] == ["ann"] and standing.my_rank is None
    assert standing.mine is not None and "line moves within" in (standing.mine.unverified or "")
    assert ann.speed_standing(day, "3x3").my_rank == 1
    stored = bot.backend.query("SELECT unverified FROM speed_solves WHERE player = ?", ("user:bot",))
    assert len(stored) == 1 and "line moves within" in stored[0][0]  # kept, with its reason
    assert bot.speed_solves()[0].times_ms == tuple(bot_times)


def test_a_race_solved_in_250_ms_after_the_reveal_takes_no_place(database):
    store = open_store(database, "local")
    puzzle = SlidingPuzzle(4, 4)
    rng = random.Random(9)
    scramble, moves = legal_solve(4, 4, 20, rng)
    room = store.create_private("user:bot", "bot", 4, 4)
    store.join_code("user:ann", "ann", room.code)
    assert store.start(room.room, 0, time.time() - 0.1, scramble)
    bot_times = [240 + k // 2 for k in range(20)]
    assert store.push(room.room, 0, "user:bot", "".join(moves), bot_times, finished_ms=bot_times[-1])
    ann_times = human_times(moves, rng, tps=10, input_kind="keys")
    ann_times = [t + 900 for t in ann_times]
    assert store.push(room.room, 0, "user:ann", "".join(moves), ann_times, finished_ms=ann_times[-1])
    read = store.read_room(room.room)
    assert read is not None and puzzle.is_goal(read.racer("user:bot").state(puzzle, scramble))
    assert [(p.place, p.racer.name) for p in read.results()] == [(1, "ann"), (None, "bot")]
    assert read.winner().name == "ann" and "line moves within" in (read.racer("user:bot").unverified or "")
    assert store.race_stats("user:bot").wins == 0 and store.race_stats("user:bot").best_ms == {}
    assert store.race_stats("user:ann").wins == 1


def test_an_imported_solve_is_on_no_daily_board_and_a_bots_import_is_marked(database):
    """Imports (Slidysim, CSV, JSON) are the player's history: one that names today's daily event, even at a human's
    pace, is on no board; and an imported solve no hand could have played is kept marked like any other."""
    from dataclasses import replace

    from tui.game.speed_interop import SOURCE_CSV

    rng = random.Random(13)
    scramble, moves = legal_solve(3, 3, 21, rng)
    day = "daily/2025-01-31"
    paced = SpeedResult(3, 3, scramble, tuple(moves), tuple(human_times(moves, rng, tps=12, input_kind="keys")),
                        event=day)
    forged = replace(solve_record(paced), source=SOURCE_CSV)
    bot = replace(solve_record(SpeedResult(3, 3, scramble, tuple(moves), tuple(k // 7 for k in range(21)))),
                  source=SOURCE_CSV)
    eve, ann = open_store(database, "user:eve", "eve"), open_store(database, "user:ann", "ann")
    assert eve.import_speed_solves([forged, bot]) == 2
    assert ann.speed_board(day, "3x3") == [] and eve.speed_board(day, "3x3") == []
    marks = sorted((str(e), u is None) for e, u in eve.backend.query(
        "SELECT event, unverified FROM speed_solves WHERE player = ?", ("user:eve",)))
    assert marks == [(day, True), ("single", False)]
