"""Every screen in a small terminal (issue 38): a phone's browser gives 40 to 45 columns, SSH clients on phones
and tablets 40 to 60.  Below 60 columns the play screens put their panel below the board, the home screen's cards
stack, and what does not fit scrolls; nothing is cut off.

Two kinds of test: snapshots of the screens that test_snapshots, test_gallery and test_labs do not cover
(leaderboard, stats, watch, replay) at 40x20, 60x24 and 80x24; and checks, on every screen at 40x20, that the
whole board has its room and that every key of the key bar is drawn whole.
"""

from __future__ import annotations

import pytest
from textual.widget import Widget
from textual.widgets import Tab
from tui_helpers import make_app, settled, wait_for, wait_warm

from tui.app import KomaCommands
from tui.ascii import RadioButton
from tui.game.records import Replay
from tui.screens.leaderboard import LeaderboardScreen
from tui.screens.replay import ReplayScreen
from tui.screens.speed import SpeedScreen
from tui.screens.stats import StatsScreen
from tui.screens.watch import WatchScreen
from tui.storage.store import Store
from tui.widgets.board import Board
from tui.widgets.keybar import Group, Key, KeyBar
from tui.widgets.tabbed import FoldingTabs

SMALL_SIZES = [(40, 20), (60, 24), (80, 24)]
DAY = "2026-03-14"  # the leaderboard's "today", so its snapshot does not change with the date
FINISHED = Replay("8", "1 2 3/4 5 6/_ 7 8", ["L", "L"], "pp", 4.0, 2, finished=1.0)


def ann_store(tmp_path) -> Store:
    """A store with one finished game of ann's (a fixed name and date: the snapshots do not depend on the box)."""
    store = Store(tmp_path / "koma.db", player="user:ann", name="ann")
    store.record_replay(FINISHED)
    return store


async def open_stats(pilot) -> StatsScreen:
    await pilot.press("v")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, StatsScreen), what="your stats")
    await settled(pilot)
    await pilot.pause(0.2)
    return pilot.app.screen


async def open_replay_at_start(pilot) -> ReplayScreen:
    await open_stats(pilot)
    await pilot.press("enter")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, ReplayScreen), what="the replay")
    replay = pilot.app.screen
    for _ in range(3):  # pause it (a short replay on a loaded box may end first: space then plays it again)
        await pilot.press("space")
        if replay.playback.paused:
            break
    while replay.position:
        await pilot.press("left_square_bracket")
    await pilot.pause(0.2)
    return replay


async def open_leaderboard(pilot) -> LeaderboardScreen:
    await pilot.press("d")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, LeaderboardScreen), what="the leaderboard")
    await settled(pilot)
    await pilot.pause(0.2)
    return pilot.app.screen


async def open_watch(pilot) -> WatchScreen:
    await pilot.press("w")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, WatchScreen), what="the watch list")
    await settled(pilot)
    await pilot.pause(0.2)
    return pilot.app.screen


OPENERS = {"leaderboard": open_leaderboard, "stats": open_stats, "watch": open_watch, "replay": open_replay_at_start}


