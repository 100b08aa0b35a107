"""The product's settings on disk: where its files live (:mod:`tui.config.paths`) and the files a player edits
(:mod:`tui.config.keymap`); and what the product tells the solver once (:func:`connect_the_solver`)."""

from __future__ import annotations


def connect_the_solver() -> None:
    """Tell the solver where its table cache is (``$KOMA_CACHE_DIR``, read at each use) and send its notices to the
    product's (:mod:`tui.notices`).  Importing :mod:`tui` does it; calling it again changes nothing."""
    from solver.engines import cache_files
    from tui import notices
    from tui.config import paths

    cache_files.use_tables_dir(paths.tables_dir)
    cache_files.send_notices_to(notices.post)
