-- Races (as SQLite's 008-races.sql): rooms, their rounds, and each round's racers; `version` grows with every
-- change to a room and a racer's `rev` is the version that last changed it.  Rows are never deleted.
CREATE TABLE race_rooms (
    room    TEXT PRIMARY KEY,
    code    TEXT UNIQUE,
    width   INTEGER NOT NULL CHECK (width BETWEEN 3 AND 10),
    height  INTEGER NOT NULL CHECK (height BETWEEN 3 AND 10),
    host    TEXT NOT NULL,
    round   INTEGER NOT NULL CHECK (round >= 0),
    version BIGINT NOT NULL,
    created DOUBLE PRECISION NOT NULL
);
CREATE TABLE race_rounds (
    room      TEXT NOT NULL,
    round     INTEGER NOT NULL CHECK (round >= 0),
    phase     TEXT NOT NULL CHECK (phase IN ('lobby', 'countdown', 'racing', 'done')),
    reveal_at DOUBLE PRECISION,
    scramble  TEXT,
    opened    DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (room, round)
);
CREATE INDEX race_rounds_by_phase ON race_rounds (phase, opened);
CREATE TABLE race_racers (
    room        TEXT NOT NULL,
    round       INTEGER NOT NULL,
    player      TEXT NOT NULL,
    name        TEXT NOT NULL,
    joined      DOUBLE PRECISION NOT NULL,
    seen        DOUBLE PRECISION NOT NULL,
    moves       TEXT NOT NULL DEFAULT '',
    times       TEXT NOT NULL DEFAULT '',
    finished_ms BIGINT CHECK (finished_ms >= 0),
    dnf         INTEGER NOT NULL DEFAULT 0 CHECK (dnf IN (0, 1)),
    left_lobby  INTEGER NOT NULL DEFAULT 0 CHECK (left_lobby IN (0, 1)),
    rev         BIGINT NOT NULL,
    PRIMARY KEY (room, round, player)
);
CREATE INDEX race_racers_by_player ON race_racers (player, joined);
