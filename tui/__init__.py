"""Koma's Textual app: screens, widgets and styles.  It renders and dispatches; the solving lives in ``solver``.

Importing it tells the solver where its table cache is and where its notices go (the product's, not the solver's).
"""

from solver.engines import cache_files as _solver_caches
from tui import notices as _notices
from tui.config import paths as _paths

_solver_caches.use_tables_dir(_paths.tables_dir)
_solver_caches.send_notices_to(_notices.post)
