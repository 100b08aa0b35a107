"""A FUSE passthrough whose fsync stalls while a flag file exists: a saturated or failing volume, for the outbox's
disk-stall tests.  ``python tests/stalling_fs.py ROOT MOUNTPOINT FLAG`` serves ROOT at MOUNTPOINT (in the
foreground, one thread per request) until unmounted; every fsync (and fsyncdir) waits while FLAG exists.  Needs
libfuse 3 (``fusermount3``) and the ``mfusepy`` package; the tests skip without them.
"""

from __future__ import annotations

import errno
import os
import sys
import time

import mfusepy as fuse


class StallingPassthrough(fuse.Operations):
    """ROOT as it is, but fsync waits while the flag file exists."""

    use_ns = True

    def __init__(self, root: str, flag: str):
        self.root = os.path.realpath(root)
        self.flag = flag

    def _path(self, path: str) -> str:
        return os.path.join(self.root, path.lstrip("/"))

    def _stall(self) -> None:
        while os.path.exists(self.flag):
            time.sleep(0.01)

    def access(self, path, amode):
        if not os.access(self._path(path), amode):
            raise fuse.FuseOSError(errno.EACCES)
        return 0

    def getattr(self, path, fh=None):
        st = os.lstat(self._path(path))
        return {key: getattr(st, key) for key in ("st_atime_ns", "st_ctime_ns", "st_gid", "st_mode", "st_mtime_ns",
                                                  "st_nlink", "st_size", "st_uid")}

    def readdir(self, path, fh):
        return [".", "..", *os.listdir(self._path(path))]

    def mkdir(self, path, mode):
        return os.mkdir(self._path(path), mode)

    def rmdir(self, path):
        return os.rmdir(self._path(path))

    def unlink(self, path):
        return os.unlink(self._path(path))

    def rename(self, old, new):
        return os.rename(self._path(old), self._path(new))

    def chmod(self, path, mode):
        return os.chmod(self._path(path), mode)

    def utimens(self, path, times=None):
        return os.utime(self._path(path), ns=times) if times else os.utime(self._path(path))

    def statfs(self, path):
        st = os.statvfs(self._path(path))
        return {key: getattr(st, key) for key in ("f_bavail", "f_bfree", "f_blocks", "f_bsize", "f_favail", "f_ffree",
                                                  "f_files", "f_flag", "f_frsize", "f_namemax")}

    def open(self, path, flags):
        return os.open(self._path(path), flags)

    def create(self, path, mode, fi=None):
        return os.open(self._path(path), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)

    def read(self, path, size, offset, fh):
        return os.pread(fh, size, offset)

    def write(self, path, data, offset, fh):
        return os.pwrite(fh, data, offset)

    def truncate(self, path, length, fh=None):
        if fh is not None:
            return os.ftruncate(fh, length)
        with open(self._path(path), "r+b") as handle:
            handle.truncate(length)
        return 0

    def flush(self, path, fh):
        return 0

    def release(self, path, fh):
        return os.close(fh)

    def fsync(self, path, datasync, fh):
        self._stall()
        return os.fdatasync(fh) if datasync else os.fsync(fh)

    def fsyncdir(self, path, datasync, fh):
        self._stall()
        return 0

    def opendir(self, path):
        return 0

    def releasedir(self, path, fh):
        return 0


def main() -> None:
    root, mountpoint, flag = sys.argv[1:4]
    fuse.FUSE(StallingPassthrough(root, flag), mountpoint, foreground=True, nothreads=False)


if __name__ == "__main__":
    main()
