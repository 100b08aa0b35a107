"""Pilot tests of the play screen: moves, undo/redo, solve and playback, cancel, hints, wins, resume."""

from __future__ import annotations

import time

from tui_helpers import make_app, read_store, record_calls, wait_for, wait_warm

from solver import solving as search
from solver.engines.stop import check_stop
from solver.sliding.model import SlidingPuzzle
from tui.game.formatting import figures_text
from tui.game.solver_jobs import SolverJob
from tui.play.screen import PlayScreen
from tui.storage.store import Store
from tui.widgets.board import Board

ONE_AWAY = "1 2 3/4 5 6/7 _ 8"  # tile 8 moves left to solve it
TWO_AWAY = "1 2 3/4 5 6/_ 7 8"
TWELVE = "1 2 3/4 5 6/7 8 _"


class SlowSliding(SlidingPuzzle):
    """A 3x3 board whose solver only stops when told to: for cancellation tests."""

    def solve_by_table(self, state, *, stop=None, progress=None):
        while True:
            check_stop(stop)
            if progress:
                progress({"bound": 7, "nodes": 1234567})
            time.sleep(0.005)


def solver_workers(app):
    return [w for w in app.workers if w.group == "solver" and not w.is_finished]


async def test_arrow_moves_a_tile_and_undo_redo(tmp_path):
    app = make_app(tmp_path, "8", TWO_AWAY)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        assert isinstance(screen, PlayScreen)
        await pilot.press("left")  # tile 7 slides left into the blank
        assert screen.state == screen.puzzle.parse("1 2 3/4 5 6/7 _ 8")
        assert screen.position == 1 and screen.history.moves == ["L"]
        await pilot.press("up")  # nothing below the blank: illegal, ignored
        assert screen.position == 1
        await pilot.press("u")
        assert screen.position == 0 and screen.state == screen.puzzle.parse(TWO_AWAY)
        await pilot.press("U")
        assert screen.position == 1
        await pilot.press("h")  # vim keys too: tile 8 left, solved
        assert screen.puzzle.is_goal(screen.state)


async def test_win_message_shows_moves_against_optimal(tmp_path):
    app = make_app(tmp_path, "8", TWO_AWAY)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_warm(pilot)
        screen = app.screen
        await pilot.press("down", "up")  # a detour: 4 moves where 2 would do
        await pilot.press("left", "left")
        assert screen.won
        assert "Solved in 4 moves; optimal 2" in screen.message
        stats, saved = await read_store(pilot, lambda store: (store.stats("8"), store.load_game("8")))
        assert (stats.solved, stats.best_moves, stats.best_optimal) == (1, 4, 2)
        assert saved is None  # a finished game is not resumed


async def test_auto_solve_plays_back_to_the_goal_and_can_be_undone(tmp_path):
    app = make_app(tmp_path, "8", "8 6 7/2 5 4/3 _ 1")  # one of the 31-move boards
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_warm(pilot)
        screen = app.screen
        assert screen.distances[screen.state] == 31
        await pilot.press("s")
        await wait_for(pilot, lambda: screen.playback.active, what="the solution")
        await pilot.press("plus", "plus", "plus")
        await wait_for(pilot, lambda: screen.won, what="the playback")
        assert screen.position == 31 and set(screen.history.origins) == {"k"}
        assert "Solved by Koma" in screen.message
        stats = await read_store(pilot, lambda store: store.stats("8"))
        assert stats.by_koma == 1 and stats.solved == 0
        await pilot.press("u")
        assert not screen.won and screen.position == 30


async def test_playback_pauses_steps_and_a_move_takes_over(tmp_path):
    app = make_app(tmp_path, "8", "8 6 7/2 5 4/3 _ 1")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_warm(pilot)
        screen = app.screen
        await pilot.press("s")
        await wait_for(pilot, lambda: screen.playback.active, what="the solution")
        await pilot.press("space")
        assert screen.playback.paused
        played = screen.position
        await pilot.press("right_square_bracket")
        assert screen.position == played + 1
        await pilot.press("left_square_bracket")
        assert screen.position == played
        legal = screen.puzzle.moves(screen.state)[0]
        key = {"U": "up", "D": "down", "L": "left", "R": "right"}[legal]
        await pilot.press(key)
        assert not screen.playback.active and screen.position == played + 1
        assert screen.history.origins[-1] == "p"


