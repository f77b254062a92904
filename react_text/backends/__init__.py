"""Backends: the only code that talks to a model. Heavy imports stay lazy."""

from .base import Backend, BackendError
from .build import BACKEND_KINDS, build_backend, supports_grammar

__all__ = ["BACKEND_KINDS", "Backend", "BackendError", "build_backend", "supports_grammar"]
