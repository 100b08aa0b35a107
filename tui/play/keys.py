"""The play screens' keys: bindings with the ids ``keymap.toml`` and the command palette use.

Kept apart from the screens so that the list of keys reads as one table.
"""

from __future__ import annotations

from textual.binding import Binding, BindingType
from textual.screen import Screen

MOVE = Binding.Group("move", compact=True)
CURSOR = Binding.Group("cursor", compact=True)

# the moves are priority bindings: a key plays at once, not after a trip through the screen's widgets and back
# (no widget on a play screen takes arrows; the app's own priority keys still come first)
PLAY_BINDINGS: list[BindingType] = [
    Binding("up,k", "arrow('U')", "", id="play.up", group=MOVE, priority=True),
    Binding("down,j", "arrow('D')", "", id="play.down", group=MOVE, priority=True),
    Binding("left,h", "arrow('L')", "", id="play.left", group=MOVE, priority=True),
    Binding("right,l", "arrow('R')", "move", id="play.right", group=MOVE, priority=True),
    Binding("shift+up", "cursor(-1,0)", "", id="play.cursor_up", tooltip="Cursor up", show=False),
    Binding("shift+down", "cursor(1,0)", "", id="play.cursor_down", tooltip="Cursor down", show=False),
    Binding("shift+left", "cursor(0,-1)", "", id="play.cursor_left", tooltip="Cursor left", show=False),
    Binding("shift+right", "cursor(0,1)", "", id="play.cursor_right", tooltip="Cursor right", show=False),
    Binding("enter", "activate('enter')", "Play cursor", id="play.enter", show=False, tooltip="Move the piece under the cursor"),
    Binding("space", "activate('space')", "Play cursor / pause", id="play.space", show=False,
            tooltip="Move the piece under the cursor, or pause the playback"),
    Binding("s", "solve", "solve", id="play.solve", tooltip="Solve: find an optimal solution in the background and play it back"),
    Binding("t", "hint", "hint", id="play.hint", tooltip="Hint: highlight the next optimal move"),
    Binding("u", "undo", "undo", id="play.undo", tooltip="Undo the last move"),
    Binding("U", "redo", "redo", id="play.redo", tooltip="Redo the move undone", show=False),
    Binding("n", "new_game", "new", id="play.new", tooltip="New game: random, an exact distance, or your own board"),
    Binding("r", "restart", "restart", id="play.restart", tooltip="Restart from the first board (redo brings your moves back)", show=False),
    Binding("p", "proof", "parity", id="play.proof", tooltip="Parity proof: why this board can or cannot be solved"),
    Binding("plus,equals_sign", "speed(1)", "Faster", id="play.faster", tooltip="Faster playback", show=False),
    Binding("minus", "speed(-1)", "Slower", id="play.slower", tooltip="Slower playback", show=False),
    Binding("right_square_bracket", "step(1)", "Step forward", id="play.step_forward", tooltip="Step the paused playback forward", show=False),
    Binding("left_square_bracket", "step(-1)", "Step back", id="play.step_back", tooltip="Step the paused playback back", show=False),
    Binding("escape", "escape", "back", id="play.escape", tooltip="Back: cancel the search or playback, else return home"),
    Binding("y", "copy_id", "copy ID", id="play.copy_id", show=False, tooltip="Copy this game's ID (share it: koma play ID)"),
    Binding("v", "read_board", "read board", id="play.read_board", show=False,
            tooltip="Read the board row by row (for a screen reader)"),
]

URA_BINDINGS: list[BindingType] = [
    Binding("up,k", "arrow('U')", "", id="play.up", group=CURSOR),
    Binding("down,j", "arrow('D')", "", id="play.down", group=CURSOR),
    Binding("left,h", "arrow('L')", "", id="play.left", group=CURSOR),
    Binding("right,l", "arrow('R')", "cursor", id="play.right", group=CURSOR),
    Binding("enter", "activate('enter')", "row", id="play.enter", tooltip="Turn the cursor's row over"),
    Binding("space", "activate('space')", "column", id="play.space", tooltip="Turn the cursor's column over (or pause the playback)"),
    *[Binding(f"{letter.lower()},{letter}", f"flip('{letter}')", f"Turn row {letter} over",
              id=f"play.row_{letter.lower()}", show=False) for letter in "ABCDEF"],
    *[Binding(digit, f"flip('{digit}')", f"Turn column {digit} over", id=f"play.column_{digit}", show=False)
      for digit in "123456"],
]

DAILY_BINDINGS: list[BindingType] = [
    Binding("b", "leaderboard", "leaderboard", id="play.leaderboard", tooltip="The daily leaderboard of this puzzle"),
]


def bound_key(screen: Screen, binding_id: str, default: str) -> str:
    """The key bound to ``binding_id`` on ``screen`` now, as the key bar shows it (a remapped key as remapped)."""
    for active in screen.active_bindings.values():
        if active.binding.id == binding_id:
            return screen.app.get_key_display(active.binding)
    return default
