-- Version 3: STRICT tables with CHECK constraints, so a wrong-typed value is refused when it is written.
-- Version 2 rows that break these rules are not dropped: they are kept as JSON in rejected_rows,
-- where `koma doctor` lists them.
CREATE TABLE rejected_rows (
    source TEXT NOT NULL,        -- the table the row came from
    data   TEXT NOT NULL,        -- the row, as a JSON object
    moved  REAL NOT NULL         -- when it was set aside (Unix time)
) STRICT;

ALTER TABLE games RENAME TO games_v2;
CREATE TABLE games (
    player   TEXT NOT NULL,
    puzzle   TEXT NOT NULL,      -- the game key: a puzzle id, or daily/DAY/PUZZLE-ID
    start    TEXT NOT NULL,
    moves    TEXT NOT NULL CHECK (CASE WHEN json_valid(moves) THEN json_type(moves) = 'array' ELSE 0 END),
    origins  TEXT NOT NULL,      -- one letter per move: p = player, k = Koma
    position INTEGER NOT NULL CHECK (position >= 0),
    seconds  REAL NOT NULL CHECK (seconds >= 0),
    hints    INTEGER NOT NULL DEFAULT 0 CHECK (hints >= 0),
    updated  REAL NOT NULL,
    PRIMARY KEY (player, puzzle)
) STRICT;
INSERT INTO games SELECT * FROM games_v2
    WHERE typeof(player) = 'text' AND typeof(puzzle) = 'text' AND typeof(start) = 'text' AND typeof(origins) = 'text'
      AND typeof(moves) = 'text' AND CASE WHEN json_valid(moves) THEN json_type(moves) = 'array' ELSE 0 END
      AND typeof(position) = 'integer' AND position >= 0
      AND typeof(seconds) IN ('integer', 'real') AND seconds >= 0
      AND typeof(hints) = 'integer' AND hints >= 0
      AND typeof(updated) IN ('integer', 'real');
INSERT INTO rejected_rows
    SELECT 'games', json_object('player', player, 'puzzle', puzzle, 'start', start, 'moves', moves, 'origins', origins,
                                'position', position, 'seconds', seconds, 'hints', hints, 'updated', updated),
           CAST(strftime('%s', 'now') AS REAL)
    FROM games_v2 WHERE (player, puzzle) NOT IN (SELECT player, puzzle FROM games);
DROP TABLE games_v2;

ALTER TABLE stats RENAME TO stats_v2;
CREATE TABLE stats (
    player        TEXT NOT NULL,
    puzzle        TEXT NOT NULL,
    solved        INTEGER NOT NULL DEFAULT 0 CHECK (solved >= 0),
    by_koma       INTEGER NOT NULL DEFAULT 0 CHECK (by_koma >= 0),
    best_moves    INTEGER CHECK (best_moves >= 0),
    best_optimal  INTEGER CHECK (best_optimal >= 0),
    best_seconds  REAL CHECK (best_seconds >= 0),
    updated       REAL NOT NULL,
    PRIMARY KEY (player, puzzle)
) STRICT;
INSERT INTO stats SELECT * FROM stats_v2
    WHERE typeof(player) = 'text' AND typeof(puzzle) = 'text'
      AND typeof(solved) = 'integer' AND solved >= 0 AND typeof(by_koma) = 'integer' AND by_koma >= 0
      AND (best_moves IS NULL OR (typeof(best_moves) = 'integer' AND best_moves >= 0))
      AND (best_optimal IS NULL OR (typeof(best_optimal) = 'integer' AND best_optimal >= 0))
      AND (best_seconds IS NULL OR (typeof(best_seconds) IN ('integer', 'real') AND best_seconds >= 0))
      AND typeof(updated) IN ('integer', 'real');
INSERT INTO rejected_rows
    SELECT 'stats', json_object('player', player, 'puzzle', puzzle, 'solved', solved, 'by_koma', by_koma,
                                'best_moves', best_moves, 'best_optimal', best_optimal, 'best_seconds', best_seconds,
                                'updated', updated),
           CAST(strftime('%s', 'now') AS REAL)
    FROM stats_v2 WHERE (player, puzzle) NOT IN (SELECT player, puzzle FROM stats);
DROP TABLE stats_v2;

ALTER TABLE players RENAME TO players_v2;
CREATE TABLE players (
    player     TEXT PRIMARY KEY,
    name       TEXT NOT NULL,
    first_seen REAL NOT NULL,
    last_seen  REAL NOT NULL
) STRICT;
INSERT INTO players SELECT * FROM players_v2
    WHERE typeof(player) = 'text' AND typeof(name) = 'text'
      AND typeof(first_seen) IN ('integer', 'real') AND typeof(last_seen) IN ('integer', 'real');
INSERT INTO rejected_rows
    SELECT 'players', json_object('player', player, 'name', name, 'first_seen', first_seen, 'last_seen', last_seen),
           CAST(strftime('%s', 'now') AS REAL)
    FROM players_v2 WHERE player NOT IN (SELECT player FROM players);
DROP TABLE players_v2;

ALTER TABLE results RENAME TO results_v2;
CREATE TABLE results (
    day      TEXT NOT NULL,      -- YYYY-MM-DD (UTC)
    puzzle   TEXT NOT NULL,      -- puzzle id
    player   TEXT NOT NULL,
    moves    INTEGER NOT NULL CHECK (moves >= 0),
    optimal  INTEGER CHECK (optimal >= 0),   -- the board's optimal length, when known
    seconds  REAL NOT NULL CHECK (seconds >= 0),
    hints    INTEGER NOT NULL DEFAULT 0 CHECK (hints >= 0),
    finished REAL NOT NULL,
    PRIMARY KEY (day, puzzle, player)
) STRICT;
INSERT INTO results SELECT * FROM results_v2
    WHERE typeof(day) = 'text' AND typeof(puzzle) = 'text' AND typeof(player) = 'text'
      AND typeof(moves) = 'integer' AND moves >= 0
      AND (optimal IS NULL OR (typeof(optimal) = 'integer' AND optimal >= 0))
      AND typeof(seconds) IN ('integer', 'real') AND seconds >= 0
      AND typeof(hints) = 'integer' AND hints >= 0
      AND typeof(finished) IN ('integer', 'real');
INSERT INTO rejected_rows
    SELECT 'results', json_object('day', day, 'puzzle', puzzle, 'player', player, 'moves', moves, 'optimal', optimal,
                                  'seconds', seconds, 'hints', hints, 'finished', finished),
           CAST(strftime('%s', 'now') AS REAL)
    FROM results_v2 WHERE (day, puzzle, player) NOT IN (SELECT day, puzzle, player FROM results);
DROP TABLE results_v2;
