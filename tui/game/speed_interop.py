"""Speed solves in and out of Koma: Slidysim replay links, slidy's notation, CSV and JSON, without the UI or SQL.

**Slidysim replay links** (``https://slidysim.github.io/replay?r=DATA``, also the older ``slidysim.online`` host) carry
``DATA`` = URL-encoded base64 of zlib-compressed JSON, as Slidysim's replay page (``decompressStringToArray``) reads it:

- a *single solve*: ``[solution, tps, scramble, movetimes]``: the solution in the short form (``R3D2``), the TPS in
  thousandths (Slidysim keeps figures times 1000), the scramble in the inline form (``1 2 3/4 5 6/7 8 0``) and one
  time per tile moved in ms from the first move, or ``-1`` when unknown (the page then plays at the TPS);
- a *saved replay* (ten items, as slidysimSessionTracker writes them): an item (``width``, ``height``, ``gameMode``,
  ``controls``, ``timestamp`` in ms …), then the solve data, itself base64 of zlib of
  ``solutions;times;moves;tps;bld memo;[movetimes;movetimes…]`` (lists comma separated, times in seconds), then the
  event, TPS, width and height …  Its scrambles are not given: each is the board its solution solves.

Everything read is checked the same way (:func:`checked`): the moves play from the scramble and solve it (a DNF
excepted), the times start at 0 and never go back, and the figures a source states (time, moves, TPS) are those of
the moves and times.  :func:`read_solves` takes any text a player pastes or a file holds: JSON or CSV as
:func:`export_json` and :func:`export_csv` write them, or any number of replay links and solves in slidy's
notation (blocks of ``key: value`` lines, see :mod:`.speed_notation`).  A solve that fails a check is told in one
line and kept out; the others are kept.
"""

from __future__ import annotations

import base64
import binascii
import csv
import io
import json
import math
import re
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from solver.errors import KomaError, one_line, shown
from solver.sliding.model import SlidingPuzzle
from tui.game.averages import seconds_text
from tui.game.speed import CONTROLS, KEYBOARD, MOUSE, SINGLE, SpeedResult, line_moves, speed_puzzle
from tui.game.speed_notation import (
    format_scramble,
    format_solution,
    format_times,
    import_solve,
    parse_scramble,
    parse_solution,
    parse_time,
    parse_times,
    spread_times,
)

SLIDYSIM_REPLAY = "https://slidysim.github.io/replay?r="
LINK = re.compile(r"https?://\S*?[?&]r=([^&#\s]+)")
MAX_LINK_BYTES = 16 * 1024 * 1024  # a replay inflated beyond this is no solve
TPS_SLACK = 0.0015  # a stated TPS (to the thousandth) may differ from the moves' and times' by its rounding
SLIDYSIM_CONTROLS = {"keyboard": KEYBOARD, "mouse": MOUSE}
SOURCE_LINK, SOURCE_SLIDY, SOURCE_CSV, SOURCE_JSON, SOURCE_DB = (
    "slidysim-link", "slidy", "csv", "json", "slidysim-db")
CSV_COLUMNS = ("date", "size", "event", "run", "leg", "control", "source", "scramble", "solution", "movetimes", "time",
               "moves", "mtm", "tps", "result", "memo")  # memo: a BLD's memorisation time (empty for the others)


@dataclass(frozen=True)
class Parsed:
    """One solve read: kept (``result``), or refused with a one-line ``problem``; ``label`` says which one it was."""

    label: str
    result: SpeedResult | None = None
    problem: str = ""
    skipped: str = ""  # not a solve Koma imports (its kind: "2-N relay" …), neither kept nor a problem


# --- checks ------------------------------------------------------------------------------------------

