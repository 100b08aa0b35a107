"""The PostgreSQL schema: versioned SQL files in ``sql/postgres`` (``NNNN_name.sql``), applied in order.

:func:`migrate` applies every file not yet recorded in ``koma_schema``, all in one transaction, under an
advisory lock, so that replicas starting at once neither race nor see half a schema.  A database whose
newest version is unknown to this Koma (a newer release wrote it) is refused rather than guessed at.
Never imports Textual.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import psycopg

MIGRATIONS = Path(__file__).with_name("sql") / "postgres"
MIGRATION_LOCK = 0x4B6F6D61_00000001  # "Koma", 1: the advisory lock key that serializes migrations
VERSION_TABLE = """
CREATE TABLE IF NOT EXISTS koma_schema (
    version    INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
)"""


class SchemaError(Exception):
    """The database's schema cannot be used by this Koma (it is newer, or a migration failed)."""


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str


def migrations(folder: Path = MIGRATIONS) -> list[Migration]:
    """The migration files in version order; their numbers must run 1, 2, 3… with no gap or repeat."""
    found = []
    for path in sorted(folder.glob("*.sql")):
        match = re.fullmatch(r"(\d{4})_(\w+)\.sql", path.name)
        if match is None:
            raise SchemaError(f"migration file {path.name} is not named NNNN_name.sql")
        found.append(Migration(int(match.group(1)), match.group(2), path.read_text()))
    if [m.version for m in found] != list(range(1, len(found) + 1)):
        raise SchemaError(f"migration versions in {folder} must run 1, 2, 3…: {[m.version for m in found]}")
    return found


def migrate(connection: psycopg.Connection, folder: Path = MIGRATIONS) -> list[int]:
    """Bring the schema up to date in one transaction; returns the versions applied now (often none)."""
    wanted = migrations(folder)
    if current_version(connection) == len(wanted):
        return []  # the usual case: nothing to do, and no lock taken
    applied_now = []
    with connection.transaction():
        connection.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
        connection.execute(VERSION_TABLE)
        done = {version for (version,) in connection.execute("SELECT version FROM koma_schema")}
        newest = max(done, default=0)
        if newest > len(wanted):
            raise SchemaError(f"the database has schema version {newest}; this Koma knows up to {len(wanted)}")
        for migration in wanted:
            if migration.version in done:
                continue
            connection.execute(migration.sql.encode())  # no parameters: one call may hold many statements
            connection.execute("INSERT INTO koma_schema (version, name) VALUES (%s, %s)", (migration.version, migration.name))
            applied_now.append(migration.version)
    return applied_now


def current_version(connection: psycopg.Connection) -> int:
    """The newest schema version applied (0 for an empty database)."""
    if connection.execute("SELECT to_regclass('koma_schema')").fetchone() == (None,):
        return 0
    row = connection.execute("SELECT max(version) FROM koma_schema").fetchone()
    return int(row[0]) if row and row[0] is not None else 0
