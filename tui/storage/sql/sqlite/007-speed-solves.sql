-- Version 7: speed solves (the Speed screen), each with its scramble, its moves and every tile's time, so it can be
-- replayed in real time; the columns hold slidy's notation (see tui/game/speed_notation.py).
CREATE TABLE speed_solves (
    id       INTEGER PRIMARY KEY,
    player   TEXT NOT NULL,
    op       TEXT NOT NULL UNIQUE,   -- the outbox write that recorded it: a replayed write records nothing twice
    size     TEXT NOT NULL,          -- WxH, W columns
    event    TEXT NOT NULL,          -- single, bld, marathon5, relay3-5 (tui/game/speed_events.py)
    run      TEXT NOT NULL,          -- the event run a leg belongs to ('' for a one-solve event)
    leg      INTEGER NOT NULL CHECK (leg >= 0),   -- its place in the run, from 0
    scramble TEXT NOT NULL,          -- rows separated by '/', 0 for the blank
    moves    TEXT NOT NULL,          -- the short form: U2RDL3 (the direction the tile moves)
    times    TEXT NOT NULL,          -- ms from the (event's) first move, one per tile moved, comma separated
    time_ms  INTEGER NOT NULL CHECK (time_ms >= 0),
    dnf      INTEGER NOT NULL CHECK (dnf IN (0, 1)),
    finished REAL NOT NULL
) STRICT;
CREATE INDEX speed_solves_by_player ON speed_solves (player, size, finished);
