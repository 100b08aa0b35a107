"""Live spectating with two real apps on one store (a SQLite file, and a real PostgreSQL): one plays, one watches."""

from __future__ import annotations

from textual.widgets import DataTable
from tui_helpers import make_app, read_store, settled, store_of, wait_for

from tui.game.writes import SetWatchable
from tui.play.screen import PlayScreen
from tui.screens.home import HomeScreen
from tui.screens.stats import StatsScreen
from tui.screens.watch import SpectateScreen, WatchScreen
from tui.storage.store_choice import open_store

BOARD = "1 2 3/4 5 6/_ 7 8"  # L L solves it
KEYS = {"L": "left", "R": "right"}
DEADLINE = 30.0  # generous for a loaded 2-core box; every wait ends as soon as its condition holds


def rows(app) -> int:
    return app.screen.query_one(DataTable).row_count


async def test_one_plays_another_watches_live(tmp_path, database):
    player_app = make_app(tmp_path, "8", BOARD, store=open_store(database, "user:ann", "ann"))
    watcher_app = make_app(tmp_path, store=open_store(database, "user:bob", "bob"))
    async with player_app.run_test(size=(100, 30)) as player, watcher_app.run_test(size=(100, 30)) as watcher:
        game = player_app.screen
        assert isinstance(game, PlayScreen)
        await watcher.press("w")
        await wait_for(watcher, lambda: isinstance(watcher_app.screen, WatchScreen), DEADLINE, "the Watch screen")
        listing = watcher_app.screen
        await wait_for(watcher, lambda: rows(watcher_app) == 1, DEADLINE, "the live game in the list")
        assert listing.query_one(DataTable).get_row_at(0)[:3] == ["ann", "8", "0"]
        await watcher.press("enter")
        await wait_for(watcher, lambda: isinstance(watcher_app.screen, SpectateScreen), DEADLINE, "the watched game")
        watching = watcher_app.screen
        listed = []  # the hidden list does no work: count its reads from now on
        read_list = store_of(watcher_app).live_games
        store_of(watcher_app).live_games = lambda: listed.append(1) or read_list()
        await wait_for(player, lambda: game.status.watchers == 1, DEADLINE, "the player's watcher count")
        assert "1 watcher live" in str(game.status.query_one("#counters").render())
        for number, move in enumerate(("L", "R", "L"), 1):  # each move reaches the watcher's board
            assert game.position == number - 1
            await player.press(KEYS[move])  # keys, so the move runs in the player's app (two apps share this loop)
            await wait_for(watcher, lambda: watching.shown is not None and watching.shown[2] == game.position, DEADLINE,
                           f"the watcher's board after {move}")
            assert watching.query_one("#board").state == game.state
            assert f"Moves {game.position} " in str(watching.query_one("#spectate-counters").render())
        assert listed == []  # three moves followed, and the list under the watched game was never read
        await watcher.press("left", "right", "up", "s", "u", "enter", "space")  # the watcher's keys reach nobody
        assert game.position == 3 and game.history.moves == ["L", "R", "L"] and not game.won
        await watcher.press("escape")  # stop watching: the player's count drops
        await wait_for(player, lambda: game.status.watchers == 0, DEADLINE, "the count after the watcher left")
        player_app.storage.write(SetWatchable(False))  # the player turns watching off: the game leaves the list
        await wait_for(watcher, lambda: rows(watcher_app) == 0, DEADLINE, "the list without the game")
        assert "No game" in str(listing.query_one("#watch-title").render())


async def test_watching_is_turned_off_in_the_profile_and_a_finished_game_ends_the_watch(tmp_path, database):
    player_app = make_app(tmp_path, "8", BOARD, store=open_store(database, "user:ann", "ann"))
    watcher_app = make_app(tmp_path, store=open_store(database, "user:bob", "bob"))
    async with player_app.run_test(size=(100, 30)) as player, watcher_app.run_test(size=(100, 30)) as watcher:
        game = player_app.screen
        await watcher.press("w")
        await wait_for(watcher, lambda: isinstance(watcher_app.screen, WatchScreen) and rows(watcher_app) == 1, DEADLINE,
                       "the live game in the list")
        await watcher.press("enter")
        await wait_for(watcher, lambda: isinstance(watcher_app.screen, SpectateScreen), DEADLINE, "the watched game")
        watching = watcher_app.screen
        await player.press("left", "left")  # the goal: the game is finished, so no longer live
        await wait_for(player, lambda: game.won, DEADLINE, "the win")
        await wait_for(watcher, lambda: watching.ended, DEADLINE, "the end of the watch")
        assert "game is over" in str(watching.query_one("#spectate-state").render())
        await watcher.press("escape")
        await player.press("escape")
        await wait_for(player, lambda: isinstance(player_app.screen, HomeScreen), DEADLINE, "home")
        await player.press("v")  # the profile: w turns watching off
        await wait_for(player, lambda: isinstance(player_app.screen, StatsScreen), DEADLINE, "your stats")
        assert "others may watch" in str(player_app.screen.query_one("#stats-title").render())
        await player.press("w")
        assert "nobody may watch" in str(player_app.screen.query_one("#stats-title").render())
        await settled(player)  # the setting goes through the storage service
        assert not open_store(database, "user:ann").watchable()  # another session (another replica) sees it
        await player.press("escape", "1")  # a new game of the 8-puzzle: not listed
        await wait_for(player, lambda: isinstance(player_app.screen, PlayScreen), DEADLINE, "a game")
        reads = []
        read_list = store_of(watcher_app).live_games
        store_of(watcher_app).live_games = lambda: reads.append(1) or read_list()
        await wait_for(watcher, lambda: len(reads) >= 2, DEADLINE, "the list read again with the new game saved")
        assert await read_store(player, lambda store: store.load_game("8")) is not None and rows(watcher_app) == 0