async def test_escape_cancels_the_solver_at_once(tmp_path):
    app = make_app(tmp_path)
    app.start_puzzle, app.start_state = SlowSliding(3, 3), (1, 2, 3, 4, 5, 6, 0, 7, 8)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        await wait_for(pilot, screen.warm.is_set, what="the warm-up")
        await pilot.press("s")
        await wait_for(pilot, lambda: screen.job is not None and screen.job.progress, what="progress")
        assert "bound 7" in figures_text(screen.job.progress) and solver_workers(app)
        await pilot.press("escape")
        assert screen.job is None and screen.message == "Cancelled."
        await wait_for(pilot, lambda: not solver_workers(app), timeout=2, what="the worker to stop")
        assert not app.stop_flags or all(flag[0] for flag in app.stop_flags.values())
        assert isinstance(app.screen, PlayScreen)  # the first escape only cancels


async def test_leaving_the_screen_cancels_the_solver(tmp_path):
    app = make_app(tmp_path)
    app.start_puzzle, app.start_state = SlowSliding(3, 3), (1, 2, 3, 4, 5, 6, 0, 7, 8)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        await wait_for(pilot, screen.warm.is_set, what="the warm-up")
        await pilot.press("s")
        await wait_for(pilot, lambda: bool(solver_workers(app)), what="the solver")
        flag = screen.job.stop
        app.pop_screen()
        await pilot.pause()
        assert flag[0] == 1
        await wait_for(pilot, lambda: not solver_workers(app), timeout=2, what="the worker to stop")


async def test_quit_mid_solve_is_immediate(tmp_path):
    app = make_app(tmp_path)
    app.start_puzzle, app.start_state = SlowSliding(3, 3), (1, 2, 3, 4, 5, 6, 0, 7, 8)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        await wait_for(pilot, screen.warm.is_set, what="the warm-up")
        await pilot.press("s")
        await wait_for(pilot, lambda: bool(solver_workers(app)), what="the solver")
        flag = screen.job.stop
        began = time.monotonic()
        await pilot.press("q")
    assert flag[0] == 1 and time.monotonic() - began < 2


async def test_hint_highlights_the_next_optimal_move(tmp_path):
    app = make_app(tmp_path, "8", TWO_AWAY)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_warm(pilot)
        screen = app.screen
        await pilot.press("t")
        await wait_for(pilot, lambda: screen.message.startswith("Hint"), what="the hint")
        board = screen.query_one(Board)
        assert [spec.code for spec in board.hinted()] == [7]  # tile 7 moves left first
        assert "left" in screen.message and screen.hints == 1
        await pilot.press("left", "left")  # the hinted move, then one of the player's own
        assert screen.history.origins == ["h", "p"] and not board.hinted()


async def test_cursor_enter_and_click_move_tiles(tmp_path):
    app = make_app(tmp_path, "8", TWO_AWAY)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        board = screen.query_one(Board)
        await pilot.press("shift+down", "shift+down", "shift+right")  # cursor onto tile 7
        assert board.cursor == 7
        await pilot.press("enter")
        assert screen.history.moves == ["L"]
        piece = next(spec for spec in board.specs if spec.code == 8)
        await pilot.click(board, offset=board.cell_offset(piece.cell) + (1, 1))
        assert screen.won


async def test_resume_after_restart(tmp_path):
    path = tmp_path / "koma.db"
    app = make_app(tmp_path, "8", "8 6 7/2 5 4/3 _ 1", store=Store(path))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("left", "down")
        expected = app.screen.state
    again = make_app(tmp_path, store=Store(path))
    async with again.run_test(size=(80, 24)) as pilot:
        await pilot.press("1")  # the 8-puzzle card
        screen = again.screen
        assert isinstance(screen, PlayScreen)
        assert screen.state == expected and screen.position == 2
        assert screen.start == screen.puzzle.parse("8 6 7/2 5 4/3 _ 1")
        await pilot.press("u", "u")
        assert screen.state == screen.start


