-- Every finished game keeps its moves, so it can be replayed move by move (as SQLite's 004-replays.sql).
CREATE TABLE replays (
    id       BIGSERIAL PRIMARY KEY,
    player   TEXT NOT NULL,
    game     TEXT NOT NULL,              -- the game key it was saved under: a puzzle id, or daily/DAY/PUZZLE-ID
    puzzle   TEXT NOT NULL,              -- the puzzle id (8, 15, goat, ura-3x3…)
    start    TEXT NOT NULL,
    moves    TEXT NOT NULL,              -- JSON list of move names
    origins  TEXT NOT NULL,              -- one letter per move: p = player, h = after a hint, k = Koma
    seconds  DOUBLE PRECISION NOT NULL CHECK (seconds >= 0),
    optimal  INTEGER CHECK (optimal >= 0),
    by_koma  INTEGER NOT NULL CHECK (by_koma IN (0, 1)),
    finished DOUBLE PRECISION NOT NULL
);
CREATE INDEX replays_by_player ON replays (player, finished);
