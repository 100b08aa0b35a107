"""``koma speed import``, ``export`` and ``records``: the command line's side of speed solves in and out.

Each opens the player's store (``--database``, ``$KOMA_PLAYER``), answers on standard output (``--json`` as JSON),
and says a refused solve in one line on standard error; a file that cannot be read, or holds no solve to keep, is
one line and exit status 2 (:mod:`tui.cli_frame`).  Never imports Textual.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

from solver.errors import KomaError, shown
from tui.game.averages import result_text
from tui.game.speed import SpeedResult
from tui.game.speed_events import event_for
from tui.game.speed_interop import date_text, export_csv, export_json, read_solves, replay_link, row_of, solve_line
from tui.game.speed_notation import export_solve
from tui.game.speed_records import RECORD_STATISTICS, Record
from tui.storage.speed_transfer import read_file, store_import
from tui.storage.store import EVERY_ROW, Store, StoreError
from tui.storage.store_choice import connect_store

SIZE = re.compile(r"(\d{1,2})x(\d{1,2})")


def player_store(args) -> Store:
    """The player's store, or KomaError when the solves could not be kept (a database that cannot be used)."""
    try:
        store = connect_store(getattr(args, "database", None))
    except StoreError as problem:
        raise KomaError(f"the database cannot be reached now: {problem}") from None
    if store.memory_only:
        reasons = store.drain_notices()
        store.close()
        raise KomaError(reasons[0] if reasons else "the database cannot be used")
    return store


def run_import(args) -> int:
    if args.file == "-":
        parsed = read_solves(sys.stdin.read())
    else:
        parsed = read_file(Path(args.file))
    store = player_store(args)
    try:
        report = store_import(store, parsed)
    except StoreError as problem:
        raise KomaError(f"nothing was imported: {problem}") from None
    finally:
        store.close()
    if args.json:
        print(json.dumps({"kept": [row_of(result) for result in report.kept], "added": report.added,
                          "refused": [{"solve": p.label, "problem": p.problem} for p in report.refused],
                          "skipped": report.skipped}, ensure_ascii=False))
    else:
        for result in report.kept:
            print(solve_line(result))
        again = len(report.kept) - report.added
        print(f"kept {len(report.kept)} solve{'s' if len(report.kept) != 1 else ''}"
              + (f" ({again} already imported before)" if again else ""))
    for line in report.problem_lines():
        print(f"koma: {line}", file=sys.stderr)
    return 0


def _size(text: str | None) -> str | None:
    if text is None:
        return None
    if not SIZE.fullmatch(text.strip().lower()):
        raise KomaError(f"size {shown(text)} is not WxH (4x4, 5x3 …)")
    return text.strip().lower()


def stored_solves(store: Store, size: str | None, event: str | None, last: int | None) -> list[SpeedResult]:
    solves = [r for r in store.speed_solves(size, limit=EVERY_ROW) if event is None or r.event == event]
    return solves[-last:] if last else solves


def run_export(args) -> int:
    size = _size(args.size)
    if args.event is not None:
        event_for(args.event)  # KomaError for an event that does not exist
    store = player_store(args)
    try:
        solves = stored_solves(store, size, args.event, args.last)
    except StoreError as problem:
        raise KomaError(f"the solves cannot be read now: {problem}") from None
    finally:
        store.close()
    form = "json" if args.json else args.format
    if form == "csv":
        sys.stdout.write(export_csv(solves))
    elif form == "json":
        sys.stdout.write(export_json(solves))
    elif form == "link":
        for result in solves:
            print(replay_link(result))
    else:
        sys.stdout.write("\n".join(export_solve(result) for result in solves))
    return 0


def record_row(size: str, event: str, record: Record) -> dict[str, Any]:
    return {"size": size, "event": event, "statistic": record.statistic, "time": result_text(record.time_ms),
            "time_ms": record.time_ms, "moves": round(record.moves, 3),
            "tps": None if record.tps is None else round(record.tps, 3), "date": date_text(record.achieved)}


def run_records(args) -> int:
    size = _size(args.size)
    store = player_store(args)
    try:
        records = store.speed_records(size)
        history = {(s, e): store.speed_record_history(s, e) for s, e in sorted({(s, e) for s, e, _ in records})}
    except StoreError as problem:
        raise KomaError(f"the records cannot be read now: {problem}") from None
    finally:
        store.close()
    order = {name: k for k, (name, _) in enumerate(RECORD_STATISTICS)}
    records.sort(key=lambda item: (item[0], item[1], order.get(item[2].statistic, 99)))
    if args.json:
        print(json.dumps({"records": [record_row(*item) for item in records],
                          "history": [record_row(s, e, r) for (s, e), rs in history.items() for r in rs]},
                         ensure_ascii=False))
        return 0
    if not records:
        print("no speed records yet")
    for size_label, event, record in records:
        row = record_row(size_label, event, record)
        tps = "-" if row["tps"] is None else f"{row['tps']:.3f}"
        print(f"{size_label} {event} {record.statistic:6} {row['time']:>9}  moves {row['moves']:.1f}  TPS {tps}  "
              f"{row['date'][:19].replace('T', ' ')}")
    return 0
