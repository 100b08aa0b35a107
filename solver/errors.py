"""The one error type users see: a one-line message naming the problem."""


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
