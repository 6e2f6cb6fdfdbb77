"""Template values made only when a template looks them up.

A report page is given the text report too (``text``), which only a page that shows it needs
(``fallback.html.j2``); rendering it for every page of a site took as long as the pages. A
:class:`Deferred` value in a template's variables is made the first time a template (or one it
includes or imports with context) looks it up, and then kept; a template that never looks it up
never makes it. Environments whose templates get deferred values render with
:class:`DeferringContext`, through Jinja's documented hook for lookups.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from jinja2.runtime import Context

_NOT_YET = object()


class Deferred:
    """A value made by ``make`` when first looked up, then kept."""

    def __init__(self, make: Callable[[], Any]) -> None:
        self._make = make
        self._value: Any = _NOT_YET

    def value(self) -> Any:
        if self._value is _NOT_YET:
            self._value = self._make()
        return self._value


class DeferringContext(Context):
    """A template context that gives a :class:`Deferred` variable's value, not the promise."""

    def resolve_or_missing(self, key: str) -> Any:
        found = super().resolve_or_missing(key)
        return found.value() if isinstance(found, Deferred) else found
