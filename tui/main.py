"""The ``koma`` console script: the game for ``koma`` and ``koma play``, the solver CLI for the rest."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from solver.errors import KomaError
from solver.tools.cli import main as cli_main

from .server.bench_cases import SERVE_CASES
from .server.options import add_serve_command
from .server.web_options import add_web_command


def play(args) -> int:
    from .launch import launch  # Textual is imported only when the game runs

    return launch(args)


def serve(args) -> int:
    try:
        from .server.serve import serve_command  # asyncssh is imported only when serving
    except ModuleNotFoundError as missing:
        if missing.name != "asyncssh":
            raise
        raise KomaError("asyncssh is missing: pip install -e '.[ssh]'") from None
    return serve_command(args)


def web(args) -> int:
    try:
        from .server.web import web_command  # aiohttp and asyncssh are imported only when serving
    except ModuleNotFoundError as missing:
        if missing.name not in ("aiohttp", "asyncssh"):
            raise
        raise KomaError(f"{missing.name} is missing: pip install -e '.[web]'") from None
    return web_command(args)


def doctor(args) -> int:
    """``koma doctor``: the solver's checks plus the game's (saved games database, keymap); exit 1 on a fault (advice alone: 0)."""
    from solver.tools.cli import EXIT_PROBLEMS_FOUND, emit
    from solver.tools.doctor import diagnose, render, something_is_wrong

    from .game.health import game_health

    report = diagnose()
    game = game_health()
    report["problems"] = [*report["problems"], *game.pop("problems")]
    report["game"] = game
    emit(args, report, lambda: render(report))
    return EXIT_PROBLEMS_FOUND if something_is_wrong(report) else 0


def main(argv: Sequence[str] | None = None) -> int:
    return cli_main(argv, play, {"serve": serve, "web": web, "doctor": doctor}, [add_serve_command, add_web_command], SERVE_CASES)


def served_main() -> int:
    """A game started cold by ``koma serve`` (``KOMA_SERVE=1``): whatever goes wrong, the player reads one line,
    never a traceback (it would name the server's files)."""
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
