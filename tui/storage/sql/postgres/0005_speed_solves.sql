-- Speed solves (the Speed screen), each with its scramble, moves and every tile's time (as SQLite's
-- 007-speed-solves.sql).
CREATE TABLE speed_solves (
    id       BIGSERIAL PRIMARY KEY,
    player   TEXT NOT NULL,
    op       TEXT NOT NULL UNIQUE,      -- the outbox write that recorded it: a replayed write records nothing twice
    size     TEXT NOT NULL,             -- WxH, W columns
    event    TEXT NOT NULL,             -- single, bld, marathon5, relay3-5
    run      TEXT NOT NULL,             -- the event run a leg belongs to ('' for a one-solve event)
    leg      INTEGER NOT NULL CHECK (leg >= 0),
    scramble TEXT NOT NULL,             -- rows separated by '/', 0 for the blank
    moves    TEXT NOT NULL,             -- the short form: U2RDL3
    times    TEXT NOT NULL,             -- ms from the first move, one per tile moved, comma separated
    time_ms  BIGINT NOT NULL CHECK (time_ms >= 0),
    dnf      INTEGER NOT NULL CHECK (dnf IN (0, 1)),
    finished DOUBLE PRECISION NOT NULL
);
CREATE INDEX speed_solves_by_player ON speed_solves (player, size, finished);
