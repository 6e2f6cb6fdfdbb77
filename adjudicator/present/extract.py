"""Babel's extraction method for the texts files (``texts/*.yaml``), named in babel.cfg.

Each code becomes one catalog entry whose context (``msgctxt``) is the code and whose
``msgid`` is its English text; a text by ``count`` becomes a plural entry (``one`` the
singular, ``other`` the plural). The words are then looked up with ``pgettext(code, text)``
and ``npgettext(code, one, other, count)`` (:func:`adjudicator.present.words.say`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import IO, Any

import yaml


def extract_texts(
    fileobj: IO[bytes],
    keywords: Mapping[str, Any],
    comment_tags: Sequence[str],
    options: Mapping[str, Any],
) -> Iterator[tuple[int, str, tuple[str, ...], list[str]]]:
    """``(line, function, messages, comments)`` for each code of one texts file."""
    node = yaml.compose(fileobj.read().decode("utf-8"))
    if not isinstance(node, yaml.MappingNode):
        return
    for key, value in node.value:
        line = key.start_mark.line + 1
        code = key.value
        if isinstance(value, yaml.ScalarNode):
            yield line, "pgettext", (code, value.value), [f"code: {code}"]
        elif isinstance(value, yaml.MappingNode):
            forms = {k.value: v.value for k, v in value.value}
            yield line, "npgettext", (code, forms["one"], forms["other"]), [f"code: {code}"]
