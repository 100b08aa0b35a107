"""Whether a timed result is one a human could set: every limit Koma judges times by, in one place.  Pure.

A result that breaks a limit is kept, marked with the reason (the player sees it as *unverified*), and kept off the
public boards and the race places.  The limits are set far beyond the fastest human solves, so that a record solve
passes and only input no hand makes is marked:

- **Reaction** (races): the first move must come at least :data:`REACTION_MS` (100 ms) after the reveal.  A human
  cannot answer a signal faster: World Athletics' starting rules (Rule 16.6, the false-start rule of the start
  information system) count a reaction under 0.100 s as a false start for that reason, and the best sprinters react in
  0.12-0.15 s to a sound, slower to a sight (a board to read).
- **Burst** (many inputs in one read): no :data:`BURST_LINE_MOVES` (8) line moves within :data:`BURST_MS` (30 ms), a
  pace of over 230 line moves a second.  A line move is a run of tiles slid one way (slidy's MTM), so one click or one
  hover that slides several tiles of a line at the same millisecond is one input, as it is for the hand.  The fastest
  solves of the speedsolving community (the records kept by Slidysim and slidy, mouse and keyboard) run at a few tens
  of tiles a second, their line moves tens of ms apart; a limit several times faster than that passes them, and a
  script's keys sent in one write (a whole solve within a few ms) never do.  A connection that stalls may hand a few
  keys over at once; eight line moves at once is more than a short stall holds at a human pace.
- **Sustained line moves**: any :data:`SUSTAIN_LINE_MOVES` (20) line moves in a row span at least 19 / 60 s: at most
  :data:`MAX_LINE_MOVES_PER_SECOND` (60) a second over such a window, well above the pace of the record solves (a
  4x4 record solve takes a few seconds for some 40-60 line moves).
- **Sustained TPS**: any :data:`SUSTAIN_TILES` (50) tiles in a row span at least 49 / 100 s: at most
  :data:`MAX_TPS` (100) tiles a second over such a window.  The TPS records of the speedsolving community (Slidysim's
  and slidy's leaderboards: a few tens of TPS on the 4x4, lower on larger boards) stay far below that, even counting
  the tiles a hover slides at once.
- **Whole games without move times** (the daily boards played on the play screen, which keep only the moves and the
  time): the time from the first move to the last must allow the moves' line moves at
  :data:`MAX_LINE_MOVES_PER_SECOND`, counting the most tiles a click can slide at once as one line move.  A board's
  reading (inspection) comes before the clock starts; a solve that takes less than this was not read and played by
  hand, whatever it began with.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

REACTION_MS = 100
BURST_LINE_MOVES, BURST_MS = 8, 30
SUSTAIN_LINE_MOVES, MAX_LINE_MOVES_PER_SECOND = 20, 60
SUSTAIN_TILES, MAX_TPS = 50, 100


def line_move_times(moves: Sequence[str], times_ms: Sequence[int]) -> list[int]:
    """When each line move began: the time of the first tile of every run of tiles slid one way."""
    starts: list[int] = []
    previous = None
    for move, at in zip(moves, times_ms, strict=True):
        if move != previous:
            starts.append(at)
        previous = move
    return starts


def _fastest_span(times: Sequence[int], count: int) -> tuple[int, int] | None:
    """The shortest time (and where it starts) that ``count`` consecutive ``times`` span; None if there are fewer."""
    if count < 2 or len(times) < count:
        return None
    return min((times[k + count - 1] - times[k], k) for k in range(len(times) - count + 1))


def implausible_moves(moves: Sequence[str], times_ms: Sequence[int]) -> str | None:
    """Why single-tile ``moves`` played at ``times_ms`` (ms, any origin) were not played by hand; None when they may
    have been.  The burst, sustained line moves and sustained TPS limits."""
    if len(moves) != len(times_ms):
        return f"{len(moves)} moves with {len(times_ms)} times"
    starts = line_move_times(moves, times_ms)
    burst = _fastest_span(starts, BURST_LINE_MOVES)
    if burst is not None and burst[0] < BURST_MS:
        return (f"{BURST_LINE_MOVES} line moves within {burst[0]} ms (at {starts[burst[1]]} ms): "
                f"faster than any hand, as when keys are sent at once")
    sustained = _fastest_span(starts, SUSTAIN_LINE_MOVES)
    least = (SUSTAIN_LINE_MOVES - 1) * 1000 / MAX_LINE_MOVES_PER_SECOND
    if sustained is not None and sustained[0] < least:
        rate = (SUSTAIN_LINE_MOVES - 1) * 1000 / max(sustained[0], 1)
        return (f"{SUSTAIN_LINE_MOVES} line moves in {sustained[0]} ms ({rate:.0f} a second): beyond the human "
                f"limit of {MAX_LINE_MOVES_PER_SECOND}")
    tiles = _fastest_span(times_ms, SUSTAIN_TILES)
    if tiles is not None and tiles[0] < (SUSTAIN_TILES - 1) * 1000 / MAX_TPS:
        tps = (SUSTAIN_TILES - 1) * 1000 / max(tiles[0], 1)
        return f"{SUSTAIN_TILES} tiles in {tiles[0]} ms ({tps:.0f} TPS): beyond the human limit of {MAX_TPS} TPS"
    return None


def implausible_speed_solve(moves: Sequence[str], times_ms: Sequence[int], dnf: bool = False) -> str | None:
    """Why a speed solve (moves and their times from its first move) was not played by hand; None when it may have
    been (a DNF sets no time: never marked)."""
    return None if dnf else implausible_moves(moves, times_ms)


def implausible_race(moves: Sequence[str], times_ms: Sequence[int]) -> str | None:
    """Why a race (moves and their times in ms since the reveal) was not played by hand: a first move within a human
    reaction of the reveal, or :func:`implausible_moves`; None when it may have been."""
    if times_ms and times_ms[0] < REACTION_MS:
        return (f"first move {times_ms[0]} ms after the reveal: a human needs at least {REACTION_MS} ms to see the "
                "board and react")
    return implausible_moves(moves, times_ms)


def implausible_game(moves: int, seconds: float, most_tiles_at_once: int = 1) -> str | None:
    """Why a game of ``moves`` played in ``seconds`` (from its first move to its last) was not played by hand, when
    only the count and the time are known: ``most_tiles_at_once`` tiles slide per line move at best (a click on
    the far end of a line), and line moves come at most :data:`MAX_LINE_MOVES_PER_SECOND` a second."""
    line_moves = math.ceil(moves / max(1, most_tiles_at_once))
    least = (line_moves - 1) / MAX_LINE_MOVES_PER_SECOND
    if line_moves >= 2 and seconds < least:
        return (f"{moves} moves in {seconds * 1000:.0f} ms: at least {least * 1000:.0f} ms by hand "
                f"({MAX_LINE_MOVES_PER_SECOND} line moves a second)")
    return None
