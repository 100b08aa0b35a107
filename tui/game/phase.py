"""Where a game on the play screen is: the one value its key bar, side panel and clock follow."""

from __future__ import annotations

from enum import Enum


class Phase(Enum):
    """The play screen's phase (Textual's demo game keeps its ``state`` the same way)."""

    LOADING = "loading"  # the saved game is being read: no board is drawn, keys typed meanwhile are held
    READY = "ready"  # a board, nothing played on it since it was shown (a new board, a resumed game): the clock waits
    PLAYING = "playing"  # the player plays: the clock runs
    SOLVING = "solving"  # a solve or a hint is being searched for (the clock runs once a move was played)
    PLAYBACK = "playback"  # Koma plays its solution back
    PAUSED = "paused"  # the playback is paused: the step keys work
    WON = "won"  # solved: the clock has stopped

    @property
    def clock_runs(self) -> bool:
        """Whether the game's clock runs in this phase (on a screen that is shown, once a move was played)."""
        return self in (Phase.PLAYING, Phase.SOLVING, Phase.PLAYBACK, Phase.PAUSED)
