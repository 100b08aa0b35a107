"""Speed solves in and out: Slidysim replay links (both forms Slidysim's replay page reads), slidy's notation, CSV
and JSON; every solve replayed and checked, a bad one refused in one line; 100 random round trips of each form."""

from __future__ import annotations

import base64
import json
import random
import re
import zlib
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver.errors import KomaError
from solver.sliding.model import SlidingPuzzle
from tui.game.speed import SpeedResult, apply_line, line_move_to, speed_puzzle
from tui.game.speed_interop import SOURCE_CSV, SOURCE_JSON, SOURCE_LINK, export_csv, export_json, read_solves, replay_link, results_from_link
from tui.game.speed_notation import export_solve, import_solve

# A 4x4 solve as Slidysim keeps it (single_solves: the scramble in the inline form, the solution in the short form,
# every tile's time in ms from the first move, TPS times 1000).
SCRAMBLE = "13 10 2 1/11 7 4 5/15 6 0 3/9 14 8 12"
SOLUTION = "DLU2R2DRULDRD2L2U3R2D2LDL2UR3DL2URU2RD3L3URDR2ULUL2UR2DRD2L2ULURUL"
MOVETIMES = [0, 124, 258, 354, 504, 680, 759, 913, 1129, 1260, 1442, 1651, 1852, 2067, 2185, 2358, 2418, 2517, 2655, 2710,
             2830, 2916, 3114, 3235, 3371, 3590, 3704, 3750, 4008, 4209, 4363, 4406, 4565, 4714, 4769, 4940, 5169, 5404,
             5461, 5605, 5840, 5954, 6007, 6207, 6260, 6420, 6663, 6821, 7022, 7255, 7315, 7464, 7554, 7775, 7896, 7961,
             8147, 8374, 8487, 8681, 8885, 9121, 9261, 9395, 9541, 9796, 9949, 10180, 10344, 10504]
TPS_THOUSANDTHS = 6664  # 70 tiles in 10.504 s, as Slidysim stores it


def slidysim_link(data: object, host: str = "https://slidysim.online/replay?r=") -> str:
    """A replay link made the way Slidysim's tools make one (slidysimSessionTracker's getReconstructionLink: JSON,
    zlib level 9, base64, encodeURIComponent)."""
    packed = base64.b64encode(zlib.compress(json.dumps(data).encode(), 9)).decode()
    return host + "".join(c if c.isalnum() or c in "-_.~" else f"%{ord(c):02X}" for c in packed)


def slidysim_expand(solution: str) -> str:
    """Slidysim's replay page's expandSolution (R3D3 -> RRRDDD), to count the moves it shows."""
    return re.sub(r"([A-Z])(\d+)", lambda m: m.group(1) * int(m.group(2)), solution)


def test_a_slidysim_replay_link_of_a_4x4_solve_imports_replays_and_shows_slidysim_s_figures():
    link = slidysim_link([SOLUTION, TPS_THOUSANDTHS, SCRAMBLE, MOVETIMES])
    [result] = results_from_link(link)
    puzzle = SlidingPuzzle(4, 4)
    assert puzzle.replay(result.scramble, result.moves)[-1] == puzzle.goal  # replays to solved
    # what the replay page shows: time = the last move's time, moves = the expanded solution, TPS = tps / 1000
    assert result.time_ms == MOVETIMES[-1] == 10504
    assert result.stm == len(slidysim_expand(SOLUTION)) == 70
    assert f"{result.tps:.3f}" == f"{TPS_THOUSANDTHS / 1000:.3f}" == "6.664"
    assert result.source == SOURCE_LINK
    # Koma's link opens the same solve back, in the form Slidysim's page reads (solution, TPS, scramble, times)
    ours = replay_link(result)
    assert ours.startswith("https://slidysim.github.io/replay?r=")
    payload = re.search(r"r=(.+)", ours).group(1)
    from urllib.parse import unquote
    decoded = json.loads(zlib.decompress(base64.b64decode(unquote(payload))))
    assert decoded == [SOLUTION, TPS_THOUSANDTHS, SCRAMBLE, MOVETIMES]
    assert results_from_link(ours) == [result]


