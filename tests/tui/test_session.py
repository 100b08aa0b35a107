"""The game as a model (tui/game/session.py), with no app: moves, undo/redo/restart, the clock, hints, the outcome,
the two identities, the snapshot saved at SIGTERM and the guard of a session whose saved game could not be read.

The session saves through a :class:`Saver`; here a recording one stands in for the storage service, and the clock
is a hand-moved one (the session takes ``now``).  Every board asserted is also reached by replaying the moves on the
puzzle itself.
"""

from __future__ import annotations

from collections import deque
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from solver import ids
from solver.registry import get_puzzle
from tui.game.history import HINT, KOMA, PLAYER
from tui.game.records import SavedGame, Stats
from tui.game.session import GUARDED, GameSession, Outcome, Push
from tui.game.writes import FinishGame, GameState, Guard, Op, PlayMove, SaveGame, Travel
from tui.storage.service import Finished, apply_op
from tui.storage.store import Store
from tui.widgets.game_texts import outcome_message, recorded_text

EIGHT = get_puzzle("8")
TWO_TO_GO = EIGHT.parse("1 2 3/4 5 6/_ 7 8")  # L, L reaches the goal
GOAL = EIGHT.parse("1 2 3/4 5 6/7 8 _")
NEAR = EIGHT.parse("1 2 3/4 _ 5/6 7 8")  # an ordinary board, far from the goal


class Recorder:
    """A saver that keeps every call (the storage service's place); it accepts a change only after a whole save, as
    the storage service does.  ``saves`` holds the game as it stood after each save or change (folded, as the
    store gets it), with its guard; ``ops`` every write taken; ``writes`` the others (finishes)."""

    def __init__(self) -> None:
        self.saves: list[tuple[str, SavedGame, str]] = []
        self.writes: list[tuple[FinishGame, Guard]] = []
        self.ops: list = []
        self.state: GameState | None = None

    def write(self, write, guard: Guard = Guard.NONE) -> bool:
        if isinstance(write, PlayMove | Travel) and self.state is None:
            return False
        self.ops.append(write)
        if isinstance(write, SaveGame | PlayMove | Travel):
            self.state = GameState.after(self.state, write)
            self.saves.append((write.key, self.state.snapshot(), guard.value))
        else:
            self.writes.append((write, guard))
        return True

    @property
    def last(self) -> SavedGame:
        return self.saves[-1][1]


