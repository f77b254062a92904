"""Masking secrets in what a run records and prints: named fields and values that look like keys.

Tool arguments, tool results, model turns and prompts all reach the trace and
the console. A :class:`Redactor` walks that event data (pure: JSON data in,
JSON data out) and replaces

* the value of any dict key whose name is a secret field (``password``,
  ``api_key``, ``token``, ... plus the caller's own names), compared without
  case, ``_``, ``-`` or spaces;
* ``name: value`` / ``name=value`` / ``"name": "value"`` for those names
  inside free text (a model's ``Action Input`` JSON, a prompt);
* values that look like credentials wherever they are: ``sk-…`` / ``ghp_…`` /
  ``AKIA…`` / ``xox?-…`` / ``AIza…`` keys, JWTs, ``Bearer`` and ``Basic``
  credentials, PEM private keys, and the ``user:password@`` part of a URL.

Traces redact with the default fields unless told not to (``trace.TraceWriter``),
so a key a user pasted into a question or a tool returned is not written down.

A redacted trace cannot be replayed exactly (its prompts no longer match what
the model was sent); that is the price of not writing the secret down.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterable

__all__ = ["MASK", "SECRET_FIELDS", "Redactor", "is_secret_field", "safe_url"]

MASK = "[redacted]"

SECRET_FIELDS = frozenset({
    "password", "passwd", "pass", "pwd", "passphrase", "secret", "clientsecret", "token", "accesstoken",
    "refreshtoken", "idtoken", "authtoken", "apikey", "xapikey", "apisecret", "apitoken", "accesskey", "secretkey", "privatekey",
    "authorization", "cookie", "setcookie", "sessionid",
})
"""Field names (normalised: casefolded, without ``_``/``-``/spaces) always treated as secret."""

_SECRET_VALUES = re.compile(
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(?:-----END [A-Z ]*PRIVATE KEY-----|\Z)"
    r"|\bsk-[A-Za-z0-9_\-]{16,}"
    r"|\bgh[pousr]_[A-Za-z0-9]{20,}"
    r"|\bgithub_pat_[A-Za-z0-9_]{20,}"
    r"|\bAKIA[0-9A-Z]{16}\b"
    r"|\bxox[abprs]-[A-Za-z0-9\-]{10,}"
    r"|\bAIza[0-9A-Za-z_\-]{35}"
    r"|\beyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"
    r"|(?<=\bBearer )[A-Za-z0-9._~+/\-]{8,}=*"
    r"|(?<=\bBasic )[A-Za-z0-9+/]{8,}=*"
    r"|(?<=://)[^/\s@?#\[\]]+(?=@)",
    re.DOTALL | re.IGNORECASE,
)


_USERINFO = re.compile(r"(?<=://)[^/\s@?#]*@")


def safe_url(url: str) -> str:
    """``url`` without its ``user:password@`` part, for anything logged or sent to a client."""
    return _USERINFO.sub("", url)


def _norm(name: str) -> str:
    return re.sub(r"[\s_\-]", "", name).casefold()


def is_secret_field(name: str, fields: frozenset[str] = SECRET_FIELDS) -> bool:
    """Whether a field called ``name`` holds a secret (``fields`` as ``Redactor.fields``: normalised)."""
    return bool(name) and _norm(name) in fields


@dataclass(frozen=True)
class Redactor:
    """Masks secret fields and secret-looking values in event data; ``fields`` adds names."""

    fields: frozenset[str] = SECRET_FIELDS

    @classmethod
    def with_fields(cls, names: Iterable[str] = ()) -> "Redactor":
        return cls(SECRET_FIELDS | {_norm(str(n)) for n in names})

    @classmethod
    def from_option(cls, redact: Any) -> "Redactor | None":
        """The redactor an ``Agent(redact=...)`` option asks for: None the defaults; False none; a field
        name or names add to the defaults; a callable (which does its own masking) keeps only the defaults."""
        if redact is False:
            return None
        if redact is None:
            return cls()
        return cls.with_fields(() if callable(redact) else [redact] if isinstance(redact, str) else redact)

    def text(self, value: str) -> str:
        """``value`` with secret-looking values and ``field: value`` pairs masked."""
        value = _SECRET_VALUES.sub(MASK, value)
        return self._pairs.sub(lambda m: m.group(1) + MASK, value)

    def __call__(self, value: Any, _depth: int = 0) -> Any:
        """A copy of JSON-like ``value`` with secrets masked (strings, lists, dicts at any depth)."""
        if isinstance(value, str):
            return self.text(value)
        if _depth > 64:
            return MASK  # fail closed: a secret may hide below
        if isinstance(value, dict):
            return {k: MASK if _norm(str(k)) in self.fields and value[k] not in (None, "")
                    else self(v, _depth + 1) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self(v, _depth + 1) for v in value]
        return value

    @property
    def _pairs(self) -> re.Pattern[str]:
        return _pair_pattern(self.fields)


_PAIR_CACHE: dict[frozenset[str], re.Pattern[str]] = {}


def _pair_pattern(fields: frozenset[str]) -> re.Pattern[str]:
    """``name: value`` for any spelling of a secret field name (``api_key``, ``Api-Key``, ``APIKEY``)."""
    pattern = _PAIR_CACHE.get(fields)
    if pattern is None:
        spelled = "|".join(sorted((r"[\s_\-]?".join(re.escape(c) for c in name) for name in fields), key=len,
                                  reverse=True))
        pattern = re.compile(
            rf"""((?<![A-Za-z0-9_\-])["']?(?:{spelled})["']?\s*[:=]\s*(?:(?:Bearer|Basic|Token)\s+)?["']?)"""
            r"""(?!\[redacted\]|(?:Bearer|Basic|Token)\b)[^\s"',;{}\[\]][^\s"',;}\]]*""",
            re.IGNORECASE,
        )
        _PAIR_CACHE[fields] = pattern
    return pattern