def test_a_link_without_move_times_plays_at_its_tps():
    [result] = results_from_link(slidysim_link([SOLUTION, TPS_THOUSANDTHS, SCRAMBLE, -1]))
    assert result.stm == 70 and result.time_ms == round(70 * 1000 / 6.664)  # 10504
    assert result.times_ms[0] == 0 and list(result.times_ms) == sorted(result.times_ms)


def _saved_replay(solutions, times, moves, tps, movetimes, mode="Standard", width=4, height=4):
    """A saved replay as slidysimSessionTracker's ReplayGenerator writes one (ten items; the solve data packed)."""
    movetimes_text = "[" + ";".join(",".join(map(str, m)) for m in movetimes) + "]"
    combined = ";".join([",".join(solutions), ",".join(map(str, times)), ",".join(map(str, moves)),
                         ",".join(map(str, tps)), "-1", movetimes_text])
    solve_data = base64.b64encode(zlib.compress(combined.encode(), 9)).decode()
    item = {"width": width, "height": height, "leaderboardType": "time", "controls": "Keyboard", "gameMode": mode,
            "displayType": "Standard", "nameFilter": "Player", "avglen": len(solutions), "time": -1, "moves": -1,
            "tps": -1, "timestamp": 1_700_000_000_000, "solve_data_available": True, "videolink": -1}
    return slidysim_link([item, solve_data, {"isTrusted": True}, -1, width, height, "<span>Solve from DB</span>", -1,
                          "alpha", False])


def test_a_saved_replay_of_several_solves_imports_each_with_its_control_and_date():
    second = "L3U3"  # the blank from the top left corner to the goal's
    link = _saved_replay([SOLUTION, second], [10.504, 0.5], [70, 6], [6.664, 12.0],
                         [MOVETIMES, [0, 100, 200, 300, 400, 500]])
    first, other = results_from_link(link)
    assert (first.time_ms, first.stm, first.control) == (10504, 70, "keyboard")
    assert first.scramble == SlidingPuzzle(4, 4).parse(SCRAMBLE)  # the board its solution solves
    assert (other.time_ms, other.stm, other.finished) == (500, 6, 1_700_000_000.0)
    with pytest.raises(KomaError, match="2-N relay"):
        results_from_link(_saved_replay([second], [0.5], [6], [12.0], [[0, 100, 200, 300, 400, 500]], mode="2-N relay"))


@pytest.mark.parametrize("data, problem", [
    ([SOLUTION, 9000, SCRAMBLE, MOVETIMES], "TPS 9.000 stated"),
    ([SOLUTION, TPS_THOUSANDTHS, SCRAMBLE, [5, *MOVETIMES[1:]]], "start at 0"),
    ([SOLUTION, TPS_THOUSANDTHS, SCRAMBLE, MOVETIMES[:-1]], "one time per tile"),
    ([SOLUTION + "U", TPS_THOUSANDTHS, SCRAMBLE, [*MOVETIMES, 10600]], "does not"),
    ([SOLUTION, TPS_THOUSANDTHS, "1/0", MOVETIMES], "speed boards go from"),
    ([SOLUTION, "fast", SCRAMBLE, MOVETIMES], "not a number"),
    ({"not": "a list"}, "holds no solve"),
])
def test_a_bad_link_is_refused_in_one_line(data, problem):
    with pytest.raises(KomaError, match=problem) as refused:
        results_from_link(slidysim_link(data))
    assert "\n" not in str(refused.value)


@pytest.mark.parametrize("text, problem", [
    ("https://slidysim.github.io/replay?r=%%%not-base64", "not Slidysim's"),
    ("https://slidysim.github.io/replay?r=" + base64.b64encode(zlib.compress(b"not json")).decode(), "not JSON"),
])
def test_garbage_links_say_so(text, problem):
    [parsed] = read_solves(text)
    assert parsed.result is None and problem in parsed.problem


