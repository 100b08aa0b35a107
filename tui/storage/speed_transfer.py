"""Bringing speed solves in (``koma speed import``, the Speed screen's import) and taking them out (``koma speed export``).

:func:`read_import` reads a file (a Slidysim database, or text: replay links, slidy's notation, Koma's CSV or JSON)
or pasted text into solves, each replayed and checked (:mod:`tui.game.speed_interop`); :func:`store_import` keeps
the good ones in one transaction (all or none) and reports each refused one in a line.  Never imports Textual.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from solver.errors import KomaError, shown
from tui.game.speed import SpeedResult
from tui.game.speed_interop import Parsed, from_slidysim, kept, read_solves
from tui.game.speed_notation import solve_record
from tui.storage.slidysim_db import is_sqlite_file, read_slidysim
from tui.storage.store import Store

MAX_IMPORT_BYTES = 256 * 1024 * 1024  # a text file beyond this is no one's record of solves


@dataclass(frozen=True)
class ImportReport:
    """What an import did: the solves kept (``added`` of them new to the store), the refused ones with their reason,
    and the kinds of solve skipped (with their counts)."""

    kept: list[SpeedResult]
    added: int
    refused: list[Parsed] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)

    def problem_lines(self) -> list[str]:
        lines = [f"{p.label}: {p.problem}" for p in self.refused]
        if self.skipped:
            kinds = ", ".join(f"{kind}: {count}" for kind, count in sorted(self.skipped.items()))
            lines.append(f"skipped {sum(self.skipped.values())} solves of kinds Koma does not import yet ({kinds})")
        return lines


def read_file(path: Path) -> list[Parsed]:
    """The solves in the file at ``path`` (KomaError in one line for a file that cannot be read or holds none)."""
    if not path.is_file():
        raise KomaError(f"{shown(str(path))} is not a file" if path.exists() else f"no file {shown(str(path))}")
    if is_sqlite_file(path):
        return [from_slidysim(single) for single in read_slidysim(path)]
    try:
        if path.stat().st_size > MAX_IMPORT_BYTES:
            raise KomaError(f"{path.name} is over {MAX_IMPORT_BYTES // 2**20} MiB: no record of solves is that large")
        data = path.read_bytes()
    except OSError as error:
        raise KomaError(f"{path.name} cannot be read: {error.strerror or error}") from None
    if b"\x00" in data[:4096]:
        raise KomaError(f"{path.name} is neither text nor a Slidysim database")
    return read_solves(data.decode("utf-8", errors="replace"))


def read_import(text: str = "", path: Path | None = None) -> list[Parsed]:
    """The solves of a file (``path``) or of pasted ``text``."""
    return read_file(path) if path is not None else read_solves(text)


def store_import(store: Store, parsed: list[Parsed]) -> ImportReport:
    """Keep the good solves in one transaction; KomaError if none is good (nothing is kept then either)."""
    good = kept(parsed)
    refused = [p for p in parsed if p.result is None and p.problem]
    skipped = Counter(p.skipped for p in parsed if p.skipped)
    report = ImportReport(good, 0, refused, dict(skipped))
    if not good:
        reasons = report.problem_lines()
        raise KomaError("no solve to import" + (f": {reasons[0]}" + (f" (and {len(reasons) - 1} more)" if len(reasons) > 1 else "")
                                                if reasons else ""))
    added = store.import_speed_solves([solve_record(result) for result in good])
    return ImportReport(good, added, refused, dict(skipped))
