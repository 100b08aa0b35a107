"""Every case of ``koma bench``: the solver's (:mod:`koma_bench.solver_cases`), then the game's and the servers'
(:mod:`koma_bench.game_cases`); and which of them a command line asks for."""

from __future__ import annotations

from collections.abc import Sequence

from koma_bench import game_cases, solver_cases
from koma_bench.harness import Case
from solver.errors import KomaError, shown

CASES: tuple[Case, ...] = (*solver_cases.CASES, *game_cases.CASES)


def groups(table: Sequence[Case] = CASES) -> list[str]:
    """The groups of ``table``, in its order."""
    return list(dict.fromkeys(case.group for case in table))


def cases(wanted: Sequence[str] | None = None, full: bool = False, table: Sequence[Case] = CASES) -> list[Case]:
    """The cases of the groups ``wanted`` (all but the on-request ones when none), long ones only with ``full``.
    Raises KomaError naming an unknown group and the known ones."""
    known = groups(table)
    for group in wanted or ():
        if group not in known:
            raise KomaError(f"unknown benchmark group {shown(group)}; choose from {', '.join(known)}")
    return [c for c in table if (c.group in wanted if wanted else not c.on_request) and (full or c.quick)]