def test_mixed_text_keeps_the_good_solves_and_says_why_each_bad_one_is_not():
    good = export_solve(SpeedResult(3, 3, (0, 2, 3, 1, 5, 6, 4, 7, 8), tuple("UULL"), (0, 200, 350, 500)))
    untimed = "scramble: 0 2 3/1 5 6/4 7 8\nsolution: U2L2\ntime: 0.900\n"  # slidy's notation, no move times
    bad = "scramble: 0 2 3/1 5 6/4 7 8\nsolution: U2L\nmovetimes: 0,1,2\n"
    link = slidysim_link([SOLUTION, TPS_THOUSANDTHS, SCRAMBLE, MOVETIMES])
    parsed = read_solves(f"{good}\n{untimed}\n{bad}\nsee {link} (my PB)\n")
    assert [p.result is not None for p in parsed] == [True, True, False, True]
    assert "does not solve" in parsed[2].problem and parsed[2].label == "solve at line 12"
    assert parsed[1].result.time_ms == 900 and parsed[1].result.times_ms == (0, 300, 600, 900)
    with pytest.raises(KomaError, match="nothing to import"):
        read_solves("  \n")


# --- 100 random round trips of each form ----------------------------------------------------------------

INVERSE = {"U": "D", "D": "U", "L": "R", "R": "L"}


@st.composite
def solves(draw):
    """A random solve: clicks (line moves of one or more tiles) from the goal, undone from a random-looking board; its
    times any that never go back; a DNF stops part way."""
    width, height = draw(st.integers(3, 6)), draw(st.integers(3, 6))
    puzzle = speed_puzzle(width, height)
    rng = random.Random(draw(st.integers(0, 2**32)))
    state, walk = puzzle.goal, []
    for _ in range(draw(st.integers(2, 40))):
        blank_row, blank_col = divmod(state.index(0), width)
        cell = rng.choice([blank_row * width + c for c in range(width) if c != blank_col]
                          + [r * width + blank_col for r in range(height) if r != blank_row])
        move = line_move_to(puzzle, state, cell)
        state = apply_line(puzzle, state, move)
        walk.extend(move.tiles)
    moves = [INVERSE[m] for m in reversed(walk)]
    dnf = draw(st.booleans())
    if dnf:
        moves = moves[:draw(st.integers(1, len(moves) - 1))]
    times, now = [], 0
    for k in range(len(moves)):
        now += 0 if k == 0 else draw(st.integers(0, 400))
        times.append(now)
    return SpeedResult(width, height, state, tuple(moves), tuple(times), dnf=dnf,
                       control=draw(st.sampled_from(["", "keyboard", "mouse", "touch"])),
                       finished=round(draw(st.floats(1e9, 2e9)), 6))


@settings(max_examples=100, deadline=None)
@given(solves())
def test_slidy_notation_round_trips(result):
    back = import_solve(export_solve(result))
    assert (back.scramble, back.moves, back.times_ms, back.dnf, back.control) == (
        result.scramble, result.moves, result.times_ms, result.dnf, result.control)


@settings(max_examples=100, deadline=None)
@given(solves())
def test_csv_and_json_round_trip(result):
    for text, source in ((export_csv([result]), SOURCE_CSV), (export_json([result]), SOURCE_JSON)):
        [parsed] = read_solves(text)
        assert parsed.problem == ""
        back = parsed.result
        assert back == replace(result, source=source)
        assert back.finished == pytest.approx(result.finished, abs=1e-6)


@settings(max_examples=100, deadline=None)
@given(solves().filter(lambda result: not result.dnf and result.time_ms > 0))
def test_replay_links_round_trip(result):
    [back] = results_from_link(replay_link(result))
    assert (back.scramble, back.moves, back.times_ms, back.time_ms, back.stm) == (
        result.scramble, result.moves, result.times_ms, result.time_ms, result.stm)
    assert f"{back.tps:.3f}" == f"{result.tps:.3f}"
    assert SlidingPuzzle(result.width, result.height).is_goal(back.final_state())
