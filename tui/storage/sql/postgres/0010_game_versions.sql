-- A saved game counts its changes (`version`: each move, step back or forth, hint, new board): a save replaces the
-- stored game only if it has had as many changes or more (then the newer `revision` wins), so that a game resumed
-- from an older state of it never writes over a newer one.
ALTER TABLE games ADD COLUMN version INTEGER NOT NULL DEFAULT 0;
