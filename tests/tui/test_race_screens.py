"""Pilot tests of the race screens, driving the real app on a real SQLite store with real race links: a room of
two racers (the app's player, and a second one written through the store's race API, as another game process
would, or a second app), the countdown, the reveal, an opponent's moves in the mini, the finish order, the
results, a rematch, leaving (a DNF), coming back to a race, watching and replaying one."""

from __future__ import annotations

import time

from textual.widgets import Digits
from tui_helpers import make_app, wait_for

from solver import ids
from solver import solving as search
from tui.game.averages import seconds_text
from tui.game.race_rules import MAX_OPEN_PRIVATE_ROOMS, RacePhase, Racer, Room
from tui.game.speed import speed_puzzle
from tui.messages import RoomChanged
from tui.screens import race as race_screen
from tui.screens.home import LabLink
from tui.screens.race import LeaveRaceScreen, RaceScreen
from tui.screens.race_lobby import RaceLobbyScreen
from tui.screens.race_replay import RaceReplayScreen
from tui.screens.race_views import MINIS_PER_SECOND
from tui.screens.race_watch import RaceSpectateScreen, RaceWatchScreen
from tui.screens.watch import WatchScreen
from tui.storage.store import Store
from tui.widgets.board import Board
from tui.widgets.race_minis import RaceMinis
from tui.widgets.status import shown_id

KEYS = {"U": "up", "D": "down", "L": "left", "R": "right"}
BOB = "user:bob"


def store_of(tmp_path, who: str) -> Store:
    """``who``'s store on the test's one database file (each racer's process has its own connection)."""
    return Store(tmp_path / "koma.db", player=f"user:{who}", name=who)


def text(screen, selector: str) -> str:
    return str(screen.query_one(selector).render())


async def open_lobby(pilot) -> RaceLobbyScreen:
    await pilot.press("x")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, RaceLobbyScreen), what="the race lobby")
    return pilot.app.screen


async def open_private_3x3(pilot) -> RaceScreen:
    """The lobby, the 3x3, a private room: the race screen in its lobby."""
    lobby = await open_lobby(pilot)
    for _ in range(3):  # 4x4 -> 4x3 -> 3x4 -> 3x3
        await pilot.press("left")
    assert lobby.size_wh == (3, 3)
    await pilot.press("c")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, RaceScreen), what="the race screen")
    return pilot.app.screen


async def bob_joins_and_ann_starts(pilot, tmp_path) -> tuple[RaceScreen, Store]:
    """ann (the app) makes a private 3x3 room, bob joins it by its code, ann starts it: back at the reveal."""
    screen = await open_private_3x3(pilot)
    code = screen.room.code
    assert code and " ".join(code) in text(screen, "#race-code") and screen.query_one("#race-code").display
    bob = store_of(tmp_path, "bob")
    bob.join_code(BOB, "bob", code.lower())  # as typed: any case
    await wait_for(pilot, lambda: len(screen.room.racers) == 2, what="bob in ann's room")
    await pilot.press("s")
    await wait_for(pilot, lambda: screen.room.reveal_at is not None, what="the start")
    return screen, bob


async def revealed(pilot, screen: RaceScreen) -> None:
    await wait_for(pilot, lambda: screen.revealed_round == screen.room.round, what="the reveal")
    await pilot.pause()


def legal_move(room: Room, state: tuple[int, ...]) -> str:
    puzzle = speed_puzzle(room.width, room.height)
    return next(d for d in "UDLR" if _legal(puzzle, state, d))


def _legal(puzzle, state, direction) -> bool:
    try:
        puzzle.apply(state, direction)
    except Exception:
        return False
    return True


def optimal_moves(room: Room, state: tuple[int, ...]) -> list[str]:
    puzzle = speed_puzzle(room.width, room.height)
    moves = list(search.solve(puzzle, state).moves)
    assert puzzle.replay(state, moves)[-1] == puzzle.goal
    return moves


def since_reveal_ms(room: Room) -> int:
    assert room.reveal_at is not None
    return max(0, round((time.time() - room.reveal_at) * 1000))


