"""Start the game: check the command line first (bad input is one line and exit 2), then run the app."""

from __future__ import annotations

import codecs
import locale
import os
import sys

from solver.errors import KomaError, one_line
from tui.cli_frame import EXIT_BAD_INPUT
from tui.storage.store_choice import database_url


def utf8_terminal() -> bool:
    """Whether the locale (or stdout) speaks UTF-8; otherwise Koma draws with ASCII letters."""
    for name in ("LC_ALL", "LC_CTYPE", "LANG"):
        value = os.environ.get(name)
        if value:
            return "utf-8" in value.lower() or "utf8" in value.lower()
    encoding = getattr(sys.stdout, "encoding", None) or locale.getpreferredencoding(False)
    try:
        return codecs.lookup(encoding).name == "utf-8"
    except LookupError:
        return False


def prepare(args):
    """The puzzle and start board asked for on the command line: ``(puzzle or None, state or None)``."""
    if getattr(args, "command", None) != "play":
        return None, None
    from solver.ids import puzzle_and_board

    puzzle, state = puzzle_and_board(args.puzzle, args.size, args.board)  # PUZZLE [--board B] or a game ID
    if args.seed is not None:
        if state is not None:
            raise KomaError("give a board (--board or a game ID) or --seed, not both")
        state = puzzle.random_state(args.seed)
    return puzzle, state


def chosen_theme(args) -> str | None:
    """The theme ``koma --theme NAME`` asked for (checked: a bad name is one line and exit 2), or None."""
    name = getattr(args, "theme", None)
    if name is None:
        return None
    from tui.themes import check_theme

    return check_theme(name)


def wants_ascii(args) -> bool:
    """Whether the command line asked for ASCII: ``koma --ascii [play ...]`` or ``koma play ... --ascii``."""
    return bool(getattr(args, "ascii", False) or getattr(args, "ascii_everywhere", False))


def served() -> bool:
    """Whether this game is one of ``koma serve``'s or ``koma web``'s: its warm process compiles, not the game."""
    return os.environ.get("KOMA_SERVE") == "1"


def start_compiling_beside() -> dict:
    """On a fresh install, start the processes that compile the kernels (:func:`solver.tools.warm.start_beside`) now,
    while the interface loads; none when the kernels are all in the cache."""
    from solver.tools.warm import start_beside

    return start_beside()


def launch(args) -> int:
    """Run the game for ``koma`` / ``koma play``; returns the exit status."""
    try:
        puzzle, state = prepare(args)
        theme = chosen_theme(args)
        database_url(getattr(args, "database", None))
    except KomaError as error:
        print(f"koma: error: {one_line(str(error))}", file=sys.stderr)
        return EXIT_BAD_INPUT
    ascii_only = wants_ascii(args) or not utf8_terminal()
    if served():
        from tui import game_metrics

        game_metrics.report_memory()
    beside = {} if served() else start_compiling_beside()
    from tui.app import KomaApp
    from tui.kernel_warmup import KernelWarmUp

    app = KomaApp(puzzle=puzzle, start=state, ascii_only=ascii_only, theme_name=theme,
                  database=getattr(args, "database", None), kernel_warmup=KernelWarmUp(beside))
    app.run()
    code = app.return_code or 0
    # The terminal is restored and the store closed (on_unmount); skip the interpreter's teardown
    # of numba and LLVM, which alone takes about 0.2 s, so that quitting is instant.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
