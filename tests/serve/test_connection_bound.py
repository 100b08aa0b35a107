"""A replica with 200 players holds at most 10 PostgreSQL connections: PgBouncer in transaction mode beside it.

200 game-like clients (each its own PostgresStore, so its own client connection, as each game process
has) open at once through PgBouncer (pool of 10), play moves at a human pace (every move saved), then win
and post a daily result.  Meanwhile ``pg_stat_activity`` on the server is sampled: the server never sees
more than 10 connections from them, and every move of every player is stored.  The figures are printed
(``pytest -s``): the most server connections seen, and the save times.
"""

from __future__ import annotations

import random
import statistics
import threading
import time

import pytest

from tui.storage.store import SavedGame

PLAYERS = 200
MOVES = 12
SERVER_CONNECTIONS_ALLOWED = 10


def test_200_players_hold_at_most_10_server_connections(postgres_server, pgbouncer, postgres_url, record_property):
    import psycopg

    from tui.storage.postgres import PostgresStore, connect

    PostgresStore(postgres_url, "setup").close()  # the schema, made once (as koma serve does at start)
    through_bouncer = pgbouncer.url(postgres_url)
    database = postgres_url.rsplit("/", 1)[1]
    all_connected = threading.Barrier(PLAYERS + 1)
    save_seconds: list[float] = []
    failures: list[BaseException] = []
    moves_played = [tuple(random.Random(k).choices("UDLR", k=MOVES)) for k in range(PLAYERS)]

    def player(k: int) -> None:
        try:
            store = PostgresStore(through_bouncer, f"user:p{k}", migrate_schema=False)
            all_connected.wait(120)
            pace = random.Random(k)
            moves: list[str] = []
            for move in moves_played[k]:
                time.sleep(pace.uniform(0.3, 0.8))  # a player thinking
                moves.append(move)
                began = time.perf_counter()
                store.save_game("8", SavedGame("1 2 3/4 5 6/7 8 _", list(moves), "p" * len(moves), len(moves), 1.0))
                save_seconds.append(time.perf_counter() - began)
            store.record_win("8", MOVES, 10, 30.0)
            store.record_daily("2025-01-31", "8", MOVES, 10, 30.0 + k)
            assert store.drain_notices() == []
            store.close()
        except BaseException as problem:  # pragma: no cover - reported below
            failures.append(problem)

    threads = [threading.Thread(target=player, args=(k,), daemon=True) for k in range(PLAYERS)]
    for thread in threads:
        thread.start()
    all_connected.wait(120)  # all 200 clients hold a connection to PgBouncer now
    most = 0
    with connect(postgres_url) as sampler:
        while any(t.is_alive() for t in threads):
            row = sampler.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
                                  (database,)).fetchone()
            most = max(most, row[0] if row else 0)
            time.sleep(0.02)
    for thread in threads:
        thread.join(1)
    assert not failures, failures[:3]
    assert 0 < most <= SERVER_CONNECTIONS_ALLOWED
    with connect(postgres_url) as check:
        assert check.execute("SELECT count(*) FROM games WHERE puzzle = '8'").fetchone() == (PLAYERS,)
        for k in (0, PLAYERS // 2, PLAYERS - 1):
            saved = PostgresStore(postgres_url, f"user:p{k}").load_game("8")
            assert saved is not None and tuple(saved.moves) == moves_played[k]  # every move stored
        assert check.execute("SELECT count(*) FROM results WHERE day = '2025-01-31'").fetchone() == (PLAYERS,)
    ordered = sorted(save_seconds)
    figures = {"players": PLAYERS, "saves": len(ordered), "most_server_connections": most,
               "save_median_ms": round(statistics.median(ordered) * 1000, 1),
               "save_p99_ms": round(ordered[int(len(ordered) * 0.99)] * 1000, 1), "save_max_ms": round(ordered[-1] * 1000, 1)}
    record_property("figures", figures)
    print(f"\n200 players through PgBouncer: {figures}")
    held = []
    try:  # and the server itself would not take 200 players connecting directly (max_connections is 100)
        with pytest.raises(psycopg.OperationalError, match="too many clients"):
            for _ in range(PLAYERS):
                held.append(connect(postgres_url))
    finally:
        for connection in held:
            connection.close()