async def saved_then_slow(tmp_path):
    """An 8-puzzle game saved two moves in; then an app over that database whose reads of saved games wait for the
    returned event (a slow database).  Returns the saved position, the app and the event."""
    import threading

    from tui_helpers import store_of

    path = tmp_path / "koma.db"
    first = make_app(tmp_path, "8", "8 6 7/2 5 4/3 _ 1", store=Store(path))
    async with first.run_test(size=(80, 24)) as pilot:
        await pilot.press("left", "down")
        saved = first.screen.state
    again = make_app(tmp_path, store=Store(path))
    store = store_of(again)
    load_stamped_game = store.load_stamped_game  # what the play screen's read of its saved game asks the store
    release = threading.Event()
    store.load_stamped_game = lambda key: (release.wait(30), load_stamped_game(key))[1]
    return saved, again, release


async def test_keys_typed_while_the_saved_game_is_read_are_played_on_it(tmp_path):
    """The saved game is read off the UI thread: a key typed before it arrives is played on the saved game, and the
    fresh board shown meanwhile never replaces it."""
    saved, again, release = await saved_then_slow(tmp_path)
    async with again.run_test(size=(80, 24)) as pilot:
        await pilot.press("1")  # the 8-puzzle card: its saved game is being read
        screen = again.screen
        assert isinstance(screen, PlayScreen) and screen.held_game.awaiting_saved_game
        await pilot.press("up")  # typed before the saved game arrives
        assert screen.position == 0 and screen.held_game.held_moves == ["U"]
        release.set()
        await wait_for(pilot, lambda: screen.position == 3, what="the saved game and the held move")
        assert screen.history.moves[:3] == ["L", "D", "U"] and screen.state == screen.puzzle.apply(saved, "U")
        assert screen.start == screen.puzzle.parse("8 6 7/2 5 4/3 _ 1")


async def test_no_board_is_drawn_before_the_saved_game_arrives(tmp_path):
    """A reconnecting player never sees a fresh board that the saved game then replaces: while the read is under
    way the board and its figures are hidden (the phase is LOADING); the first board shown is the saved one."""
    from tui.game.phase import Phase

    saved, again, release = await saved_then_slow(tmp_path)
    async with again.run_test(size=(80, 24)) as pilot:
        await pilot.press("1")
        screen = again.screen
        await pilot.pause()
        board = screen.query_one(Board)
        assert isinstance(screen, PlayScreen) and screen.phase is Phase.LOADING
        assert not board.visible and not screen.query_one("#counters").visible
        assert "Loading your game" in str(screen.query_one("#solver").render())
        shown: list[tuple] = []
        show = board.show
        board.show = lambda state, animate=True: (shown.append(tuple(state)), show(state, animate))[1]
        release.set()
        await wait_for(pilot, lambda: screen.phase is not Phase.LOADING, what="the saved game")
        assert board.visible and board.state == saved and shown[0] == saved
        assert screen.phase is Phase.READY and screen.position == 2  # a resumed game's clock waits for a move
        assert not screen.clock.running and screen.clock_timer is None
        await pilot.press("up")
        assert screen.phase is Phase.PLAYING and screen.clock.running and screen.clock_timer is not None


def read_before_mounted(monkeypatch) -> None:
    """Make the race of the saved game's read against the screen's build come out one way: the screen waits (at
    most 30 s) for the reader thread to have read the game before it takes it, as it mostly finds it anyway."""
    from tui.play.held_game import HeldGame

    take = getattr(HeldGame, "take_early_saved_game", None)
    if take is None:  # a screen that never takes the game early (to check that these tests fail on one)
        return

    def after_the_read(screen) -> bool:
        deadline = time.monotonic() + 30
        while screen.early_answer is None and time.monotonic() < deadline:
            time.sleep(0.001)
        return take(screen)

    monkeypatch.setattr(HeldGame, "take_early_saved_game", after_the_read)


