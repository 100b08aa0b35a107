"""The ``koma`` command line, owned by the product: its parser (the frame is :mod:`tui.cli_frame`), its flags, the
game's commands (``koma``, ``play``, ``serve``, ``web``, ``doctor``), the solver's, which
:func:`solver.tools.cli.add_commands` registers into it, and those installed packages register in the
``koma.commands`` entry point group (``koma bench``, the bench package's).

Every command but ``play`` takes ``--json``; bad input is one line on stderr and exit status 2.  Imports neither
Textual nor asyncssh nor aiohttp: the game, the SSH server and the web server are imported when their command runs,
so ``koma solve`` starts as fast as the solver alone.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable, Sequence
from importlib.metadata import entry_points
from typing import Any

from solver.errors import KomaError, one_line
from solver.tools import cli as solver_cli
from tui.cli_frame import CommandError, board_hint, package_version, report_error, run, tell_notices, wants_json
from tui.patches.arguments import DashWordParser
from tui.server.options import add_serve_command, options_from
from tui.server.server_log import use_format
from tui.server.web.options import add_web_command


class Parser(DashWordParser):
    """The ``koma`` parser: a usage error is one line (:class:`CommandError`), never a usage dump,
    and a board that begins with ``-`` (Goat's fence) is an argument, not an option."""

    is_argument = staticmethod(solver_cli.is_a_board)

    def error(self, message: str):  # argparse's documented hook for usage errors
        raise CommandError(message)


# --- the game's commands -------------------------------------------------------------------------

def play(args) -> int:
    from tui.launch import launch  # Textual is imported only when the game runs

    return launch(args)


def serve(args) -> int:
    options = options_from(args)  # a bad option is told at once, before the server's libraries load
    use_format(options.log_format)  # from here on a warning, one raised as a library loads too, is a line of the log
    try:
        from tui.server.ssh.server import run  # asyncssh is imported only when serving
    except ModuleNotFoundError as missing:
        if missing.name not in ("asyncssh", "prometheus_client", "aiohttp"):  # the ssh extra's
            raise
        raise KomaError(f"{missing.name} is missing: pip install -e '.[ssh]'") from None
    return run(options)


def web(args) -> int:
    ssh_front_end: Any = None
    use_format("text")  # from here on a warning, one raised as a library loads too, is a line of the server's log
    try:
        from tui.server.web.server import web_command  # aiohttp is imported only when serving
        if getattr(args, "ssh_port", None) is not None:  # asyncssh only for an SSH listener beside it
            from tui.server.ssh.server import KomaServer

            ssh_front_end = KomaServer
    except ModuleNotFoundError as missing:
        if missing.name not in ("aiohttp", "asyncssh", "prometheus_client"):  # the web extra's
            raise
        raise KomaError(f"{missing.name} is missing: pip install -e '.[web]'") from None
    return web_command(args, ssh=ssh_front_end)


def add_play_command(commands: Any) -> None:
    play_command = solver_cli.add_command(commands, "play", "open one puzzle in the game")
    solver_cli.puzzle_arguments(play_command, "option")
    play_command.add_argument("--board", metavar="BOARD", help="start from this board")
    play_command.add_argument("--seed", type=solver_cli.seed_number, metavar="N", help="random board from this seed (0 or more)")
    play_command.add_argument("--ascii", action="store_true", help="draw with ASCII characters only")
    play_command.set_defaults(handler=play)


def add_doctor_command(commands: Any) -> None:
    def doctor(args) -> int:
        from tui.doctor import cmd_doctor  # the server's and the store's parts are imported when doctor runs

        return cmd_doctor(args)

    solver_cli.add_command(commands, "doctor", "versions, caches, tables, terminal: what to check when something is off"
                           ).set_defaults(handler=doctor)


def add_speed_command(commands: Any) -> None:
    """``koma speed import FILE|-`` and ``koma speed export``: speed solves in and out (:mod:`tui.storage.speed_transfer`)."""
    speed = commands.add_parser("speed", help="speed solves in and out: import, export, records")
    actions = speed.add_subparsers(dest="speed_command", metavar="ACTION", parser_class=Parser, required=True)
    importing = solver_cli.add_command(actions, "import", "keep the solves of a Slidysim database, Slidysim replay links, "
                                       "slidy's notation or Koma's CSV/JSON (each replayed and checked first)")
    importing.add_argument("file", metavar="FILE", help="the file to read, or - for standard input")
    importing.set_defaults(handler=speed_import)
    exporting = solver_cli.add_command(actions, "export", "your speed solves, oldest first, to standard output")
    exporting.add_argument("--format", choices=("csv", "json", "link", "slidy"), default="csv",
                           help="csv (default), json, link (a Slidysim replay link each) or slidy (slidy's notation)")
    exporting.add_argument("--size", metavar="WxH", help="only solves of this size (4x4)")
    exporting.add_argument("--event", metavar="EVENT", help="only solves of this event (single, bld, marathon10 …)")
    exporting.add_argument("--last", type=solver_cli.seed_number, metavar="N", help="only the last N solves")
    exporting.set_defaults(handler=speed_export)
    records = solver_cli.add_command(actions, "records", "your all-time speed records per size and event, with their history")
    records.add_argument("--size", metavar="WxH", help="only this size (4x4)")
    records.set_defaults(handler=speed_records)


def speed_import(args) -> int:
    from tui.speed_commands import run_import  # the store is opened only when a speed command runs

    return run_import(args)


def speed_export(args) -> int:
    from tui.speed_commands import run_export

    return run_export(args)


def speed_records(args) -> int:
    from tui.speed_commands import run_records

    return run_records(args)


# --- the parser ----------------------------------------------------------------------------------

COMMANDS_GROUP = "koma.commands"
AddCommands = Callable[[Any], None]


def registered_commands() -> list[AddCommands]:
    """What installed packages register in the :data:`COMMANDS_GROUP` entry point group: each a callable that adds its
    subcommands, each with its ``handler``, to the parser's (argparse's subparsers).  The product names none of them and
    so imports none (``koma bench`` is the bench package's); one that cannot be loaded is told in one line, left out."""
    added = []
    for entry in sorted(entry_points(group=COMMANDS_GROUP), key=lambda entry: entry.name):
        try:
            added.append(entry.load())
        except Exception as problem:  # a broken plugin costs its own commands, never koma's
            print(f"koma: the {entry.name} commands could not be loaded: {one_line(f'{type(problem).__name__}: {problem}')}",
                  file=sys.stderr)
    return added


def build_parser(registered: Sequence[AddCommands] | None = None) -> Parser:
    """The ``koma`` parser: the product's flags and the game's commands, with the solver's registered in between and
    the installed packages' (``registered``; default :func:`registered_commands`) after."""
    parser = Parser(prog="koma", description="Koma (駒): play, understand and optimally solve sliding and flip puzzles.")
    # its own dest: a subcommand's defaults would overwrite a shared one (``koma --ascii play 8``)
    parser.add_argument("--ascii", dest="ascii_everywhere", action="store_true",
                        help="draw with ASCII characters only (automatic when the locale is not UTF-8)")
    parser.add_argument("--theme", metavar="NAME", help="colours of the game: colorblind (Okabe-Ito, safe for colour-blind "
                        "players), textual-dark (default), or another Textual theme")
    parser.add_argument("--version", action="store_true", help="print Koma's version and exit")
    parser.add_argument("--database", metavar="URL", help="where games are saved: postgresql://… or sqlite:///PATH "
                        "(default $KOMA_DATABASE_URL, else koma.db in the data dir)")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    add_play_command(commands)
    solver_cli.add_commands(commands)
    add_doctor_command(commands)
    add_speed_command(commands)
    add_serve_command(commands).set_defaults(handler=serve)
    add_web_command(commands).set_defaults(handler=web)
    for add in registered_commands() if registered is None else registered:
        add(commands)
    return parser


def parse_args(argv: Sequence[str] | None, registered: Sequence[AddCommands] | None = None):
    """Parse the command line; ``CommandError`` carries argparse's complaint as one line."""
    return build_parser(registered).parse_args(argv)


def one_line_warning(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                     file: Any = None, line: str | None = None) -> None:
    """A Python warning as one line on stderr (``warnings.showwarning``'s signature); ``serve`` and ``web`` send
    warnings to the server's log instead."""
    text = " ".join(str(message).split())
    try:
        print(f"koma: warning: {category.__name__}: {text}", file=sys.stderr, flush=True)
    except (OSError, ValueError):
        pass


def main(argv: Sequence[str] | None = None, registered: Sequence[AddCommands] | None = None) -> int:
    """Parse and run a command: the game for no command or ``play``, the command's handler otherwise (``registered``:
    the installed packages' commands, see :func:`build_parser`)."""
    warnings.showwarning = one_line_warning
    words = list(sys.argv[1:] if argv is None else argv)
    try:
        args = parse_args(words, registered)
    except CommandError as error:
        return report_error(f"{error}{board_hint(words)}", wants_json(words))
    if args.version:
        print(f"koma {package_version()}")
        return 0
    if args.command in (None, "play"):
        if getattr(args, "json", False):
            return report_error("'koma play' opens the game, which has no JSON output; "
                                "--json is for solve, parity, longest, generate, bench, doctor and tables", True)
        try:
            return play(args)
        finally:
            tell_notices()  # any the game did not drain and show itself
    return run(args.handler, args)
