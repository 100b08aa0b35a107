"""The frame of every ``koma`` command: running a handler, bad input as one line on stderr and exit status 2 (also
``{"error": ...}`` on stdout under ``--json``), and the notices nobody showed, printed once at the end.

The product's, not the solver's: the solver's handlers (:mod:`solver.tools.cli`) print their answers and raise
:class:`~solver.errors.KomaError` for bad input.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from solver.errors import KomaError, UnsolvableError, one_line, shown
from solver.tools.cli import clear_progress, might_be_a_board, tell
from tui import notices

EXIT_BAD_INPUT = 2


class CommandError(KomaError):
    """A usage error found by argparse; reported as one line like any other bad input."""


# --- the frame: one-line errors, notices ---------------------------------------------------------

def board_hint(argv: Sequence[str]) -> str:
    """For an argument error: how to pass a board-like word that argparse took for an option."""
    words = list(argv[: list(argv).index("--")] if "--" in argv else argv)
    for word in words:
        if might_be_a_board(word):
            return (f"; {shown(word)} is no puzzle's board, so it was read as an option: to pass it anyway, "
                    "put -- before it (koma solve goat -- BOARD) or write --board=BOARD")
    return ""


def wants_json(argv: Sequence[str]) -> bool:
    """Whether the command line asks for JSON (``--json`` or an abbreviation argparse accepts)."""
    words = argv[: list(argv).index("--")] if "--" in argv else argv
    return any(len(word) > 3 and "--json".startswith(word) for word in words)


def report_error(message: str, as_json: bool, details: dict[str, Any] | None = None) -> int:
    """Bad input: one bounded line on stderr, also ``{"error": ..., **details}`` on stdout under ``--json``; exit
    status 2."""
    clear_progress()
    message = one_line(message)
    if as_json:
        print(json.dumps({"error": message, **(details or {})}, ensure_ascii=False))
    print(f"koma: error: {message}", file=sys.stderr)
    return EXIT_BAD_INPUT


def error_details(error: KomaError) -> dict[str, Any]:
    """What an error adds to its JSON: an unsolvable board's proof."""
    proof = getattr(error, "proof", None) if isinstance(error, UnsolvableError) else None
    return proof.to_dict() if proof is not None else {}


def tell_notices() -> None:
    """Print the notices nobody showed yet (the caches', the patches'), each once."""
    for message in notices.drain():
        tell(message)


def package_version() -> str:
    """Koma's installed version, or a plain word when the package metadata is missing (run from a source tree)."""
    from importlib import metadata

    try:
        return metadata.version("koma") or "unknown"
    except Exception:  # no or broken metadata: a version is information, never a reason to fail
        return "unknown (not installed)"


def run(handler: Callable[[Any], int], args) -> int:
    """Run a parsed non-interactive command's ``handler``; bad input becomes one line on stderr and exit 2."""
    try:
        code = handler(args)
        sys.stdout.flush()  # a failed write is reported here, not as a traceback at exit
        return code
    except KomaError as error:
        return report_error(str(error), getattr(args, "json", False), error_details(error))
    except KeyboardInterrupt:
        clear_progress()
        print("koma: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. `koma longest 8 | head`: the reader left, which is fine
        discard_stdout()
        return 0
    except OSError as error:  # e.g. stdout on a full disk: one line, like bad input
        discard_stdout()
        where = f": {error.filename}" if error.filename else ""
        return report_error(f"{error.strerror or error}{where}", False)
    finally:
        tell_notices()


def discard_stdout() -> None:
    """Point stdout at /dev/null, so that what is still buffered cannot fail again at exit."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):  # no stdout file descriptor (captured in tests)
        pass
