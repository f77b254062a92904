"""Line reading over one turn: where lines start and end, which may matter, and which open with a label.

``Lines`` only moves over the text; it reads no values. Lines that may matter are
picked in bulk (``lines_from``), so prose costs no Python work per line.
"""

from __future__ import annotations

import re
from typing import Iterable, Iterator, Optional

from .labels import (
    ACTIONISH,
    BRACKET_KINDS,
    BRACKET_LABEL,
    DECORATION_CHARS,
    FIRST,
    FIRST_FENCE,
    LABEL_BY_FIRST,
    NON_SPACE,
    PICK1_ALL,
    PICK3_ALL,
    WALK_FIRST,
    WALK_NEXT,
)
from .names import SEPARATORS

CHUNK = 8192  # a long turn is picked this many characters at a time
BLANKS = re.compile(r"[ \t]*")
MAX_BLOB_TRIES = 64  # failed reads of JSON-looking lines that name no tool, per turn
MATCH_END = re.Match.end
SPECIAL_TOKENS = ("<|im_end|>", "<|endoftext|>", "<end_of_turn>", "<|eot_id|>", "<|eom_id|>", "<|end|>", "</s>")


def hard_end(text: str) -> int:
    """Where the turn really ends: the first chat special token, if the backend left one in."""
    end = len(text)
    if "<" in text:
        for tok in SPECIAL_TOKENS:
            k = text.find(tok, 0, end)
            if k >= 0:
                end = k
    return end


def first_of(text: str, chars: str, start: int, end: int) -> int:
    best = -1
    for ch in chars:
        k = text.find(ch, start, end)
        if k >= 0 and (best < 0 or k < best):
            best = k
    return best


