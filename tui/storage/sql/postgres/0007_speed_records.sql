-- Lasting speed records (as SQLite's 009-speed-records.sql).  Each solve says the input that made it (control: keyboard, mouse, touch; ''
-- unknown) and where an imported one came from (source: slidysim-link, slidysim-db, slidy, csv, json; '' played in
-- Koma).  speed_records holds each player's all-time best single and averages per size and event (time in ms, with
-- the moves and TPS of the same solves), updated as solves are stored; speed_record_history every best as it was
-- reached.  The solves stored before this version are marked in speed_records_stale: their records are worked out
-- from every solve the first time they are needed (tui/storage/store.py).
ALTER TABLE speed_solves ADD COLUMN control TEXT NOT NULL DEFAULT '';
ALTER TABLE speed_solves ADD COLUMN source TEXT NOT NULL DEFAULT '';
CREATE TABLE speed_records (
    player    TEXT NOT NULL,
    size      TEXT NOT NULL,
    event     TEXT NOT NULL,
    statistic TEXT NOT NULL,          -- single, mo3, ao5, ao12, ao25, ao50, ao100
    time_ms   DOUBLE PRECISION NOT NULL,
    moves     DOUBLE PRECISION NOT NULL,
    tps       DOUBLE PRECISION,
    achieved  DOUBLE PRECISION NOT NULL,          -- when its last solve ended (seconds since the epoch)
    PRIMARY KEY (player, size, event, statistic)
);
CREATE TABLE speed_record_history (
    id        BIGSERIAL PRIMARY KEY,
    player    TEXT NOT NULL,
    size      TEXT NOT NULL,
    event     TEXT NOT NULL,
    statistic TEXT NOT NULL,
    time_ms   DOUBLE PRECISION NOT NULL,
    moves     DOUBLE PRECISION NOT NULL,
    tps       DOUBLE PRECISION,
    achieved  DOUBLE PRECISION NOT NULL
);
CREATE INDEX speed_record_history_by_player ON speed_record_history (player, size, event, achieved);
CREATE TABLE speed_records_stale (
    player TEXT NOT NULL,
    size   TEXT NOT NULL,
    event  TEXT NOT NULL,
    PRIMARY KEY (player, size, event)
);
INSERT INTO speed_records_stale (player, size, event) SELECT DISTINCT player, size, event FROM speed_solves WHERE run = '';
CREATE INDEX speed_solves_by_event ON speed_solves (player, size, event, finished);