async def test_home_lists_race_with_its_key(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        links = [str(link.render()) for link in app.screen.query(LabLink)]
        assert any(text.startswith("Race (x)") for text in links)
        lobby = await open_lobby(pilot)
        assert "4x4" in text(lobby, "#lobby-actions")  # the speed screen's default size
        await pilot.press("right")
        assert lobby.size_wh == (4, 5) and "quick race of 4x5" in text(lobby, "#lobby-actions")



async def test_a_host_with_too_many_open_private_rooms_is_told_in_one_line(tmp_path):
    elsewhere = store_of(tmp_path, "ann")  # ann's other games made rooms she is still in
    for _ in range(MAX_OPEN_PRIVATE_ROOMS):
        elsewhere.create_private("user:ann", "ann", 3, 3)
    app = make_app(tmp_path, store=store_of(tmp_path, "ann"))
    async with app.run_test(size=(80, 24)) as pilot:
        lobby = await open_lobby(pilot)
        await pilot.press("c")
        await wait_for(pilot, lambda: "open private rooms" in text(lobby, "#lobby-message"), what="the refusal")
        said = text(lobby, "#lobby-message").strip()
        assert said.startswith(f"you already host {MAX_OPEN_PRIVATE_ROOMS} open private rooms") and "\n" not in said
        assert isinstance(app.screen, RaceLobbyScreen)

async def test_a_code_is_checked_with_one_line(tmp_path):
    app = make_app(tmp_path, store=store_of(tmp_path, "ann"))
    async with app.run_test(size=(80, 24)) as pilot:
        lobby = await open_lobby(pilot)
        await pilot.press("j")
        await pilot.press("a", "b", "1", "enter")
        assert "no digits" in text(lobby, "#lobby-message") and "\n" not in text(lobby, "#lobby-message").strip()
        await pilot.press("backspace", "c", "d", "e", "enter")  # ABCDE: a code, but no room's
        await wait_for(pilot, lambda: "no open room has the code ABCDE" in text(lobby, "#lobby-message"), what="the refusal")
        assert isinstance(app.screen, RaceLobbyScreen)
        await pilot.press("escape")  # the code's line closes; the lobby stays
        assert isinstance(app.screen, RaceLobbyScreen) and not lobby.query_one("#lobby-join").display


async def test_a_race_of_two_countdown_reveal_moves_finish_results_rematch(tmp_path):
    app = make_app(tmp_path, store=store_of(tmp_path, "ann"))
    async with app.run_test(size=(80, 24)) as pilot:
        screen, bob = await bob_joins_and_ann_starts(pilot, tmp_path)
        board = screen.query_one("#race-board", Board)
        # the countdown: its figure, the board's numbers hidden, no ID yet, and moves refused
        await wait_for(pilot, lambda: screen.query_one("#race-countdown").display, what="the countdown")
        assert screen.query_one("#race-countdown", Digits).value in ("3", "2", "1")
        assert board.hidden and "ID " not in text(screen, "#race-title")
        room = screen.room
        await pilot.press("left")
        assert screen.solve is None or not screen.solve.moves

        countdown = screen.query_one("#race-countdown", Digits)
        place = countdown.region
        await revealed(pilot, screen)
        assert board.state == room.scramble and not board.hidden
        assert f"ID {shown_id(ids.game_id(room.puzzle, room.scramble))}" in text(screen, "#race-title")
        # the countdown's place is kept, blank, for the first second (the reveal moves nothing), then given back
        assert countdown.display and countdown.region == place and not countdown.value.strip()
        await wait_for(pilot, lambda: not countdown.display, what="the countdown's place given back")
        assert time.time() >= room.reveal_at + 1
        # the reveal happened at reveal_at on the wall clock
        assert time.time() >= room.reveal_at

        # bob moves: ann's mini of bob shows it
        move = legal_move(room, room.scramble)
        assert bob.push(room.room, 0, BOB, move, [since_reveal_ms(room)])
        minis = screen.query_one("#race-minis", RaceMinis)
        await wait_for(pilot, lambda: any(m.title == "bob" and m.figures.startswith("1 ") for m in minis.minis),
                       what="bob's move in ann's mini")
        bob_state = speed_puzzle(3, 3).apply(room.scramble, move)
        assert next(m for m in minis.minis if m.title == "bob").state == bob_state

        # ann solves by keys: the board follows, the store has every move, the finish order says it
        moves = optimal_moves(room, room.scramble)
        for move in moves:
            await pilot.press(KEYS[move])
        assert board.state == room.puzzle.goal
        await wait_for(pilot, lambda: screen.me is not None and screen.me.finished, what="ann's finish in the store")
        me = screen.me
        assert me.moves == "".join(moves) and me.finished_ms == me.times_ms[-1]
        assert me.times_ms == tuple(screen.solve.times_ms)
        await wait_for(pilot, lambda: text(screen, "#race-order").startswith("1 ann"), what="the finish order")

        # bob gives up: the round is over; the results on ann's screen, as the store has them
        bob.leave(room.room, 0, BOB)
        await wait_for(pilot, lambda: screen.query_one("#race-results").display, what="the results")
        results = text(screen, "#race-results").split("\n")
        place, name, time_text, stm, mtm, tps = results[1].split()
        assert (place, name, stm, mtm) == ("1.", "ann", str(len(moves)), str(me.mtm))
        assert time_text == seconds_text(me.finished_ms) and tps == f"{len(moves) * 1000 / me.finished_ms:.2f}"
        assert results[2].split()[:3] == ["-", "bob", "DNF"]
        assert "You finished 1st of 2" in text(screen, "#race-message")
        await wait_for(pilot, lambda: bob.read_room(room.room).phase is RacePhase.DONE, what="the round done in the store")
        assert bob.read_room(room.room).racer("user:ann").finished_ms == me.finished_ms

        # the rematch: the next round, a lobby again, the board hidden
        await pilot.press("r")
        await wait_for(pilot, lambda: screen.room.round == 1, what="the rematch's round")
        assert screen.phase is RacePhase.LOBBY and board.hidden and screen.solve is None
        assert not screen.query_one("#race-results").display


async def test_the_scramble_is_revealed_once_whichever_timer_comes_first(tmp_path):
    """The reveal's own timer and the clock's tick are both due at the reveal: the one that comes second finds the
    scramble shown and leaves it (a second reveal would start the racer's board again, moves and all)."""
    app = make_app(tmp_path, store=store_of(tmp_path, "ann"))
    announced: list[str] = []
    async with app.run_test(size=(80, 24)) as pilot:
        app.announce = announced.append  # type: ignore[method-assign]
        screen, _ = await bob_joins_and_ann_starts(pilot, tmp_path)
        await revealed(pilot, screen)
        room, shown_at = screen.room, screen.revealed_at
        move = legal_move(room, room.scramble)
        await pilot.press(KEYS[move])
        assert screen.solve is not None and screen.solve.moves == [move]
        screen._tick()  # the clock's tick, due at the reveal too
        screen._reveal_due()  # the reveal's timer, late
        await pilot.pause()
        assert screen.revealed_at == shown_at and screen.solve.moves == [move]
        assert screen.query_one("#race-board", Board).state == speed_puzzle(3, 3).apply(room.scramble, move)
        assert announced.count("Go: the scramble is shown.") == 1


async def test_the_reveal_is_drawn_ahead_with_the_output_held_and_moves_wait_for_the_moment(tmp_path, monkeypatch):
    """Where the game's output can be held (a terminal's driver: here a stand-in, as Pilot's app is headless), the
    reveal is drawn DRAW_AHEAD_SECONDS before its moment with the output held until then: the frame drawn shows the
    race as at the reveal (the scramble, "Race!", the clock at 0), a key before the moment moves nothing, the clock
    runs from the reveal, and its first tick after the reveal is at the race's first second (none at the reveal,
    when every racer's screen is shown at once)."""
    held: list[float] = []

    def hold(app, seconds: float) -> bool:
        held.append(seconds)
        return True

    monkeypatch.setattr(race_screen, "hold_output", hold)
    app = make_app(tmp_path, store=store_of(tmp_path, "ann"))
    async with app.run_test(size=(80, 24)) as pilot:
        screen, _ = await bob_joins_and_ann_starts(pilot, tmp_path)
        room = screen.room
        ticks_after_reveal: list[float] = []
        tick = screen.clock.tick

        def ticked() -> None:
            if screen.revealed_round == room.round:
                ticks_after_reveal.append(time.time())
            tick()

        screen.clock.tick = ticked
        await revealed(pilot, screen)
        assert screen.drawn_for == room.reveal_at
        assert len(held) == 1 and 0 < held[0] <= race_screen.DRAW_AHEAD_SECONDS * 1.5
        assert screen.revealed_at == room.reveal_at  # the moment shown, not the moment drawn
        board = screen.query_one("#race-board", Board)
        assert board.state == room.scramble and not board.hidden and text(screen, "#race-message") == "Race!"
        assert f"ID {shown_id(room.scramble_id)}" in text(screen, "#race-title")
        shown_clock = str(screen.query_one("#race-clock").content)
        assert shown_clock.startswith("Time 0s ") or time.time() >= room.reveal_at + 1, shown_clock  # (a slow box)

        await wait_for(pilot, lambda: ticks_after_reveal, what="the clock's first tick after the reveal")
        assert ticks_after_reveal[0] >= room.reveal_at + 1, ticks_after_reveal[0] - room.reveal_at

        real_clock = screen.wall_clock
        screen.wall_clock = lambda: room.reveal_at - 0.1  # type: ignore[method-assign]  # as if before the moment
        assert screen.now() == room.reveal_at and screen.phase is RacePhase.RACING
        move = legal_move(room, room.scramble)
        await pilot.press(KEYS[move])
        assert screen.solve is not None and screen.solve.moves == [] and board.state == room.scramble

        screen.wall_clock = real_clock  # type: ignore[method-assign]
        await pilot.press(KEYS[move])
        assert screen.solve.moves == [move] and 0 <= screen.solve.times_ms[0] <= since_reveal_ms(room)


async def test_two_apps_race_in_one_room(tmp_path):
    """Two games on one database, each with its own race link: bob's app sees ann's moves in its mini."""
    ann_app = make_app(tmp_path, store=store_of(tmp_path, "ann"))
    bob_app = make_app(tmp_path, store=store_of(tmp_path, "bob"))
    async with ann_app.run_test(size=(80, 24)) as ann, bob_app.run_test(size=(60, 24)) as bob:
        ann_screen = await open_private_3x3(ann)
        await open_lobby(bob)
        await bob.press("j", *ann_screen.room.code.lower(), "enter")
        await wait_for(bob, lambda: isinstance(bob_app.screen, RaceScreen), what="bob in the room")
        bob_screen = bob_app.screen
        await wait_for(ann, lambda: len(ann_screen.room.racers) == 2, what="ann seeing bob")
        assert "the host starts it" in text(bob_screen, "#race-message")
        await ann.press("s")
        await revealed(ann, ann_screen)
        await revealed(bob, bob_screen)
        reveal_at = ann_screen.room.reveal_at
        assert reveal_at == bob_screen.room.reveal_at
        # neither saw the scramble before the reveal (how late each was is the bench's business, not a test's)
        assert ann_screen.revealed_at >= reveal_at and bob_screen.revealed_at >= reveal_at
        assert bob_screen.query_one("#race-board", Board).state == ann_screen.room.scramble
        room = ann_screen.room
        move = legal_move(room, room.scramble)
        await ann.press(KEYS[move])
        minis = bob_screen.query_one("#race-minis", RaceMinis)
        await wait_for(bob, lambda: any(m.title == "ann" and m.figures.startswith("1 ") for m in minis.minis),
                       what="ann's move in bob's mini")


async def test_leaving_during_the_race_is_a_dnf_after_a_confirm(tmp_path):
    app = make_app(tmp_path, store=store_of(tmp_path, "ann"))
    async with app.run_test(size=(80, 24)) as pilot:
        screen, bob = await bob_joins_and_ann_starts(pilot, tmp_path)
        await revealed(pilot, screen)
        room = screen.room
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, LeaveRaceScreen), what="the confirm")
        await pilot.press("n")  # race on
        assert app.screen is screen
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, LeaveRaceScreen), what="the confirm")
        await pilot.press("y")
        await wait_for(pilot, lambda: isinstance(app.screen, RaceLobbyScreen), what="back in the lobby")
        deadline = time.monotonic() + 30
        while not (bob.read_room(room.room).racer("user:ann").dnf) and time.monotonic() < deadline:
            await pilot.pause(0.05)
        assert bob.read_room(room.room).racer("user:ann").dnf