def first_layouts(monkeypatch) -> list[tuple]:
    """What each play screen showed when it was laid out: (phase, board visible, board state), one per layout pass."""
    from textual.screen import Screen

    def seen(screen, *args, **kwargs):
        if not isinstance(screen, PlayScreen):
            return None
        board = screen.query_one(Board)
        return screen.phase, board.visible, board.state

    return record_calls(monkeypatch, Screen, "_refresh_layout", seen)


async def test_a_saved_game_read_while_the_screen_is_built_is_on_its_first_frame(tmp_path, monkeypatch):
    """The saved game's read usually ends while the play screen is still being built: the screen then takes it at
    once, and its first layout (so its first frame) already shows the saved board, with no LOADING frame before."""
    from tui.game.phase import Phase

    path = tmp_path / "koma.db"
    first = make_app(tmp_path, "8", "8 6 7/2 5 4/3 _ 1", store=Store(path))
    async with first.run_test(size=(80, 24)) as pilot:
        await pilot.press("left", "down")
        saved = first.screen.state
    read_before_mounted(monkeypatch)
    again = make_app(tmp_path, store=Store(path))
    async with again.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        layouts = first_layouts(monkeypatch)
        await pilot.press("1")
        screen = again.screen
        await wait_for(pilot, lambda: any(layouts), what="the play screen's first layout")
        assert isinstance(screen, PlayScreen)
        assert next(shown for shown in layouts if shown) == (Phase.READY, True, saved)
        assert screen.position == 2 and screen.state == saved and "Welcome back" in screen.message
        await pilot.pause()
        assert "Welcome back" in screen.status.message  # and the panel shows it


async def test_opening_a_puzzle_restyles_and_lays_out_its_screen_a_bounded_number_of_times(tmp_path, monkeypatch):
    """Opening the 15-puzzle from the home screen (its saved game read in the meantime): the play screen is restyled
    whole once (its breakpoint classes are set before, not by a second restyle), laid out at most three times (no
    pass at the size it was just laid out at, none for a LOADING frame).  (How often it is drawn whole depends on
    when the warm-up and the distance come in: on a loaded box, one more; not counted here.)"""
    from textual.app import App

    read_before_mounted(monkeypatch)
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        layouts = first_layouts(monkeypatch)
        restyled = record_calls(monkeypatch, App, "update_styles", lambda app, node, *rest, **options: node)
        await pilot.press("2")
        screen = app.screen
        await wait_for(pilot, lambda: isinstance(screen, PlayScreen) and any(layouts), what="the play screen")
        await pilot.pause(0.5)
        await wait_for(pilot, lambda: screen.warm.is_set(), what="the warm-up")
        await pilot.pause(0.3)
        assert screen.query_one("#counters").visible and screen.query_one(Board).visible
        assert sum(node is screen for node in restyled) == 1
        assert 1 <= sum(1 for shown in layouts if shown) <= 3


async def test_a_board_draws_its_tiles_once_at_their_size(tmp_path, monkeypatch):
    """The layout pass that sizes the board sizes and places its tiles too: opening a puzzle draws each tile once,
    at its tile size (not first at Textual's default size, then again once the board's Resize has placed it)."""
    from tui.widgets.looks import Look

    drawn = record_calls(monkeypatch, Look, "draw_piece",
                         lambda look, board, spec, width, height, **marks: (spec, (width, height)))
    app = make_app(tmp_path, "15")
    async with app.run_test(size=(80, 24)) as pilot:
        board = app.screen.query_one(Board)
        await wait_for(pilot, lambda: board.tile_width and len({spec for spec, _ in drawn}) == 16, what="the tiles")
        await pilot.pause(0.3)
        tile = (board.tile_width, board.tile_height)
        assert tile[0] >= 5 and {size for _, size in drawn} == {tile}
        assert len(drawn) == 16  # each piece (the blank too) once


async def test_corrupt_database_is_moved_aside_and_play_goes_on(tmp_path):
    path = tmp_path / "koma.db"
    path.write_bytes(b"\x00garbage" * 512)
    app = make_app(tmp_path, "8", TWO_AWAY, store=Store(path))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        notes = [n.message for n in app._notifications]
        assert any("moved it to koma.db.corrupt-" in n for n in notes)
        await pilot.press("left")
        assert app.screen.position == 1
    assert Store(path).load_game("8").moves == ["L"]


