"""Help: the rules of each puzzle in a few lines, and the keys of the screen it was opened from."""

from __future__ import annotations

from collections import defaultdict

from rich.markup import escape
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen

from tui.ascii import Static

RULES = {
    "8": ("8-puzzle and 15-puzzle",
          "Slide a tile next to the blank into it until the tiles read 1, 2, 3, … with the blank last. "
          "Moves are named by the direction the tile moves. Only half of all boards can be solved: the "
          "parity of the inversions (plus the blank's row on even widths) never changes."),
    "goat": ("Goat",
             "A 4x3 sliding-block puzzle: slide a piece next to the blank into it; the wide big piece in the "
             "top row slides sideways only. Bring the sheep 羊 into its pen (the cell left of the door ‖ in "
             "the middle row). Every position can be solved; the parity of the snake path decides which ─ "
             "ends on top."),
    "ura": ("Ura-omote (front and back)",
            "Turning a row (A, B, …) or a column (1, 2, …) over reverses it and swaps white and black in it. "
            "Make every cell white. Cells come in mirror groups of four; a board can be solved exactly when "
            "each group shows an even number of black cells and no checkerboard."),
    "speed": ("Speed (the speedsolvers' rules, as Slidysim and slidy)",
              "A random-state scramble shows; look as long as you like: the clock starts on your first move and "
              "stops when the board is solved, to the millisecond. A click on a tile in the blank's row or column "
              "slides the whole line. STM counts every tile moved, MTM every run of moves one way (U3 is 3 STM, "
              "1 MTM); TPS is STM per second. mo3 is the mean of 3; ao5, ao12, ao25, ao50 and ao100 drop the best and "
              "worst 5% (rounded up: 1, 1, 2, 3, 5 each) and are a DNF when a DNF is left. A solve given up is a DNF. "
              "Sizes from 2x2 to 20x20 (- and +, or s to type any, such as 2x7), where the terminal can show them. "
              "Events (x): single; BLD (the numbers vanish with the first move; space confirms the solve, and a "
              "confirm on a board not solved is a DNF; the memorisation time, from the scramble shown to the first "
              "move, is kept beside the time); marathon (x5, x10, x42, x100 or any length from 2 to 1000 typed: that "
              "many in a row, one clock); Slidysim's relays down from the size chosen, one clock: 2-N (every square "
              "down to 2x2), width, height, and everything-up-to (every size up to it). Each length and each "
              "starting size keeps its own records. c colours tiles by layer (Fringe, Rows-Columns, Rows, Columns, "
              "Grids); m turns hover control on (the blank follows the pointer; hold a button or ctrl to place it "
              "without moving): both are remembered, and hover solves are tagged hover. After a solve "
              "Koma shows the scramble's optimal length and your efficiency (optimal / STM): up to 16 cells at once; "
              "the 4x5, 5x4 and 5x5 (its tables built with koma tables build sliding --size 5x5) within 30 s. "
              "Records last: the all-time best single and averages of each size and event, with their moves and TPS "
              "(v). Import (o) Slidysim replay links or its database, slidy's notation, CSV or JSON; l copies a "
              "solve's Slidysim replay link."),
    "race": ("Races (one scramble, every racer at the same moment)",
             "A room is a quick race (anyone racing that size joins it; it starts 10 s after its second racer, or at "
             "once with 8) or a private room (friends type its 5-letter code; its host starts it with s). A 3-2-1 "
             "countdown, then every racer gets the same random-state scramble at the same moment: each clock starts "
             "at the reveal, not at the first move. Keys and clicks as in Speed. Places go by finish time; a racer "
             "who leaves during the race (esc, after a confirm) is DNF, and one whose game is gone for 30 s too; "
             "open Race again within that window and you are back in, your moves kept, your clock still running. "
             "After 10 minutes a race is over (DNF for the rest). Then r asks for a rematch and v replays every "
             "racer's moves in their real timing. The opponents' boards are redrawn at most 20 times a second."),
}
ORDER = ("8", "goat", "ura")  # the rules shown on every help page ("speed" and "race" only on their screens')


def keys_text(screen: Screen) -> str:
    """Every key of ``screen`` (keymap applied), grouped by what it does."""
    by_action: dict[str, list[str]] = defaultdict(list)
    described: dict[str, str] = {}
    app = screen.app
    for _key, active in screen.active_bindings.items():
        binding = active.binding
        if binding.system and binding.action != "command_palette":
            continue
        description = binding.description or binding.tooltip or (binding.group.description if binding.group else "")
        if not description:
            description = binding.action
        by_action[binding.action].append(app.get_key_display(binding))
        described.setdefault(binding.action, description)
    lines = []
    for action, keys in by_action.items():
        lines.append(f"  [b]{escape(' '.join(dict.fromkeys(keys))).ljust(12)}[/b] {escape(described[action])}")
    return "\n".join(lines)


def help_text(screen: Screen, puzzle_key: str | None) -> str:
    focus = {"15": "8", "sliding": "8", "24": "8"}.get(puzzle_key or "", puzzle_key)
    order = [focus] + [k for k in ORDER if k != focus] if focus in RULES else list(ORDER)
    out = ["[b]Rules[/b]"]
    for key in order:
        title, text = RULES[key]
        out += ["", f"[b]{escape(title)}[/b]", escape(text)]
    out += ["", "[b]Keys here[/b]", keys_text(screen), "",
            "[b]Playing[/b]",
            "Arrows or h j k l slide the piece next to the blank that way (Ura-omote: move the cursor). "
            "s solves optimally in the background and plays the solution back: space pauses, + and - change "
            "the speed, [ and ] step while paused, and any move takes over. esc cancels a search at once. "
            "t highlights the next optimal move; u and U undo and redo everything, Koma's moves too. "
            "Your game and your records are saved as you play."]
    return "\n".join(out)


class HelpScreen(ModalScreen):
    """Rules and keys; Escape closes."""

    BINDINGS = [Binding("escape,question_mark,q", "dismiss", "Close", id="help.close")]

    def __init__(self, text: str):
        super().__init__(classes="dialog-screen")
        self.text = text

    def compose(self) -> ComposeResult:
        with Vertical(id="help-dialog", classes="dialog") as dialog:
            dialog.border_title = "Help"
            dialog.border_subtitle = "esc close"
            with VerticalScroll():
                yield Static(self.text, id="help-text")

