"""The parity proof of the board on screen: the verdict, the puzzle's proof fields and the argument."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen

from solver.puzzle import Proof, Puzzle
from tui.ascii import Static

HIDDEN_FIELDS = {"rule"}  # said in full in the argument


def field_label(name: str) -> str:
    return name.replace("_", " ").capitalize()


def field_value(value) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (list, tuple)):
        return " ".join(str(v) for v in value) or "(none)"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def proof_text(puzzle: Puzzle, board: str, proof: Proof) -> str:
    """The proof as Textual markup: verdict, fields as a table of lines, then the argument."""
    from rich.markup import escape

    verdict = "solvable" if proof.solvable else "NOT solvable"
    out = [f"[b]{escape(puzzle.title)} {puzzle.size_label}[/b]   {escape(board)}", "",
           f"[b]Verdict: {verdict}[/b]", escape(proof.summary), "", "[b]Figures[/b]"]
    shown = [(k, v) for k, v in proof.fields.items() if k not in HIDDEN_FIELDS]
    width = max((len(field_label(k)) for k, _ in shown), default=0)
    out += [f"  {field_label(k).ljust(width)}  {escape(field_value(v))}" for k, v in shown]
    out += ["", "[b]Why[/b]"]
    out += [f"  {escape(line)}" for line in proof.lines]
    return "\n".join(out)


class ProofScreen(ModalScreen):
    """The full parity proof; Escape (or p) closes it."""

    BINDINGS = [
        Binding("escape,p,q", "dismiss", "Close", id="proof.close"),
    ]

    def __init__(self, puzzle: Puzzle, state, proof: Proof, ascii_only: bool = False):
        super().__init__(classes="dialog-screen")
        self.puzzle, self.state, self.proof_ = puzzle, tuple(state), proof

    def compose(self) -> ComposeResult:
        with Vertical(id="proof-dialog", classes="dialog") as dialog:
            dialog.border_title = "Parity proof"
            dialog.border_subtitle = "esc close"
            with VerticalScroll():
                yield Static(proof_text(self.puzzle, self.puzzle.format(self.state), self.proof_), id="proof-text")

