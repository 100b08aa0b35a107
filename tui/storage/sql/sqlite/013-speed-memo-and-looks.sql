-- Version 13: a blindfolded speed solve's memorisation time (memo_ms: from the scramble shown to the first move, as
-- Slidysim keeps it beside the solve's time; NULL for the other events and for solves that did not record it).
ALTER TABLE speed_solves ADD COLUMN memo_ms INTEGER;
-- Each player's Speed looks, remembered: the board's colour scheme (tui/game/speed_schemes.py) and hover control.
CREATE TABLE speed_settings (
    player TEXT PRIMARY KEY,
    scheme TEXT NOT NULL DEFAULT 'plain',
    hover  INTEGER NOT NULL DEFAULT 0 CHECK (hover IN (0, 1))
) STRICT;
