"""Koma's Textual app: screens, widgets and styles.  It renders and dispatches; the solving lives in ``solver``.

Importing it tells the solver where its table cache is and where its notices go (:func:`tui.config.connect_the_solver`).
"""

from tui.config import connect_the_solver

connect_the_solver()
