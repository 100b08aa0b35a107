-- Times a human could not have set (as SQLite's 011-unverified.sql; the limits are in tui/game/plausibility.py).  A
-- result that breaks one is kept with the reason in `unverified` (NULL: nothing against it); boards and race places leave it out,
-- and its player sees it marked.  Imported speed solves are the player's history, on no board: a board's entry is
-- the first solve played here.
ALTER TABLE results ADD COLUMN unverified TEXT;
ALTER TABLE speed_solves ADD COLUMN unverified TEXT;
ALTER TABLE speed_firsts ADD COLUMN unverified TEXT;
ALTER TABLE race_racers ADD COLUMN unverified TEXT;
ALTER TABLE race_results ADD COLUMN unverified TEXT;
DELETE FROM speed_firsts WHERE solve IN (SELECT id FROM speed_solves WHERE source <> '');
INSERT INTO speed_firsts (event, size, player, solve, dnf, time_ms, finished)
    SELECT s.event, s.size, s.player, s.id, s.dnf, s.time_ms, s.finished FROM speed_solves s WHERE s.source = ''
    AND NOT EXISTS (SELECT 1 FROM speed_firsts f WHERE f.event = s.event AND f.size = s.size AND f.player = s.player)
    AND NOT EXISTS (SELECT 1 FROM speed_solves t WHERE t.source = '' AND t.event = s.event AND t.size = s.size
                    AND t.player = s.player AND (t.finished < s.finished OR (t.finished = s.finished AND t.id < s.id)));
