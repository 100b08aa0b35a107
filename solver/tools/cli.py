"""The solver's commands of the ``koma`` command line: ``koma solve|parity|longest|generate|tables`` (every
command takes ``--json``), registered into the product's parser (:mod:`tui.cli`) by :func:`add_commands`.

A command's handler prints its answer and returns its exit status; bad input raises :class:`~solver.errors.KomaError`,
which the product's command line reports as one line (``koma: error: ...``, exit status 2).  Never imports Textual.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable
from typing import Any

from solver import solving as search
from solver.engines.progress import throttled
from solver.errors import GaveUp, KomaError, UnsolvableError, shown

EXIT_GAVE_UP = 1  # koma solve --limit: no answer in time (the lower bound proved is printed)


# --- boards that begin with "-" ------------------------------------------------------------------

OPTION_SHAPE = re.compile(r"--?[A-Za-z][A-Za-z0-9-]*(=.*)?")
NUMBER_SHAPE = re.compile(r"-\d+(\.\d*)?")


def might_be_a_board(word: str) -> bool:
    """A word that begins with ``-`` but is shaped like neither an option nor a negative number."""
    return word.startswith("-") and not OPTION_SHAPE.fullmatch(word) and not NUMBER_SHAPE.fullmatch(word)


def parses_as_a_board(text: str) -> bool:
    """Whether ``text`` is a legal board of some puzzle at its default size (Goat's start with ``-``)."""
    from solver.registry import VARIANTS

    for variant in VARIANTS:
        try:
            variant.build(None).parse(text)
        except KomaError:
            continue
        return True
    return False


def is_a_board(word: str) -> bool:
    """Whether a word argparse would take for an option is a board (Goat's fence, ``-BBd/...``): an argument."""
    return might_be_a_board(word) and parses_as_a_board(word)


# --- notices ---------------------------------------------------------------------------------------

_shown_notices: set[str] = set()


def tell(message: str) -> None:
    """A one-line notice on stderr (tables, compiled kernels), each at most once per run."""
    if message not in _shown_notices:
        _shown_notices.add(message)
        clear_progress()
        print(f"koma: {message}", file=sys.stderr)


def seconds_limit(text: str) -> float:
    """A positive number of seconds (``--limit``); anything else is bad input."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"--limit takes a positive number of seconds, not {shown(text)}")
    return value


def seed_number(text: str) -> int:
    """A ``--seed``: a whole number, 0 or more.

    Python's ``random.Random(-n)`` is ``random.Random(n)``, so a negative seed would silently give
    the board of its positive twin; it is refused rather than given a meaning of its own.
    """
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid int value: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"a seed is 0 or more, not {value} (Python's random would take {value} for {-value})")
    return value


def add_command(commands: Any, name: str, help_text: str) -> argparse.ArgumentParser:
    """A ``koma`` subcommand taking ``--json`` (every command but ``play`` has JSON output)."""
    sub = commands.add_parser(name, help=help_text, description=help_text)
    sub.add_argument("--json", action="store_true", help="machine-readable output")
    return sub


def puzzle_arguments(sub: argparse.ArgumentParser, board: str | None = None) -> None:
    """PUZZLE (or a game ID, when the command takes a board), the BOARD when ``board="positional"``, and ``--size``."""
    if board is None:
        sub.add_argument("puzzle", metavar="PUZZLE", help="8, 15, sliding, goat or ura")
    else:  # a game ID (koma generate prints one) names the puzzle, the size and the board at once
        sub.add_argument("puzzle", metavar="PUZZLE", help="8, 15, sliding, goat or ura; or a game ID such as 15-…")
    if board == "positional":
        sub.add_argument("board", metavar="BOARD", nargs="?", help="the board in the puzzle's notation (quote it); "
                         "none after a game ID")
    sub.add_argument("--size", metavar="WxH", help="board size (sliding: 2x2..20x20, solved up to 5x5; ura: 2x2..6x6)")


def add_commands(commands: Any) -> None:
    """Register the solver's commands into the ``koma`` parser's subcommands (``commands``, argparse's), each with its
    ``handler``: solve, parity, longest, generate and tables."""
    solve = add_command(commands, "solve", "an optimal solution: length, moves, path, nodes, seconds")
    puzzle_arguments(solve, "positional")
    solve.add_argument("--method", metavar="NAME", help="solving method (see the puzzle's list; default: the fastest optimal one)")
    solve.add_argument("--heuristic", metavar="NAME", help="IDA* heuristic for the 15-puzzle family")
    solve.add_argument("--limit", type=seconds_limit, metavar="SECONDS",
                       help="give up after this long with the lower bound proved so far (the 24-puzzle's optimal search)")
    solve.set_defaults(handler=cmd_solve)

    parity = add_command(commands, "parity", "solvable or not, with the proof")
    puzzle_arguments(parity, "positional")
    parity.set_defaults(handler=cmd_parity)

    longest = add_command(commands, "longest", "full BFS: states, max depth, the positions at max depth, per-depth counts")
    puzzle_arguments(longest)
    longest.add_argument("--classes", action="store_true", help="group the longest positions by board symmetry")
    longest.set_defaults(handler=cmd_longest)

    generate = add_command(commands, "generate", "a random solvable problem")
    puzzle_arguments(generate)
    generate.add_argument("--seed", type=seed_number, metavar="N", help="same seed, same board (0 or more)")
    generate.add_argument("--distance", type=int, metavar="D", help="exactly D moves from solved (puzzles with a table)")
    generate.set_defaults(handler=cmd_generate)


    tables = add_command(commands, "tables", "build the big tables ahead of time")
    tables.add_argument("action", choices=["build"], help="build (or check) a table")
    tables.add_argument("puzzle", metavar="PUZZLE", choices=["15", "sliding"], help="15, or sliding with --size 4x4 or 5x5")
    tables.add_argument("--size", metavar="WxH", help="sliding: 4x4 (the 15-puzzle's tables) or 5x5 (6-6-6-6)")
    tables.add_argument("--pdb", default=None, metavar="NAME", help="pattern database: 6-6-3 (default) or 7-8 on "
                        "the 4x4; 6-6-6-6 on the 5x5")
    tables.set_defaults(handler=cmd_tables)


# --- output helpers -------------------------------------------------------------------------------

def emit(args, data: dict[str, Any], text: Callable[[], str]) -> None:
    if args.json:
        print(json.dumps(data, ensure_ascii=False))
    else:
        print(text())


def stderr_progress(label: str):
    """A progress callback that rewrites one stderr line, only when stderr is a terminal."""
    if not sys.stderr.isatty():
        return None
    def report(figures: dict[str, Any]) -> None:
        shown = ", ".join(f"{k} {v:,.0f}" if isinstance(v, (int, float)) else f"{k} {v}" for k, v in figures.items())
        sys.stderr.write(f"\r\x1b[K{label}: {shown}")
        sys.stderr.flush()

    return throttled(report)


def clear_progress() -> None:
    if sys.stderr.isatty():
        sys.stderr.write("\r\x1b[K")
        sys.stderr.flush()


def puzzle_from(args):
    from solver.registry import get_puzzle

    return get_puzzle(args.puzzle, args.size)


def puzzle_and_board_from(args):
    """The puzzle and board of ``koma solve|parity``: ``PUZZLE BOARD [--size WxH]`` or one game ID."""
    from solver.ids import puzzle_and_board

    puzzle, state = puzzle_and_board(args.puzzle, args.size, args.board)
    if state is None:
        raise KomaError(f"a board is required: give PUZZLE BOARD, or a game ID such as {game_id_of(puzzle, puzzle.goal)}")
    return puzzle, state


def game_id_of(puzzle, state) -> str:
    """The board's game ID (the codec is imported here: it loads every puzzle model)."""
    from solver.ids import game_id

    return game_id(puzzle, state)


# --- commands ------------------------------------------------------------------------------------

def cmd_solve(args) -> int:
    puzzle, state = puzzle_and_board_from(args)
    options = {"notice": tell}
    if args.heuristic:
        options["heuristic"] = args.heuristic
    if args.limit is not None:
        options["limit"] = args.limit
    try:
        solution = search.solve(puzzle, state, args.method, progress=stderr_progress(f"solving {puzzle.title}"), **options)
    except GaveUp as gave_up:
        clear_progress()
        told = f"{puzzle.title} {puzzle.format(state)}\n{gave_up}"
        emit(args, {"puzzle": puzzle.key, "size": puzzle.size_label, "board": puzzle.format(state), "gave_up": True,
                    "lower_bound": gave_up.lower_bound, "nodes": gave_up.nodes, "seconds": gave_up.seconds},
             lambda: told)
        return EXIT_GAVE_UP
    except UnsolvableError as unsolvable:
        clear_progress()
        if not args.json:  # the command line's error adds the proof's figures under --json
            print("\n".join(unsolvable.proof.lines))
        raise
    clear_progress()
    data = {
        "puzzle": puzzle.key, "size": puzzle.size_label, "board": puzzle.format(state),
        "length": solution.length, "moves": list(solution.moves),
        "path": [puzzle.format(s) for s in solution.path], "optimal": solution.optimal,
        "method": solution.method, "nodes": solution.nodes, "seconds": solution.seconds, "note": solution.note,
    }

    def text() -> str:
        kind = "optimal" if solution.optimal else "NOT proven optimal"
        lines = [f"{puzzle.title} {puzzle.format(state)}",
                 f"{solution.length} moves ({kind}; {solution.method}, {solution.nodes:,} nodes, {solution.seconds:.3f} s)",
                 " ".join(solution.moves) if solution.moves else "(already solved)"]
        if solution.note:
            lines.append(solution.note)
        return "\n".join(lines)

    emit(args, data, text)
    finish_background_tables()
    return 0


def finish_background_tables() -> None:
    """Let a pattern database that a solve started building finish, so the next solve uses it."""
    fifteen = sys.modules.get("solver.sliding.search")
    if fifteen is not None and not fifteen.wait_for_tables(0):
        print("koma: finishing the pattern database in the background build (once)...", file=sys.stderr)
        fifteen.wait_for_tables()


def cmd_parity(args) -> int:
    puzzle, state = puzzle_and_board_from(args)
    proof = puzzle.proof(state)
    data = {"puzzle": puzzle.key, "size": puzzle.size_label, "board": puzzle.format(state), **proof.to_dict()}
    emit(args, data, lambda: "\n".join(proof.lines))
    return 0


def cmd_longest(args) -> int:
    puzzle = puzzle_from(args)
    result = puzzle.longest(progress=stderr_progress(f"BFS over {puzzle.title}"))
    clear_progress()
    data: dict[str, Any] = {
        "puzzle": puzzle.key, "size": puzzle.size_label, "states": result.states, "max_depth": result.max_depth,
        "count": len(result.positions), "positions": [puzzle.format(p) for p in result.positions],
        "histogram": list(result.histogram), "seconds": result.seconds,
    }
    classes = None
    if args.classes:
        grouping = getattr(puzzle, "symmetry_classes", None)
        if grouping is None:
            raise KomaError(f"--classes is not available for {puzzle.title}")
        classes = grouping(result.positions)
        data["classes"] = [{"representative": puzzle.format(rep), "size": size} for rep, size in classes]

    def text() -> str:
        lines = [f"{puzzle.title} {puzzle.size_label}: {result.states:,} states, longest {result.max_depth} moves, "
                 f"{len(result.positions):,} positions at that distance"]
        if classes is not None:
            lines.append(f"{len(classes)} symmetry classes:")
            lines += [f"  {puzzle.format(rep)}  (class of {size})" for rep, size in classes]
        else:
            lines += [f"  {puzzle.format(p)}" for p in result.positions]
        lines.append("moves  positions")
        lines += [f"{d:5d}  {n:,}" for d, n in enumerate(result.histogram)]
        return "\n".join(lines)

    emit(args, data, text)
    return 0


def cmd_generate(args) -> int:
    puzzle = puzzle_from(args)
    import random

    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    state = puzzle.random_state(seed, args.distance)
    data: dict[str, Any] = {"puzzle": puzzle.key, "size": puzzle.size_label, "board": puzzle.format(state), "seed": seed,
                            "id": game_id_of(puzzle, state)}
    if puzzle.enumerable:
        data["distance"] = search.distance(puzzle, state)

    def text() -> str:
        extra = f"  ({data['distance']} moves from solved)" if "distance" in data else ""
        return f"{puzzle.format(state)}{extra}\nid {data['id']}\nseed {seed}"

    emit(args, data, text)
    return 0




def table_name(args) -> str:
    """The pattern database that ``koma tables build PUZZLE [--size WxH] [--pdb NAME]`` asks for."""
    size = "4x4" if args.puzzle == "15" else (args.size or "").strip().lower()
    if args.puzzle == "15" and args.size and args.size.strip().lower() != "4x4":
        raise KomaError(f"the 15-puzzle is 4x4, not {shown(args.size)}")
    if size == "4x4":
        return args.pdb or "6-6-3"
    if size == "5x5":
        if args.pdb and args.pdb.strip().lower() not in ("6-6-6-6", "6666", "pdb6666"):
            raise KomaError(f"the 5x5 has one pattern database, 6-6-6-6, not {shown(args.pdb)}")
        return "6-6-6-6"
    raise KomaError(f"pattern databases are built for the sliding puzzle at --size 4x4 or 5x5, not {shown(size or 'none')}")


def cmd_tables(args) -> int:
    from solver.sliding.search import build_tables, table_requirements

    needs = table_requirements(table_name(args))
    if not args.json:
        print(f"pattern database {needs['label']} for the {needs['board']} board: {needs['entries']:,} entries; building needs "
              f"about {needs['build_memory_bytes'] / 2**30:.2f} GiB of memory and {needs['disk_bytes'] / 2**20:,.0f} MiB "
              f"of disk ({needs['path']}); solving maps it read-only and shares it between processes")
    bar = progress_bar(f"building {needs['label']}") if not args.json else None
    info = build_tables(needs["name"], progress=bar)
    clear_progress()
    data = {**info}
    emit(args, data, lambda: (f"built in {info['seconds']:.1f} s" if info["built"] else "already built and checked")
         + f": {info['path']}")
    return 0


def progress_bar(label: str):
    """A progress callback drawing a bar on stderr (a line every few seconds when not a terminal)."""
    live = sys.stderr.isatty()

    def report(info: dict[str, Any]) -> None:
        fraction = float(info.get("fraction", 0.0))
        filled = int(fraction * 30)
        line = f"{label}: [{'#' * filled}{'.' * (30 - filled)}] {fraction:5.1%}  {info.get('seconds', 0):.0f} s"
        sys.stderr.write(f"\r\x1b[K{line}" if live else line + "\n")
        sys.stderr.flush()

    return throttled(report, 0.1 if live else 5.0)
