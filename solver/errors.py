"""The one error type users see: a one-line message naming the problem."""

import re


class KomaError(ValueError):
    """Bad input or an impossible request; ``str(error)`` is a one-line message for the user."""


class BoardError(KomaError):
    """A board that cannot be parsed, or is not a legal position of its puzzle."""


class UnsolvableError(KomaError):
    """A legal board that cannot reach the goal; ``proof`` explains why."""

    def __init__(self, message: str, proof=None):
        super().__init__(message)
        self.proof = proof


class Cancelled(Exception):
    """A long computation was stopped through its stop flag."""


def shown(text: str, limit: int = 16) -> str:
    """User input quoted for an error message, shortened so the message stays one short line."""
    text = str(text)
    return repr(text) if len(text) <= limit else repr(text[: limit - 1]) + "…"


LONG_WORD = 48  # a run of this many non-space characters or more is shortened in an error line
MAX_LINE = 400  # an error line never exceeds about this many characters
_LONG_RUN = re.compile(rf"\S{{{LONG_WORD + 1},}}")


def one_line(message: str) -> str:
    """``message`` made safe to print as one bounded line, whatever put the user's input into it.

    Control characters (a newline, ESC) are escaped; a long word (a 5 MB argument that argparse or a
    check echoed) keeps its start and says its length; a line still too long is cut, with its length.
    """
    text = original = str(message)
    if not text.isprintable():
        text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
    text = _LONG_RUN.sub(lambda run: f"{run.group()[:LONG_WORD // 2]}… ({len(run.group()):,} characters)", text)
    if len(text) > MAX_LINE:
        text = f"{text[:MAX_LINE]}… ({len(original):,} characters in all)"
    return text


class GaveUp(Exception):
    """A search stopped at its time limit: no solution is shorter than ``lower_bound`` moves."""

    def __init__(self, lower_bound: int, nodes: int, seconds: float):
        super().__init__(f"gave up after {seconds:.1f} s: at least {lower_bound} moves ({nodes:,} nodes searched)")
        self.lower_bound, self.nodes, self.seconds = lower_bound, nodes, seconds
