"""``koma bench [GROUP ...] [--full] [--against REV] [--json]``: the performance figures.

Registered into the ``koma`` command line by :func:`register`, this package's entry point in the ``koma.commands``
group (pyproject.toml), so that the product never imports the bench.  Listing the cases for the help imports none of
what they measure.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import Any

from koma_bench import harness
from koma_bench.cases import CASES, cases
from koma_bench.harness import Case
from solver.errors import KomaError


def register(commands: Any) -> None:
    """The ``koma.commands`` entry point: add ``koma bench`` to the ``koma`` parser's subcommands (argparse's)."""
    add_bench_command(commands)


def add_bench_command(commands: Any, table: Sequence[Case] = CASES) -> argparse.ArgumentParser:
    """``koma bench`` over the cases of ``table``, its ``handler`` set."""
    by_default = list(dict.fromkeys(case.group for case in table if not case.on_request))
    on_request = [group for group in dict.fromkeys(case.group for case in table) if group not in by_default]
    help_text = "performance figures: first call and median of warm runs"
    bench = commands.add_parser("bench", help=help_text, description=help_text)
    bench.add_argument("--json", action="store_true", help="machine-readable output")
    bench.add_argument("groups", nargs="*", metavar="GROUP",
                       help=f"only these groups ({', '.join(by_default)}; {', '.join(on_request)} run only when named)")
    bench.add_argument("--full", action="store_true", help="also run the long cases")
    bench.add_argument("--against", metavar="REV",
                       help="koma serve and cli cases: run each scenario on a checkout of REV (a git revision, or a checkout's "
                            "directory) too, in the same run, and print the ratios")
    bench.set_defaults(handler=lambda args: run_bench(args, table))
    return bench


def run_bench(args, table: Sequence[Case] = CASES) -> int:
    """Run the cases ``args`` asks for (``--against``: on a checkout of REV too, for the cases that compare)."""
    selected = cases(args.groups or None, args.full, table)
    if not selected:  # only long cases in these groups
        raise KomaError(f"group(s) {', '.join(args.groups)} only have long cases: add --full")
    if getattr(args, "against", None):
        with harness.checkout_of(args.against) as folder:
            os.environ[harness.AGAINST_VARIABLE] = str(folder)
            try:
                return _run_cases(args, selected)
            finally:
                os.environ.pop(harness.AGAINST_VARIABLE, None)
    return _run_cases(args, selected)


def _run_cases(args, selected: list[Case]) -> int:
    results = []
    for case in selected:
        live = not args.json and sys.stdout.isatty()
        if live:
            print(f"{case.name} ...", end="", flush=True)
        result = harness.run_case(case)
        results.append(result)
        if not args.json:
            shown = "  ".join(f"{k}={v:,}" if isinstance(v, int) else f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
                              for k, v in result.figures.items())
            target = f"  [target {case.target}]" if case.target else ""
            print(("\r\x1b[K" if live else "") + f"{case.name}: median {harness.format_seconds(result.median_seconds)} of "
                  f"{result.runs} warm, first {harness.format_seconds(result.first_seconds)}{target}"
                  + (f"\n    {shown}" if shown else ""))
    if args.json:
        print(json.dumps({"results": [r.to_dict() for r in results]}, ensure_ascii=False))
    return 0