async def test_new_game_dialog_validates_typed_boards(tmp_path):
    app = make_app(tmp_path, "8", TWO_AWAY)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_warm(pilot)
        screen = app.screen
        await pilot.press("n")
        dialog = app.screen
        await pilot.press("down", "down", "enter")  # "This board"
        await pilot.press(*"1 2 3/4 5")
        verdict = str(dialog.query_one("#verdict").render())
        assert "expected 3 rows" in verdict
        await pilot.press("backspace", "backspace", "backspace")
        await pilot.press(*"4 5 6/7 _ 8", "enter")
        await pilot.pause()
        assert app.screen is screen
        assert screen.state == screen.puzzle.parse(ONE_AWAY) and screen.position == 0


async def test_new_game_at_an_exact_distance(tmp_path):
    app = make_app(tmp_path, "8", TWO_AWAY)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_warm(pilot)
        screen = app.screen
        await pilot.press("n", "down", "enter", *"20", "enter")
        await wait_for(pilot, lambda: screen.distances.get(screen.state) == 20, what="the new board")


async def test_proof_screen_shows_the_fields(tmp_path):
    app = make_app(tmp_path, "15", "1 2 3 4/5 6 7 8/9 10 11 12/13 15 14 _")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        assert "NOT solvable" in str(screen.query_one("#parity").render())
        await pilot.press("p")
        text = str(app.screen.query_one("#proof-text").render())
        assert "Verdict: NOT solvable" in text and "Inversions" in text and "Blank row" in text
        await pilot.press("escape")
        assert app.screen is screen


async def test_fifteen_solve_is_honest_about_its_method(tmp_path):
    app = make_app(tmp_path, "15", "5 1 2 4/9 6 3 8/13 10 7 11/14 _ 15 12")  # 10 moves: playback still runs
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        await wait_for(pilot, screen.warm.is_set, what="the warm-up")
        await pilot.press("s")
        await wait_for(pilot, lambda: screen.job is None and (screen.message or screen.won), what="the answer")
        if not search.methods(screen.puzzle):
            assert "no optimal solver" in screen.message
        else:  # a solver is wired in: its answer plays back, labelled honestly
            assert screen.message.startswith("Koma found") and screen.playback.active
            await pilot.press("escape")
            assert not screen.playback.active


async def test_command_palette_lists_every_play_action(tmp_path):
    from tui.app import KomaCommands

    app = make_app(tmp_path, "8", TWO_AWAY)
    async with app.run_test(size=(80, 24)):
        provider = KomaCommands(app.screen)
        names = [hit.display for hit in [h async for h in provider.discover()]]
        for wanted in ("Solve", "Hint", "Undo", "Redo", "New game", "Parity proof", "Back", "Quit", "Help",
                       "Move left", "Restart"):
            assert any(str(n).startswith(wanted) for n in names), (wanted, names)


async def test_help_lists_rules_and_keys(tmp_path):
    app = make_app(tmp_path, "goat")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("question_mark")
        text = str(app.screen.query_one("#help-text").render())
        assert "Goat" in text and "Ura-omote" in text and "solve" in text
        await pilot.press("escape")
        assert isinstance(app.screen, PlayScreen)


async def test_idle_and_hidden_play_screens_run_no_timers(tmp_path):
    app = make_app(tmp_path, "8", TWO_AWAY)
    app.animate_spinner = True  # a spinner that would spin if anything were under way
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_warm(pilot)
        screen = app.screen
        assert screen.clock_timer is None and screen.status.spin_timer is None  # nothing to tick or spin yet
        await pilot.press("left")
        assert screen.clock_timer is not None  # the clock runs once the game has begun
        await pilot.press("p")  # the parity proof covers the board
        await wait_for(pilot, lambda: app.screen is not screen, what="the proof")
        assert screen.clock_timer is None and screen.status.held
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen, what="back to the board")
        assert screen.clock_timer is not None and not screen.status.held