class Clock:
    """Time that moves only when the test says so."""

    def __init__(self, t: float = 1000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


def session_at(start: tuple = NEAR, *, clock: Clock | None = None, saver: Recorder | None = None, **kwargs) -> GameSession:
    return GameSession(EIGHT, saver or Recorder(), clock or Clock(), start=start, **kwargs)


def replayed(start: tuple, moves) -> tuple:
    return EIGHT.replay(start, list(moves))[-1]


def optimal_length(puzzle, start: tuple, limit: int = 12) -> int:
    """Breadth-first search on the puzzle's own moves (small distances only)."""
    seen, frontier = {start}, deque([(start, 0)])
    while frontier:
        state, depth = frontier.popleft()
        if puzzle.is_goal(state):
            return depth
        if depth < limit:
            for _, after in puzzle.neighbours(state):
                if after not in seen:
                    seen.add(after)
                    frontier.append((after, depth + 1))
    raise AssertionError(f"no solution within {limit} moves")


# --- moves ------------------------------------------------------------------------------------------
def test_a_legal_move_is_played_and_saved_and_an_illegal_one_changes_nothing():
    saver = Recorder()
    session = session_at(saver=saver)
    assert sorted(EIGHT.moves(NEAR)) == ["D", "L", "R", "U"]  # the blank is in the middle
    assert session.push("L") is Push.PLAYED
    assert session.state == EIGHT.apply(NEAR, "L") == replayed(NEAR, ["L"])
    assert session.history.moves == ["L"] and session.position == 1
    assert [(key, game.moves, game.position, guard) for key, game, guard in saver.saves] == [("8", ["L"], 1, "")]
    blank_on_the_right = session.state
    assert "L" not in EIGHT.moves(blank_on_the_right)  # no tile right of the blank
    assert session.push("L") is Push.ILLEGAL
    assert session.push("X") is Push.ILLEGAL
    assert session.state == blank_on_the_right and session.position == 1 and len(saver.saves) == 1


def test_the_winning_move_wins_and_a_won_game_takes_no_more_player_moves():
    saver = Recorder()
    session = session_at(TWO_TO_GO, saver=saver)
    assert session.push("L") is Push.PLAYED
    assert session.push("L") is Push.WON
    assert session.state == GOAL == replayed(TWO_TO_GO, ["L", "L"]) and EIGHT.is_goal(session.state)
    session.finish(optimal_length(EIGHT, TWO_TO_GO))
    saves = len(saver.saves)
    legal = EIGHT.moves(GOAL)[0]
    assert session.push(legal) is Push.ILLEGAL and session.state == GOAL
    session.save()
    assert len(saver.saves) == saves  # a won game is not saved (the finish clears it)
    assert session.push(legal, KOMA) is Push.PLAYED  # Koma's playback may step on (stepping back and forth)


def test_undo_redo_restart_move_along_the_history_and_each_saves():
    saver = Recorder()
    session = session_at(saver=saver)
    moves = ["L", "U", "R", "D"]
    for move in moves:
        assert session.push(move) is Push.PLAYED
    end = session.state
    assert end == replayed(NEAR, moves)
    saved = len(saver.saves)
    assert session.undo() and session.state == replayed(NEAR, moves[:3]) and session.position == 3
    assert session.undo() and session.state == replayed(NEAR, moves[:2])
    assert session.redo() and session.state == replayed(NEAR, moves[:3])
    assert session.restart() and session.state == NEAR and session.position == 0
    assert session.history.moves == moves  # restart keeps every move for redo
    assert not session.undo() and not session.restart()  # nothing to do: no save either
    assert len(saver.saves) == saved + 4
    for k in range(1, 5):
        assert session.redo() and session.state == replayed(NEAR, moves[:k])
    assert not session.redo() and session.state == end
    assert saver.last.position == 4 and saver.last.moves == moves


def test_a_move_after_undo_drops_the_moves_ahead():
    session = session_at()
    for move in ["L", "U", "R"]:
        session.push(move)
    session.undo()
    session.undo()
    assert session.push("D") is Push.PLAYED
    assert session.history.moves == ["L", "D"] and not session.redo()
    assert session.state == replayed(NEAR, ["L", "D"])


def test_undo_after_a_win_plays_on_and_redo_reaches_the_goal_again():
    saver = Recorder()
    session = session_at(TWO_TO_GO, saver=saver)
    session.push("L")
    session.push("L")
    first = session.finish(2)
    assert session.won and first.first
    assert session.undo() and not session.won  # back before the win, play goes on
    assert not session.reached_goal_again
    assert session.redo() and session.state == GOAL
    assert session.reached_goal_again
    again = session.finish(2)
    assert not again.first and again.moves == 2  # the same board won twice is recorded once
    assert [write.first for write, _ in saver.writes] == [True, False]


# --- the clock ----------------------------------------------------------------------------------------
def test_the_clock_runs_from_the_first_move_and_stops_at_the_win():
    clock = Clock(1000.0)
    session = session_at(TWO_TO_GO, clock=clock)
    clock.t += 30  # looking at the board is free
    assert session.clock.elapsed() == 0.0 and not session.clock.running
    session.push("L")
    clock.t += 12.5
    assert session.clock.elapsed() == pytest.approx(12.5)
    session.push("L")
    clock.t += 2.5
    outcome = session.finish(2)
    assert outcome.seconds == pytest.approx(15.0) and not session.clock.running
    clock.t += 100
    assert session.clock.elapsed() == pytest.approx(15.0)


def test_a_new_game_resets_the_clock_the_hints_and_the_history_under_the_same_key():
    clock, saver = Clock(), Recorder()
    session = session_at(NEAR, clock=clock, saver=saver)
    session.push("L")
    session.hint_shown("U")
    clock.t += 40
    session.new_game(TWO_TO_GO)
    assert (session.start, session.state, session.position, session.hints) == (TWO_TO_GO, TWO_TO_GO, 0, 0)
    assert session.clock.elapsed() == 0.0 and not session.won
    clock.t += 5
    assert session.clock.elapsed() == 0.0  # it runs again only from the next move
    key, game, _ = saver.saves[-1]
    assert key == "8" and game == SavedGame(EIGHT.format(TWO_TO_GO), [], "", 0, 0.0, 0, 3)  # 3 changes: the version


# --- hints ------------------------------------------------------------------------------------------
def test_hints_are_counted_and_a_move_that_follows_one_is_marked():
    saver = Recorder()
    session = session_at(NEAR, saver=saver)
    session.hint_shown("L")
    assert session.hints == 1 and saver.last.hints == 1  # counted and saved at once
    session.push("L")
    session.hint_shown("U")
    session.push("D")  # not the move hinted
    session.hint_shown("U")
    session.undo()  # a hint is for one board: undo forgets it
    session.push("U")
    assert session.hints == 3
    assert session.history.origins == [HINT, PLAYER] and session.history.moves == ["L", "U"]
    assert session.state == replayed(NEAR, ["L", "U"])
    assert saver.last.origins == HINT + PLAYER and saver.last.hints == 3


# --- the outcome ------------------------------------------------------------------------------------
def test_a_players_win_is_an_outcome_with_the_optimum_time_and_hints():
    clock, saver = Clock(), Recorder()
    session = session_at(TWO_TO_GO, clock=clock, saver=saver, daily="2025-01-31")
    session.hint_shown("L")
    session.push("L")
    clock.t += 61
    assert session.push("L") is Push.WON
    optimal = optimal_length(EIGHT, TWO_TO_GO)
    assert optimal == 2
    outcome = session.finish(optimal)
    assert outcome == Outcome(moves=2, seconds=pytest.approx(61.0), optimal=2, hints=1, by_koma=False, first=True)
    assert "Solved in 2 moves; optimal 2" in outcome_message(outcome) and "1 hint" in outcome_message(outcome)
    assert outcome.notice() == "Solved in 2 moves; optimal 2. Time 01:01."
    finish, guard = saver.writes[-1]
    assert guard is Guard.NONE
    assert finish == FinishGame("daily/2025-01-31/8", stats_id="8", daily="2025-01-31", start=EIGHT.format(TWO_TO_GO),
                                played=("L", "L"), origins=HINT + PLAYER, moves=2, seconds=pytest.approx(61.0),
                                optimal=2, hints=1, by_koma=False, first=True)
    assert EIGHT.is_goal(replayed(EIGHT.parse(finish.start), finish.played))


def test_a_game_koma_finished_is_not_the_players():
    session = session_at(TWO_TO_GO)
    session.push("L")
    assert session.push("L", KOMA) is Push.WON
    outcome = session.finish(None)
    assert outcome.by_koma and outcome_message(outcome).startswith("[b]Solved by Koma[/b] (2 moves)")
    assert outcome.notice() == ""
    assert "optimal unknown" in outcome_message(Outcome(2, 3.0, None, 0, False, True))


def test_the_finish_reports_only_the_moves_up_to_the_goal_shown():
    """Moves undone and ahead of the board (kept for redo) are not part of the finished game."""
    saver = Recorder()
    session = session_at(TWO_TO_GO, saver=saver)
    for move in ["L", "L", "D"]:
        session.push(move, KOMA if move == "D" else PLAYER)
    session.undo()
    assert session.state == GOAL and session.reached_goal_again
    outcome = session.finish(2)
    assert outcome.moves == 2 and not outcome.by_koma  # Koma's move lies ahead of the board shown
    assert saver.writes[-1][0].played == ("L", "L")


def test_the_recorded_text_is_the_stores_answer_to_a_finish():
    """The finish a session writes, applied to a real store, gives the news whose text the player reads."""
    store = Store(":memory:", "user:ann")
    saver = Recorder()
    session = session_at(TWO_TO_GO, saver=saver, daily="2025-01-31")
    session.push("L")
    session.push("L")
    session.finish(2)
    finish, guard = saver.writes[-1]
    news = apply_op(store, Op(finish, "user:ann", guard), set(), set())
    assert isinstance(news, Finished) and news.key == "daily/2025-01-31/8"
    assert news.stats is not None and news.stats.solved == 1 and news.rank == 1
    text = recorded_text(news.stats, news.rank, session.daily, "b")
    assert text == ("\n[dim]solved 1 · best time 00:00[/dim]"
                    "\nDaily 2025-01-31: you rank [b]#1[/b] (b: leaderboard)")
    assert recorded_text(Stats(), None, None, "b") == ""  # nothing solved yet, no daily: nothing to add
    assert recorded_text(Stats(3, 0, 20, 20, 75.0), 4, None, "b") == "\n[dim]solved 3 · best time 01:15[/dim]"


# --- identities ----------------------------------------------------------------------------------------
def test_the_save_key_and_the_board_id_are_two_names():
    session = session_at(TWO_TO_GO)
    daily = session_at(TWO_TO_GO, daily="2025-01-31")
    assert session.save_key == session.stats_key == "8"
    assert daily.save_key == "daily/2025-01-31/8" and daily.stats_key == "8"
    assert session.board_id == daily.board_id != session.save_key  # the board, not where it is saved
    puzzle, start = ids.parse_game_id(session.board_id)
    assert puzzle.key == "8" and start == TWO_TO_GO
    session.push("L")
    assert session.board_id == ids.game_id(EIGHT, TWO_TO_GO)  # the start board's, whatever was played
    assert session_at(NEAR).board_id != session.board_id


# --- the snapshot (what SIGTERM saves) and resuming ----------------------------------------------------
def test_the_snapshot_at_sigterm_resumes_as_the_same_game():
    clock, saver = Clock(), Recorder()
    session = session_at(NEAR, clock=clock, saver=saver)
    for move in ["L", "U", "R"]:
        session.push(move)
    session.hint_shown("D")
    session.push("D")
    session.undo()
    clock.t += 42
    session.clock.pause()  # what the app's SIGTERM handler does, then save
    session.save()
    key, snapshot, _ = saver.saves[-1]
    assert key == "8" and snapshot == session.snapshot()
    assert snapshot == SavedGame(EIGHT.format(NEAR), ["L", "U", "R", "D"], "ppph", 3, pytest.approx(42.0), 1, 6)
    clock.t += 1000  # the process is gone: no time passes for it
    back = GameSession(EIGHT, Recorder(), clock, saved=snapshot)
    assert back.resumed and back.state == replayed(NEAR, ["L", "U", "R"]) == session.state
    assert (back.start, back.position, back.hints, back.version) == (NEAR, 3, 1, 6)
    assert back.clock.elapsed() == pytest.approx(42.0)
    assert back.redo() and back.state == replayed(NEAR, ["L", "U", "R", "D"])  # the undone move is kept
    assert back.history.origins == list("ppph")


def test_a_save_that_no_longer_fits_starts_a_new_board():
    broken = SavedGame(EIGHT.format(NEAR), ["L", "L"], "pp", 2, 5.0, 0)  # the second L has no tile to move
    session = GameSession(EIGHT, Recorder(), Clock(), saved=broken, seed=3)
    assert not session.resumed and session.position == 0 and session.hints == 0
    assert session.start == EIGHT.random_state(3)


def test_a_seeded_session_starts_on_the_seeded_board():
    assert GameSession(EIGHT, Recorder(), Clock(), seed=11).start == EIGHT.random_state(11)


# --- the guard: the saved game could not be read -----------------------------------------------------------
def test_a_session_whose_saved_game_was_unknown_guards_every_write():
    saver = Recorder()
    session = session_at(TWO_TO_GO, saver=saver, read_unknown=True)
    assert session.guard is GUARDED is Guard.ABSENT
    session.save()
    session.push("L")
    session.hint_shown("L")
    session.undo()
    session.redo()
    session.push("L")
    session.finish(2)
    assert len(saver.saves) == 6 and all(guard == "absent" for _, _, guard in saver.saves)
    assert [(type(write), guard) for write, guard in saver.writes] == [(FinishGame, Guard.ABSENT)]
    plain = Recorder()
    session_at(saver=plain).save()
    assert plain.saves[-1][2] == ""


# --- the version: a save from an older state never replaces a newer one ------------------------------------------
def test_every_change_counts_once_in_the_session_and_in_the_fold_of_its_writes():
    saver = Recorder()
    session = session_at(NEAR, saver=saver)
    session.push("L")
    session.hint_shown("U")
    session.undo()
    session.redo()
    session.restart()
    session.push("R")
    assert session.version == 6 and saver.last == session.snapshot() and saver.last.version == 6
    session.new_game(TWO_TO_GO)
    assert saver.last.version == session.version == 7 and saver.last.moves == []


def test_a_game_kept_over_a_saved_one_counts_on_from_it_and_sends_itself_whole():
    saver = Recorder()
    session = session_at(NEAR, saver=saver)
    session.push("L")
    saved = SavedGame(EIGHT.format(NEAR), ["R", "L", "R"], "ppp", 3, 9.0, 0, 40)  # read late: 40 changes
    kept, note = session.take_saved(saved, known=True, busy=False)
    assert kept is session and note == "" and session.version == 41 and not session.based
    session.push("R")
    assert isinstance(saver.ops[-1], SaveGame) and saver.last.version == 42  # whole, past the saved one


def test_a_session_told_its_game_is_behind_stops_replacing_it():
    saver = Recorder()
    session = session_at(NEAR, saver=saver)
    session.push("L")
    session.stop_replacing()
    session.push("R")
    assert isinstance(saver.ops[-1], SaveGame) and saver.saves[-1][2] == "absent"  # whole, and guarded


# --- properties -------------------------------------------------------------------------------------------
choices = st.lists(st.integers(0, 3), max_size=30)


def push_choices(session: GameSession, picks: list[int]) -> list[tuple]:
    """Push the legal move each pick names; returns every board reached, the start first."""
    boards = [session.state]
    for pick in picks:
        legal = EIGHT.moves(session.state)
        assert session.push(legal[pick % len(legal)]) in (Push.PLAYED, Push.WON)
        boards.append(session.state)
    return boards


@given(choices)
def test_undoing_every_push_walks_back_to_the_start(picks):
    session = session_at(NEAR)
    boards = push_choices(session, picks)
    assert session.state == replayed(NEAR, session.history.moves)
    for board in reversed(boards[:-1]):
        assert session.undo() and session.state == board
    assert not session.undo() and session.state == NEAR and session.position == 0


@given(choices, st.integers(0, 30))
def test_undo_then_redo_comes_back_to_the_same_board_and_snapshot(picks, back):
    session = session_at(NEAR)
    push_choices(session, picks)
    before, snapshot = session.state, session.snapshot()
    steps = min(back, len(picks))
    for _ in range(steps):
        assert session.undo()
    assert session.state == replayed(NEAR, session.history.moves[:session.position])
    for _ in range(steps):
        assert session.redo()
    after = session.snapshot()
    assert session.state == before and replace(after, version=snapshot.version) == snapshot
    assert after.version == snapshot.version + 2 * steps  # each step back and forth is a change of the game
    resumed = GameSession(EIGHT, Recorder(), Clock(), saved=snapshot)
    assert resumed.resumed and resumed.state == before and resumed.history.moves == session.history.moves


@given(choices, st.integers(0, 30))
def test_restart_then_redo_everything_returns_to_the_end(picks, back):
    session = session_at(NEAR)
    push_choices(session, picks)
    for _ in range(min(back, len(picks))):
        session.undo()
    shown = session.position
    assert session.restart() == (shown > 0) and session.state == NEAR
    while session.redo():
        pass
    assert session.position == len(picks) and session.state == replayed(NEAR, session.history.moves)


@given(st.lists(st.sampled_from(["A", "B", "C", "1", "2", "3"]), max_size=20))
def test_a_flip_puzzle_session_replays_to_its_board(moves):
    ura = get_puzzle("ura", "3x3")
    start = ura.parse("WBW/BWB/WBW")
    session = GameSession(ura, Recorder(), Clock(), start=start)
    for move in moves:
        if session.won:
            session.unfinish()
        if session.push(move) is Push.WON:
            session.finish(None)
    assert session.save_key == "ura-3x3"
    assert session.state == ura.replay(start, moves)[-1]


# --- what the session hands the saver ------------------------------------------------------------------------------
def test_a_move_is_handed_over_as_the_move_after_one_whole_game():
    saver = Recorder()
    session = session_at(saver=saver)
    for move in ["L", "D", "R"]:
        session.push(move)
    session.undo()
    session.hint_shown("U")
    assert [type(write) for write in saver.ops] == [SaveGame, PlayMove, PlayMove, Travel, Travel]
    assert saver.ops[1] == PlayMove("8", "D", PLAYER, 2, 0.0) and saver.ops[4] == Travel("8", 2, 0.0, 1)
    assert saver.last == session.snapshot()  # folded, the changes are the game


def test_a_change_the_saver_refused_is_followed_by_the_whole_game():
    """A saver that refuses a write (its queue is full) gets the whole game with the next one: nothing is lost."""
    saver = Recorder()
    session = session_at(saver=saver)
    session.push("L")
    refusing = saver.write
    saver.write = lambda write, guard=Guard.NONE: False  # type: ignore[method-assign]
    session.push("D")
    assert not session.based
    saver.write = refusing  # type: ignore[method-assign]
    session.push("R")
    assert [type(write) for write in saver.ops] == [SaveGame, SaveGame]
    assert saver.last == session.snapshot() and saver.last.moves == ["L", "D", "R"]
