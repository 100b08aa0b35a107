"""The play screen and its parts: keys, solver jobs, the 24-puzzle's proving, variants."""
