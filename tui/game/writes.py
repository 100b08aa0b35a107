"""Typed writes: everything a game asks the store to keep, one small frozen dataclass per kind.

A write is a :class:`SaveGame` (a whole game: the *base*), a :class:`PlayMove` or a :class:`Travel` (a change
to the game saved last: one move, or a step back and forth / a hint; a few bytes whatever the game's length),
a :class:`ClearGame`, a :class:`FinishGame`, :class:`Seen`, :class:`SetWatchable`, a :class:`RecordSpeedSolve` or
:class:`SetSpeedLooks`.  The storage service
wraps each in an :class:`Op` (who, when, its id, its :class:`Guard`); the outbox encodes it once
(:func:`encode_record`: versioned, with a checksum, so that a damaged journal line is detected and skipped);
the store applies it once (:func:`tui.storage.service.apply_op`).  :class:`GameState` folds a base and the
changes after it into the game they make.  Never imports Textual.
"""

from __future__ import annotations

import secrets
import time
import zlib
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any, ClassVar

import msgspec

from tui.game.records import SavedGame

FORMAT_VERSION = 1  # of a journal record (see encode_record); a record from a newer Koma is skipped, with a notice


class OpKind(Enum):
    SAVE = "save"
    MOVE = "move"
    TRAVEL = "travel"
    CLEAR = "clear"
    FINISH = "finish"
    SEEN = "seen"
    WATCHABLE = "watchable"
    SPEED = "speed"
    SPEED_LOOKS = "speed-looks"


class Guard(Enum):
    """``ABSENT``: the write must not replace a stored game (its session could not read it)."""

    NONE = ""
    ABSENT = "absent"


@dataclass(frozen=True)
class SaveGame:
    """The whole game under ``key``: the base its later moves are folded onto."""

    KIND: ClassVar[OpKind] = OpKind.SAVE
    key: str
    game: SavedGame


@dataclass(frozen=True)
class PlayMove:
    """``move`` played by ``origin`` at the position before ``position`` (the moves ahead of it dropped)."""

    KIND: ClassVar[OpKind] = OpKind.MOVE
    key: str
    move: str
    origin: str
    position: int  # the position after the move
    seconds: float


@dataclass(frozen=True)
class Travel:
    """The game under ``key`` now shows ``position`` (undo, redo, restart) with ``hints`` hints (a hint shown)."""

    KIND: ClassVar[OpKind] = OpKind.TRAVEL
    key: str
    position: int
    seconds: float
    hints: int


@dataclass(frozen=True)
class ClearGame:
    """Forget the game under ``key`` (won, or replaced)."""

    KIND: ClassVar[OpKind] = OpKind.CLEAR
    key: str


@dataclass(frozen=True)
class FinishGame:
    """A won game, recorded once: its replay (``played`` from ``start``, by ``origins``), the stats of
    ``stats_id``, the daily result of ``daily``, and the saved game under ``key`` cleared.  ``first``: the
    first win on this board in its session (only then is it counted)."""

    KIND: ClassVar[OpKind] = OpKind.FINISH
    key: str
    stats_id: str
    daily: str | None
    start: str
    played: tuple[str, ...]
    origins: str
    moves: int
    seconds: float
    optimal: int | None
    hints: int
    by_koma: bool
    first: bool


@dataclass(frozen=True)
class Seen:
    """The player came (their name, first and last visit)."""

    KIND: ClassVar[OpKind] = OpKind.SEEN


@dataclass(frozen=True)
class SetSpeedLooks:
    """The player's Speed looks, remembered: the board's colour scheme and whether hover control is on."""

    KIND: ClassVar[OpKind] = OpKind.SPEED_LOOKS
    scheme: str
    hover: bool = False


@dataclass(frozen=True)
class SetWatchable:
    """Whether others may watch the player's games."""

    KIND: ClassVar[OpKind] = OpKind.WATCHABLE
    allowed: bool


@dataclass(frozen=True)
class RecordSpeedSolve:
    """One speed solve, kept once: its size ``WxH``, event (and ``run``/``leg`` of a relay or marathon), the scramble,
    the moves and per-move times in the speedsolvers' notation (:mod:`tui.game.speed_notation`), the time, a DNF, the
    input that made it (``control``), where an imported one came from (``source``), when it ended (``finished``:
    None for the time the write is accepted) and a blindfolded solve's memorisation time (``memo_ms``)."""

    KIND: ClassVar[OpKind] = OpKind.SPEED
    size: str
    event: str
    scramble: str
    moves: str
    times: str
    time_ms: int
    dnf: bool
    run: str = ""
    leg: int = 0
    control: str = ""
    source: str = ""
    finished: float | None = None
    memo_ms: int | None = None


