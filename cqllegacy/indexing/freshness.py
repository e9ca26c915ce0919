"""Whether a PGN file is still the one indexed (:func:`unchanged`), and the facts an index
records of it (:class:`SourceFacts`).

That the file is still the one indexed is proved by its SHA-256, hashed again only when
its status differs from the one recorded: a change of content changes the status change
time (ctime), which no user can set back, unless it falls in the same tick of the file
system's clock as the status recorded — so a status recorded within :data:`RACY_NS` of
the moment it was taken proves nothing, and the file is hashed on every run (git's
"racy" entries).
"""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path

import attrs

from cqllegacy.records import Record

__all__ = ["RACY_NS", "FileStatus", "SourceFacts", "file_facts", "file_status", "unchanged"]


#: How close to the moment its status was taken a file's last change (its modification
#: or status change time) may be for the status to prove nothing: a change within one
#: tick of the file system's clock leaves the times as they were (a few milliseconds on
#: Linux's file systems, two seconds on FAT).
RACY_NS = 2_000_000_000


@attrs.frozen(repr=False)
class FileStatus(Record):
    """What changes when a file's content does: its size, modification and status change
    times, inode and device (the ctime is set to the clock by every write, and cannot be
    set by a user as the mtime can)."""

    size: int
    mtime_ns: int
    ctime_ns: int
    inode: int
    device: int

    @classmethod
    def of(cls, stat: os.stat_result) -> FileStatus:
        return cls(stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_ino, stat.st_dev)


@attrs.frozen(repr=False)
class SourceFacts(Record):
    """What identifies the content of a PGN file: its SHA-256, and its status when
    hashed.  ``racy``: the status cannot prove the content unchanged (the file changed
    within :data:`RACY_NS` of the moment its status was taken, or while it was hashed)."""

    status: FileStatus
    sha256: str
    racy: bool

    @property
    def size(self) -> int:
        return self.status.size


def file_facts(path: Path) -> SourceFacts:
    """The status and SHA-256 of the file at ``path``.  (SHA-256 rather than BLAKE2b:
    with the processor's SHA instructions it is the faster here, 65 against 113 ms on
    94 MB.)"""
    now = time.time_ns()
    with open(path, "rb") as handle:
        before = FileStatus.of(os.fstat(handle.fileno()))
        digest = hashlib.file_digest(handle, "sha256").hexdigest()
        after = FileStatus.of(os.fstat(handle.fileno()))
    racy = before != after or max(before.mtime_ns, before.ctime_ns) + RACY_NS >= now
    return SourceFacts(before, digest, racy)


def file_status(path: Path) -> FileStatus:
    """The status of the file at ``path`` now."""
    return FileStatus.of(os.stat(path))


def unchanged(path: Path, size: int, sha256: str, status: FileStatus | None) -> bool:
    """Whether the file at ``path`` still holds the bytes of ``size`` and ``sha256``,
    recorded with ``status`` (None: a racy status, which proves nothing): proved by the
    status alone where it is the one recorded, else by hashing the file."""
    if status is not None and file_status(path) == status:
        return True
    facts = file_facts(path)
    return facts.size == size and facts.sha256 == sha256