def checked(result: SpeedResult, *, time_ms: int | None = None, moves: int | None = None,
            tps: float | None = None) -> SpeedResult:
    """``result`` if its moves play from its scramble and solve it (a DNF excepted) and the figures a source
    stated (``time_ms``, ``moves`` = STM, ``tps``) are its own; KomaError saying what is wrong otherwise."""
    try:
        final = result.final_state()
    except KomaError as error:
        raise KomaError(f"the solution does not play from the scramble: {error}") from None
    if not result.dnf and not SlidingPuzzle(result.width, result.height).is_goal(final):
        raise KomaError("the solution does not solve the scramble")
    if time_ms is not None and time_ms != result.time_ms:
        raise KomaError(f"the time {seconds_text(time_ms)} is not the last move's ({seconds_text(result.time_ms)})")
    if moves is not None and moves != result.stm:
        raise KomaError(f"{moves} moves stated, but the solution moves {result.stm} tiles")
    if tps is not None and result.tps is not None and not result.dnf and abs(tps - result.tps) > TPS_SLACK:
        raise KomaError(f"TPS {tps:.3f} stated, but {result.stm} moves in {seconds_text(result.time_ms)} are "
                        f"{result.tps:.3f}")
    return result


# --- Slidysim replay links ---------------------------------------------------------------------------

def _compress(data: Any) -> str:
    payload = zlib.compress(json.dumps(data, separators=(",", ":")).encode(), 9)
    return base64.b64encode(payload).decode()


def _inflate(text: str) -> bytes:
    from urllib.parse import unquote

    encoded = unquote(text.strip())
    encoded += "=" * (-len(encoded) % 4)
    try:
        packed = base64.b64decode(encoded.replace(" ", "+"), validate=False)
        inflater = zlib.decompressobj()
        data = inflater.decompress(packed, MAX_LINK_BYTES)
    except (binascii.Error, ValueError, zlib.error):
        raise KomaError("the replay link's data is not Slidysim's (base64 of zlib)") from None
    if inflater.unconsumed_tail:
        raise KomaError("the replay link's data is too large to be a solve")
    return data


def replay_link(result: SpeedResult) -> str:
    """Slidysim's replay link of one solve (its single-solve form: solution, TPS, scramble, move times)."""
    puzzle = SlidingPuzzle(result.width, result.height)
    tps = round(result.tps * 1000) if result.tps is not None else 0
    data = [format_solution(result.moves), tps, format_scramble(puzzle, result.scramble), list(result.times_ms)]
    return SLIDYSIM_REPLAY + _url_component(_compress(data))


