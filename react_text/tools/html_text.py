"""HTML to readable text in one linear pass: title, headings, paragraphs, list items, link text.

A page comes from wherever a model was steered, so reading it must cost time
in proportion to its size on any input. The standard library's ``html.parser``
does not: it re-scans an unclosed tag from every ``<`` it holds (``'<a ' * 16_666``,
50 kB, took 32 s of CPU). Here a small tokenizer looks at each character a
bounded number of times: a tag, comment or quoted value left open runs to the
end of the page, as in a browser, instead of being tried again further on.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator

__all__ = ["html_to_text"]

_DROP = frozenset({"script", "style", "noscript", "template", "svg", "iframe", "object", "noembed", "noframes"})
_BLOCKS = frozenset({"p", "div", "section", "article", "main", "header", "footer", "li", "tr", "br", "blockquote",
                     "pre", "table", "ul", "ol", "dl", "dt", "dd", "figcaption", "nav", "aside", "form"})
_HEADINGS = {"h1": "# ", "h2": "## ", "h3": "### ", "h4": "#### ", "h5": "##### ", "h6": "###### "}
_RAW_END = {name: re.compile(rf"</{name}(?![^\s/>])", re.IGNORECASE)
            for name in ("script", "style", "title", "textarea", "xmp", "iframe", "noembed", "noframes", "noscript")}
"""Elements whose content is text up to their end tag, never markup (as browsers read them)."""
_MARKUP = re.compile(r"<[A-Za-z/!?]")
"""Where markup may begin; any other ``<`` is text."""
_NAME = re.compile(r"[A-Za-z][^\s/>]*")
_PLAIN = re.compile(r"[^>\"']*")
_SPACE = " \t\n\r\f"


def html_to_text(page: str) -> str:
    """Readable text of an HTML page; never raises, linear in the page's length."""
    text = _Text()
    for kind, value in _tokens(page):
        if kind == "start":
            text.start(value)
        elif kind == "end":
            text.end(value)
        else:
            text.data(value)
    return text.result()


def _tokens(page: str) -> Iterator[tuple[str, str]]:
    """``("start" | "end", tag name)`` and ``("text", unescaped text)``; comments,
    doctypes and processing instructions are skipped."""
    size, i = len(page), 0
    while i < size:
        found = _MARKUP.search(page, i)
        lt = found.start() if found else size
        if lt > i:
            yield "text", html.unescape(page[i:lt])
        if found is None:
            return
        i, after = lt, page[lt + 1]
        if after == "/":
            name = _NAME.match(page, i + 2)
            if name:
                i = _tag_end(page, name.end())
                yield "end", name.group().lower()
            else:
                i = _past(page, ">", i + 2)
        elif after == "!" and page.startswith("<!--", i):
            i = _past(page, "-->", i + 4)
        elif after in ("!", "?"):
            i = _past(page, ">", i + 2)
        else:
            name = _NAME.match(page, i + 1)
            tag = name.group().lower()
            i = _tag_end(page, name.end())
            yield "start", tag
            if page[i - 2:i] == "/>":
                yield "end", tag
            elif tag in _RAW_END:
                close = _RAW_END[tag].search(page, i)
                stop = close.start() if close else size
                yield "text", html.unescape(page[i:stop])
                i = stop


def _tag_end(page: str, pos: int) -> int:
    """Just past the ``>`` that closes the tag whose attributes start at ``pos`` (the page's end if
    none). A quote opens a value only right after ``=``, as in a browser; each character is read once."""
    size = len(page)
    while True:
        segment = pos
        pos = _PLAIN.match(page, pos).end()
        if pos >= size:
            return size
        if page[pos] == ">":
            return pos + 1
        back = pos - 1
        while back >= segment and page[back] in _SPACE:
            back -= 1
        if back >= segment and page[back] == "=":
            close = page.find(page[pos], pos + 1)
            if close < 0:
                return size
            pos = close + 1
        else:
            pos += 1


def _past(page: str, mark: str, start: int) -> int:
    found = page.find(mark, start)
    return len(page) if found < 0 else found + len(mark)


class _Text:
    """Collects readable text: the title, headings (as ``#`` lines), blocks as paragraphs, list items."""

    def __init__(self) -> None:
        self.title: list[str] = []
        self.blocks: list[str] = []
        self._line: list[str] = []
        self._dropping = 0
        self._in_title = False

    def start(self, tag: str) -> None:
        if tag in _DROP:
            self._dropping += 1
        elif tag == "title":
            self._in_title = True
        elif tag in _HEADINGS:
            self._flush()
            self._line.append(_HEADINGS[tag])
        elif tag in _BLOCKS:
            self._flush()
            if tag == "li":
                self._line.append("- ")

    def end(self, tag: str) -> None:
        if tag in _DROP:
            self._dropping = max(0, self._dropping - 1)
        elif tag == "title":
            self._in_title = False
        elif tag in _HEADINGS or tag in _BLOCKS:
            self._flush()

    def data(self, text: str) -> None:
        if self._dropping:
            return
        (self.title if self._in_title else self._line).append(text)

    def _flush(self) -> None:
        text = " ".join("".join(self._line).split())
        if text and text not in ("-", "#"):
            self.blocks.append(text)
        self._line = []

    def result(self) -> str:
        self._flush()
        title = " ".join("".join(self.title).split())
        lines = ([f"Title: {title}"] if title else []) + [b for b in self.blocks if b.strip("#- ")]
        return "\n".join(lines)
