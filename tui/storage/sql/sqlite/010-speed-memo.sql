-- Version 10: a blindfolded speed solve's memorisation time (memo_ms: from the scramble shown to the first move, as
-- Slidysim keeps it beside the solve's time; NULL for the other events and for solves that did not record it).
ALTER TABLE speed_solves ADD COLUMN memo_ms INTEGER;
