"""Which store a game uses: SQLite (the default, one file per box) or PostgreSQL (shared by replicas).

The database is chosen by URL: ``--database URL``, else ``$KOMA_DATABASE_URL``, else the SQLite file in
the data dir.  ``postgresql://…`` (or ``postgres://…``) selects :class:`PostgresStore`; ``sqlite:///PATH``
a SQLite file elsewhere.  Never imports Textual.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TypeAlias
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from solver.errors import KomaError
from tui.storage.store import Store, StoreError

DATABASE_VARIABLE = "KOMA_DATABASE_URL"
POSTGRES_SCHEMES = ("postgresql", "postgres")
AnyStore: TypeAlias = Store  # one store, on either backend


def database_url(given: str | None = None) -> str | None:
    """The database URL asked for (``given``, else ``$KOMA_DATABASE_URL``), checked; None for the default."""
    url = (given if given is not None else os.environ.get(DATABASE_VARIABLE, "")).strip()
    if not url:
        return None
    scheme = urlsplit(url).scheme.lower()
    if scheme in POSTGRES_SCHEMES:
        return url
    if scheme == "sqlite":
        if not urlsplit(url).path:
            raise KomaError(f"the database URL {redacted(url)} names no file (sqlite:///PATH)")
        return url
    raise KomaError(f"the database URL {redacted(url)} is neither postgresql://… nor sqlite:///PATH")


def is_postgres(url: str | None) -> bool:
    return url is not None and urlsplit(url).scheme.lower() in POSTGRES_SCHEMES


# libpq's connection parameters that hold a secret, wherever a URL's query gives them
SECRET_PARAMETERS = {"password", "sslpassword"}
# what a player of a served game must not read in a notice: a URL, or an absolute path on the server
SERVER_PATH = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s()]*|(?<![\w.~])/(?:[^\s/()'\",;]+/)+[^\s/()'\",;]*")


def redacted(url: str) -> str:
    """The URL fit for a log line: its password (in the user part, or a ``password``/``sslpassword`` parameter of
    its query) replaced by ``***``."""
    parts = urlsplit(url)
    secret_query = any(k.strip().lower() in SECRET_PARAMETERS for k, _ in parse_qsl(parts.query, keep_blank_values=True))
    if parts.password is None and not secret_query:
        return url  # nothing to hide: never rebuilt (urlunsplit drops a sqlite:////path's empty authority)
    if parts.password is not None:
        parts = parts._replace(netloc=parts.netloc.replace(f":{parts.password}@", ":***@", 1))
    if secret_query:
        pairs = [(k, "***" if k.strip().lower() in SECRET_PARAMETERS else v)
                 for k, v in parse_qsl(parts.query, keep_blank_values=True)]
        parts = parts._replace(query=urlencode(pairs, safe="*/:"))
    return urlunsplit(parts)


def for_player(notice: str) -> str:
    """A storage notice as a player of a served game reads it: no URL and no path of the server (a file is named
    by its name alone, a database URL by its database's)."""
    def plain(found: re.Match) -> str:
        text = found.group()
        if "://" in text:
            return urlsplit(text).path.rstrip("/").rsplit("/", 1)[-1] or "the server's database"
        return text.rstrip("/").rsplit("/", 1)[-1] or "a file on the server"
    return SERVER_PATH.sub(plain, notice)


def open_store(url: str | None = None, player: str | None = None, name: str | None = None) -> AnyStore:
    """The store for ``url`` (see :func:`database_url`).  An unusable URL or an unreachable PostgreSQL gives a
    SQLite store in memory with a one-line notice, so the session plays on unsaved; it never raises."""
    try:
        return connect_store(url, player, name)
    except StoreError as problem:
        return _unsaved(player, name, f"Cannot use the database {redacted(database_url(url) or '')} ({problem}); "
                                      "games are not saved this session.")


def connect_store(url: str | None = None, player: str | None = None, name: str | None = None) -> AnyStore:
    """The store for ``url``, for the storage service: StoreError when the database cannot be reached *now*
    (try again later); a store in memory with a notice when it can never be used (a bad URL, no psycopg, a
    schema from a newer Koma)."""
    try:
        url = database_url(url)
    except KomaError as problem:
        return _unsaved(player, name, f"{problem}; games are not saved this session.")
    if url is None:
        return Store(player=player, name=name)
    if not is_postgres(url):
        return Store(sqlite_path(url), player, name)
    try:
        from tui.storage.postgres import PostgresBackend, StoreUnavailable
    except ImportError:
        return _unsaved(player, name, "psycopg is missing (pip install -e '.[postgres]'); games are not saved this session.")
    try:
        return Store(player=player, name=name, backend=PostgresBackend(url, where=redacted(url)))
    except StoreUnavailable as problem:
        if problem.permanent:
            return _unsaved(player, name, f"Cannot use the database {redacted(url)} ({problem}); games are not saved "
                                          "this session.")
        raise StoreError(f"unreachable: {problem}") from None


def sqlite_path(url: str) -> Path:
    """The file of a ``sqlite:///PATH`` URL: an absolute path, however many slashes lead it."""
    return Path("/" + urlsplit(url).path.lstrip("/"))


def _unsaved(player: str | None, name: str | None, notice: str) -> Store:
    store = Store(":memory:", player, name)
    store.backend.memory_only = True
    store.notices.append(notice)
    return store


# Where a game's libpq would look for a password file: nowhere (a path that cannot exist); see game_database_url.
NO_PASSWORD_FILE = "/nonexistent/koma-games-hold-no-password"


def game_database_url(url: str) -> str:
    """The URL a served game is given: ``url`` without its password (in the user part, or a secret parameter).
    The server alone holds the password; the games log in without one (see :func:`check_game_access`)."""
    if not is_postgres(url):
        return url  # a SQLite file's URL holds no secret (and urlunsplit would drop its empty authority)
    parts = urlsplit(url)
    secret_query = any(k.strip().lower() in SECRET_PARAMETERS for k, _ in parse_qsl(parts.query, keep_blank_values=True))
    if parts.password is None and not secret_query:
        return url
    if parts.password is not None:
        parts = parts._replace(netloc=parts.netloc.replace(f":{parts.password}@", "@", 1))
    if secret_query:
        pairs = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)
                 if k.strip().lower() not in SECRET_PARAMETERS]
        parts = parts._replace(query=urlencode(pairs, safe="/:"))
    return urlunsplit(parts)


