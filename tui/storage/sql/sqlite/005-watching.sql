-- Version 5: live spectating.  A game in progress is live while its `updated` time is recent (every move
-- saves it, and the play screen beats a heartbeat); each watching session keeps a row in `watchers`
-- with its own heartbeat; a player can refuse to be watched.
CREATE TABLE watchers (
    watcher TEXT PRIMARY KEY,    -- one watching session
    player  TEXT NOT NULL,       -- whose game it watches
    game    TEXT NOT NULL,       -- the game key
    seen    REAL NOT NULL        -- its last heartbeat (Unix time)
) STRICT;
ALTER TABLE players ADD COLUMN watchable INTEGER NOT NULL DEFAULT 1 CHECK (watchable IN (0, 1));
CREATE INDEX games_by_updated ON games (updated);  -- the live list reads the games written lately
