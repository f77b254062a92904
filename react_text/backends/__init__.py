"""Backends: the only code that talks to a model. Heavy imports stay lazy."""

from .base import Backend, BackendError

__all__ = ["Backend", "BackendError"]