def _url_component(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_.~" else f"%{ord(c):02X}" for c in text)


def link_payload(text: str) -> str | None:
    """The ``r=`` data of the first replay link in ``text`` (None if it has none)."""
    found = LINK.search(text)
    return found.group(1) if found else None


def _number(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise KomaError(f"the replay's {what} is not a number: {shown(str(value)[:20])}")
    return float(value)


def results_from_link(url: str) -> list[SpeedResult]:
    """The solves of a Slidysim replay link, checked (KomaError naming the problem)."""
    payload = link_payload(url)
    if payload is None:
        raise KomaError("not a Slidysim replay link (it has no r=…)")
    try:
        data = json.loads(_inflate(payload))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise KomaError("the replay link's data is not JSON") from None
    if not isinstance(data, list) or len(data) < 3:
        raise KomaError("the replay link holds no solve Koma knows (a list of 4 or of 10 items)")
    return _saved_replay(data) if len(data) >= 10 else [_single_from_link(data)]


def _single_from_link(data: list[Any]) -> SpeedResult:
    solution, tps_thousandths, scramble = data[0], data[1], data[2]
    movetimes = data[3] if len(data) > 3 else -1
    if not isinstance(solution, str) or not isinstance(scramble, str):
        raise KomaError("the replay link's solution and scramble are not text")
    tps = _number(tps_thousandths, "TPS") / 1000
    puzzle, state = parse_scramble(scramble)
    moves = parse_solution(solution)
    if isinstance(movetimes, list) and movetimes:
        times = tuple(int(_number(t, "move time")) for t in movetimes)
        stated_tps: float | None = tps
    else:
        if tps <= 0:
            raise KomaError("the replay link has neither move times nor a TPS to time its moves")
        times = spread_times(len(moves), round(len(moves) * 1000 / tps) if len(moves) > 1 else 0)
        stated_tps = None  # the times were made from it
    result = SpeedResult(puzzle.width, puzzle.height, state, moves, times, source=SOURCE_LINK)
    return checked(result, tps=stated_tps)


def _saved_replay(data: list[Any]) -> list[SpeedResult]:
    item, solve_data = data[0], data[1]
    if not isinstance(item, dict) or not isinstance(solve_data, str):
        raise KomaError("the saved replay's item or solve data is missing")
    mode = str(item.get("gameMode", ""))
    if mode != "Standard":
        raise KomaError(f"a Slidysim {shown(mode)} replay: Koma imports Standard solves only for now")
    width, height = int(_number(data[4], "width")), int(_number(data[5], "height"))
    speed_puzzle(width, height)
    text = _inflate(solve_data).decode("utf-8", "replace")
    bracket = re.search(r"\[(.*?)\]", text)
    movetimes = [part for part in bracket.group(1).split(";")] if bracket else []
    parts = (text.replace(bracket.group(0), "") if bracket else text).split(";")
    if len(parts) < 4 or not parts[0]:
        raise KomaError("the saved replay has no solutions (Slidysim kept none for it)")
    solutions, times, counts, rates = (part.split(",") for part in parts[:4])
    control = SLIDYSIM_CONTROLS.get(str(item.get("controls", "")).lower(), "")
    finished = _number(item["timestamp"], "timestamp") / 1000 if "timestamp" in item else None
    results = []
    for k, solution in enumerate(solutions):
        moves = parse_solution(solution)
        puzzle = SlidingPuzzle(width, height)
        scramble = puzzle.replay(puzzle.goal, [_INVERSE[m] for m in reversed(moves)])[-1]
        time_ms = round(float(times[k]) * 1000) if k < len(times) and times[k] else None
        told = movetimes[k].strip() if k < len(movetimes) else ""
        own_times = parse_times(told) if told and told != "-1" else ()
        if not own_times and time_ms is None:
            raise KomaError(f"solve {k + 1} of the replay has neither move times nor a time")
        result = SpeedResult(width, height, scramble, moves, own_times or spread_times(len(moves), time_ms or 0),
                             control=control, source=SOURCE_LINK, finished=finished)
        stated_moves = int(float(counts[k])) if k < len(counts) and counts[k] else None
        stated_tps = float(rates[k]) if k < len(rates) and rates[k] else None
        results.append(checked(result, time_ms=time_ms, moves=stated_moves, tps=stated_tps))
    return results


_INVERSE = {"U": "D", "D": "U", "L": "R", "R": "L"}


# --- Slidysim's database ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class SlidysimSingle:
    """One row of Slidysim's ``single_solves`` (figures times 1000, as Slidysim keeps them), its ``move_times`` and
    the fields of the ``solves`` row it belongs to (slidysimSessionTracker joins them the same way)."""

    id: int
    width: int
    height: int
    time: int
    moves: int
    tps: int
    scramble: str
    solution: str
    completed: bool
    movetimes: tuple[int, ...]
    solve_type: str
    controls: str
    timestamp: float | None  # ms since the epoch
    scrambler: str = "Random permutation"


def from_slidysim(single: SlidysimSingle) -> Parsed:
    """A Slidysim single as a Koma solve: a Standard solve of a random-permutation scramble, checked against the
    time, moves and TPS Slidysim stored (an unfinished one is a DNF); other kinds are skipped, not refused."""
    label = f"Slidysim solve {single.id}"
    if single.solve_type != "Standard":
        return Parsed(label, skipped=single.solve_type or "unknown")
    if single.scrambler != "Random permutation":
        return Parsed(label, skipped=f"{single.scrambler} scrambles")

    def make() -> SpeedResult:
        speed_puzzle(single.width, single.height)
        puzzle, scramble = parse_scramble(single.scramble)
        if (puzzle.width, puzzle.height) != (single.width, single.height):
            raise KomaError(f"the scramble is {puzzle.size_label}, the solve {single.width}x{single.height}")
        moves = parse_solution(single.solution)
        times = single.movetimes or spread_times(len(moves), single.time)
        result = SpeedResult(puzzle.width, puzzle.height, scramble, moves, times, dnf=not single.completed,
                             control=SLIDYSIM_CONTROLS.get(single.controls.lower(), ""), source=SOURCE_DB,
                             finished=None if single.timestamp is None else single.timestamp / 1000)
        if result.dnf:
            return checked(result)
        return checked(result, time_ms=single.time, moves=round(single.moves / 1000), tps=single.tps / 1000)

    return _attempt(label, make)


# --- CSV and JSON --------------------------------------------------------------------------------------

def date_text(finished: float | None) -> str:
    """ISO 8601 in UTC to the microsecond ("" when unknown)."""
    return "" if finished is None else datetime.fromtimestamp(finished, UTC).isoformat(timespec="microseconds")


def parse_date(text: str) -> float | None:
    if not text.strip():
        return None
    try:
        when = datetime.fromisoformat(text.strip())
    except ValueError:
        raise KomaError(f"date {shown(text)} is not ISO 8601 (2025-01-31T12:00:00+00:00)") from None
    return (when if when.tzinfo else when.replace(tzinfo=UTC)).timestamp()


def row_of(result: SpeedResult) -> dict[str, Any]:
    """One solve as a CSV row or JSON object (:data:`CSV_COLUMNS`)."""
    puzzle = SlidingPuzzle(result.width, result.height)
    return {"date": date_text(result.finished), "size": result.size_label, "event": result.event, "run": result.run,
            "leg": result.leg, "control": result.control, "source": result.source or "koma",
            "scramble": format_scramble(puzzle, result.scramble), "solution": format_solution(result.moves),
            "movetimes": format_times(result.times_ms), "time": seconds_text(result.time_ms), "moves": result.stm,
            "mtm": len(line_moves(result.moves)), "tps": "" if result.tps is None else f"{result.tps:.3f}",
            "result": "DNF" if result.dnf else "solved",
            "memo": "" if result.memo_ms is None else seconds_text(result.memo_ms)}


def export_csv(results: Iterable[SpeedResult]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, CSV_COLUMNS, lineterminator="\n")
    writer.writeheader()
    for result in results:
        writer.writerow(row_of(result))
    return out.getvalue()


def export_json(results: Iterable[SpeedResult]) -> str:
    rows = []
    for result in results:
        row = row_of(result)
        row.update(movetimes=list(result.times_ms), time_ms=result.time_ms, finished=result.finished,
                   tps=None if result.tps is None else round(result.tps, 3), memo_ms=result.memo_ms)
        rows.append(row)
    return json.dumps(rows, indent=1, ensure_ascii=False) + "\n"


def result_from_row(row: dict[str, Any], source: str) -> SpeedResult:
    """A solve from an exported row (CSV or JSON), checked against the figures the row states."""
    def text(key: str) -> str:
        value = row.get(key)
        return "" if value is None else str(value).strip()

    missing = [key for key in ("scramble", "solution") if not text(key)]
    if missing:
        raise KomaError(f"no {', '.join(missing)}")
    puzzle, scramble = parse_scramble(text("scramble"))
    if text("size") and text("size").lower() != puzzle.size_label:
        raise KomaError(f"size {shown(text('size'))} does not match the scramble's {puzzle.size_label}")
    moves = parse_solution(text("solution"))
    given = row.get("movetimes")
    times = (tuple(int(_number(t, "move time")) for t in given) if isinstance(given, list) else parse_times(text("movetimes")))
    time_ms = parse_time(text("time")) if text("time") else None
    if not times and moves:
        if time_ms is None:
            raise KomaError("neither move times nor a time")
        times = spread_times(len(moves), time_ms)
    leg = text("leg") or "0"
    if not leg.isdigit() or len(leg) > 3:
        raise KomaError(f"leg {shown(leg)} is not a leg's number")
    control = text("control").lower()
    if control not in ("", *CONTROLS):
        raise KomaError(f"control {shown(control)} is none of {', '.join(CONTROLS)}")
    stated = text("source")
    finished = row.get("finished")
    when = float(finished) if isinstance(finished, (int, float)) else parse_date(text("date"))
    memo = row.get("memo_ms")
    memo_ms = (int(_number(memo, "memorisation time")) if memo is not None
               else parse_time(text("memo")) if text("memo") else None)
    result = SpeedResult(puzzle.width, puzzle.height, scramble, moves, times, dnf=text("result").upper() == "DNF",
                         event=text("event") or SINGLE, run=text("run"), leg=int(leg), control=control,
                         source=stated if stated and stated != "koma" else source, finished=when, memo_ms=memo_ms)
    stated_tps = float(text("tps")) if re.fullmatch(r"\d+(\.\d+)?", text("tps")) else None
    stated_moves = int(text("moves")) if text("moves").isdigit() else None
    return checked(result, time_ms=time_ms, moves=stated_moves, tps=stated_tps)


# --- any text ------------------------------------------------------------------------------------------

def _attempt(label: str, make) -> Parsed:
    try:
        return Parsed(label, make())
    except (KomaError, ValueError, TypeError, KeyError, IndexError) as problem:
        return Parsed(label, problem=one_line(str(problem)) or type(problem).__name__)


def _links(label: str, url: str) -> list[Parsed]:
    try:
        results = results_from_link(url)
    except (KomaError, ValueError, TypeError, KeyError, IndexError) as problem:
        return [Parsed(label, problem=one_line(str(problem)) or type(problem).__name__)]
    if len(results) == 1:
        return [Parsed(label, results[0])]
    return [Parsed(f"{label}, solve {k}", result) for k, result in enumerate(results, 1)]


def read_solves(text: str) -> list[Parsed]:
    """Every solve in ``text`` (see the module's docstring), in order; KomaError if it holds none at all."""
    stripped = (text or "").lstrip("\ufeff").strip()
    if not stripped:
        raise KomaError("there is nothing to import (the text is empty)")
    if stripped[0] in "[{":
        return _read_json(stripped)
    first_line = stripped.splitlines()[0].lower()
    if "scramble" in first_line and "solution" in first_line and "," in first_line:
        return _read_csv(stripped)
    found: list[Parsed] = []
    block: list[str] = []
    start = 0

    def flush() -> None:
        if any(line.strip() for line in block):
            found.append(_attempt(f"solve at line {start}", lambda: import_solve("\n".join(block), source=SOURCE_SLIDY)))
        block.clear()

    for number, line in enumerate(stripped.splitlines(), 1):
        if link_payload(line):
            flush()
            found.extend(_links(f"link at line {number}", line))
            continue
        key = line.partition(":")[0].strip().lower()
        if not line.strip() or (block and key in ("size", "scramble") and any(
                existing.partition(":")[0].strip().lower() == key for existing in block)):
            flush()
        if line.strip():
            if not block:
                start = number
            block.append(line)
    flush()
    if not found:
        raise KomaError("no solve found: paste Slidysim replay links, solves in slidy's notation, or Koma's CSV/JSON")
    return found


def _read_json(text: str) -> list[Parsed]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise KomaError(f"the JSON is not valid: {error.msg} (line {error.lineno})") from None
    rows = data if isinstance(data, list) else [data]
    return [_attempt(f"solve {k}", lambda row=row: result_from_row(row if isinstance(row, dict) else {}, SOURCE_JSON))
            for k, row in enumerate(rows, 1)]


def _read_csv(text: str) -> list[Parsed]:
    reader = csv.DictReader(io.StringIO(text))
    try:
        rows = list(reader)
    except csv.Error as error:
        raise KomaError(f"the CSV is not valid: {error}") from None
    return [_attempt(f"row {k}", lambda row=row: result_from_row(row, SOURCE_CSV)) for k, row in enumerate(rows, 2)]


def kept(parsed: Sequence[Parsed]) -> list[SpeedResult]:
    return [p.result for p in parsed if p.result is not None]


def solve_line(result: SpeedResult) -> str:
    """What ``koma speed import`` says of a solve it kept: size, event, time, moves, TPS."""
    tps = "-" if result.tps is None else f"{result.tps:.3f}"
    event = "" if result.event == SINGLE else f" {result.event}"
    what = "DNF" if result.dnf else seconds_text(result.time_ms)
    return f"{result.size_label}{event} {what} ({result.stm} moves, {tps} TPS)"
