-- Version 2: everything per player (version 1's games and stats become the 'local' player's),
-- the players, and each player's best daily result.
ALTER TABLE games RENAME TO games_v1;
ALTER TABLE stats RENAME TO stats_v1;
CREATE TABLE games (
    player   TEXT NOT NULL,
    puzzle   TEXT NOT NULL,      -- the game key: a puzzle id, or daily/DAY/PUZZLE-ID
    start    TEXT NOT NULL,
    moves    TEXT NOT NULL,      -- JSON list of move names
    origins  TEXT NOT NULL,      -- one letter per move: p = player, k = Koma
    position INTEGER NOT NULL,   -- moves[:position] are on the board, the rest can be redone
    seconds  REAL NOT NULL,
    hints    INTEGER NOT NULL DEFAULT 0,
    updated  REAL NOT NULL,
    PRIMARY KEY (player, puzzle)
);
CREATE TABLE stats (
    player        TEXT NOT NULL,
    puzzle        TEXT NOT NULL,
    solved        INTEGER NOT NULL DEFAULT 0,
    by_koma       INTEGER NOT NULL DEFAULT 0,
    best_moves    INTEGER,
    best_optimal  INTEGER,
    best_seconds  REAL,
    updated       REAL NOT NULL,
    PRIMARY KEY (player, puzzle)
);
CREATE TABLE players (
    player     TEXT PRIMARY KEY,
    name       TEXT NOT NULL,
    first_seen REAL NOT NULL,
    last_seen  REAL NOT NULL
);
CREATE TABLE results (
    day      TEXT NOT NULL,      -- YYYY-MM-DD (UTC)
    puzzle   TEXT NOT NULL,      -- puzzle id
    player   TEXT NOT NULL,
    moves    INTEGER NOT NULL,
    optimal  INTEGER,            -- the board's optimal length, when known
    seconds  REAL NOT NULL,
    hints    INTEGER NOT NULL DEFAULT 0,
    finished REAL NOT NULL,
    PRIMARY KEY (day, puzzle, player)
);
INSERT INTO games (player, puzzle, start, moves, origins, position, seconds, hints, updated)
    SELECT 'local', puzzle, start, moves, origins, position, seconds, hints, updated FROM games_v1;
INSERT INTO stats (player, puzzle, solved, by_koma, best_moves, best_optimal, best_seconds, updated)
    SELECT 'local', puzzle, solved, by_koma, best_moves, best_optimal, best_seconds, updated FROM stats_v1;
DROP TABLE games_v1;
DROP TABLE stats_v1;
