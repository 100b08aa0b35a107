"""Koma's Textual app: screens, widgets and styles.  It renders and dispatches; the solving lives in ``solver``."""
