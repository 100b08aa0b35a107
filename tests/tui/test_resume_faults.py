"""A game resumed around a PostgreSQL outage: what the player is shown is what the ``games`` table holds.

The probe of issue 50: a player reconnects during an outage and opens a saved game (from the outbox: their last
game quit during it), plays 4 moves in the outage and 3 after it, quits, and reconnects.  That last game ended with
moves its journal held and the database did not have yet; the reconnect came while a drainer's pass held that
journal (or while the ending game's process still did), so the new game could neither adopt it nor see it, and
resumed the older game the table held then.  Its next save, accepted later, then wrote over the newer one.

Each run here plays that story on a real :class:`~tui.storage.service.StoreService` with its durable outbox and a real
:class:`~tui.storage.outbox_drain.OutboxDrainer`, against real PostgreSQL made unreachable (the database refuses
connections and its sessions are ended, or the server is stopped), and compares what the reconnect resumes, the
journal and the table.  Where the drain runs is chosen per run: a drainer's pass holding the ended game's journal
(stopped in the middle of its pass, when it connects), that game's process still holding it, the reconnect
adopting it, or a drain that has already written it.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
import pytest
from store_helpers import Told, moves_of, play_moves

import tui.storage.outbox_drain as outbox_drain
from solver.registry import get_puzzle
from tui.game.records import SavedGame
from tui.game.session import GameSession
from tui.storage.outbox import outbox_depth, read_journal
from tui.storage.outbox_drain import OutboxDrainer
from tui.storage.service import Answer, GameBehind, GameKeptApart, StoreService
from tui.storage.store_choice import connect_store

FIFTEEN = get_puzzle("15")
KEY = "15"
DEADLINE = 60.0
RUNS = 50
HOLDERS = ("drainer", "exiting game", "reconnect", "drained")


def resumed_answer(storage: StoreService) -> Answer:
    """The saved game as the play screen reads it (tui/play/held_game.py): this session's save still in the outbox,
    else :meth:`StoreService.newest_saved_game` on the reader thread."""
    pending = storage.pending_save(KEY)
    if pending is not False:
        return Answer(pending if isinstance(pending, SavedGame) else None)
    answered = threading.Event()
    answers: list[Answer] = []
    storage.read(lambda store: storage.newest_saved_game(store, KEY), lambda a: (answers.append(a), answered.set()))
    assert answered.wait(DEADLINE)
    return answers[0]


def resumed_game(storage: StoreService) -> SavedGame:
    answer = resumed_answer(storage)
    assert answer.known and isinstance(answer.value, SavedGame), answer
    return answer.value


def stored(url: str, player: str) -> SavedGame | None:
    store = connect_store(url, player)
    try:
        return store.load_game(KEY)
    finally:
        store.close()


def journal_game(path: Path) -> SavedGame | None:
    """The game a journal's pending ops lead to (the last pending save of the key, folded)."""
    saves = [op.write.game for op in read_journal(path) if op.key == KEY and hasattr(op.write, "game")]
    return saves[-1] if saves else None


def quit_journal(storage: StoreService) -> SavedGame | None:
    """What the journal of a game that has quit leads to (None: nothing was left in it)."""
    assert storage.outbox is not None and storage.journal is not None and storage.outbox.flush(DEADLINE)
    return journal_game(storage.journal.path) if storage.journal.path.exists() else None


class Outage:
    """Makes one database unreachable and brings it back: it refuses new connections and its sessions are ended
    (``refused``, milliseconds), or the whole server is stopped and started again (``stopped``)."""

    def __init__(self, server, url: str, how: str):
        self.server, self.url, self.how = server, url, how
        self.database = url.rsplit("/", 1)[1]

    def begin(self) -> None:
        if self.how == "stopped":
            self.server.stop_server()
            return
        with psycopg.connect(self.server.url(), autocommit=True) as admin:
            admin.execute(f"ALTER DATABASE {self.database} ALLOW_CONNECTIONS false")
            admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s "
                          "AND pid <> pg_backend_pid()", (self.database,))

    def end(self) -> None:
        if self.how == "stopped":
            self.server.start_server()
            return
        with psycopg.connect(self.server.url(), autocommit=True) as admin:
            admin.execute(f"ALTER DATABASE {self.database} ALLOW_CONNECTIONS true")


