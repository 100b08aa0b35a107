-- Version 4: every finished game keeps its moves, so it can be replayed move by move.
CREATE TABLE replays (
    id       INTEGER PRIMARY KEY,
    player   TEXT NOT NULL,
    game     TEXT NOT NULL,      -- the game key it was saved under: a puzzle id, or daily/DAY/PUZZLE-ID
    puzzle   TEXT NOT NULL,      -- the puzzle id (8, 15, goat, ura-3x3…)
    start    TEXT NOT NULL,      -- the start board in the puzzle's notation
    moves    TEXT NOT NULL CHECK (CASE WHEN json_valid(moves) THEN json_type(moves) = 'array' ELSE 0 END),
    origins  TEXT NOT NULL,      -- one letter per move: p = player, h = after a hint, k = Koma
    seconds  REAL NOT NULL CHECK (seconds >= 0),
    optimal  INTEGER CHECK (optimal >= 0),   -- the start's optimal length, when known
    by_koma  INTEGER NOT NULL CHECK (by_koma IN (0, 1)),   -- Koma's playback made a move
    finished REAL NOT NULL
) STRICT;
CREATE INDEX replays_by_player ON replays (player, finished);