async def test_a_racer_whose_game_ended_comes_back_to_the_race(tmp_path):
    first = make_app(tmp_path, store=store_of(tmp_path, "ann"))
    async with first.run_test(size=(80, 24)) as pilot:
        screen, _bob = await bob_joins_and_ann_starts(pilot, tmp_path)
        await revealed(pilot, screen)
        room = screen.room
        state = room.scramble
        played = []
        for _ in range(2):
            move = next(d for d in "UDLR" if _legal(room.puzzle, state, d) and (not played or d != {
                "U": "D", "D": "U", "L": "R", "R": "L"}[played[-1]]))
            played.append(move)
            state = room.puzzle.apply(state, move)
            await pilot.press(KEYS[move])
        await wait_for(pilot, lambda: screen.me is not None and screen.me.moves == "".join(played),
                       what="ann's moves in the store")
    # the game is gone (a dropped connection): no leave, so ann is still racing; a new game of ann's is offered it
    again = make_app(tmp_path, store=store_of(tmp_path, "ann"))
    async with again.run_test(size=(80, 24)) as pilot:
        lobby = await open_lobby(pilot)
        await wait_for(pilot, lambda: lobby.query_one("#lobby-rejoin").display, what="the race offered")
        assert "still on" in text(lobby, "#lobby-rejoin")
        await pilot.press("r")
        await wait_for(pilot, lambda: isinstance(again.screen, RaceScreen), what="the race again")
        back = again.screen
        await revealed(pilot, back)
        assert back.room.room == room.room
        assert back.query_one("#race-board", Board).state == state  # the scramble after ann's two moves
        assert back.solve.elapsed_ms() >= back.solve.times_ms[-1]  # the clock ran on from the reveal
        for move in optimal_moves(room, state):
            await pilot.press(KEYS[move])
        await wait_for(pilot, lambda: back.me is not None and back.me.finished, what="ann's finish")
        assert back.me.moves.startswith("".join(played))


