-- Version 1: one profile; a game in progress and the stats per puzzle.
CREATE TABLE games (
    puzzle   TEXT PRIMARY KEY,
    start    TEXT NOT NULL,
    moves    TEXT NOT NULL,
    origins  TEXT NOT NULL,
    position INTEGER NOT NULL,
    seconds  REAL NOT NULL,
    hints    INTEGER NOT NULL DEFAULT 0,
    updated  REAL NOT NULL
);
CREATE TABLE stats (
    puzzle       TEXT PRIMARY KEY,
    solved       INTEGER NOT NULL DEFAULT 0,
    by_koma      INTEGER NOT NULL DEFAULT 0,
    best_moves   INTEGER,
    best_optimal INTEGER,
    best_seconds REAL,
    updated      REAL NOT NULL
);
