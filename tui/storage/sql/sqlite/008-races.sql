-- Version 8: races (issue 35; the rules are in tui/game/race.py).  A room (quick, or private with a code) runs
-- rounds; each round's racers write their own row (moves and times appended as they play, a heartbeat) and read
-- the others'.  `version` grows with every change to a room, and a racer's `rev` is the version that last changed
-- it, so a racing process reads only what changed.  Rows are never deleted: every round can be replayed.
CREATE TABLE race_rooms (
    room    TEXT PRIMARY KEY,            -- uuid4 hex
    code    TEXT UNIQUE,                 -- a private room's code (5 letters); NULL for a quick room
    width   INTEGER NOT NULL CHECK (width BETWEEN 3 AND 10),
    height  INTEGER NOT NULL CHECK (height BETWEEN 3 AND 10),
    host    TEXT NOT NULL,               -- the player who made it
    round   INTEGER NOT NULL CHECK (round >= 0),    -- its newest round
    version INTEGER NOT NULL,
    created REAL NOT NULL
) STRICT;
CREATE TABLE race_rounds (
    room      TEXT NOT NULL,
    round     INTEGER NOT NULL CHECK (round >= 0),
    phase     TEXT NOT NULL CHECK (phase IN ('lobby', 'countdown', 'racing', 'done')),
    reveal_at REAL,                      -- epoch seconds; set with the scramble when the countdown starts
    scramble  TEXT,                      -- rows separated by '/', 0 for the blank
    opened    REAL NOT NULL,
    PRIMARY KEY (room, round)
) STRICT;
CREATE INDEX race_rounds_by_phase ON race_rounds (phase, opened);
CREATE TABLE race_racers (
    room        TEXT NOT NULL,
    round       INTEGER NOT NULL,
    player      TEXT NOT NULL,
    name        TEXT NOT NULL,
    joined      REAL NOT NULL,
    seen        REAL NOT NULL,           -- the heartbeat (epoch seconds)
    moves       TEXT NOT NULL DEFAULT '',    -- single-tile moves, one letter each (U D L R: where the tile goes)
    times       TEXT NOT NULL DEFAULT '',    -- ms since reveal_at, one per move, comma separated
    finished_ms INTEGER CHECK (finished_ms >= 0),
    dnf         INTEGER NOT NULL DEFAULT 0 CHECK (dnf IN (0, 1)),
    left_lobby  INTEGER NOT NULL DEFAULT 0 CHECK (left_lobby IN (0, 1)),  -- left before the start: not a racer
    rev         INTEGER NOT NULL,        -- the room's version that last changed the row
    PRIMARY KEY (room, round, player)
) STRICT;
CREATE INDEX race_racers_by_player ON race_racers (player, joined);