class Lines:
    """The text of one turn, read up to its hard end (``limit``), with the line-level moves the readers share."""

    __slots__ = ("text", "limit", "blob_failures")

    def __init__(self, text: str) -> None:
        self.text = text
        self.limit = hard_end(text)
        self.blob_failures = 0  # JSON-looking lines that were not JSON (bounded: past MAX_BLOB_TRIES, labels only)

    def line_end(self, i: int) -> int:
        j = self.text.find("\n", i, self.limit)
        return self.limit if j < 0 else j

    def next_line(self, i: int) -> int:
        """Start of the line after the one holding offset ``i`` (``limit`` at the end)."""
        j = self.text.find("\n", i, self.limit)
        return self.limit if j < 0 else j + 1

    def label(self, i: int, end: Optional[int] = None) -> Optional[tuple[str, int]]:
        """(kind, content start) when the line starting at ``i`` opens with a label."""
        if i >= self.limit:
            return None
        text = self.text
        if end is None:  # self.line_end(i), inlined
            end = text.find("\n", i, self.limit)
            if end < 0:
                end = self.limit
        le = end
        first = text[i] if i < le else ""
        if first in DECORATION_CHARS:  # markdown in front: the first letter after it (within 16 characters)
            first = text[i:min(le, i + 16)].lstrip(DECORATION_CHARS)[:1]
        pattern = LABEL_BY_FIRST.get(first)  # cheap first-letter filter
        if pattern is None:
            return self.bracket_label(i, le) if first == "[" else None
        m = pattern.match(text, i, le)
        if m is None:
            return None
        return m.lastgroup or "", m.end()

    def bracket_label(self, i: int, le: int) -> Optional[tuple[str, int]]:
        """Semantic Kernel's "[ACTION]", "[FINAL ANSWER]" as a label."""
        m = BRACKET_LABEL.match(self.text, i, le)
        if m is None:
            return None
        return BRACKET_KINDS[SEPARATORS.sub("", m.group(1).casefold())], m.end()

    def is_fence(self, i: int, le: int) -> bool:
        return self.text.startswith("```", self.first_char(i, min(le, i + 12)))

    def is_boundary(self, text: str, line_start: int) -> bool:
        """A line that ends an unclosed value: a label or a code fence."""
        le = self.line_end(line_start)
        return self.label(line_start, le) is not None or self.is_fence(line_start, le)

    def find_line(self, i: int, *, fence: bool = False, blank: bool = False) -> int:
        """Start of the first line from line start ``i`` that is a label (or a fence / blank line)."""
        text = self.text
        for start in self.lines_from(i, fence=fence, blank=blank):
            le = self.line_end(start)
            if blank and not text[start:le].strip():
                return start
            if self.label(start, le) is not None or (fence and self.is_fence(start, le)):
                return start
        return self.limit

    def lines_from(self, start: int, *, blobs: bool = False, fence: bool = False,
                   blank: bool = False) -> Iterable[int]:
        """Offsets of the lines from line start ``start`` that may open with a label
        (or, on request, hold a JSON action, be a fence, or be blank), in order.

        With ``blobs`` (the walk) ``Thought:`` lines are not picked unless they may
        hold JSON: a thought is prose, and ``walk.thought_before`` finds its labels in one pass.
        A turn that fits in one chunk (most do) gets a list, without a generator.
        """
        limit = self.limit
        if start >= limit:
            return []
        if limit - start <= CHUNK or self.text.find("\n", start + CHUNK, limit) < 0:  # short (most turns): no find
            return self.picked(start, limit, blobs, fence, blank)
        return self.chunks(start, blobs, fence, blank)

    def chunks(self, start: int, blobs: bool, fence: bool, blank: bool) -> Iterator[int]:
        """``lines_from`` a chunk of about ``CHUNK`` characters at a time, so a long turn is picked lazily."""
        text, limit = self.text, self.limit
        chunk_start = start
        while chunk_start < limit:
            cut = text.find("\n", min(chunk_start + CHUNK, limit), limit)
            chunk_end = limit if cut < 0 else cut
            yield from self.picked(chunk_start, chunk_end, blobs, fence, blank)
            chunk_start = chunk_end + 1

    def picked(self, start: int, end: int, blobs: bool, fence: bool, blank: bool) -> list[int]:
        """``lines_from`` within the whole lines of ``text[start:end]``.

        The walk's lines are found by one pattern (``WALK_LINE``); otherwise
        ``split`` and a comprehension of C-level tests pick them. Either way the
        lines that cannot matter cost no Python work each.
        """
        text = self.text
        if blobs and self.blob_failures < MAX_BLOB_TRIES:  # else a flood of JSON-looking lines: labels only
            # each match is the "\n" before a picked line (the rest is a lookahead): its end is the line's start
            after = map(MATCH_END, WALK_NEXT.finditer(text, start, end))
            return [start, *after] if WALK_FIRST.match(text, start, end) else [*after]
        lines = text[start:end].split("\n")
        first_chars = FIRST_FENCE if fence else FIRST  # the first character rules most lines out
        picked = [k for k, line in enumerate(lines)
                  if line[:1] in first_chars
                  and (((h := line[:16].lstrip(DECORATION_CHARS))[:3].lower() in PICK3_ALL or h[:1] in PICK1_ALL)
                       or (fence and line[:16].lstrip()[:3] == "```")
                       or (blank and not line.strip()))]
        offsets = []
        line_no, offset = 0, start
        for k in picked:
            offset += sum(map(len, lines[line_no:k])) + (k - line_no)
            line_no = k
            offsets.append(offset)
        return offsets

    def blob_start(self, i: int, le: int) -> int:
        """Where a JSON action may start on the line at ``i`` (-1 if nowhere).

        At the line start: ``{``, ``[{``, a ``` fence holding JSON, ``<tool_call>``;
        inside prose: an object whose first key names a tool, or ``<tool_call>``.
        """
        text = self.text
        seg = text[i:min(le, i + 64)]
        rest = seg.lstrip(" \t>")
        p = i + len(seg) - len(rest)
        if rest:
            ch = rest[0]
            if ch == "{":
                return p
            if ch == "[":
                return p if text[p + 1:p + 24].lstrip()[:1] == "{" else -1
            if ch == "`" and rest.startswith("```"):
                after = text[p + 3:le].strip()
                if after[:1] in ("{", "["):
                    return p
                if after.isidentifier() or not after:  # ```json, then the JSON on the next lines
                    return p if text[le + 1:le + 81].lstrip()[:1] in ("{", "[") else -1
                return -1
            if ch == "<" and rest.startswith("<tool_call>"):
                return p
        k = text.find("{", p, le)
        tries = 0
        while k >= 0 and tries < 4:
            if ACTIONISH.match(text, k, min(k + 200, self.limit)):
                return k
            k = text.find("{", k + 1, le)
            tries += 1
        return text.find("<tool_call>", p, le)

    def skip_blank_lines(self, i: int) -> int:
        """Start of the first non-blank line at or after line start ``i`` (``limit`` if none)."""
        if i < self.limit and self.text[i] not in " \t\r\n\f\v":  # not blank (the usual case): no regex call
            return i
        q = NON_SPACE.match(self.text, i, self.limit).end()
        if q >= self.limit:
            return self.limit
        k = self.text.rfind("\n", i, q)
        return i if k < 0 else k + 1

    def first_char(self, i: int, end: int) -> int:
        """The first offset from ``i`` (before ``end``) that is not a space or tab."""
        text = self.text
        if i < end and text[i] not in " \t":  # nothing to skip: no regex call
            return i
        if i + 1 < end and text[i] == " " and text[i + 1] not in " \t":  # one space, as after a label's colon
            return i + 1
        return BLANKS.match(text, i, max(i, end)).end()

    def rstrip_end(self, start: int, end: int) -> int:
        """``end`` moved back over whitespace (not before ``start``), a window at a time."""
        text = self.text
        if end > start and not text[end - 1].isspace():  # nothing to strip (the usual case): no copy
            return end
        while end > start:
            window = text[max(start, end - 256):end]
            kept = window.rstrip()
            if kept:
                return end - len(window) + len(kept)
            end -= len(window)
        return start

    def starts_blob(self, i: int) -> bool:
        c = self.first_char(i, self.line_end(i))
        return c < self.limit and (self.text[c] == "{" or self.text.startswith("```", c))
