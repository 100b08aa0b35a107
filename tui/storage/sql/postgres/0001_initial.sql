-- Koma's tables in PostgreSQL: the same rows as the SQLite store (see tui/game/store.py).
-- Times are seconds since the epoch (double precision), as in SQLite, so both backends read alike.
CREATE TABLE games (
    player   TEXT NOT NULL,
    puzzle   TEXT NOT NULL,              -- the game key: a puzzle id, or daily/DAY/PUZZLE-ID
    start    TEXT NOT NULL,
    moves    TEXT NOT NULL,              -- JSON list of move names
    origins  TEXT NOT NULL,              -- one letter per move: p = player, k = Koma
    position INTEGER NOT NULL,           -- moves[:position] are on the board, the rest can be redone
    seconds  DOUBLE PRECISION NOT NULL,
    hints    INTEGER NOT NULL DEFAULT 0,
    updated  DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (player, puzzle)
);
CREATE TABLE stats (
    player        TEXT NOT NULL,
    puzzle        TEXT NOT NULL,
    solved        INTEGER NOT NULL DEFAULT 0,
    by_koma       INTEGER NOT NULL DEFAULT 0,
    best_moves    INTEGER,
    best_optimal  INTEGER,
    best_seconds  DOUBLE PRECISION,
    updated       DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (player, puzzle)
);
CREATE TABLE players (
    player     TEXT PRIMARY KEY,
    name       TEXT NOT NULL,
    first_seen DOUBLE PRECISION NOT NULL,
    last_seen  DOUBLE PRECISION NOT NULL
);
CREATE TABLE results (
    day      TEXT NOT NULL,                -- YYYY-MM-DD (UTC)
    puzzle   TEXT NOT NULL,                -- puzzle id
    player   TEXT NOT NULL,
    moves    INTEGER NOT NULL,
    optimal  INTEGER,                      -- the board's optimal length, when known
    seconds  DOUBLE PRECISION NOT NULL,
    hints    INTEGER NOT NULL DEFAULT 0,
    finished DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (day, puzzle, player)
);
