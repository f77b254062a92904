"""Models by catalog name or path: the catalog, verified files, installation with pip.

``store`` reads the catalog and says where models are looked for,
``verification`` proves a file is the one the catalog pins, ``resolve`` turns a
name into a usable file (assembling and installing as needed). This package is
in the bottom layer: it imports only the standard library.
"""

from .resolve import ModelStatus, assemble, install_model, list_models, resolve_entry, resolve_model
from .store import (
    DEFAULT_MODEL,
    CatalogEntry,
    ChecksumMismatch,
    ModelError,
    ModelNotFound,
    ModelStore,
    load_catalog,
    parse_catalog,
)
from .verification import is_verified, sha256_file, verify_file

__all__ = [
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
    "parse_catalog",
    "resolve_entry",
    "resolve_model",
    "sha256_file",
    "verify_file",
]
