-- Fair play on a public server (as SQLite's 010-fair-rooms.sql): a private room's code is held only while its
-- room is open; `active` and `raced` let rooms long closed be pruned (their racers' results kept in race_results);
-- code guesses are throttled (code_misses); a name belongs to the first key that used it (player_names); the daily
-- boards read only their top and the player's own row (results_by_rank, speed_firsts).
ALTER TABLE race_rooms DROP CONSTRAINT race_rooms_code_key;
ALTER TABLE race_rooms ADD COLUMN active DOUBLE PRECISION;
ALTER TABLE race_rooms ADD COLUMN raced INTEGER NOT NULL DEFAULT 0 CHECK (raced IN (0, 1));
UPDATE race_rooms ro SET
    active = GREATEST(ro.created, COALESCE((SELECT max(GREATEST(rd.opened, COALESCE(rd.reveal_at, 0)))
                                            FROM race_rounds rd WHERE rd.room = ro.room), 0)),
    raced = CASE WHEN EXISTS (SELECT 1 FROM race_rounds rd WHERE rd.room = ro.room AND rd.reveal_at IS NOT NULL)
                 THEN 1 ELSE 0 END;
ALTER TABLE race_rooms ALTER COLUMN active SET NOT NULL;
CREATE INDEX race_rooms_by_code ON race_rooms (code, created) WHERE code IS NOT NULL;
CREATE INDEX race_rooms_by_host ON race_rooms (host, created);
CREATE INDEX race_rooms_by_active ON race_rooms (raced, active);
CREATE INDEX race_rounds_live ON race_rounds (phase, reveal_at);  -- Watch reads the rounds revealed lately
CREATE TABLE race_results (
    player      TEXT NOT NULL,
    size        TEXT NOT NULL,
    finished_ms BIGINT CHECK (finished_ms >= 0),
    racers      INTEGER NOT NULL CHECK (racers >= 1),
    first       INTEGER NOT NULL CHECK (first IN (0, 1)),
    ended       DOUBLE PRECISION NOT NULL
);
CREATE INDEX race_results_by_player ON race_results (player);
CREATE TABLE code_misses (
    who    TEXT PRIMARY KEY,
    misses INTEGER NOT NULL CHECK (misses >= 0),
    last   DOUBLE PRECISION NOT NULL,
    until  DOUBLE PRECISION NOT NULL
);
CREATE INDEX code_misses_by_last ON code_misses (last);
CREATE TABLE player_names (
    name    TEXT PRIMARY KEY,
    player  TEXT NOT NULL,
    claimed DOUBLE PRECISION NOT NULL
);
INSERT INTO player_names (name, player, claimed)
    SELECT lower(p.name), p.player, p.first_seen FROM players p WHERE p.player LIKE 'key:%' AND NOT EXISTS (
        SELECT 1 FROM players q WHERE q.player LIKE 'key:%' AND lower(q.name) = lower(p.name)
        AND (q.first_seen < p.first_seen OR (q.first_seen = p.first_seen AND q.player < p.player)));
CREATE INDEX results_by_rank ON results (day, puzzle, (COALESCE(moves - optimal, 1000000000)), moves, seconds, player);
CREATE TABLE speed_firsts (
    event    TEXT NOT NULL,
    size     TEXT NOT NULL,
    player   TEXT NOT NULL,
    solve    BIGINT NOT NULL,
    dnf      INTEGER NOT NULL CHECK (dnf IN (0, 1)),
    time_ms  BIGINT NOT NULL CHECK (time_ms >= 0),
    finished DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (event, size, player)
);
INSERT INTO speed_firsts (event, size, player, solve, dnf, time_ms, finished)
    SELECT s.event, s.size, s.player, s.id, s.dnf, s.time_ms, s.finished FROM speed_solves s WHERE NOT EXISTS (
        SELECT 1 FROM speed_solves t WHERE t.event = s.event AND t.size = s.size AND t.player = s.player
        AND (t.finished < s.finished OR (t.finished = s.finished AND t.id < s.id)));
CREATE INDEX speed_firsts_by_time ON speed_firsts (event, size, dnf, time_ms, player);