Write = SaveGame | PlayMove | Travel | ClearGame | FinishGame | Seen | SetWatchable | RecordSpeedSolve | SetSpeedLooks
GameWrite = SaveGame | PlayMove | Travel  # what changes the game in progress under a key
Change = PlayMove | Travel  # what needs a base before it
WRITE_TYPES: dict[OpKind, type] = {kind.KIND: kind for kind in (SaveGame, PlayMove, Travel, ClearGame, FinishGame,
                                                                  Seen, SetWatchable, RecordSpeedSolve,
                                                                  SetSpeedLooks)}


def _new_id() -> str:
    return secrets.token_hex(8)


@dataclass(frozen=True)
class Op:
    """One accepted write: ``write``, by ``player``, accepted at ``at`` (a save never replaces a newer one);
    ``id`` makes it idempotent; ``seq`` is its place in its journal."""

    write: Write
    player: str
    guard: Guard = Guard.NONE
    id: str = field(default_factory=_new_id)
    at: float = field(default_factory=time.time)
    seq: int = 0

    @property
    def kind(self) -> OpKind:
        return self.write.KIND

    @property
    def key(self) -> str:
        """The game key the op concerns ("" for none)."""
        return getattr(self.write, "key", "")

    @property
    def guarded(self) -> bool:
        return self.guard is Guard.ABSENT

    @property
    def changes_game(self) -> bool:
        """A save, a move or a travel: it changes the game in progress under its key (and folds onto its save)."""
        return isinstance(self.write, SaveGame | PlayMove | Travel)


class FoldError(ValueError):
    """A change that does not fit the game it is folded onto (its base is missing, or another game's)."""


class GameState:
    """A game being folded: a base (:class:`SaveGame`) and the changes after it, applied in place (each O(1)).  Every
    fold of changes onto a save (the journal's, the writer's, a read of the outbox) is this one; each change adds one
    to the game's ``version``."""

    def __init__(self, game: SavedGame):
        self.start = game.start
        self.moves = list(game.moves)
        self.origins = list(game.origins)
        self.position = game.position
        self.seconds = game.seconds
        self.hints = game.hints
        self.version = game.version

    @classmethod
    def after(cls, state: GameState | None, write: GameWrite) -> GameState:
        """``state`` (None: no base yet) with ``write`` applied: a new state for a base, else ``state`` itself."""
        if isinstance(write, SaveGame):
            return cls(write.game)
        if state is None:
            raise FoldError(f"a change of {write.key} without its saved game before it")
        state.apply(write)
        return state

    def apply(self, change: Change) -> None:
        if isinstance(change, PlayMove):
            if change.position != self.position + 1:
                raise FoldError(f"move {change.position} of {change.key} after position {self.position}")
            del self.moves[self.position:], self.origins[self.position:]
            self.moves.append(change.move)
            self.origins.append(change.origin)
        elif not 0 <= change.position <= len(self.moves):
            raise FoldError(f"position {change.position} of {change.key} past its {len(self.moves)} moves")
        else:
            self.hints = change.hints
        self.position, self.seconds = change.position, change.seconds
        self.version += 1  # as the session counts it (tui.game.session.GameSession.version)

    def copy(self) -> GameState:
        return GameState(self.snapshot())

    def snapshot(self) -> SavedGame:
        return SavedGame(self.start, list(self.moves), "".join(self.origins), self.position, self.seconds, self.hints,
                         self.version)


def as_save(op: Op, state: GameState) -> Op:
    """``op`` (a game write) as the whole game it leads to (``state``, folded through it): same id, time, guard."""
    return replace(op, write=SaveGame(op.key, state.snapshot()))


# --- the journal's records ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _OpRecord:
    kind: OpKind
    player: str
    guard: Guard
    id: str
    at: float
    seq: int
    write: msgspec.Raw


@dataclass(frozen=True)
class Record:
    """One journal line: an op; a ``done`` mark (the database has op ``done``); an ``owned`` mark (the session's
    guarded game under that key went in: its guarded ops are plain); or a ``base`` (a game as it stood, which
    later changes are folded onto; never applied itself)."""

    v: int
    op: _OpRecord | None = None
    done: int | None = None
    owned: str | None = None
    base: SaveGame | None = None