@contextmanager
def drainer_in_its_pass(url: str, outbox: Path, monkeypatch) -> Iterator[threading.Thread]:
    """A real drainer's pass, stopped where it connects to the database: it holds (claimed) the journals it is
    draining until the block ends, then it finishes its pass."""
    gate, connecting = threading.Event(), threading.Event()
    connect = outbox_drain.connect_store

    def slow_connect(*args):
        connecting.set()
        assert gate.wait(DEADLINE)
        return connect(*args)

    monkeypatch.setattr(outbox_drain, "connect_store", slow_connect)
    lines: list[str] = []
    thread = threading.Thread(target=OutboxDrainer(url, lines.append, outbox).drain, name="test-drainer")
    thread.start()
    try:
        assert connecting.wait(DEADLINE), "the drainer found no journal to drain"
        yield thread
    finally:
        gate.set()
        thread.join(DEADLINE)
        monkeypatch.setattr(outbox_drain, "connect_store", connect)
    assert not thread.is_alive()


def drain_all(url: str, outbox: Path) -> None:
    deadline = time.monotonic() + DEADLINE
    drainer = OutboxDrainer(url, lambda line: None, outbox)
    while outbox_depth(outbox) != (0, 0):
        drainer.drain()
        assert time.monotonic() < deadline, f"the outbox still holds {outbox_depth(outbox)}"


def outage_story(server, url: str, outbox: Path, player: str, how: str, holder: str, rng: random.Random,
                 monkeypatch) -> dict:
    """One run of the probe; what the reconnect showed, what the journal and the table held (positions)."""
    outage = Outage(server, url, how)

    def storage() -> StoreService:
        return StoreService(lambda: connect_store(url, player), player, Told(), outbox=outbox)

    first = storage()
    game = GameSession(FIFTEEN, first, time.monotonic, seed=rng.randrange(2**32))
    play_moves(game, 4)
    assert first.settle(DEADLINE)
    outage.begin()
    try:
        play_moves(game, 2)
        first.close(0.2)  # the game quits during the outage: its journal waits in the outbox
        back = storage()  # the player reconnects during it and opens the saved game (from that journal)
        assert back.adopted >= 1
        saved = resumed_game(back)
        assert moves_of(saved) == moves_of(game.snapshot())
        game = GameSession(FIFTEEN, back, time.monotonic, saved=saved)
        play_moves(game, 4)
    finally:
        outage.end()
    taken = rng.choice((None, 0, 1, 2, 3))  # after how many of the last 3 moves the database has taken everything
    for played in range(3):
        if played == taken:
            assert back.settle(DEADLINE)
        play_moves(game, 1)
    final = moves_of(game.snapshot())
    if holder != "exiting game":
        back.close(0.0)  # quits at once: what the database has not taken stays in its journal
    journal = quit_journal(back)
    if holder == "drainer" and journal is None:
        holder = "drained"  # the database took every move before the game quit: there is nothing to drain
    if holder == "drainer":
        with drainer_in_its_pass(url, outbox, monkeypatch):
            reconnect = storage()
            shown = resumed_game(reconnect)
    else:
        if holder == "drained":
            drain_all(url, outbox)
        reconnect = storage()
        shown = resumed_game(reconnect)
        if holder == "exiting game":
            back.close(0.0)
            journal = quit_journal(back)
    drain_all_but(reconnect, url, outbox)
    table = stored(url, player)
    # the reconnect plays on: its save goes over nothing newer, and the table holds its game
    resumed = GameSession(FIFTEEN, reconnect, time.monotonic, saved=shown)
    play_moves(resumed, 1)
    assert reconnect.settle(DEADLINE)
    after = stored(url, player)
    assert reconnect.close() == 0
    return {"holder": holder, "taken": taken, "played": final, "journal": moves_of(journal) if journal else None,
            "shown": moves_of(shown), "table": moves_of(table), "played_on": moves_of(resumed.snapshot()),
            "table_after": moves_of(after)}


