"""Game IDs: every board of every puzzle and size round-trips, and bad or foreign IDs get one-line errors."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_properties import IDS, PUZZLES, any_board

from solver.errors import KomaError
from solver.ids import ALPHABET, check_character, game_id, id_prefix, looks_like_game_id, parse_game_id, puzzle_and_board
from solver.registry import get_puzzle

URL_SAFE = re.compile(r"[0-9a-z]+(?:[2-6]x[2-6])?-[0-9A-Za-z]+")


@pytest.mark.parametrize("puzzle", PUZZLES, ids=IDS)
@given(data=st.data())
def test_every_board_round_trips(puzzle, data):
    state = data.draw(any_board(puzzle))
    text = game_id(puzzle, state)
    assert URL_SAFE.fullmatch(text) and text.startswith(id_prefix(puzzle) + "-")
    assert len(text) == len(game_id(puzzle, puzzle.goal))  # one width per puzzle and size
    assert looks_like_game_id(text)
    named, board = parse_game_id(text)
    assert (named.key, named.size_label) == (puzzle.key, puzzle.size_label)
    assert board == state
    assert named.format(board) == puzzle.format(state)


def unsolvable_board(puzzle):
    """A legal board that cannot reach the goal, or None for Goat (every legal Goat board is solvable)."""
    if puzzle.key == "goat":
        return None
    if puzzle.key == "ura":
        return (1,) + puzzle.goal[1:]  # one black cell in a corner orbit never turns white
    return puzzle.parity_fix(puzzle.goal)


@pytest.mark.parametrize("puzzle", [p for p in PUZZLES if p.key != "goat"], ids=[i for p, i in zip(PUZZLES, IDS) if p.key != "goat"])
def test_unsolvable_boards_have_ids_too(puzzle):
    unsolvable = unsolvable_board(puzzle)
    assert not puzzle.proof(unsolvable).solvable
    assert parse_game_id(game_id(puzzle, unsolvable))[1] == unsolvable


def test_ids_are_short():
    assert len(game_id(get_puzzle("8"), get_puzzle("8").goal)) == len("8-") + 4 + 1
    fifteen = get_puzzle("15")
    assert len(game_id(fifteen, fifteen.goal)) == len("15-") + 8 + 1  # 16! < 62^8
    assert len(game_id(get_puzzle("goat"), get_puzzle("goat").goal)) == len("goat-") + 4 + 1
    assert len(game_id(get_puzzle("ura", "6x6"), get_puzzle("ura", "6x6").goal)) == len("ura6x6-") + 7 + 1


def test_every_single_mistyped_character_is_caught():
    fifteen = get_puzzle("15")
    text = game_id(fifteen, fifteen.random_state(11))
    start = len("15-")
    for position in range(start, len(text)):
        for replacement in ALPHABET:
            if replacement != text[position]:
                typo = text[:position] + replacement + text[position + 1:]
                with pytest.raises(KomaError):
                    parse_game_id(typo)


@pytest.mark.parametrize("other", ["ura5x3", "ura4x4", "ura3x5"])
def test_the_check_character_covers_the_prefix(other):
    """One mistyped size digit gives an ID of the same width for another board size: the check refuses it."""
    ura43 = get_puzzle("ura", "4x3")
    text = game_id(ura43, ura43.random_state(5))
    moved = text.replace("ura4x3-", other + "-")
    named = get_puzzle("ura", other.removeprefix("ura"))
    assert len(moved) == len(game_id(named, named.goal))
    with pytest.raises(KomaError, match="check character"):
        parse_game_id(moved)


def _with_check(prefix: str, digits: str) -> str:
    return f"{prefix}-{digits}{check_character(prefix + digits)}"


BAD_IDS = [
    ("chess-00000", "unknown puzzle 'chess'"),
    ("9x-00000", "names no puzzle"),
    ("ura-0000", "lacks the size"),
    ("ura9x9-0000", "from 2x2 to 6x6, not 9x9"),
    ("sliding21x2-0000", "from 2x2 to 20x20"),
    ("15x4-0000", "names no puzzle"),
    ("goat3x3-0000", "Goat is 4x3"),
    ("sliding3x3-0000", "IDs begin '8-'"),
    ("goat4x3-0000", "IDs begin 'goat-'"),
    ("8-0a!k", "never use: '!'"),
    ("8-0a k", "never use: ' '"),
    ("8-0ak", "IDs have 5 characters after '8-', not 3"),
    ("8-0ak0b0c", "not 7"),
    ("8-", "not 0"),
    ("8-1GVkF", "check character"),
    (_with_check("8", "zzzz"), "has only 362,880"),
    (_with_check("goat", "zzzz"), "has only 5,443,200"),
    ("8-" + "0" * 520, "too long"),
    ("-0000", "is not a game ID"),
]


@pytest.mark.parametrize("text,message", BAD_IDS, ids=[t[:20] for t, _ in BAD_IDS])
def test_bad_ids_get_a_one_line_error(text, message):
    with pytest.raises(KomaError) as raised:
        parse_game_id(text)
    assert message in str(raised.value) and "\n" not in str(raised.value)


def test_what_counts_as_an_id():
    goat = get_puzzle("goat")
    assert not looks_like_game_id(goat.format(goat.goal))  # r-BB/iSd./l-jW: a board with fences
    assert not looks_like_game_id("r-BB")  # one Goat row
    assert not looks_like_game_id("8") and not looks_like_game_id("sliding")
    assert looks_like_game_id("goat-12345") and looks_like_game_id("15-x") and looks_like_game_id("Ura4x4-1")


def test_puzzle_and_board_takes_a_name_and_board_or_an_id():
    eight = get_puzzle("8")
    state = eight.random_state(2)
    text = game_id(eight, state)
    assert puzzle_and_board(text)[1] == state
    assert puzzle_and_board("8", None, eight.format(state))[1] == state
    assert puzzle_and_board("ura", "4x4")[1] is None and puzzle_and_board("ura", "4x4")[0].size_label == "4x4"
    with pytest.raises(KomaError, match="drop --size"):
        puzzle_and_board(text, "3x3")
    with pytest.raises(KomaError, match="not both"):
        puzzle_and_board(text, None, eight.format(state))


@pytest.mark.parametrize("puzzle", [get_puzzle("8"), get_puzzle("goat"), get_puzzle("ura", "3x3")], ids=["8", "goat", "ura"])
def test_illegal_boards_have_no_id(puzzle):
    illegal = (0,) * len(puzzle.goal) if puzzle.key != "ura" else (2,) * len(puzzle.goal)
    with pytest.raises(KomaError, match="no game ID"):
        game_id(puzzle, illegal)
