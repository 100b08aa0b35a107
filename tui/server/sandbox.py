"""The games' sandbox: a game may use every file its server's user may, except the server's secrets.

A game runs as the server's user, so file modes cannot keep it from the SSH host key, the cookie key or a
PostgreSQL password file.  Linux's Landlock can (https://docs.kernel.org/userspace-api/landlock.html): a
process restricts itself, for good and for every process it starts, to the file hierarchies a ruleset allows.
Landlock only allows, so "everything but the secrets" is built as: along the path of each secret, every
directory's other entries are allowed whole (with every right the kernel knows), and the directories on the
way and the secrets themselves get no rule.  So a game can neither read, write, truncate, rename nor remove a
secret, and keeps every other file it had; what it loses is making or reading new files directly in a
directory that holds a secret (or holds the folder that does), which is why the keys live in a folder of their
own, beside the data dir rather than in it (:func:`tui.server.private_files.key_dir`).

The warm process confines itself once, after its warm-up and before its first fork; a cold game confines
itself between fork and exec.  Both set ``no_new_privs`` first, as Landlock requires.  On a kernel without
Landlock, :func:`confine` says why and changes nothing.

Games apart: where the kernel has Landlock's scopes (ABI 6, Linux 6.12), the ruleset also scopes signals and
abstract unix sockets, and every game forked by the warm process makes a domain of its own nested in the warm
process's (:func:`confine_game`).  A process may then signal, and connect to an abstract socket of, only processes
of its own domain or of domains nested in it, and Landlock allows ptrace (so reading another's ``/proc/PID/mem``,
``environ`` or ``fd``) only within the same bounds: a game cannot signal, trace or reach the warm process, another
game or the server.  The server, the warm process and every game are also not dumpable (:func:`not_dumpable`: their
``/proc`` entries belong to root and no process of the same user may trace them), which also holds where Landlock
has no scopes (:func:`scope_note` says so once in the server's log).  Never imports Textual.
"""

from __future__ import annotations

import ctypes
import errno
import os
from collections.abc import Iterable
from pathlib import Path

SECRETS_VARIABLE = "KOMA_GAME_SECRETS"  # the warm process's list of files its games may not touch (os.pathsep)

# <linux/landlock.h>: the syscalls (one number on every architecture), the rule type and the access rights
CREATE_RULESET, ADD_RULE, RESTRICT_SELF = 444, 445, 446
CREATE_RULESET_VERSION = 1
RULE_PATH_BENEATH = 1
PR_SET_NO_NEW_PRIVS = 38
EXECUTE, WRITE_FILE, READ_FILE = 1 << 0, 1 << 1, 1 << 2
DIRECTORY_RIGHTS_V1 = (1 << 13) - 1  # execute .. make_sym: the thirteen rights of the first ABI
REFER = 1 << 13  # ABI 2; while it is not handled, every rename or link across directories is refused
TRUNCATE = 1 << 14  # ABI 3
FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE  # what a rule on a file (not a directory) may allow
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1 << 0, 1 << 1  # ABI 6: what a domain keeps from processes outside it
SCOPES_ABI = 6
PR_SET_DUMPABLE, PR_GET_DUMPABLE = 4, 3


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


def _attr_size(abi: int) -> int:
    """How much of :class:`_RulesetAttr` the kernel's ABI knows: the network field came with ABI 4, scopes with 6."""
    return 24 if abi >= SCOPES_ABI else 16 if abi >= 4 else 8


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def landlock_abi() -> int:
    """The Landlock ABI version this kernel offers; 0 when it has none (see :func:`why_no_landlock`)."""
    libc = _libc()
    version = libc.syscall(ctypes.c_long(CREATE_RULESET), None, ctypes.c_size_t(0), ctypes.c_uint32(CREATE_RULESET_VERSION))
    return max(int(version), 0)


def why_no_landlock() -> str:
    """Why :func:`landlock_abi` is 0, in a few words."""
    libc = _libc()
    libc.syscall(ctypes.c_long(CREATE_RULESET), None, ctypes.c_size_t(0), ctypes.c_uint32(CREATE_RULESET_VERSION))
    error = ctypes.get_errno()
    if error == errno.EPERM:
        return "a system-call filter forbids Landlock (allow landlock_create_ruleset, landlock_add_rule, landlock_restrict_self)"
    if error == errno.EOPNOTSUPP:
        return "Landlock is turned off in this kernel (lsm=)"
    return "this kernel has no Landlock"


def handled_rights(abi: int) -> int:
    """Every file-system right the kernel's ABI knows (so none is left unrestricted by default)."""
    rights = DIRECTORY_RIGHTS_V1
    if abi >= 2:
        rights |= REFER
    if abi >= 3:
        rights |= TRUNCATE
    return rights


def scopes(abi: int) -> int:
    """The scopes this kernel's ABI offers: signals and abstract unix sockets from ABI 6, else none."""
    return SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL if abi >= SCOPES_ABI else 0


def scope_note(abi: int | None = None) -> str | None:
    """What the server's log says once where games cannot be kept apart by Landlock's scopes; None where they can."""
    abi = landlock_abi() if abi is None else abi
    if abi >= SCOPES_ABI:
        return None
    have = f"Landlock ABI {abi}" if abi else why_no_landlock()
    return (f"{have}, not {SCOPES_ABI} (Linux 6.12): games are not scoped apart from each other's signals and abstract "
            "sockets (they stay not dumpable)")


