"""Tools from a user's Python file: ``--functions FILE.py`` on run, serve and compare.

A file marks its tools with ``@react_text.tool`` when it has helpers that are
not tools; a file with no ``@tool`` at all offers every public function it
defines (not ones it imports), which is what a quick script wants. Every
failure — a missing file, an import that raises, nothing usable — is a
``FunctionsError`` with one line a person can act on, never a traceback.
"""

from __future__ import annotations

import importlib.util
import inspect
import os
import sys
import traceback
from pathlib import Path
from typing import Any

from .schemas import ToolDefinitionError
from .spec import Tool, tool

__all__ = ["FunctionsError", "load_functions"]


class FunctionsError(ValueError):
    """The file cannot give tools; the message names the file and what to fix."""


def _module_name(path: Path) -> str:
    return "react_text_user_functions_" + "".join(ch if ch.isalnum() else "_" for ch in str(path.resolve()))


def _import(path: Path) -> Any:
    name = _module_name(path)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise FunctionsError(f"--functions {path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses and pickling look a module up by name
    try:
        spec.loader.exec_module(module)
    except SyntaxError as exc:
        sys.modules.pop(name, None)
        raise FunctionsError(f"--functions {path}: line {exc.lineno}: {exc.msg}") from None
    except BaseException as exc:  # noqa: BLE001 - whatever the user's file raises at import time
        sys.modules.pop(name, None)
        if isinstance(exc, KeyboardInterrupt):
            raise
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if Path(f.filename) == path]
        where = f" (line {frames[-1].lineno})" if frames else ""
        raise FunctionsError(
            f"--functions {path}: importing it failed{where}: {type(exc).__name__}: {exc}") from None
    return module


def load_functions(path: str | os.PathLike[str]) -> list[Any]:
    """The tools a Python file offers: its ``@tool`` objects if it has any, else its public functions."""
    file = Path(path).expanduser()
    if not file.is_file():
        raise FunctionsError(f"--functions {file}: no such file")
    if file.suffix != ".py":
        raise FunctionsError(f"--functions {file}: expected a .py file")
    module = _import(file.resolve())
    marked = [v for v in vars(module).values() if isinstance(v, Tool) and _defined_in(v.fn, module)]
    if marked:
        return marked
    public = [v for k, v in vars(module).items()
              if not k.startswith("_") and inspect.isfunction(v) and _defined_in(v, module)]
    if not public:
        raise FunctionsError(f"--functions {file}: defines no public function (nor any marked @tool)")
    tools = []
    for fn in public:
        try:
            tools.append(tool(fn))
        except ToolDefinitionError as exc:
            said = str(exc)  # the signature's errors already open with the function's name
            named = said if said.startswith(fn.__qualname__) else f"{fn.__name__}: {said}"
            raise FunctionsError(f"--functions {file}: {named} (prefix it with _ to leave it out)") from None
    return tools


def _defined_in(fn: Any, module: Any) -> bool:
    return getattr(fn, "__module__", None) == module.__name__
