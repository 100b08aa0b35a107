"""The product's settings on disk: where its files live (:mod:`tui.config.paths`) and the files a player edits
(:mod:`tui.config.keymap`)."""