def not_dumpable() -> None:
    """Make this process not dumpable: its ``/proc`` entries belong to root, and no process of its user may trace it
    or read its memory, environment or descriptors.  A fork keeps it; an exec of a program undoes it, so every
    process Koma starts that way (the warm process, a cold game) calls this itself."""
    _libc().prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)


def dumpable() -> bool:
    return bool(_libc().prctl(PR_GET_DUMPABLE, 0, 0, 0, 0))


def confine_game() -> str | None:
    """Put this game (forked by the warm process) in a Landlock domain of its own, nested in the warm process's and
    scoped (signals, abstract sockets): it then reaches neither the warm process nor another game.  None when done
    (or the kernel has no scopes: :func:`scope_note`), else why not."""
    not_dumpable()
    abi = landlock_abi()
    if abi < SCOPES_ABI:
        return None
    return _restrict(_RulesetAttr(0, 0, scopes(abi)), abi, [])


def existing_secrets(secrets: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """The secrets that exist, by their real paths (a symbolic link's target is what must be kept)."""
    found = []
    for secret in secrets:
        path = Path(os.path.realpath(secret))
        if path.exists() and path != Path("/"):
            found.append(path)
    return found


def allowed_paths(secrets: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """What the ruleset allows whole: every entry of every directory on the way to a secret, except those on the
    way and the secrets.  Symbolic links get no rule: their targets are allowed (or not) where they really are."""
    kept = existing_secrets(secrets)
    on_the_way = {folder for secret in kept for folder in secret.parents}
    refused = on_the_way | set(kept)
    allowed = []
    for folder in sorted(on_the_way):
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue  # a folder the user may not list: nothing in it is allowed but the way on
        for entry in entries:
            path = Path(entry.path)
            if path in refused or entry.is_symlink():
                continue
            allowed.append(path)
    return allowed


def confine(secrets: Iterable[str | os.PathLike[str]]) -> str | None:
    """Restrict this process (and all it starts) to everything but ``secrets``, scoped away from signals and
    abstract sockets outside its domain where the kernel can (:func:`scopes`); None when done, else why not (one
    line).  Call it while this process has a single thread: Landlock restricts the calling thread."""
    kept = existing_secrets(secrets)
    abi = landlock_abi()
    if not kept and abi < SCOPES_ABI:
        return None
    if abi < 1:
        return f"{why_no_landlock()}, so games could read the server's keys"
    handled = handled_rights(abi) if kept else 0
    return _restrict(_RulesetAttr(handled, 0, scopes(abi)), abi, allowed_paths(kept) if kept else [])


def _restrict(attr: _RulesetAttr, abi: int, allowed: list[Path]) -> str | None:
    """Make a ruleset of ``attr`` with every path of ``allowed`` allowed whole, and restrict this thread to it."""
    libc = _libc()
    handled = attr.handled_access_fs
    ruleset = libc.syscall(ctypes.c_long(CREATE_RULESET), ctypes.byref(attr), ctypes.c_size_t(_attr_size(abi)),
                           ctypes.c_uint32(0))
    if ruleset < 0:
        return f"Landlock refused a ruleset ({os.strerror(ctypes.get_errno())})"
    try:
        for path in allowed:
            try:
                descriptor = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue
            try:
                rights = handled if path.is_dir() else handled & FILE_RIGHTS
                rule = _PathBeneathAttr(rights, descriptor)
                if libc.syscall(ctypes.c_long(ADD_RULE), ctypes.c_int(ruleset), ctypes.c_int(RULE_PATH_BENEATH),
                                ctypes.byref(rule), ctypes.c_uint32(0)) < 0:
                    return f"Landlock refused a rule for {path} ({os.strerror(ctypes.get_errno())})"
            finally:
                os.close(descriptor)
        if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0:
            return f"cannot set no_new_privs ({os.strerror(ctypes.get_errno())})"
        if libc.syscall(ctypes.c_long(RESTRICT_SELF), ctypes.c_int(ruleset), ctypes.c_uint32(0)) < 0:
            return f"Landlock refused to restrict the process ({os.strerror(ctypes.get_errno())})"
    finally:
        os.close(ruleset)
    return None


def confine_check(secrets: Iterable[str | os.PathLike[str]], written: Iterable[str | os.PathLike[str]] = ()) -> str | None:
    """Why games could not be kept from ``secrets`` (None when they can, or there is nothing to keep): no Landlock,
    or a folder games make new files in (``written``: the data dir, the database's folder, the caches) on the way
    to a secret, where the rules could not let them use those files."""
    kept = existing_secrets(secrets)
    if not kept:
        return None
    if landlock_abi() < 1:
        return f"{why_no_landlock()}, so games could read the server's keys"
    for place in written:
        folder = Path(os.path.realpath(place))
        for secret in kept:
            if secret.is_relative_to(folder):
                return (f"the key {secret} is inside {folder}, where games write; keep keys in a folder of their own "
                        "(by default beside the data dir)")
    return None


def secrets_from_environment(environment: dict[str, str] | os._Environ[str]) -> list[str]:
    return [part for part in environment.get(SECRETS_VARIABLE, "").split(os.pathsep) if part]
