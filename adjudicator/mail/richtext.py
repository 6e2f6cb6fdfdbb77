"""The text of an HTML mail body, as the person who wrote it saw it: to find an order pasted into
a rich-text compose window (Thunderbird, Gmail, Apple Mail, Outlook).

A pasted order reaches an HTML body with its lines as ``<br>`` breaks, ``<div>`` or ``<p>``
blocks, or a ``<pre>``; runs of spaces (the YAML indentation) as no-break spaces (``&nbsp;``);
the HTML source itself wrapped anywhere there is a space; a quoted reply as ``<blockquote>``.
:func:`html_texts` undoes that as a browser renders it: white space in the source collapses to
one space (not in ``<pre>``), ``<br>`` ends a line, a block starts and ends one, a blockquote
becomes ``> `` at the start of each of its lines (so that the quoted-reply reading of a pasted
order applies), and ``<head>``, ``<style>``, ``<script>`` are left out. No-break spaces are
kept as such: the readings of a pasted order (``adjudicator.mail.incoming``) try each both ways.

The parser is the standard library's ``html.parser``; the input is capped (:data:`MAX_HTML`)
and parsed in one call, so the time stays within what that size allows.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

MAX_HTML = 1024 * 1024
"""Characters of an HTML body that are read (a pasted order is at most 64 KiB of text; the
mark-up around it is not worth more than this)."""

_BLOCKS = frozenset(
    {
        "address", "article", "aside", "blockquote", "body", "center", "dd", "details", "dialog",
        "dir", "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "h1",
        "h2", "h3", "h4", "h5", "h6", "header", "hr", "html", "li", "main", "menu", "nav", "ol",
        "p", "pre", "section", "summary", "table", "tbody", "td", "tfoot", "th", "thead", "tr",
        "ul", "xmp", "listing",
    }
)  # fmt: skip
_SKIPPED = frozenset({"head", "script", "style", "template", "title", "noscript"})
_VOID = frozenset({"br", "hr", "img", "meta", "link", "input", "wbr", "col", "area", "base"})
_PRE = frozenset({"pre", "xmp", "listing", "textarea", "plaintext"})
#: White space that HTML collapses (not the no-break space).
_COLLAPSE = re.compile(r"[ \t\n\r\f]+")
_LINE = re.compile(r"\r\n|\r|\n")


class _Text(HTMLParser):
    """The lines of an HTML document as rendered (see the module's docstring)."""

    def __init__(self, *, paragraph_gap: bool) -> None:
        super().__init__(convert_charrefs=True)
        self.paragraph_gap = paragraph_gap
        self.lines: list[str] = []
        self.current: list[str] = []
        self.quote = 0
        self.pre = 0
        self.skip = 0
        self.after_pre_start = False
        self.space_before = True  # at the start of a line, or after a space: drop a space

    # --- lines

    def _end_line(self, *, always: bool) -> None:
        """End the current line; an empty one only when ``always`` (a ``<br>``)."""
        text = "".join(self.current)
        if not self.pre:
            text = text.rstrip(" ")
        if not text and not always:
            return
        if not text.strip(" \u00a0"):
            text = ""  # a line of no-break spaces only is an empty line (Outlook's <o:p>)
        self.lines.append("> " * self.quote + text if text else ">" * self.quote)
        self.current = []
        self.space_before = True

    def _gap(self) -> None:
        """A blank line between two paragraphs, once."""
        if self.lines and self.lines[-1].strip("> ") and not self.current:
            self.lines.append(">" * self.quote)

    # --- the parser's events

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIPPED:
            self.skip += 1
            return
        if self.skip:
            return
        self.after_pre_start = False
        if tag == "br":
            self._end_line(always=True)
            return
        if tag in _BLOCKS:
            self._end_line(always=False)
            if tag == "p" and self.paragraph_gap:
                self._gap()
            if tag == "blockquote":
                self.quote += 1
            if tag in _PRE:
                self.pre += 1
                self.after_pre_start = True

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in _VOID:
            self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIPPED:
            self.skip = max(0, self.skip - 1)
            return
        if self.skip:
            return
        self.after_pre_start = False
        if tag in _BLOCKS:
            self._end_line(always=False)
            if tag == "blockquote":
                self.quote = max(0, self.quote - 1)
            if tag in _PRE:
                self.pre = max(0, self.pre - 1)

    def handle_data(self, data: str) -> None:
        if self.skip:
            return
        if self.pre:
            if self.after_pre_start and data[:1] in ("\n", "\r"):
                data = data[2:] if data.startswith("\r\n") else data[1:]
            self.after_pre_start = False
            pieces = _LINE.split(data)
            for piece in pieces[:-1]:
                self.current.append(piece)
                self._end_line(always=True)
            self.current.append(pieces[-1])
            return
        text = _COLLAPSE.sub(" ", data)
        if self.space_before:
            text = text.lstrip(" ")
        if text:
            self.current.append(text)
            self.space_before = text.endswith(" ")

    def text(self) -> str:
        self._end_line(always=False)
        return "".join(line + "\n" for line in self.lines)


def html_texts(html: str) -> list[str]:
    """The text of the HTML document ``html`` (its first :data:`MAX_HTML` characters), with LF
    line ends: each paragraph (``<p>``) a line or lines of its own; when the document has
    paragraphs, also with a blank line between two of them (as a mail program's plain-text
    version of it has, and as a player may have pasted lines typed in paragraph mode)."""
    html = html[:MAX_HTML]
    readings = [False, True] if re.search(r"(?i)<p[\s>]", html) else [False]
    texts: list[str] = []
    for gap in readings:
        parser = _Text(paragraph_gap=gap)
        parser.feed(html)
        parser.close()
        text = parser.text()
        if text not in texts:
            texts.append(text)
    return texts
