"""The ``koma`` console script: the game for ``koma`` and ``koma play``, the solver CLI for the rest."""

from __future__ import annotations

import sys
from typing import Sequence

from solver.cli import EXIT_BAD_INPUT, CommandError, parse_args, run


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = parse_args(argv)
    except CommandError as error:
        print(f"koma: error: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if args.command in (None, "play"):
        from .launch import launch

        return launch(args)
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