async def test_the_fifteen_puzzles_distance_waits_for_the_player_to_pause(tmp_path, monkeypatch):
    """No search per key: while the player types, the distance line says "…"; one search once they pause."""
    from tui.play import solving as play_solver

    app = make_app(tmp_path, "15", "1 2 3 4/5 6 7 8/9 10 11 12/13 14 15 _")  # solved: every move leaves it
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_warm(pilot)
        screen = app.screen
        searched: list[tuple] = []
        measure_all = play_solver.PlaySolver._measure_all

        def spy(self, job, states):
            searched.extend(states)
            return measure_all(self, job, states)

        monkeypatch.setattr(play_solver.PlaySolver, "_measure_all", spy)
        monkeypatch.setattr(play_solver, "SETTLE_SECONDS", 600.0)  # the player never pauses, however slow the box
        await pilot.press("down", "right", "down", "right")  # four tiles in, no move undone
        assert screen.position == 4
        distance = screen.status.query_one("#distance")
        await wait_for(pilot, lambda: "… moves from solved" in str(distance.render()), what="the waiting line")
        await pilot.pause(0.3)
        assert searched == []  # nothing searched while the player types
        monkeypatch.setattr(play_solver, "SETTLE_SECONDS", 0.0)  # the player pauses: the waiting timer finds it so
        screen.solver.settle_timer.stop()
        screen.solver._settled()
        await wait_for(pilot, lambda: screen.distances.get(screen.state) == 4, what="the distance after the pause")
        assert searched == [screen.state]  # one search, for the board the player stopped at
        await wait_for(pilot, lambda: "4 moves from solved" in str(distance.render()), what="the distance line")


async def test_the_solvers_warm_up_in_the_background_from_the_home_screen(tmp_path):
    app = make_app(tmp_path, prewarm=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: len(app.kernel_warmup.warmed) == 4, 300,
                       f"the background warm-up ({app.kernel_warmup.warmed}, {app.kernel_warmup.warming})")
        assert app.kernel_warmup.warmed == ["15", "8", "goat", "ura-3x3"]  # the 15-puzzle, the longest to compile, first


async def test_opening_another_puzzle_stops_the_background_warm_up(tmp_path):
    app = make_app(tmp_path, prewarm=False)
    async with app.run_test(size=(80, 24)) as pilot:
        fifteen, eight = SolverJob("prewarm"), SolverJob("prewarm")
        app.kernel_warmup.warming = ("15", fifteen)
        await pilot.press("2")  # the 15-puzzle: the warm-up on it goes on
        await wait_for(pilot, lambda: isinstance(app.screen, PlayScreen), what="the 15-puzzle")
        assert not fifteen.cancelled
        app.kernel_warmup.warming = ("8", eight)
        await pilot.press("escape", "2")  # the 15-puzzle again, while the warm-up is on the 8-puzzle: it gives way
        await wait_for(pilot, lambda: eight.cancelled, what="the warm-up to give way")


async def test_a_game_told_a_newer_save_is_stored_never_replaces_it(tmp_path):
    """The store refused a save of this game (GameBehind: another session's is newer): the player is told, and the
    game's writes are guarded from then on, so the stored game stays until the puzzle is opened again."""
    from tui.game.records import SavedGame
    from tui.game.session import GUARDED
    from tui.storage.service import GameBehind

    path = tmp_path / "koma.db"
    app = make_app(tmp_path, "8", "8 6 7/2 5 4/3 _ 1", store=Store(path))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("left")
        screen = app.screen
        assert isinstance(screen, PlayScreen) and screen.session.guard is not GUARDED
        app.storage.post(GameBehind("8"))  # as the storage service posts its news
        await pilot.pause()
        assert screen.session.guard is GUARDED and "A newer save of this game is stored" in screen.message
        newer = SavedGame("8 6 7/2 5 4/3 _ 1", ["L", "D", "U"], "ppp", 3, 1.0, 0, 30)
        assert Store(path).save_game("8", newer)
        await pilot.press("down")
        assert app.storage.settle(10)
        assert Store(path).load_game("8") == newer
