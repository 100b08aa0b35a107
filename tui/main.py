"""The ``koma`` console script: the game for ``koma`` and ``koma play``, the solver CLI for the rest."""

from __future__ import annotations

import sys
from typing import Sequence

from solver.cli import main as cli_main


def play(args) -> int:
    from .launch import launch  # Textual is imported only when the game runs

    return launch(args)


def main(argv: Sequence[str] | None = None) -> int:
    return cli_main(argv, play)


if __name__ == "__main__":
    sys.exit(main())
