"""The message catalogs: gettext translations of every text, per language.

Each folder of words (``templates/common`` and each game's templates folder) keeps its
catalogs in ``locale/<lang>/LC_MESSAGES/messages.po``, made and kept up to date with Babel
(``make catalogs``: ``pybabel extract``, ``update``, ``compile``), beside the compiled
``messages.mo`` that is read here with the standard library's :mod:`gettext`. English needs no
catalog: the texts and templates are written in English.

A game's catalog falls back to the adjudicator's own, so a game's templates may use the shared
words of ``templates/common``.
"""

from __future__ import annotations

import functools
import gettext
import hashlib
import io
from collections.abc import Callable, MutableMapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from adjudicator.rules import shipped
from adjudicator.rules.contract import Game
from adjudicator.rules.lang import DEFAULT, LANGUAGES
from adjudicator.store import usercache

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

    import jinja2

__all__ = ["DEFAULT", "LANGUAGES", "environment", "translations"]

KEPT_TEMPLATES = 512
"""How many compiled templates the cache folder keeps: every template of the adjudicator and its
games (some ninety) of several installs (each is named by the template's file, so an upgrade
in the same place writes over its own, unless it brings another release of Jinja)."""


def folder_translations(folder: Traversable, lang: str) -> gettext.NullTranslations:
    """The catalog of one folder of words in ``lang`` (empty for English or when there is
    none)."""
    if lang == DEFAULT:
        return gettext.NullTranslations()
    compiled = folder / "locale" / lang / "LC_MESSAGES" / "messages.mo"
    if not compiled.is_file():
        return gettext.NullTranslations()
    return gettext.GNUTranslations(io.BytesIO(compiled.read_bytes()))


def common_folder() -> Traversable:
    return shipped.templates() / "common"


_CACHE: dict[tuple[str | None, str], gettext.NullTranslations] = {}


def translations(game: Game | None, lang: str) -> gettext.NullTranslations:
    """The words of ``game`` (None: only the adjudicator's own) in ``lang``, with the
    adjudicator's own as the fallback; read once per process."""
    key = (None if game is None else game.name, lang)
    if key not in _CACHE:
        common = folder_translations(common_folder(), lang)
        if game is None:
            _CACHE[key] = common
        else:
            own = folder_translations(game.templates(), lang)
            own.add_fallback(common)
            _CACHE[key] = own
    return _CACHE[key]


def _bytecode_cache() -> jinja2.BytecodeCache | None:
    """Compiled templates kept in the user's cache folder (never in a game directory), so that
    a command does not compile every template again: each is keyed on what its code was
    compiled from and by (:func:`_compiled_by`), and Jinja checks the template's source and
    Python's version, so a changed template is compiled afresh. None when the folder cannot be
    made (a read-only home, say): templates are then compiled each time. The folder keeps
    :data:`KEPT_TEMPLATES` of them (those used longest ago go first)."""
    folder = usercache.folder("templates")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return _bytecode_cache_class()(str(folder))


@functools.cache
def _bytecode_cache_class() -> type[jinja2.FileSystemBytecodeCache]:
    import jinja2

    class BytecodeCache(jinja2.FileSystemBytecodeCache):
        """Jinja's cache of compiled templates in a folder of the user's cache, each kept as
        every entry of that cache is (:func:`usercache.write`, its SHA-256 before it): a file
        damaged in any way (cut short, scrambled, a bit flipped on the disk, a pipe or a device
        in its place) reads as none kept, and the template is compiled again. Jinja's own runs
        whatever code it finds, checking only the template's source. A folder removed while a
        long command runs, a file in its place or a full disk only mean nothing is kept."""

        def get_bucket(
            self,
            environment: jinja2.Environment,
            name: str,
            filename: str | None,
            source: str,
        ) -> jinja2.bccache.Bucket:
            made_by = repr((name, filename, _compiled_by(environment, name)))
            key = hashlib.sha256(made_by.encode("utf-8", "surrogateescape")).hexdigest()
            bucket = jinja2.bccache.Bucket(environment, key, self.get_source_checksum(source))
            self.load_bytecode(bucket)
            return bucket

        def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
            data = usercache.read(Path(self._get_cache_filename(bucket)))
            if data is None:
                return  # none kept, or damaged: compiled
            try:
                bucket.bytecode_from_string(data)
            except Exception:  # of another Python (pickle and marshal raise many kinds)
                bucket.reset()

        def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
            entry = Path(self._get_cache_filename(bucket))
            usercache.write(entry, bucket.bytecode_to_string(), keep=KEPT_TEMPLATES)

    return BytecodeCache