async def test_opponents_are_redrawn_at_a_bounded_rate_and_never_repaint_the_own_board(tmp_path):
    app = make_app(tmp_path, store=store_of(tmp_path, "ann"))
    async with app.run_test(size=(80, 24)) as pilot:
        screen, _bob = await bob_joins_and_ann_starts(pilot, tmp_path)
        await revealed(pilot, screen)
        room = screen.room
        board = screen.query_one("#race-board", Board)
        minis = screen.query_one("#race-minis", RaceMinis)
        screen.link.stop()  # only the test's snapshots from now on
        await pilot.pause(0.3)
        board_lines: list[int] = []
        render_line = board.render_line
        board.render_line = lambda y: board_lines.append(y) or render_line(y)  # type: ignore[method-assign]
        before = minis.repaints
        started = time.monotonic()
        # 60 snapshots of bob's growing board in a burst, as fast as the UI takes them
        me_state = room.scramble
        moves, state = "", room.scramble
        for k in range(60):
            move = next(d for d in "UDLR" if _legal(room.puzzle, state, d) and (not moves or d != {
                "U": "D", "D": "U", "L": "R", "R": "L"}[moves[-1]]))
            moves, state = moves + move, room.puzzle.apply(state, move)
            bob_now = Racer(BOB, "bob", 0.0, time.time(), moves, tuple(range(len(moves))))
            snapshot = Room(room.room, room.code, room.width, room.height, room.host, room.round, room.phase,
                            room.reveal_at, room.scramble, (screen.room.racer("user:ann"), bob_now), room.version + k + 1)
            screen.post_message(RoomChanged(snapshot))
            await pilot.pause(0.01)
        await wait_for(pilot, lambda: any(m.title == "bob" and m.figures.startswith("60 ") for m in minis.minis),
                       what="the last snapshot drawn")
        elapsed = time.monotonic() - started
        drawn = minis.repaints - before
        assert drawn <= elapsed * MINIS_PER_SECOND + 2, (drawn, elapsed)  # the bound (a clock redraw may add one)
        assert board_lines == []  # the own board was not repainted
        assert board.state == me_state