@pytest.mark.parametrize("size", SMALL_SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("screen", list(OPENERS))
def test_small_screen_snapshots(snap_compare, tmp_path, monkeypatch, size, screen):
    monkeypatch.setenv("KOMA_DAY", DAY)

    async def run_before(pilot):
        await OPENERS[screen](pilot)

    assert snap_compare(make_app(tmp_path, store=ann_store(tmp_path)), terminal_size=size, run_before=run_before)


# --- nothing cut off at 40x20 --------------------------------------------------------------------------------

def bar_lines(bar: KeyBar) -> list[str]:
    return ["".join(segment.text for segment in bar.render_line(y)) for y in range(bar.size.height)]


def key_texts(entry: Key | Group) -> list[str]:
    if isinstance(entry, Group):
        return [key.display for key in entry.keys] + [entry.description]
    return [f"{entry.display} {entry.description}".strip()]


def clipped_keys(app) -> list[str]:
    """The key bar's keys (and the palette's) that are not drawn whole on one of its lines, within the screen; the
    keys the bar leaves off in a narrow terminal count when the palette's key does not say ``more`` or the palette
    does not list them."""
    screen = next(s for s in reversed(app.screen_stack) if s.query(KeyBar))
    bar = screen.query_one(KeyBar)
    lines = [line[:app.size.width] for line in bar_lines(bar)]
    shown = list(bar.items[:len(bar.items) - bar.left_off])
    wanted = [text for entry in shown for text in key_texts(entry)]
    if bar.palette:
        wanted.append(bar.palette.display + (" more" if bar.left_off else ""))
    missing = [text for text in wanted if not any(text in line for line in lines)]
    palette_names = [help_text for _name, help_text, _run in KomaCommands(screen)._commands()]
    for entry in bar.items[len(shown):]:
        for key in entry.keys if isinstance(entry, Group) else (entry,):
            if not any(key.display in help_text.removeprefix("key: ").split(", ") for help_text in palette_names):
                missing.append(f"{key.display} (left off, and not in the palette)")
    return missing


def tabs_cut_off(app) -> list[str]:
    """Each tab of a row of tabs that is not drawn whole within the screen."""
    return [f"{tab.id} at {tab.region}" for tab in app.screen.query(Tab)
            if tab.region.size != tab.outer_size or not app.screen.region.contains_region(tab.region)]


def board_problems(app) -> list[str]:
    """Each board that has less room than its smallest tiles need, or a piece that lies outside its board."""
    problems = []
    for board in app.screen.query(Board):
        least_width, least_height = board.least_size()
        if board.size.width < least_width or board.size.height < least_height:
            problems.append(f"{board.id} has {board.size}, needs {least_width}x{least_height}")
        tile_width, tile_height = board.tile_size()
        origin = board.origin()
        width, height = origin.x + tile_width * board.columns, origin.y + tile_height * board.rows
        if not board.boxed:  # compact tiles: the last column and line need no gap after them
            width, height = width - 1, height - (tile_height > 1)
        if width > board.size.width or height > board.size.height:
            problems.append(f"{board.id} has {board.size}, its tiles take {width}x{height}")
    return problems


async def at_home(pilot) -> None:
    await pilot.pause(0.2)


def play(name: str, board: str, size: str | None = None):
    async def opened(pilot) -> None:
        await wait_warm(pilot)
    return (name, board, size), opened


def dialog(key: str):
    async def opened(pilot) -> None:
        await wait_warm(pilot)
        await pilot.press(key)
        await pilot.pause(0.3)
    return ("8", "8 6 7/2 5 4/3 _ 1", None), opened


def from_home(key: str):
    async def opened(pilot) -> None:
        await pilot.press(key)
        await wait_for(pilot, lambda: len(pilot.app.screen_stack) > 2, what=f"the screen of {key}")
        await pilot.pause(0.5)
    return (None, None, None), opened


def speed_at(size: int):
    async def opened(pilot) -> None:
        pilot.app.push_screen(SpeedScreen((size, size), ascii_only=pilot.app.ascii_only))
        await wait_for(pilot, lambda: len(pilot.app.screen_stack) > 2, what="the speed screen")
        await pilot.pause(0.5)
    return (None, None, None), opened


def from_speed(*keys: str):
    async def opened(pilot) -> None:
        await from_home("s")[1](pilot)
        for key in keys:
            await pilot.press(key)
            await pilot.pause(0.3)
    return (None, None, None), opened


SCREENS = {
    "home": ((None, None, None), at_home),
    "play-8": play("8", "8 6 7/2 5 4/3 _ 1"),
    "play-15": play("15", "5 1 2 4/9 6 3 8/13 10 7 11/14 _ 15 12"),
    "play-goat": play("goat", "r-BB/i.dS/l-jW"),
    "play-ura": play("ura", "BWB/WBB/BBB", "3x3"),
    "play-ura-5": play("ura", "BWBWW/WBBWW/BBBWW/WWWWW/WWWWB", "5x5"),
    "play-24": play("sliding", "1 2 3 4 5/6 7 8 9 10/11 12 13 14 15/16 17 18 19 20/21 22 23 _ 24", "5x5"),
    "help": dialog("question_mark"),
    "new-game": dialog("n"),
    "proof": dialog("p"),
    "gallery": from_home("g"),
    "parity-lab": from_home("p"),
    "loop-demo": from_home("o"),
    "algorithm-lab": from_home("a"),
    "daily": from_home("d"),
    "stats": from_home("v"),
    "watch": from_home("w"),
    "speed": from_home("s"),
    "speed-10x10": speed_at(10),
    "speed-session": from_speed("v"),
    "speed-events": from_speed("x"),  # the event dialog
}


@pytest.mark.parametrize("size", [(40, 20), (44, 20)], ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("screen", list(SCREENS))
async def test_nothing_is_cut_off_in_a_small_terminal(tmp_path, screen, size):
    (name, board, board_size), opened = SCREENS[screen]
    app = make_app(tmp_path, name, board, board_size)
    async with app.run_test(size=size) as pilot:
        await opened(pilot)
        assert app.screen.has_class("-narrow") and app.screen.has_class("-short")
        assert clipped_keys(app) == [], bar_lines(app.screen.query_one(KeyBar)) if app.screen.query(KeyBar) else ""
        assert board_problems(app) == []
        assert tabs_cut_off(app) == []
        bar = next(s for s in reversed(app.screen_stack) if s.query(KeyBar)).query_one(KeyBar)
        assert bar.size.height <= 2, bar_lines(bar)


async def test_the_whole_15_puzzle_and_its_move_counter_show_at_44x20(tmp_path):
    app = make_app(tmp_path, "15", "5 1 2 4/9 6 3 8/13 10 7 11/14 _ 15 12")
    async with app.run_test(size=(44, 20)) as pilot:
        await wait_warm(pilot)
        screen = app.screen

        def shown_whole(widget: Widget) -> bool:  # its visible part on the screen is all of it
            return widget.region.size == widget.outer_size and screen.region.contains_region(widget.region)

        board = screen.query_one(Board)
        tile_width, tile_height = board.tile_size()
        assert shown_whole(board) and not board.compact and tile_width >= 5 and tile_height >= 3
        assert board.origin().x + 4 * tile_width <= board.size.width
        assert board.origin().y + 4 * tile_height <= board.size.height
        assert shown_whole(screen.query_one("#counters"))
        assert screen.query_one("#board").region.bottom <= screen.query_one("#side").region.y  # the panel is below


async def test_at_44x20_the_solver_line_and_the_message_are_never_scrolled_out_of_sight(tmp_path):
    """Four lines of the panel show below the board: while Koma plays its solution, and after Escape stops it, the
    ID and the parity yield their places to what the player is told now; with nothing to tell, they are back."""
    app = make_app(tmp_path, "15", "5 1 2 4/9 6 3 8/13 10 7 11/14 _ 15 12")
    async with app.run_test(size=(44, 20)) as pilot:
        await wait_warm(pilot)
        screen = app.screen
        side = screen.query_one("#side")

        def shown_whole(line_id: str) -> bool:
            line = screen.query_one(line_id)
            return line.display and line.region.size == line.outer_size and side.region.contains_region(line.region)

        def verdict_shown() -> bool:  # the parity's first line (its proof's summary below it may scroll)
            parity = screen.query_one("#parity")
            return parity.display and parity.region.height >= 1 and side.region.contains_point(parity.region.offset)

        assert shown_whole("#game-id") and verdict_shown() and shown_whole("#counters")
        await pilot.press("s")
        await wait_for(pilot, lambda: "playing" in str(screen.query_one("#solver").render()), what="the playback")
        await pilot.pause()
        assert shown_whole("#solver") and shown_whole("#counters") and shown_whole("#distance")
        assert not screen.query_one("#game-id").display and not screen.query_one("#parity").display
        await pilot.press("escape")
        await wait_for(pilot, lambda: "stopped" in str(screen.query_one("#message").render()), what="the stop")
        await pilot.pause()
        assert shown_whole("#message") and not screen.query_one("#solver").display
        screen.status.message = ""  # the message is done: the ID and the parity come back
        await pilot.pause()
        assert shown_whole("#game-id") and verdict_shown()


async def test_the_panel_goes_back_beside_the_board_when_the_terminal_grows(tmp_path):
    app = make_app(tmp_path, "8", "8 6 7/2 5 4/3 _ 1")
    async with app.run_test(size=(40, 20)) as pilot:
        await wait_warm(pilot)
        screen = app.screen
        board, side = screen.query_one("#board"), screen.query_one("#side")
        assert side.region.y >= board.region.bottom
        await pilot.resize_terminal(80, 24)
        await wait_for(pilot, lambda: screen.has_class("-wide"), what="the wide layout")
        await pilot.pause(0.2)
        assert not screen.has_class("-narrow")
        assert side.region.x >= board.region.right and side.region.y == board.region.y


# --- what folds: rows of tabs, the key bar, the new-game dialog's choices -------------------------------------

@pytest.mark.parametrize("size, folded", [((40, 20), True), ((60, 24), True), ((120, 36), False)],
                         ids=["40x20", "60x24", "120x36"])
@pytest.mark.parametrize("key", ["g", "p"], ids=["gallery", "parity-lab"])
async def test_a_row_of_tabs_too_wide_folds_and_a_tab_on_its_second_row_opens(tmp_path, key, size, folded):
    app = make_app(tmp_path)
    async with app.run_test(size=size) as pilot:
        await from_home(key)[1](pilot)
        screen = app.screen
        tabs = screen.query_one(FoldingTabs)
        assert tabs.has_class("-folded") == folded
        assert tabs_cut_off(app) == []
        last = list(tabs.query(Tab))[-1]
        if folded:
            assert last.region.y > tabs.region.y  # on a second row
        assert await pilot.click(last)
        await wait_for(pilot, lambda: screen.tab == last.id, what=f"the tab {last.id}")
        assert tabs.active == last.id


async def test_the_key_bar_leaves_keys_to_the_palette_only_when_two_lines_cannot_hold_them(tmp_path):
    app = make_app(tmp_path, "8", "8 6 7/2 5 4/3 _ 1")
    async with app.run_test(size=(40, 20)) as pilot:
        await wait_warm(pilot)
        bar = app.screen.query_one(KeyBar)
        assert bar.left_off == 0 and bar.size.height == 2  # every key of the play screen on two lines
        assert bar_lines(bar)[-1].rstrip().endswith("▏^p")  # the palette's key without its description
        await pilot.resize_terminal(80, 24)
        await wait_for(pilot, lambda: bar.size.height == 1, what="one line of keys")
        assert bar_lines(bar)[0].rstrip().endswith("▏^p palette")
    app = make_app(tmp_path)
    async with app.run_test(size=(40, 20)) as pilot:
        await from_home("p")[1](pilot)  # the parity lab has more keys than two lines hold
        bar = app.screen.query_one(KeyBar)
        assert bar.left_off > 0 and bar.size.height == 2
        assert bar_lines(bar)[-1].rstrip().endswith("▏^p more")
        assert clipped_keys(app) == []


async def test_the_new_game_dialog_folds_its_choices_instead_of_cutting_them(tmp_path):
    app = make_app(tmp_path, "8", "8 6 7/2 5 4/3 _ 1")
    async with app.run_test(size=(40, 20)) as pilot:
        await dialog("n")[1](pilot)
        for choice in app.screen.query(RadioButton):
            lines = widget_lines(choice)
            assert " ".join(" ".join(line[4:].split()) for line in lines) == str(choice.label), lines
        assert app.screen.query_one("#kind-distance").region.height == 2
        await pilot.press("down", "down", "enter")  # a typed board: the verdict shows an example
        verdict = " ".join(" ".join(widget_lines(app.screen.query_one("#verdict"))).split())
        assert verdict == "Type a board, e.g. 1 2 3/4 5 6/7 8 _, or a game ID."


def widget_lines(widget: Widget) -> list[str]:
    return ["".join(segment.text for segment in widget.render_line(y)) for y in range(widget.size.height)]


@pytest.mark.parametrize("size", SMALL_SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_a_10x10_speed_board_is_whole_from_40_columns_up(tmp_path, size):
    app = make_app(tmp_path)
    async with app.run_test(size=size) as pilot:
        await speed_at(10)[1](pilot)
        assert board_problems(app) == []
        side, board = app.screen.query_one("#speed-side"), app.screen.query_one("#speed-board")
        if size[0] < 60:  # the panel below the board, as wide as the screen
            assert side.region.y >= board.region.bottom and side.region.width == size[0]
        else:
            assert side.region.x >= board.region.right
