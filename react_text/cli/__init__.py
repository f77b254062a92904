"""The ``react-text`` command: argument parsing and printing only."""

from .main import main

__all__ = ["main"]
