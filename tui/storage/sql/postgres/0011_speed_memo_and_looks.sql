-- A blindfolded speed solve's memorisation time (as SQLite's 013-speed-memo-and-looks.sql): memo_ms, from the scramble shown to
-- the first move, as Slidysim keeps it beside the solve's time; NULL for the other events and where not recorded.
ALTER TABLE speed_solves ADD COLUMN memo_ms INTEGER;
-- Each player's Speed looks, remembered: the board's colour scheme (tui/game/speed_schemes.py) and hover control.
CREATE TABLE speed_settings (
    player TEXT PRIMARY KEY,
    scheme TEXT NOT NULL DEFAULT 'plain',
    hover  INTEGER NOT NULL DEFAULT 0 CHECK (hover IN (0, 1))
);
