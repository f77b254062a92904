"""Few-shot example sets: the JSON a set is written in, read into episodes, and where a set is found.

Why apart from the templates: an example set is data shared by every template
of a language, written out in each template's dialect at render time; this
module knows nothing of templates beyond the folders they sit in.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Mapping, Sequence

from .episodes import Episode, ExampleStep


def _require_str(entry: Mapping[str, Any], key: str, where: str, *, empty_ok: bool = False) -> str:
    value = entry.get(key)
    if not isinstance(value, str) or (not empty_ok and not value.strip()):
        raise ValueError(f"{where}: '{key}' must be a non-empty string")
    return value


def _coerce_episode(entry: Any, where: str) -> Episode:
    if isinstance(entry, Episode):
        return entry
    if not isinstance(entry, Mapping):
        raise ValueError(f"{where}: an episode must be an object, not {type(entry).__name__}")
    raw_steps = entry.get("steps", [])
    if not isinstance(raw_steps, list):
        raise ValueError(f"{where}: 'steps' must be a list")
    steps = []
    for i, raw in enumerate(raw_steps, 1):
        at = f"{where} step {i}"
        if isinstance(raw, ExampleStep):
            steps.append(raw)
            continue
        if not isinstance(raw, Mapping):
            raise ValueError(f"{at}: a step must be an object")
        args = raw.get("args", {})
        if not isinstance(args, (dict, str)):
            raise ValueError(f"{at}: 'args' must be an object or a string")
        steps.append(
            ExampleStep(
                thought=_require_str(raw, "thought", at),
                tool=_require_str(raw, "tool", at),
                args=args,
                observation=_require_str(raw, "observation", at, empty_ok=True),
            )
        )
    return Episode(
        question=_require_str(entry, "question", where),
        steps=tuple(steps),
        thought=_require_str(entry, "thought", where),
        answer=_require_str(entry, "answer", where),
        kind=str(entry.get("kind") or ""),
    )


def coerce_episodes(entries: Any, where: str) -> list[Episode]:
    """Episodes from a list (or an object with ``episodes``); ValueError naming ``where`` and the
    episode and step at fault."""
    if isinstance(entries, Mapping):
        entries = entries.get("episodes")
    if not isinstance(entries, (list, tuple)):
        raise ValueError(f"{where}: expected a list of episodes (or an object with 'episodes')")
    return [_coerce_episode(entry, f"{where} episode {i}") for i, entry in enumerate(entries, 1)]


def find_examples(name: str, template_path: Path, folders: Sequence[Path]) -> Path | None:
    """The file of example set ``name`` (a path, or ``examples/<name>.json`` beside the template,
    then in each template folder), or None."""
    if name.endswith(".json") or "/" in name or os.sep in name:
        candidate = Path(name)
        if not candidate.is_absolute():
            candidate = template_path.parent / candidate
        return candidate if candidate.is_file() else None
    for folder in (template_path.parent, *folders):
        candidate = folder / "examples" / f"{name}.json"
        if candidate.is_file():
            return candidate
    return None
