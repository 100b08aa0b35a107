"""The sliding puzzles (8, 15, 24 and every WxH): model, kernels, heuristics and search."""