async def test_watching_and_replaying_a_race(tmp_path):
    app = make_app(tmp_path, store=store_of(tmp_path, "ann"))
    async with app.run_test(size=(80, 24)) as pilot:
        screen, bob = await bob_joins_and_ann_starts(pilot, tmp_path)
        await revealed(pilot, screen)
        room = screen.room
        # a stranger (carl, a third game on the same database) is not shown the private race at all
        carl = make_app(tmp_path, store=store_of(tmp_path, "carl"))
        async with carl.run_test(size=(80, 24)) as stranger:
            await open_lobby(stranger)
            await stranger.press("w")
            await wait_for(stranger, lambda: isinstance(carl.screen, RaceWatchScreen), what="the race list")
            await wait_for(stranger, lambda: "none right now" in text(carl.screen, "#race-watch-title"), what="no race")
            assert room.code not in text(carl.screen, "#race-watch-title") and not carl.screen.rooms
        # a racer of the room (bob, in another game on the same database) lists the race and watches it
        carl = make_app(tmp_path, store=store_of(tmp_path, "bob"))
        async with carl.run_test(size=(80, 24)) as watcher:
            await open_lobby(watcher)
            await watcher.press("w")
            await wait_for(watcher, lambda: isinstance(carl.screen, RaceWatchScreen), what="the race list")
            await wait_for(watcher, lambda: carl.screen.rooms, what="the race listed")
            await watcher.press("enter")
            await wait_for(watcher, lambda: isinstance(carl.screen, RaceSpectateScreen), what="watching")
            spectate = carl.screen
            move = legal_move(room, room.scramble)
            await pilot.press(KEYS[move])
            watched = spectate.query_one("#race-spectate-minis", RaceMinis)
            await wait_for(watcher, lambda: any(m.title == "ann" and m.figures.startswith("1 ") for m in watched.minis),
                           what="ann's move on the watcher's screen")
            assert {m.title for m in watched.minis} == {"ann", "bob"}
        for step in optimal_moves(room, room.puzzle.apply(room.scramble, move)):
            await pilot.press(KEYS[step])
        bob.leave(room.room, 0, BOB)
        await wait_for(pilot, lambda: screen.phase is RacePhase.DONE, what="the end")
        await pilot.press("v")
        await wait_for(pilot, lambda: isinstance(app.screen, RaceReplayScreen), what="the replay")
        replay = app.screen
        await pilot.press("plus", "plus", "plus")  # x8
        await wait_for(pilot, lambda: replay.done, what="the replay's end")
        shown = replay.query_one("#race-replay-minis", RaceMinis).minis
        assert [m.title for m in shown] == ["1. ann", "DNF bob"]
        assert shown[0].state == room.puzzle.goal
        finished_ms = screen.room.racer("user:ann").finished_ms
        assert replay.shown_ms == finished_ms
        # back in the lobby: ann's race stats, and the race replayed from there too
        await pilot.press("escape", "escape")
        lobby = app.screen
        assert isinstance(lobby, RaceLobbyScreen)
        await wait_for(pilot, lambda: "Your races: 1 · wins 1" in text(lobby, "#lobby-stats"), what="the stats")
        await pilot.press("left", "left", "left")  # the 3x3: its best time
        assert f"best 3x3 {seconds_text(finished_ms)}" in text(lobby, "#lobby-stats")
        await pilot.press("v")
        await wait_for(pilot, lambda: isinstance(app.screen, RaceReplayScreen), what="the replay from the lobby")
        assert app.screen.room.room == room.room


