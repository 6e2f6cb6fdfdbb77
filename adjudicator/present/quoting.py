"""Text from an incoming message, made safe for a line a command prints or a mail it sends.

Whatever a message holds (a file name, a subject, a sender, a Message-ID) is a stranger's
choice. It reaches an output line or an outgoing mail only through these functions:

- :func:`printable` quotes it as escaped printable ASCII, at most 80 characters (docs/mail.md:
  "a reason quotes a message's text only as escaped printable ASCII, at most 80 characters");
- :func:`msg_id` keeps a Message-ID only when it is a valid msg-id (RFC 5322 3.6.4, without the
  obsolete forms), and :func:`shown_msg_id` prints one that is not as ``-``;
- :func:`one_line` makes a reason composed here (which may hold a translated word) one line of
  printable characters, so that no text can end a line early or steer a terminal.

Pure functions.
"""

from __future__ import annotations

import re

LIMIT = 80
"""The longest quotation of a message's text, in characters (escapes counted as written)."""

MAX_MSG_ID = 998 - len("In-Reply-To: ")
"""The longest Message-ID kept (985): RFC 5322 sets no limit below a line's 998 characters, and
Exchange's run past 100, so every id a program writes is kept, as long as it fits one line of an
answer's In-Reply-To. (A References chain of such ids is trimmed by its length.)"""

_ATEXT = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]"
_DOT_ATOM = rf"{_ATEXT}+(?:\.{_ATEXT}+)*"
_MSG_ID = re.compile(rf"<{_DOT_ATOM}@(?:{_DOT_ATOM}|\[[!-Z^-~]*\])>")
_ELLIPSIS = "..."


def printable(text: str | bytes | None, limit: int = LIMIT) -> str:
    """``text`` as printable ASCII: ``\\`` as ``\\\\``, tab, CR and LF as ``\\t``, ``\\r``, ``\\n``,
    other characters as ``\\xNN``, ``\\uNNNN`` or ``\\UNNNNNNNN`` (bytes that are not UTF-8 as
    ``\\xNN``), cut to ``limit`` characters with ``...`` at the end when longer; None is ``-``.
    """
    if text is None:
        return "-"
    if isinstance(text, bytes):
        text = text[: 4 * (limit + 1)].decode("utf-8", "surrogateescape")
    out: list[str] = []
    length = 0
    for char in text:
        piece = _escaped(char)
        if length + len(piece) > limit:
            while out and length + len(_ELLIPSIS) > limit:
                length -= len(out.pop())
            return "".join(out) + _ELLIPSIS
        out.append(piece)
        length += len(piece)
    return "".join(out)


def _escaped(char: str) -> str:
    code = ord(char)
    if char == "\\":
        return "\\\\"
    if 0x20 <= code < 0x7F:
        return char
    if char in "\t\r\n":
        return {"\t": "\\t", "\r": "\\r", "\n": "\\n"}[char]
    if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8 (surrogateescape)
        return f"\\x{code - 0xDC00:02x}"
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def one_line(text: str, limit: int = 400) -> str:
    """``text`` as one line: characters that do not print (controls, line and paragraph
    separators, bidirectional overrides) escaped as :func:`printable` does, the rest kept (a
    reason may be in the game's language), cut to ``limit`` characters with ``...``."""
    out = "".join(char if char.isprintable() else _escaped(char) for char in text[: limit * 2])
    return out if len(out) <= limit else out[: limit - len(_ELLIPSIS)] + _ELLIPSIS


def terminal(text: str) -> str:
    """``text`` as a terminal may show it: line breaks and tabs kept, every other character that
    does not print (controls such as ESC and CR, line and paragraph separators, bidirectional
    overrides) escaped as :func:`printable` does. Whatever a command prints goes through this:
    an escape sequence in a file name, an archive or a mail could otherwise erase or fake what
    the command says."""
    lines = text.split("\n")
    for number, line in enumerate(lines):
        if not line.replace("\t", " ").isprintable():  # most lines are: checked at C speed
            lines[number] = "".join(
                c if c.isprintable() or c == "\t" else _escaped(c) for c in line
            )
    return "\n".join(lines)


def terminal_json(text: str) -> str:
    """JSON text (``json.dumps`` with ``ensure_ascii=False``) as :func:`terminal` shows text,
    still JSON: each character that does not print becomes a ``\\uXXXX`` escape (a pair of them
    past U+FFFF), which JSON reads as the same character."""
    if text.replace("\n", " ").isprintable():
        return text
    return "".join(c if c.isprintable() or c == "\n" else _json_escaped(c) for c in text)


def _json_escaped(char: str) -> str:
    code = ord(char)
    if code < 0x10000:
        return f"\\u{code:04x}"
    high, low = divmod(code - 0x10000, 0x400)
    return f"\\u{0xD800 + high:04x}\\u{0xDC00 + low:04x}"


def msg_id(value: str | None) -> str | None:
    """``value`` (white space around it dropped) when it is one valid msg-id, else None."""
    if value is None:
        return None
    value = value.strip()
    if len(value) > MAX_MSG_ID or not _MSG_ID.fullmatch(value):
        return None
    return value


def shown_msg_id(value: str | None) -> str:
    """The Message-ID as an output line shows it: itself when valid, else ``-``."""
    return msg_id(value) or "-"


def addr_spec(address: str | None) -> str | None:
    """The addr-spec of an address (``Name <a@b>`` or ``a@b``), lower-cased to compare, or None."""
    if not address:
        return None
    from email.utils import parseaddr  # the email package: only when an address is read

    _, spec = parseaddr(address)
    local, at, domain = spec.rpartition("@")
    if not at or not local or not domain:
        return None
    return spec.lower()
