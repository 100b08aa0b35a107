"""An argparse parser that takes some words beginning with ``-`` for arguments, and lets an optional positional wait
for the words after the options.

Goat's boards may begin with ``-`` (a fence: ``-BBd/.WrS/-jli``), which argparse takes for an option, and argparse
gives an optional positional (``BOARD``, ``nargs="?"``) nothing as soon as an option follows the positional before
it, so ``koma solve 8 --json BOARD`` left ``BOARD`` over.  argparse has no public hook for either: this adjusts two
of its private steps, ``_parse_optional`` ("is this word an option?") and ``_match_arguments_partial`` ("which
positionals do the words before the next option fill?").  What they rely on is checked when the first parser is
made (:func:`misfit`); if argparse is not the one they were written for (Python 3.11's), the parser is argparse's
own (such a board then needs ``--`` before it, as the error says) and Koma says so once
(:func:`tui.patches.checks.step_aside`).
"""

from __future__ import annotations

import argparse
import functools
from typing import Any

from tui.patches.checks import first_problem, missing, parameters_differ, told_if_misfit

OVERRIDE = "board-aware argument parser"
INSTEAD = "a board that begins with - needs -- before it, and a board after an option needs -- too (argparse's own)"


def parser_misfit() -> str | None:
    """Why this argparse is not the one :class:`DashWordParser` was written for, or None."""
    return first_problem(
        lambda: missing(argparse.ArgumentParser, ["_parse_optional", "_match_arguments_partial"]),
        lambda: parameters_differ(argparse.ArgumentParser._parse_optional, ["self", "arg_string"]),
        lambda: parameters_differ(argparse.ArgumentParser._match_arguments_partial, ["self", "actions", "arg_strings_pattern"]),
        lambda: missing(argparse, ["OPTIONAL", "ZERO_OR_MORE"]),
    )


@functools.cache
def misfit() -> str | None:
    """:func:`parser_misfit`, checked on first use and told once (:func:`tui.patches.checks.step_aside`) if there is one."""
    import platform

    return told_if_misfit(OVERRIDE, parser_misfit(), INSTEAD, f"Python {platform.python_version()}'s argparse")


class DashWordParser(argparse.ArgumentParser):
    """argparse's parser, where a word for which :meth:`is_argument` holds is never an option, and a trailing optional
    positional that would match nothing while options follow stays open for the words after them (at the end of the
    line it still takes its default)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.adjusted = not misfit()

    @staticmethod
    def is_argument(word: str) -> bool:
        """Whether ``word`` is an argument even where argparse would take it for an option (a subclass says)."""
        return False

    def _parse_optional(self, *args: Any, **kwargs: Any) -> Any:
        if self.adjusted and args and self.is_argument(args[0]):
            return None  # a positional, or the value of the option before it (``--board -BBd/...``)
        return super()._parse_optional(*args, **kwargs)

    def _match_arguments_partial(self, *args: Any, **kwargs: Any) -> Any:
        counts = super()._match_arguments_partial(*args, **kwargs)
        if not self.adjusted:
            return counts
        actions, pattern = args
        if "O" in pattern:
            while counts and counts[-1] == 0 and actions[len(counts) - 1].nargs in (argparse.OPTIONAL, argparse.ZERO_OR_MORE):
                counts.pop()
        return counts