async def test_watch_lists_the_races_too(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("w")
        await wait_for(pilot, lambda: isinstance(app.screen, WatchScreen), what="Watch")
        await pilot.press("x")
        await wait_for(pilot, lambda: isinstance(app.screen, RaceWatchScreen), what="the races on now")
        await wait_for(pilot, lambda: "none right now" in text(app.screen, "#race-watch-title"), what="the list read")


async def test_a_race_offered_before_the_player_left_its_lobby_is_not_opened(tmp_path):
    """The lobby offers a race read a moment before the player left it (the leave is written on the link's thread):
    ``r`` asks the store again, says the race is gone, and opens nothing (before, it opened the room with the player
    no racer of it: a lobby where each side saw the other differently)."""
    app = make_app(tmp_path, store=store_of(tmp_path, "ann"))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_private_3x3(pilot)
        room = screen.room
        lobby = await wait_lobby_after(pilot, "escape")  # ann leaves her room's lobby: she is no racer of it now
        await wait_for(pilot, lambda: store_of(tmp_path, "ann").my_race("user:ann") is None, what="the leave written")
        lobby.mine = room  # the offer as it was read before the leave
        lobby.refresh_bindings()
        await pilot.press("r")
        await wait_for(pilot, lambda: "over, or you left it" in text(lobby, "#lobby-message"), what="the refusal")
        assert app.screen is lobby and lobby.mine is None


async def wait_lobby_after(pilot, key: str) -> RaceLobbyScreen:
    await pilot.press(key)
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, RaceLobbyScreen), what="the lobby again")
    return pilot.app.screen


