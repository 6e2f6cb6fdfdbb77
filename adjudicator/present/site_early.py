"""A site's report pages made while its game is played (the demo's site, on a second processor).

A turn's views are written once, when the turn opens, and never change (``opening_files``), so
every reader's report page of a turn can be made as soon as the next turn has opened, while the
game goes on. :class:`Ahead` hands each such turn to one other process, forked for it, which
makes the pages as :mod:`adjudicator.present.site` makes them, with one difference: it cannot
know the chain head the finished site shows, so it prints a random stand-in of 64 hex digits
where the head goes (as HTML prints a hash, all 64 digits; as text, ``#`` and the first 32).
When the site is made, :meth:`Ahead.ready` puts the head in the stand-in's place, adds the
site's links, and keeps a turn only where the pages were made from the very files the site
reads now: the same setup and seats (``meta``, as the journal gives them) and the same view
files (each by its digest).
Any other turn, and any the other process did not make, the site makes itself, as it would
without this module. Same game, same site, byte for byte (tests/test_site_early.py).
"""

from __future__ import annotations

import json
import os
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from adjudicator.present.hashes import TEXT_HEAD_DIGITS
from adjudicator.store import interrupts

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor


@dataclass
class _Made:
    """One turn's pages as the other process made them, with what they were made from."""

    meta: str
    views: dict[str, str | None]
    pages: dict[str, str]
    pictures: dict[str, dict[str, bytes]]


class Ahead:
    """The report pages of the game at ``root`` made in another process as its turns open;
    :meth:`close` ends that process, however the game ends."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.stand_in = secrets.token_hex(32)
        self._pool: ProcessPoolExecutor | None = None
        self._handed: dict[int, Future[_Made]] = {}
        self._alone = False
        """True once no more turns are handed over (the other process could not be started,
        or the site is being made)."""

    @property
    def used(self) -> bool:
        """Whether any turn was handed to another process."""
        return bool(self._handed)

    def opened(self, turn: int) -> None:
        """Turn ``turn`` has opened: every turn before it is complete, and handed over."""
        for done in range(1, turn):
            if self._alone:
                return
            if done in self._handed:
                continue
            pool = self._pool or self._start()
            if pool is None:
                return
            try:
                self._handed[done] = pool.submit(_made, str(self.root), done, self.stand_in)
            except Exception:  # the other process is gone (killed): the site makes the rest
                self._alone = True
                return

    def _start(self) -> ProcessPoolExecutor | None:
        """The other process, forked now, when this one may fork (no thread running, another
        processor to run on); None (and the site made as always) else."""
        import multiprocessing
        import threading
        from concurrent.futures import ProcessPoolExecutor

        from adjudicator.present import site
        from adjudicator.store.gamedir import end_fsync_threads

        end_fsync_threads()  # idle between steps; a process with threads must not fork
        if (
            site.processors() < 2
            or "fork" not in multiprocessing.get_all_start_methods()
            or threading.active_count() != 1
        ):
            self._alone = True
            return None
        context = multiprocessing.get_context("fork")
        pool = ProcessPoolExecutor(1, context, site.helping, (os.getpid(),))
        try:
            with site.interrupts_held():  # a Ctrl-C waits until the process can take it
                pool.submit(int).result()  # forked now, with no thread but this one
        except Exception:  # no process to be had (too many running, no memory): as always
            pool.shutdown(wait=True, cancel_futures=True)
            self._alone = True
            return None
        self._pool = pool
        return pool

    def stop(self) -> None:
        """No turn is handed over after this."""
        self._alone = True

    def take_back(self) -> int | None:
        """The last turn handed over that the other process has not begun, taken back for the
        site to make; None when there is none. The other process makes the turns in the order
        they were handed and often ends a game some turns behind (it makes every reader's pages
        of a turn, while the game plays a turn in less): the site, taking them one at a time
        from the end, meets it in the middle, however fast each one goes."""
        for turn in reversed(self._handed):
            made = self._handed[turn]
            if made.running() or made.done():
                return None  # begun: so is every turn handed before it
            if made.cancel():
                del self._handed[turn]
                return turn
        return None

    def ready(self, pages: Any, handle: Any) -> dict[int, dict[str, bytes]]:
        """The files of each turn the other process made (waiting for it), as ``pages`` (the
        site's :class:`adjudicator.present.site._Pages`) would make them from the game open in
        ``handle``: only the turns whose pages were made from the same files."""
        ready = {}
        for turn, future in self._handed.items():
            try:
                made = future.result()
            except Exception:  # the site makes the turn, and says what is wrong
                continue
            files = self._finished(made, turn, pages, handle)
            if files is not None:
                ready[turn] = files
        return ready

    def _finished(self, made: _Made, turn: int, pages: Any, handle: Any) -> dict[str, bytes] | None:
        from adjudicator.present.site import turn_page

        files = handle.facts.files
        if made.meta != _meta_key(handle.meta) or any(
            files.get(rel) != digest for rel, digest in made.views.items()
        ):
            return None  # made from other files than the site's
        finished: dict[str, bytes] = {}
        for reader in pages.readers:
            interrupts.check()  # a Ctrl-C Python lost ends a site as it ends a step
            html = made.pages.get(reader)
            html = None if html is None else self._headed(html, pages.head)
            if html is None:
                return None
            finished[turn_page(turn, reader)] = pages.with_bar(handle, reader, turn, html)
            finished.update(made.pictures[reader])
        return finished

    def _headed(self, html: str, head: str) -> str | None:
        """``html`` with the chain head ``head`` where the stand-in was, in both its shapes;
        None when some other trace of the stand-in is left (any 18 of its digits in a row, in
        either case)."""
        short = TEXT_HEAD_DIGITS
        html = html.replace(self.stand_in, head)
        html = html.replace(f"#{self.stand_in[:short]}", f"#{head[:short]}")
        lower = html.lower()
        traces = (self.stand_in[start : start + 12] for start in range(0, 64 - 11, 6))
        return None if any(trace in lower for trace in traces) else html

    def close(self) -> None:
        """End the other process, once the turn it is making (if any) is made; the turns it has
        not begun are dropped."""
        self._alone = True
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)


def _meta_key(meta: dict[str, Any]) -> str:
    return json.dumps(meta, sort_keys=True, default=str)


def _made(root: str, turn: int, stand_in: str) -> _Made:
    """Every reader's report page of ``turn``, with ``stand_in`` for the chain head (in the
    other process)."""
    from adjudicator.engine.open_game import OpenGame
    from adjudicator.engine.queries import stored_view
    from adjudicator.present.html import picture_file
    from adjudicator.present.site import report
    from adjudicator.rules import views
    from adjudicator.store.gamedir import GameDir

    handle = OpenGame(Path(root))
    game, meta = handle.game, handle.meta
    made = _Made(_meta_key(meta), {}, {}, {})
    for reader in ["public", *handle.players, "gm"]:
        rel = views.path(GameDir.turn_dir(turn), reader)
        made.views[rel] = handle.facts.files.get(rel)
        page = report(game, meta, stored_view(handle, reader, turn), stand_in)
        made.pages[reader] = page.html
        made.pictures[reader] = {picture_file(p): p for p in page.pictures.values()}
    return made
