-- Version 10: fair play on a public server (issue 54; the figures are in tui/game/race.py).
-- A private room's code is held only while its room is open: the code is no longer unique over all rooms ever
-- made (a closed room's code is free for a new room); `active` is when the room last opened, started or ended a
-- round and `raced` whether it ever started one, so rooms long closed are pruned, their racers' results kept
-- in race_results (a player's race stats).  code_misses throttles code guesses per player and per address;
-- player_names says which key owns a name (under --authorized-keys); results and speed_firsts let a daily board
-- read only its top and the player's own row.
ALTER TABLE race_rooms RENAME TO race_rooms_v8;
CREATE TABLE race_rooms (
    room    TEXT PRIMARY KEY,            -- uuid4 hex
    code    TEXT,                        -- a private room's code (5 letters), held while it is open; NULL: quick
    width   INTEGER NOT NULL CHECK (width BETWEEN 3 AND 10),
    height  INTEGER NOT NULL CHECK (height BETWEEN 3 AND 10),
    host    TEXT NOT NULL,               -- the player who made it
    round   INTEGER NOT NULL CHECK (round >= 0),    -- its newest round
    version INTEGER NOT NULL,
    created REAL NOT NULL,
    active  REAL NOT NULL,               -- when it last opened, started or ended a round (epoch seconds)
    raced   INTEGER NOT NULL DEFAULT 0 CHECK (raced IN (0, 1))   -- a round of it ever started
) STRICT;
INSERT INTO race_rooms (room, code, width, height, host, round, version, created, active, raced)
    SELECT ro.room, ro.code, ro.width, ro.height, ro.host, ro.round, ro.version, ro.created,
           max(ro.created, COALESCE((SELECT max(max(rd.opened, COALESCE(rd.reveal_at, 0))) FROM race_rounds rd
                                     WHERE rd.room = ro.room), 0)),
           EXISTS (SELECT 1 FROM race_rounds rd WHERE rd.room = ro.room AND rd.reveal_at IS NOT NULL)
    FROM race_rooms_v8 ro;
DROP TABLE race_rooms_v8;
CREATE INDEX race_rooms_by_code ON race_rooms (code, created) WHERE code IS NOT NULL;
CREATE INDEX race_rooms_by_host ON race_rooms (host, created);
CREATE INDEX race_rooms_by_active ON race_rooms (raced, active);
CREATE INDEX race_rounds_live ON race_rounds (phase, reveal_at);  -- Watch reads the rounds revealed lately
CREATE TABLE race_results (              -- a pruned room's racers: what race stats count
    player      TEXT NOT NULL,
    size        TEXT NOT NULL,           -- WxH
    finished_ms INTEGER CHECK (finished_ms >= 0),   -- NULL: DNF
    racers      INTEGER NOT NULL CHECK (racers >= 1),
    first       INTEGER NOT NULL CHECK (first IN (0, 1)),   -- no racer finished before them
    ended       REAL NOT NULL
) STRICT;
CREATE INDEX race_results_by_player ON race_results (player);
CREATE TABLE code_misses (
    who    TEXT PRIMARY KEY,             -- 'player:ID' or 'address:ADDRESS'
    misses INTEGER NOT NULL CHECK (misses >= 0),
    last   REAL NOT NULL,                -- the last wrong code (epoch seconds)
    until  REAL NOT NULL                 -- no code is tried before this
) STRICT;
CREATE INDEX code_misses_by_last ON code_misses (last);
CREATE TABLE player_names (
    name    TEXT PRIMARY KEY,            -- lower case
    player  TEXT NOT NULL,               -- the key (key:SHA256:...) that owns it
    claimed REAL NOT NULL
) STRICT;
INSERT INTO player_names (name, player, claimed)
    SELECT lower(p.name), p.player, p.first_seen FROM players p WHERE p.player LIKE 'key:%' AND NOT EXISTS (
        SELECT 1 FROM players q WHERE q.player LIKE 'key:%' AND lower(q.name) = lower(p.name)
        AND (q.first_seen < p.first_seen OR (q.first_seen = p.first_seen AND q.player < p.player)));
CREATE INDEX results_by_rank ON results (day, puzzle, (COALESCE(moves - optimal, 1000000000)), moves, seconds, player);
CREATE TABLE speed_firsts (              -- each player's first solve of each event and size (a daily speed board)
    event    TEXT NOT NULL,
    size     TEXT NOT NULL,
    player   TEXT NOT NULL,
    solve    INTEGER NOT NULL,           -- its speed_solves id
    dnf      INTEGER NOT NULL CHECK (dnf IN (0, 1)),
    time_ms  INTEGER NOT NULL CHECK (time_ms >= 0),
    finished REAL NOT NULL,
    PRIMARY KEY (event, size, player)
) STRICT;
INSERT INTO speed_firsts (event, size, player, solve, dnf, time_ms, finished)
    SELECT s.event, s.size, s.player, s.id, s.dnf, s.time_ms, s.finished FROM speed_solves s WHERE NOT EXISTS (
        SELECT 1 FROM speed_solves t WHERE t.event = s.event AND t.size = s.size AND t.player = s.player
        AND (t.finished < s.finished OR (t.finished = s.finished AND t.id < s.id)));
CREATE INDEX speed_firsts_by_time ON speed_firsts (event, size, dnf, time_ms, player);