class DamagedRecord(ValueError):
    """A journal line that fails its checksum, its version or its types."""


def encode_record(*, op: Op | None = None, done: int | None = None, owned: str | None = None,
                  base: SaveGame | None = None) -> bytes:
    """One journal line: ``CRC32 JSON\\n`` (the CRC of the JSON, 8 hex digits); the JSON holds ``v``, the format."""
    body: dict[str, Any] = {"v": FORMAT_VERSION}
    if op is not None:
        body["op"] = {"kind": op.kind, "player": op.player, "guard": op.guard, "id": op.id, "at": op.at, "seq": op.seq,
                      "write": op.write}
    if done is not None:
        body["done"] = done
    if owned is not None:
        body["owned"] = owned
    if base is not None:
        body["base"] = base
    payload = _ENCODER.encode(body)
    return b"%08x " % zlib.crc32(payload) + payload + b"\n"


def decode_record(line: bytes) -> Record:
    """A journal line (without its newline) as a :class:`Record`; :class:`DamagedRecord` if it fails a check.  A line
    of the journal's first format (plain JSON, no checksum) is read too."""
    if line[:1] == b"{":
        return _legacy(line)
    checksum, _, payload = line.partition(b" ")
    try:
        if int(checksum, 16) != zlib.crc32(payload) or len(checksum) != 8:
            raise DamagedRecord("its checksum does not match")
        version = msgspec.json.decode(payload, type=_Version).v
        if version != FORMAT_VERSION:
            raise DamagedRecord(f"format {version} (this Koma reads {FORMAT_VERSION})")
        record = msgspec.json.decode(payload, type=Record)
        if record.op is not None:
            write: Any = msgspec.json.decode(record.op.write, type=WRITE_TYPES[record.op.kind])  # in Raw's place
            return replace(record, op=_OpRecord(record.op.kind, record.op.player, record.op.guard, record.op.id,
                                                record.op.at, record.op.seq, write))
        return record
    except (msgspec.ValidationError, msgspec.DecodeError, ValueError) as problem:
        if isinstance(problem, DamagedRecord):
            raise
        raise DamagedRecord(str(problem)) from None


def record_op(record: Record) -> Op | None:
    """The op a decoded record holds (None for a mark or a base)."""
    if record.op is None:
        return None
    raw = record.op
    return Op(raw.write, raw.player, raw.guard, raw.id, raw.at, raw.seq)  # type: ignore[arg-type]


@dataclass(frozen=True)
class _Version:
    v: int


def _enc_hook(value: Any) -> Any:
    raise NotImplementedError(f"cannot encode {type(value).__name__}")


_ENCODER = msgspec.json.Encoder(enc_hook=_enc_hook)


def _legacy(line: bytes) -> Record:
    """A line of the first journal format: ``{"kind", "player", "key", "data", "guard", "id", "at", "seq"}`` or a mark."""
    try:
        raw = msgspec.json.decode(line)
        if not isinstance(raw, dict):
            raise DamagedRecord("not a record")
        if "done" in raw:
            return Record(0, done=int(raw["done"]))
        if "owned" in raw:
            return Record(0, owned=str(raw["owned"]))
        kind, key, data = OpKind(raw["kind"]), str(raw.get("key", "")), dict(raw.get("data") or {})
        write: Write
        if kind is OpKind.SAVE:
            write = SaveGame(key, msgspec.convert(data, SavedGame))
        elif kind is OpKind.CLEAR:
            write = ClearGame(key)
        elif kind is OpKind.FINISH:
            fields = {name: data[name] for name in ("stats_id", "daily", "start", "played", "origins", "moves", "seconds",
                                                    "optimal", "hints", "by_koma", "first")}
            write = msgspec.convert({"key": key, **fields}, FinishGame)
        elif kind is OpKind.SEEN:
            write = Seen()
        elif kind is OpKind.WATCHABLE:
            write = SetWatchable(bool(data.get("allowed", True)))
        else:
            raise DamagedRecord(f"kind {kind.value} in the first format")
        op = _OpRecord(kind, str(raw["player"]), Guard(raw.get("guard", "")), str(raw["id"]), float(raw["at"]),
                       int(raw["seq"]), write)  # type: ignore[arg-type]
        return Record(0, op=op)
    except DamagedRecord:
        raise
    except (msgspec.ValidationError, msgspec.DecodeError, ValueError, KeyError, TypeError) as problem:
        raise DamagedRecord(str(problem) or type(problem).__name__) from None
