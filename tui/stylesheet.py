"""A stylesheet whose parsed rules every app in the process shares.

Textual parses an app's CSS (``koma.tcss`` and every widget's ``DEFAULT_CSS``) into rule sets once
per app: its parse cache belongs to the app's stylesheet.  ``koma serve`` forks every game from one
warm process, so each game parsed the same CSS again, about a tenth of its start-up.  Here the cache
belongs to the process: the warm process fills it (see :func:`tui.zygote.rehearse`) and every game
forked from it finds the rules parsed.  Parsed rules depend on the CSS variables (the theme's
colours), so they are kept by the variables as well; Textual never changes a parsed rule set.
"""

from __future__ import annotations

from typing import ClassVar

from textual.css.model import RuleSet
from textual.css.stylesheet import Stylesheet
from textual.css.types import CSSLocation


class SharedStylesheet(Stylesheet):
    """Textual's stylesheet, with parsed rules shared across instances (by CSS text, origin and variables)."""

    parsed: ClassVar[dict[tuple, list[RuleSet]]] = {}

    def __init__(self, *, variables: dict[str, str] | None = None) -> None:
        super().__init__(variables=variables)
        self._variables_key: tuple | None = None

    def set_variables(self, variables: dict[str, str]) -> None:
        super().set_variables(variables)
        self._variables_key = None

    def _parse_rules(self, css: str, read_from: CSSLocation, is_default_rules: bool = False, tie_breaker: int = 0,
                     scope: str = "") -> list[RuleSet]:
        if self._variables_key is None:
            self._variables_key = tuple(sorted(self._variables.items()))
        key = (self._variables_key, css, read_from, is_default_rules, tie_breaker, scope)
        rules = self.parsed.get(key)
        if rules is None:
            rules = super()._parse_rules(css, read_from, is_default_rules, tie_breaker, scope)
            self.parsed[key] = rules
        return rules