async def test_a_racer_who_quits_koma_is_dnf_at_once(tmp_path):
    """q during the race quits Koma at once, and the racer is DNF in the store (a game that drops instead keeps its
    place for the reconnect window: test_a_racer_whose_game_ended_comes_back_to_the_race)."""
    app = make_app(tmp_path, store=store_of(tmp_path, "ann"))
    async with app.run_test(size=(80, 24)) as pilot:
        screen, bob = await bob_joins_and_ann_starts(pilot, tmp_path)
        await revealed(pilot, screen)
        room = screen.room
        began = time.monotonic()
        await pilot.press("q")
        await wait_for(pilot, lambda: not app.is_running, what="Koma to quit")
    assert time.monotonic() - began < 5.0  # at once: the leave is given 0.3 s (a loaded box: room to spare)
    ann = bob.read_round(room.room, room.round).racer("user:ann")
    assert ann is not None and ann.dnf


async def test_the_leave_dialog_is_answered_by_clicking_its_buttons(tmp_path):
    """Issue 53: a phone's tap is a click; the dialog's answers are buttons (three rows: a thumb's target)."""
    app = make_app(tmp_path, store=store_of(tmp_path, "ann"))
    async with app.run_test(size=(48, 40)) as pilot:
        screen, bob = await bob_joins_and_ann_starts(pilot, tmp_path)
        await revealed(pilot, screen)
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, LeaveRaceScreen), what="the confirm")
        no, yes = app.screen.query_one("#race-leave-no"), app.screen.query_one("#race-leave-yes")
        assert no.region.height >= 3 and yes.region.height >= 3
        assert await pilot.click("#race-leave-no")
        await wait_for(pilot, lambda: app.screen is screen, what="racing on")
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, LeaveRaceScreen), what="the confirm")
        assert await pilot.click("#race-leave-yes")
        await wait_for(pilot, lambda: isinstance(app.screen, RaceLobbyScreen), what="back in the lobby")
        await wait_for(pilot, lambda: bob.read_room(screen.room.room).racer("user:ann").dnf, what="ann's DNF")


