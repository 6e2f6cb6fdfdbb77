"""The header classes of every mail policy the adjudicator reads and writes mail with.

Python's :class:`~email.headerregistry.HeaderRegistry` makes a new class (``type()``) for
every header field it parses or sets, which was a tenth of the time a report mail took to
queue. :class:`HeaderClasses` makes the class of each kind of field once per process and
gives it out again: a field is the same kind of header (``Subject`` unstructured, ``To`` an
address list, ...) whichever message it is in. The classes are keyed by kind, not by field
name, so a stranger's message of many unknown field names adds nothing to keep.
"""

from __future__ import annotations

from email import policy
from email.headerregistry import BaseHeader, HeaderRegistry
from typing import Any


class HeaderClasses(HeaderRegistry):
    """A header registry that makes each kind of header's class once."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._made: dict[type, type[BaseHeader]] = {}

    def __getitem__(self, name: str) -> type[BaseHeader]:
        kind = self.registry.get(name.lower(), self.default_class)
        made = self._made.get(kind)
        if made is None:
            made = self._made[kind] = super().__getitem__(name)
        return made

    def __getstate__(self) -> dict[str, Any]:
        """What a pickle of a policy (and of a message, which holds its policy) keeps: the
        registry without the classes made, which pickle cannot name; they are made again."""
        return {**self.__dict__, "_made": {}}


DEFAULT_POLICY = policy.default.clone(header_factory=HeaderClasses())
"""The standard library's default policy, with :class:`HeaderClasses`."""
