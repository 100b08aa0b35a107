"""The game database: saves, stats, concurrent sessions and a corrupt file."""

from tui.game.store import SavedGame, Store


def test_save_load_and_clear(tmp_path):
    store = Store(tmp_path / "koma.db")
    assert store.load_game("8") is None
    store.save_game("8", SavedGame("1 2 3/4 5 6/7 _ 8", ["L", "R"], "pk", 1, 12.5, 2))
    again = Store(tmp_path / "koma.db")  # a second session sees it
    game = again.load_game("8")
    assert game == SavedGame("1 2 3/4 5 6/7 _ 8", ["L", "R"], "pk", 1, 12.5, 2)
    assert list(again.games_in_progress()) == ["8"]
    again.clear_game("8")
    assert store.load_game("8") is None
    assert not store.notices and not again.notices


def test_stats_keep_the_best(tmp_path):
    store = Store(tmp_path / "koma.db")
    store.record_win("15", 60, 50, 90.0)
    store.record_win("15", 40, 36, 120.0)  # 4 over beats 10 over
    store.record_win("15", 70, 50, 80.0)  # best time only
    store.record_koma_finish("15")
    stats = store.stats("15")
    assert (stats.solved, stats.by_koma, stats.best_moves, stats.best_optimal, stats.best_seconds) == (3, 1, 40, 36, 80.0)


def test_corrupt_database_is_moved_aside(tmp_path):
    path = tmp_path / "koma.db"
    path.write_bytes(b"this is not a database at all" * 100)
    store = Store(path)
    assert len(store.notices) == 1 and "moved it to koma.db.corrupt-" in store.notices[0]
    assert list(tmp_path.glob("koma.db.corrupt-*"))
    store.save_game("goat", SavedGame("r-BB/i.dS/l-jW"))
    assert store.load_game("goat").start == "r-BB/i.dS/l-jW"
    assert not store.memory_only


def test_unwritable_location_keeps_games_in_memory(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    store = Store(blocker / "sub" / "koma.db")  # parent is a file: cannot create
    assert store.memory_only and len(store.notices) == 1
    store.save_game("8", SavedGame("1 2 3/4 5 6/7 8 _"))
    assert store.load_game("8") is not None