async def test_the_lobby_while_a_code_is_typed_and_its_lines_as_links(tmp_path):
    """The code field takes "+" (no size key on the bar then), a click on the "join" line opens it, and the page's
    touch bar is told a text field has the focus."""
    app = make_app(tmp_path, store=store_of(tmp_path, "ann"))
    app.in_browser = True
    async with app.run_test(size=(48, 30)) as pilot:
        lobby = await open_lobby(pilot)
        keys = {b.binding.action for b in lobby.active_bindings.values()}
        assert "size(1)" in keys and app.touch_bar.state().typing is False
        actions = lobby.query_one("#lobby-actions")
        row = next(i for i, line in enumerate(text(lobby, "#lobby-actions").split("\n")) if "join a room" in line)
        assert await pilot.click(actions, offset=(8, row))
        await wait_for(pilot, lambda: lobby.typing_code, what="the code field")
        await wait_for(pilot, lambda: app.touch_bar.sent is not None and app.touch_bar.sent.typing, what="the keyboard")
        assert {b.binding.id for b in lobby.active_bindings.values() if str(b.binding.id).startswith("race_lobby.")} \
            == {"race_lobby.back"}
        assert "enter" in app.touch_bar.state().buttons and "solve" not in app.touch_bar.state().buttons
        await pilot.press("plus", "a")
        assert lobby.query_one("#lobby-code").value == "+a" and lobby.size_wh == (4, 4)
        await pilot.press("escape")
        assert not lobby.typing_code and "size(1)" in {b.binding.action for b in lobby.active_bindings.values()}
        await wait_for(pilot, lambda: app.touch_bar.sent is not None and not app.touch_bar.sent.typing,
                       what="the keyboard down")


async def test_the_lobby_starts_on_the_last_races_size(tmp_path):
    ann = store_of(tmp_path, "ann")
    ann.quick_join("user:ann", "ann", 4, 3)
    app = make_app(tmp_path, store=ann)
    async with app.run_test(size=(80, 24)) as pilot:
        lobby = await open_lobby(pilot)
        await wait_for(pilot, lambda: lobby.size_wh == (4, 3), what="the last race's size")
        assert "quick race of 4x3" in text(lobby, "#lobby-actions")


async def test_a_lone_quick_racer_is_told_where_others_wait(tmp_path):
    bob = store_of(tmp_path, "bob")
    bob.quick_join(BOB, "bob", 4, 3)
    app = make_app(tmp_path, store=store_of(tmp_path, "ann"))
    async with app.run_test(size=(80, 24)) as pilot:
        lobby = await open_lobby(pilot)
        assert lobby.size_wh == (4, 4)
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, RaceScreen), what="the quick race")
        screen = app.screen
        await wait_for(pilot, lambda: "Others wait at 4x3" in text(screen, "#race-message"), what="the hint")


async def test_a_host_who_leaves_the_lobby_is_offered_no_race_and_the_other_may_start(tmp_path):
    app = make_app(tmp_path, store=store_of(tmp_path, "ann"))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_private_3x3(pilot)
        room = screen.room
        bob = store_of(tmp_path, "bob")
        bob.join_code(BOB, "bob", room.code)
        await wait_for(pilot, lambda: len(screen.room.racers) == 2, what="bob in")
        lobby = await wait_lobby_after(pilot, "escape")
        await wait_for(pilot, lambda: not lobby.workers, what="the lobby's reads after the leave")
        await pilot.pause(0.3)
        assert lobby.mine is None and not lobby.query_one("#lobby-rejoin").display
        after = bob.read_room(room.room)
        assert [r.player for r in after.racers] == [BOB] and after.may_start(BOB)


def test_the_finish_order_is_cut_between_entries_only():
    from tui.screens.race_views import order_text

    racers = tuple(Racer(f"user:{name}", name, joined=float(i), seen=0.0, finished_ms=1000 * (i + 1))
                   for i, name in enumerate(["alice", "bob", "caroline"]))
    room = Room("r", None, 3, 3, "user:alice", 0, RacePhase.DONE, time.time() - 10, None, racers)
    assert order_text(room, 80) == "1 alice 1.000 · 2 bob 2.000 · 3 caroline 3.000"
    assert order_text(room, 32) == "1 alice 1.000 · 2 bob 2.000 · +1"
    assert order_text(room, 31) == "1 alice 1.000 · +2"
    assert order_text(room, 20) == "1 alice 1.000 · +2"
