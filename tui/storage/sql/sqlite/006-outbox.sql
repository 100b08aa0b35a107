-- Version 6: the outbox may replay writes.  A save carries the time it was accepted (`revision`) and never
-- replaces a newer one; a finished game is recorded once, by its id (`applied_ops`, kept 30 days).
ALTER TABLE games ADD COLUMN revision REAL;
CREATE TABLE applied_ops (
    op      TEXT PRIMARY KEY,    -- the id of a write from an outbox
    applied REAL NOT NULL        -- when it was applied (Unix time)
) STRICT;
