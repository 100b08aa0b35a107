"""The ``koma`` console script: the command line of :mod:`tui.cli` (the game's commands and the solver's)."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from tui.cli import main as cli_main


def main(argv: Sequence[str] | None = None) -> int:
    return cli_main(argv)


def served_main() -> int:
    """A game started cold by ``koma serve`` (``KOMA_SERVE=1``): whatever goes wrong, the player reads one line,
    never a traceback (it would name the server's files).  Not dumpable: the exec made it dumpable again."""
    from tui.server.sandbox import not_dumpable

    not_dumpable()
    try:
        return main()
    except SystemExit:
        raise
    except BaseException as problem:
        print(f"\r\nkoma: the game stopped on an internal error ({type(problem).__name__}); connect again to play.",
              file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(served_main() if os.environ.get("KOMA_SERVE") == "1" else main())
