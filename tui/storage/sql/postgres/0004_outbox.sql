-- The outbox may replay writes (as SQLite's 006-outbox.sql): a save carries the time it was accepted
-- (`revision`) and never replaces a newer one; a finished game is recorded once, by its id.
ALTER TABLE games ADD COLUMN revision DOUBLE PRECISION;
CREATE TABLE applied_ops (
    op      TEXT PRIMARY KEY,
    applied DOUBLE PRECISION NOT NULL
);
