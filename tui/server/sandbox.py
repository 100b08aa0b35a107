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
Landlock, :func:`confine` says why and changes nothing.  Never imports Textual.
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


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64)]


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
    """Restrict this process (and all it starts) to everything but ``secrets``; None when done, else why not
    (one line).  Call it while this process has a single thread: Landlock restricts the calling thread."""
    kept = existing_secrets(secrets)
    if not kept:
        return None
    abi = landlock_abi()
    if abi < 1:
        return f"{why_no_landlock()}, so games could read the server's keys"
    libc = _libc()
    handled = handled_rights(abi)
    attr = _RulesetAttr(handled)
    ruleset = libc.syscall(ctypes.c_long(CREATE_RULESET), ctypes.byref(attr), ctypes.c_size_t(ctypes.sizeof(attr)),
                           ctypes.c_uint32(0))
    if ruleset < 0:
        return f"Landlock refused a ruleset ({os.strerror(ctypes.get_errno())})"
    try:
        for path in allowed_paths(kept):
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