def drain_all_but(reconnect: StoreService, url: str, outbox: Path) -> None:
    """Every journal drained but the reconnect's own (its game is live): what the table holds once they are in."""
    assert reconnect.settle(DEADLINE)
    deadline = time.monotonic() + DEADLINE
    drainer = OutboxDrainer(url, lambda line: None, outbox)
    while any(path != reconnect.journal.path for path in outbox.glob("*.jsonl")):
        drainer.drain()
        assert time.monotonic() < deadline, f"journals left: {sorted(outbox.glob('*.jsonl'))}"
        time.sleep(0.01)


def differing(runs: list[dict]) -> list[dict]:
    return [run for run in runs if not (run["shown"] == run["table"] == run["played"]
                                        and run["table_after"] == run["played_on"])]


@pytest.mark.parametrize("how, runs", [("refused", RUNS), ("stopped", 4)])
def test_a_reconnect_after_an_outage_resumes_what_the_table_holds(postgres_server, postgres_url, tmp_path, how, runs,
                                                                  monkeypatch):
    """Every run: the reconnect resumes the 13 moves played, the table holds them, the journal led to them, and the
    reconnect's next move is saved on top of them (never over them)."""
    rng = random.Random(50)
    results = []
    for run in range(runs):
        outbox = tmp_path / f"outbox-{run}"
        results.append(outage_story(postgres_server, postgres_url, outbox, f"user:probe-{how}-{run}", how,
                                    HOLDERS[run % len(HOLDERS)], rng, monkeypatch))
        assert outbox_depth(outbox) == (0, 0)
    bad = differing(results)
    print(f"\n{how}: {len(bad)} of {runs} runs differ; by holder: "
          + ", ".join(f"{h} {sum(r['holder'] == h for r in bad)}/{sum(r['holder'] == h for r in results)}"
                      for h in HOLDERS))
    assert not bad, bad[:3]
    assert [len(run["shown"][1]) for run in results] == [13] * runs
    assert [run["journal"] for run in results if run["journal"] not in (None, run["played"])] == []


def test_a_game_resumed_from_an_older_state_never_saves_over_the_newer_one(postgres_server, postgres_url, tmp_path):
    """On another replica (its own outbox), a reconnect cannot see the ended game's journal: it resumes what the
    table held then.  Once that journal is drained, the reconnect's next saves are behind the table's game: they
    are refused (the session is told, and its game is guarded from then on), and the table keeps the newer game."""
    player = "user:replicas"
    outage = Outage(postgres_server, postgres_url, "refused")
    here, there = tmp_path / "replica-1", tmp_path / "replica-2"
    first = StoreService(lambda: connect_store(postgres_url, player), player, Told(), outbox=here)
    game = GameSession(FIFTEEN, first, time.monotonic, seed=5)
    play_moves(game, 6)
    assert first.settle(DEADLINE)
    outage.begin()
    try:
        play_moves(game, 4)
    finally:
        outage.end()
    first.close(0.0)  # quits before its writer is back: 4 moves wait in replica 1's outbox
    newer = moves_of(game.snapshot())
    told = Told()
    elsewhere = StoreService(lambda: connect_store(postgres_url, player), player, told, outbox=there)
    shown = resumed_game(elsewhere)
    assert len(shown.moves) == 6  # replica 2 cannot know of them yet
    drain_all(postgres_url, here)  # replica 1's drainer writes them
    assert moves_of(stored(postgres_url, player)) == newer
    stale = GameSession(FIFTEEN, elsewhere, time.monotonic, saved=shown)
    play_moves(stale, 1)
    told.wait_for(GameBehind, timeout=DEADLINE)
    stale.stop_replacing()  # what the play screen does when told (tui/play/held_game.py)
    play_moves(stale, 6)  # more changes than the stored game has had: still never saved over it
    assert elsewhere.settle(DEADLINE)
    told.wait_for(GameKeptApart, timeout=DEADLINE)
    assert moves_of(stored(postgres_url, player)) == newer
    assert elsewhere.close() == 0
    again = StoreService(lambda: connect_store(postgres_url, player), player, Told(), outbox=there)
    assert moves_of(resumed_game(again)) == newer  # opened again: the newer game
    assert again.close() == 0
