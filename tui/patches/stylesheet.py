"""A stylesheet whose parsed rules every app in the process shares.

Textual parses an app's CSS (``koma.tcss`` and every widget's ``DEFAULT_CSS``) into rule sets once
per app: its parse cache belongs to the app's stylesheet.  ``koma serve`` forks every game from one
warm process, so each game parsed the same CSS again, about a tenth of its start-up.  Here the cache
belongs to the process: the warm process fills it (see :func:`tui.zygote.rehearse`) and every game
forked from it finds the rules parsed.  Parsed rules depend on the CSS variables (the theme's
colours), so they are kept by the variables as well; Textual never changes a parsed rule set.

It relies on ``Stylesheet._parse_rules``'s parameters and on ``_variables``; these are checked at
the first parse (:func:`stylesheet_misfit`).  If they are not as in Textual 8.2, every stylesheet parses its
own CSS, as Textual does, and Koma says so once (:func:`tui.patches.checks.step_aside`).
"""

from __future__ import annotations

import functools
from typing import Any, ClassVar

from textual.css.model import RuleSet
from textual.css.stylesheet import Stylesheet

from tui.patches.checks import first_problem, missing, parameters_differ, told_if_misfit

PARSE_RULES_PARAMETERS = ["self", "css", "read_from", "is_default_rules", "tie_breaker", "scope"]


def stylesheet_misfit() -> str | None:
    """Why this Textual's ``Stylesheet`` is not the one :class:`SharedStylesheet` was written for, or None."""
    return first_problem(
        lambda: missing(Stylesheet, ["_parse_rules", "set_variables"]),
        lambda: parameters_differ(Stylesheet._parse_rules, PARSE_RULES_PARAMETERS),
        lambda: None if isinstance(getattr(Stylesheet(), "_variables", None), dict) else "a Stylesheet has no _variables dict",
    )


def check() -> str | None:
    """:func:`stylesheet_misfit`, told once (:func:`tui.patches.checks.step_aside`) if there is one."""
    return told_if_misfit("shared stylesheet", stylesheet_misfit(),
                          "each game parses its own CSS, as Textual does (slower game starts in koma serve)")


@functools.cache
def misfit() -> str | None:
    """:func:`check`, run on first use (not at import) and remembered: None while the override is on."""
    return check()


class SharedStylesheet(Stylesheet):
    """Textual's stylesheet, with parsed rules shared across instances (by CSS text, origin and variables);
    Textual's own, unchanged, when :func:`misfit` says this Textual is not the one it knows."""

    parsed: ClassVar[dict[tuple, list[RuleSet]]] = {}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._variables_key: tuple | None = None

    def set_variables(self, *args: Any, **kwargs: Any) -> None:
        super().set_variables(*args, **kwargs)
        self._variables_key = None

    def _parse_rules(self, *args: Any, **kwargs: Any) -> list[RuleSet]:
        if misfit():
            return super()._parse_rules(*args, **kwargs)
        return self._shared_rules(*args, **kwargs)

    def _shared_rules(self, css: str, read_from: Any, is_default_rules: bool = False, tie_breaker: int = 0,
                      scope: str = "") -> list[RuleSet]:
        if self._variables_key is None:
            self._variables_key = tuple(sorted(self._variables.items()))
        key = (self._variables_key, css, read_from, is_default_rules, tie_breaker, scope)
        rules = self.parsed.get(key)
        if rules is None:
            rules = super()._parse_rules(css, read_from, is_default_rules, tie_breaker, scope)
            self.parsed[key] = rules
        return rules
