-- Live spectating (as SQLite's 005-watching.sql): a game is live while `updated` is recent; each watching
-- session keeps a heartbeat row in `watchers`; a player can refuse to be watched.
CREATE TABLE watchers (
    watcher TEXT PRIMARY KEY,
    player  TEXT NOT NULL,
    game    TEXT NOT NULL,
    seen    DOUBLE PRECISION NOT NULL
);
CREATE INDEX games_by_updated ON games (updated);
ALTER TABLE players ADD COLUMN watchable INTEGER NOT NULL DEFAULT 1 CHECK (watchable IN (0, 1));
