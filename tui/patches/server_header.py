"""Koma's HTTP answers name the server without a version (aiohttp's default, ``Python/3.11 aiohttp/3.14.5``, tells an
attacker what to look up).

What an aiohttp application answers gets ``Server: Koma`` from its ``on_response_prepare`` hook, the public way
(:func:`tui.server.web.server.plain_server_header`); but an answer aiohttp makes itself, to a request it cannot parse,
skips the application and takes ``aiohttp.web_response.SERVER_SOFTWARE``, which :func:`use_plain_server_name`
replaces.  What this relies on is checked on first use; if aiohttp is not the one it was written for (3.14), that
answer keeps aiohttp's name and Koma says so once (:func:`tui.patches.checks.step_aside`).  Never imports Textual.
"""

from __future__ import annotations

import functools
import inspect

from aiohttp import web_response

from tui.patches.checks import first_problem, library_version, missing, told_if_misfit

OVERRIDE = "plain Server header"
INSTEAD = "answers to requests aiohttp cannot parse name Python's and aiohttp's versions"
SERVER_NAME = "Koma"


def header_misfit() -> str | None:
    """Why this aiohttp does not take its Server header from ``web_response.SERVER_SOFTWARE``, or None."""
    return first_problem(
        lambda: missing(web_response, ["SERVER_SOFTWARE"]),
        lambda: None if isinstance(web_response.SERVER_SOFTWARE, str) else "SERVER_SOFTWARE is not a str",
        lambda: None if "SERVER_SOFTWARE" in inspect.getsource(web_response.StreamResponse._prepare_headers)
        else "StreamResponse._prepare_headers does not read SERVER_SOFTWARE",
    )


@functools.cache
def use_plain_server_name() -> bool:
    """Every answer aiohttp makes in this process says ``Server: Koma``; False (told once) where aiohttp does not fit."""
    if told_if_misfit(OVERRIDE, header_misfit(), INSTEAD, library_version("aiohttp")):
        return False
    web_response.SERVER_SOFTWARE = SERVER_NAME
    return True