def password_files() -> list[Path]:
    """The files libpq reads passwords from for this process: ``$PGPASSFILE``, else ``~/.pgpass``."""
    named = os.environ.get("PGPASSFILE")
    return [Path(named) if named else Path.home() / ".pgpass"]


def check_game_access(url: str) -> None:
    """A one-line KomaError unless a game can log in to the PostgreSQL database ``url`` without a password (not in
    the URL, not from ``$PGPASSWORD``, not from a password file), as served games must: a game never holds it."""
    if not is_postgres(url):
        return
    import psycopg

    try:
        psycopg.connect(game_database_url(url), password="", passfile=NO_PASSWORD_FILE, connect_timeout=10).close()
    except psycopg.OperationalError as problem:
        reason = str(problem).strip().splitlines()[-1] if str(problem).strip() else type(problem).__name__
        if "password" not in reason:
            raise KomaError(f"cannot use the database {redacted(url)}: {reason}") from None
        raise KomaError(f"the games would need the database password to log in to {redacted(game_database_url(url))}, "
                        "and a game never holds it: let the server's user in without one (peer authentication on a "
                        "Unix socket, e.g. PgBouncer's, as in deploy/README.md)") from None


def check_database(url: str) -> str:
    """Open ``url`` once (creating or upgrading its schema) for a server about to start; a one-line KomaError
    if it cannot be used.  Returns the URL fit for a log line."""
    url_checked = database_url(url)
    if url_checked is None or not is_postgres(url_checked):
        return redacted(url)
    try:
        from tui.storage.postgres import StoreUnavailable, open_schema
    except ImportError:
        raise KomaError("psycopg is missing: pip install -e '.[postgres]'") from None
    try:
        open_schema(url_checked).close()
    except StoreUnavailable as problem:
        raise KomaError(f"cannot use the database {redacted(url_checked)}: {problem}") from None
    return redacted(url_checked)