_LEXED_BY = (
    "block_start_string",
    "block_end_string",
    "variable_start_string",
    "variable_end_string",
    "comment_start_string",
    "comment_end_string",
    "line_statement_prefix",
    "line_comment_prefix",
    "trim_blocks",
    "lstrip_blocks",
    "newline_sequence",
    "keep_trailing_newline",
    "optimized",
    "is_async",
)
"""The settings of an environment that Jinja's lexer and code generator read."""


def _compiled_by(environment: jinja2.Environment, name: str) -> tuple[object, ...]:
    """What shapes the code of the template ``name`` beside its source: Jinja's release (the
    magic number of its code changes only with the code's format, not with its compiler), the
    environment's settings that the lexer and the code generator read, whether the template's
    output is escaped, its extensions, and how the i18n extension compiles ``{% trans %}``."""
    import jinja2

    escape = environment.autoescape
    return (
        jinja2.__version__,
        *(getattr(environment, setting) for setting in _LEXED_BY),
        escape(name) if callable(escape) else escape,
        sorted(environment.extensions),
        getattr(environment, "newstyle_gettext", False),
        environment.policies.get("ext.i18n.trimmed"),
        environment.policies.get("compiler.ascii_str"),
        environment.finalize is None,
    )


@functools.cache
def _environment_class() -> type[jinja2.Environment]:
    import jinja2

    class Environment(jinja2.Environment):
        """Jinja's environment, each template's globals one plain mapping.

        Jinja chains a template's globals to the environment's (a ``ChainMap``) and reads
        the chain whole at each render, include and macro import: some 20 us each in Python
        against 1 us for a dict, some thousands of times a site. Every global here is set as
        the environment is made, before any template is loaded (as Jinja's documentation asks
        of ``make_globals``), so a copy made as a template is loaded holds the same names and
        values."""

        def make_globals(self, d: MutableMapping[str, Any] | None) -> MutableMapping[str, Any]:
            return dict(super().make_globals(d))

    return Environment


def environment(
    loader: jinja2.BaseLoader,
    words: gettext.NullTranslations,
    autoescape: bool | Callable[[str | None], bool] = False,
) -> jinja2.Environment:
    """A Jinja environment as every template of the adjudicator is rendered: undefined names
    refused, block tags taking their own line, and Jinja's i18n extension speaking ``words``
    (newstyle gettext; ``{% trans %}`` blocks trimmed, as ``make catalogs`` extracts them);
    a template loaded once is not looked at again on disk.
    Jinja is imported here, so that a command that only words a message does not load it."""
    import jinja2

    env = _environment_class()(
        loader=loader,
        bytecode_cache=_bytecode_cache(),
        auto_reload=False,  # a template does not change while a command runs: no stat per use
        autoescape=autoescape,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        extensions=["jinja2.ext.i18n"],
    )
    env.policies["ext.i18n.trimmed"] = True
    env.install_gettext_translations(words, newstyle=True)  # type: ignore[attr-defined]
    # ``_`` is gettext itself, not the extension's alias that looks gettext up at every call:
    # the same words, one call less for each of the thousands of strings a site words
    env.globals["_"] = env.globals["gettext"]
    return env
