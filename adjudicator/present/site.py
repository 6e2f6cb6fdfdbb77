"""The static site of a game: HTML pages and their pictures in a folder, viewed without a server.

While the game runs, the site shows what the public may see: the public report of every turn
(from its stored public view) and the public record. Once the game is over it shows everything:
also each player's and the game master's report of every turn. It reads the game and writes
nothing into it. Pages are in the game's language, made from the templates in
``templates/common/site/`` and from the report pages of :mod:`adjudicator.present.html`, whose
pictures are PNG files under ``pictures/`` and above which the site puts a line of links (the
index, the reader's list, the turns before and after); the index has a chart of the game as
inline SVG.
Links are relative, nothing is fetched from anywhere, no scripts. Every page shows the chain head
as it stands when the site is made (and the index the seed commitment, and once the game is over
the seed and salt that open it).

Files: ``index.html``; ``turn-NNNN.html`` (the public report of turn NNNN); once the game is
over, ``player-<name>.html`` and ``gm.html`` (lists of that reader's reports) with
``player-<name>.turn-NNNN.html`` and ``gm.turn-NNNN.html``; ``pictures/<digest>.png``; and
``rules.<lang>.html``, the game's rules summary (:mod:`adjudicator.present.rules_summary`) in
each language it ships, which holds nothing of the game played. Every other page links to the
rules page in the game's language (English when the game has none in it).
"""

from __future__ import annotations

import importlib
import os
import shutil
import signal
import struct
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import quote

from adjudicator.present.hashes import chain, head_line
from adjudicator.present.html import Page, picture_file, render_page
from adjudicator.present.reports import game_info, report_environment
from adjudicator.rules.contract import Game
from adjudicator.rules.errors import UsageProblem
from adjudicator.rules.lang import game_lang
from adjudicator.store import interrupts

COLOURS = ["#7a244a", "#1f5f8b", "#3d7a2a", "#b8741a", "#5b3f8c", "#8b2f1f"]
"""Lines of the chart, by seat (a game that gives its players colours uses those)."""

NAMED = {
    "red": "#b22222",
    "yellow": "#c9a000",
    "green": "#2e7d32",
    "blue": "#1f4fa8",
    "white": "#777777",
    "black": "#222222",
    "purple": "#6a1b9a",
}
WIDTH, HEIGHT, MARGIN = 640, 280, 40


def turn_page(turn: int, reader: str = "public") -> str:
    """The file name of ``reader``'s report page of ``turn``: the dot before ``turn`` is in no
    player's name, so no name can make one reader's page another's (``player-x.turn-0001``)."""
    if reader == "public":
        return f"turn-{turn:04d}.html"
    if reader == "gm":
        return f"gm.turn-{turn:04d}.html"
    return f"player-{reader}.turn-{turn:04d}.html"


def reader_page(reader: str) -> str:
    """The file name of the page that lists ``reader``'s reports (a player or ``gm``)."""
    return "gm.html" if reader == "gm" else f"player-{reader}.html"


def rules_page(lang: str) -> str:
    """The file name of the rules page in ``lang`` (no reader's page begins with ``rules``)."""
    return f"rules.{lang}.html"


LANGUAGE_NAMES = {"en": "English", "de": "Deutsch", "nl": "Nederlands", "fr": "Français"}
"""Each language by its own name, for the links between the rules pages."""


def rules_pages(game: Game, info: Mapping[str, Any], head: str) -> dict[str, bytes]:
    """The rules page in each language ``game`` ships its summary in, each linking the others
    (none for a game that ships no summary)."""
    from markupsafe import Markup

    from adjudicator.present.rules_summary import languages, summary_html

    shipped = languages(game)
    pages = {}
    for lang in shipped:
        others = [(LANGUAGE_NAMES.get(o, o), href(rules_page(o))) for o in shipped if o != lang]
        page = (
            report_environment(game, lang)
            .get_template("site/rules.html.j2")
            .render(
                game=info,
                summary=Markup(summary_html(game, lang) or ""),  # markdown-it escapes raw HTML
                others=others,
                chain=[head_line(head)],
            )
        )
        pages[rules_page(lang)] = page.encode("utf-8")
    return pages


def build(root: Path, ahead: Ahead | None = None) -> dict[str, bytes]:
    """Every file of the site of the game in ``root``, by relative path; ``ahead``: the report
    pages made while the game was played (:mod:`adjudicator.present.site_early`)."""
    from adjudicator.engine.open_game import OpenGame
    from adjudicator.engine.queries import record, stored_view
    from adjudicator.present.rules_summary import languages

    handle = OpenGame(root)
    head = handle.dir.head()
    game, meta = handle.game, handle.meta
    lang = game_lang(meta)
    if handle.waiting():
        return _before_the_deal(handle, record(root), head)
    over = handle.over()
    turns = list(range(1, handle.turn() + 1))
    readers = ["public", *([*handle.players, "gm"] if over else [])]
    shipped = languages(game)
    rules = None
    if shipped:  # the game's language, else the first the game ships (English)
        rules = href(rules_page(lang if lang in shipped else shipped[0]))

    def the_others() -> dict[str, bytes]:
        """The rules pages, the index and the readers' lists."""
        env = report_environment(game, lang)
        info = game_info(game, meta, over)
        files = rules_pages(game, info, head)
        links = {
            "turns": [(turn, href(turn_page(turn))) for turn in turns],
            "readers": [(r, href(reader_page(r))) for r in readers if r != "public"],
        }
        files["index.html"] = (
            env.get_template("site/index.html.j2")
            .render(
                game=info,
                turn=turns[-1],
                over=over,
                phase=None,
                seats=None,
                commitment=None,
                rules=rules,
                links=links,
                charts=charts(game, record(root)),
                final=href(turn_page(turns[-1])) if over else None,
                chain=chain(stored_view(handle, "public", turns[-1]), head, every_turn=True),
            )
            .encode("utf-8")
        )
        for reader in readers[1:]:
            files[reader_page(reader)] = (
                env.get_template("site/reader.html.j2")
                .render(
                    game=info,
                    reader=reader,
                    rules=rules,
                    pages=[(turn, href(turn_page(turn, reader))) for turn in turns],
                    chain=[head_line(head)],
                )
                .encode("utf-8")
            )
        return files

    return _Pages(root, head, readers, turns[-1], over, rules).all_made(handle, the_others, ahead)


def report(game: Game, meta: dict[str, Any], doc: dict[str, Any], head: str) -> Page:
    """The report page of the stored view ``doc`` as the site shows it, in the game's language,
    before the site's links are added (its pictures files beside it)."""
    return render_page(game, meta, doc, game_lang(meta), embed="file", head=head)


class Ahead(Protocol):
    """Report pages made while the game was played, by another process
    (:class:`adjudicator.present.site_early.Ahead`)."""

    @property
    def used(self) -> bool:
        """Whether any turn was handed to another process."""

    def stop(self) -> None:
        """No turn is handed over after this."""

    def take_back(self) -> int | None:
        """The last turn handed over that the other process has not begun, for the site to
        make; None when there is none."""

    def ready(self, pages: _Pages, handle: Any) -> dict[int, dict[str, bytes]]:
        """The files of each other turn made, as ``pages`` makes them (waiting for them)."""


PARALLEL = 64
"""The fewest report pages a site shares among the machine's processors (fewer take less time
than starting another process)."""


@dataclass(frozen=True)
class _Pages:
    """The report pages of a site, with the pictures they show: each reader's page of each
    turn up to ``last``, as the game at ``root`` stood when its chain head was ``head``."""

    root: Path
    head: str
    readers: list[str]
    last: int
    over: bool
    rules: str | None

    def made(self, handle: Any, turns: list[int]) -> dict[str, bytes]:
        """The pages of ``turns`` (every reader's) of the game open in ``handle``, and their
        pictures, by file name."""
        from adjudicator.engine.queries import stored_view

        game, meta = handle.game, handle.meta
        files: dict[str, bytes] = {}
        for reader in self.readers:
            for turn in turns:
                interrupts.check()  # a Ctrl-C Python lost ends a site as it ends a step
                page = report(game, meta, stored_view(handle, reader, turn), self.head)
                files[turn_page(turn, reader)] = self.with_bar(handle, reader, turn, page.html)
                for picture in page.pictures.values():
                    files[picture_file(picture)] = picture
        return files

    def with_bar(self, handle: Any, reader: str, turn: int, html: str) -> bytes:
        """``reader``'s report page of ``turn`` with the site's links above it, as its file holds
        it."""
        game, meta = handle.game, handle.meta
        nav = report_environment(game, game_lang(meta)).get_template("site/nav.html.j2")
        before = (turn - 1, href(turn_page(turn - 1, reader))) if turn > 1 else None
        after = (turn + 1, href(turn_page(turn + 1, reader))) if turn < self.last else None
        bar = nav.render(
            game=game_info(game, meta, self.over),
            reader=reader,
            rules=self.rules,
            up=None if reader == "public" else href(reader_page(reader)),
            previous=before,
            next=after,
        )
        return with_nav(html, bar).encode("utf-8")

    def taken(self, handle: Any, claims: int) -> dict[int, dict[str, bytes]]:
        """:meth:`made` of each turn this process takes from ``claims`` (see :meth:`all_made`),
        one at a time until none is left, by turn."""
        made = {}
        while (turn := _claim(claims)) is not None:
            made[turn] = self.made(handle, [turn])
        return made

    def made_elsewhere(self) -> dict[int, dict[str, bytes]] | None:
        """:meth:`taken` in another process, which opens the game again: None when the game
        has moved on from ``head`` meanwhile (it takes no turn then)."""
        from adjudicator.engine.open_game import OpenGame

        handle = OpenGame(self.root)
        return self.taken(handle, _CLAIMS) if handle.dir.head() == self.head else None

    def all_made(
        self, handle: Any, meanwhile: Callable[[], dict[str, bytes]], ahead: Ahead | None = None
    ) -> dict[str, bytes]:
        """The pages of every turn, and the files ``meanwhile`` makes. A site of
        :data:`PARALLEL` pages or more is shared among as many processes as the machine has
        processors (at most four). This one makes the first turn's pages, so that the others,
        forked then, start with the templates compiled and the pictures' modules loaded; it
        makes the files of ``meanwhile`` before it joins them. Each takes the next turn not
        taken yet, the last first (in a finished game the heaviest by far: its end), then the
        others from the second on, until none is left (a turn's pictures are drawn once for all
        its readers), so the processes end together whatever each turn costs. A turn another
        process took and could not make is made here, which then tells what is wrong (a file of
        the game gone, ...). Made here alone where processes cannot be forked, where this one
        runs threads (forking them is unsafe), and for more turns than a pipe holds. With
        ``ahead`` (turns made while the game was played): after the files of ``meanwhile``,
        this one takes back the turns the other process has not begun, the last first, one at a
        time until none is left, and makes each while that one goes on with the earliest."""
        import multiprocessing
        import threading
        from concurrent.futures import ProcessPoolExecutor

        from adjudicator.store.gamedir import end_fsync_threads

        if ahead is not None and ahead.used:
            ahead.stop()
            files = meanwhile()
            left = []
            while (turn := ahead.take_back()) is not None:
                files.update(self.made(handle, [turn]))
                left.append(turn)
            ready = ahead.ready(self, handle)
            for turn in range(1, self.last + 1):
                if turn not in left:
                    files.update(ready[turn] if turn in ready else self.made(handle, [turn]))
            return files
        end_fsync_threads()  # idle since the last step: not a reason to make the site alone
        turns = list(range(1, self.last + 1))
        count = min(processors(), 4, len(turns))
        shared = (
            len(self.readers) * len(turns) >= PARALLEL
            and count >= 2
            and "fork" in multiprocessing.get_all_start_methods()
            and threading.active_count() == 1
        )
        if not shared:
            files = meanwhile()
            files.update(self.made(handle, turns))
            return files
        made = {turns[0]: self.made(handle, turns[:1])}
        claims = _claims([turns[-1], *turns[1:-1]])
        if claims is None:  # more turns than a pipe holds
            files = meanwhile()
            files.update(made[turns[0]])
            files.update(self.made(handle, turns[1:]))
            return files
        try:
            context = multiprocessing.get_context("fork")
            pool = ProcessPoolExecutor(count - 1, context, _forked, (claims, os.getpid()))
            try:
                with interrupts_held():  # a Ctrl-C now waits until each process can take it
                    others = [pool.submit(self.made_elsewhere) for _ in range(count - 1)]
                files = meanwhile()
                made.update(self.taken(handle, claims))  # then this one's share
                for other in others:
                    with suppress(Exception):  # its turns are made here, which says what is wrong
                        made.update(other.result() or {})
            except BaseException:  # Ctrl-C (which ended the others), or a problem with the game
                _drain(claims)  # the others take no more turns
                pool.shutdown(wait=True, cancel_futures=True)  # ended here, not racing the exit
                raise
            pool.shutdown()
        finally:
            os.close(claims)
        for turn in turns:
            files.update(made[turn] if turn in made else self.made(handle, [turn]))
        return files


_CLAIM = struct.Struct("=I")
"""A turn as the pipe of claims holds it."""
_CLAIMS = -1
"""The pipe a forked process takes its turns from (:func:`_forked`)."""


def _claims(turns: list[int]) -> int | None:
    """A pipe holding ``turns`` (each :data:`_CLAIM`), to be taken in that order by whichever
    process reads next: its reading end, or None when they do not fit in it. A pipe's reader
    takes whole records, one at a time, and a process that dies holds no lock over the others."""
    read, write = os.pipe()
    data = b"".join(_CLAIM.pack(turn) for turn in turns)
    try:
        os.set_blocking(write, False)
        written = os.write(write, data)
    except BlockingIOError:
        written = 0
    finally:
        os.close(write)
    if written < len(data):
        os.close(read)
        return None
    return read


def _claim(claims: int) -> int | None:
    """The next turn from the pipe ``claims``, or None when every turn is taken."""
    data = os.read(claims, _CLAIM.size)
    return _CLAIM.unpack(data)[0] if len(data) == _CLAIM.size else None


def _drain(claims: int) -> None:
    """Take every turn left in the pipe ``claims``, so that no process takes another."""
    while _claim(claims) is not None:
        pass


def _forked(claims: int, parent: int) -> None:
    """Set up a process forked by ``parent``: it takes its turns from ``claims``, ends on
    Ctrl-C, and ends when ``parent`` does, however that ends (killed, it runs no code that
    could end the others)."""
    global _CLAIMS
    _CLAIMS = claims
    helping(parent)


def helping(parent: int) -> None:
    """Set up a process forked by ``parent`` to make pages for it: it ends at once, without a
    word, on Ctrl-C, and when ``parent`` ends, however that ends."""
    _on_interrupt()
    _end_with(parent)


def _end_with(parent: int) -> None:
    """Have Linux kill this process when ``parent``, which forked it, ends
    (``PR_SET_PDEATHSIG``); elsewhere, nothing. A parent gone already ends it now."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    with suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # it ended before the request was made
        os._exit(1)


_PR_SET_PDEATHSIG = 1


@contextmanager
def interrupts_held() -> Iterator[None]:
    """Ctrl-C held back while processes are forked: each takes it once it is set up to."""
    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def _on_interrupt() -> None:
    """A forked process ends at once, without a word, on Ctrl-C (the first process says it);
    where the first process ignores Ctrl-C (started in the background, under ``nohup``), so
    does it."""
    if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def processors() -> int:
    """How many processors this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def _before_the_deal(handle: Any, data: dict[str, Any], head: str) -> dict[str, bytes]:
    """The site of a game not dealt yet: its rules and a front page that says why (open for
    sign-up, with the seats taken and open; did not start; waits for the shares)."""
    game, meta = handle.game, handle.meta
    lang = game_lang(meta)
    info = game_info(game, meta, False)
    files = rules_pages(game, info, head)
    wanted = rules_page(lang)
    rules = href(wanted if wanted in files else next(iter(files))) if files else None
    seats = data.get("seats")
    files["index.html"] = (
        report_environment(game, lang)
        .get_template("site/index.html.j2")
        .render(
            game=info,
            turn=None,
            over=bool(data["over"]),
            phase=data["phase"],
            seats=seats,
            commitment=data["commitment"],
            rules=rules,
            links={"turns": [], "readers": []},
            charts=[],
            final=None,
            chain=[head_line(head)],
        )
        .encode("utf-8")
    )
    return files


def with_nav(html: str, bar: str) -> str:
    """A report page with the site's links at the top of its body (a report page is made for
    mail, which has no site to link to)."""
    start = html.find("<body")
    end = html.find(">", start) + 1
    if start < 0 or end <= 0:
        return html
    return html[:end] + "\n" + bar.strip() + html[end:]


def href(name: str) -> str:
    """A relative link to a file of the site."""
    return quote(name)


def write(root: Path, out: Path, ahead: Ahead | None = None) -> list[str]:
    """Writes the site of the game in ``root`` into ``out`` (which must not exist or be empty)
    and returns the files written. The site is made in a fresh folder beside ``out`` and moved
    into place, so ``out`` holds the whole site or nothing. ``ahead``: as :func:`build`'s."""
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise UsageProblem(f"{out}: the site directory must not exist or must be empty")
    files = build(root, ahead)
    out.parent.mkdir(parents=True, exist_ok=True)
    fresh = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        for name, content in files.items():
            path = fresh / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content)
        fresh.chmod(0o755)
        if out.exists():
            out.rmdir()
        os.rename(fresh, out)
    except BaseException:
        with interrupts.held():  # a second Ctrl-C waits until nothing is left
            shutil.rmtree(fresh, ignore_errors=True)
        raise
    return sorted(files)


# -- the chart ---------------------------------------------------------------------------------
def _power_types(hand: list[str | None] | None) -> int:
    """The different power types in a Court hand (a Pardon card is none; a card hidden while
    the game runs is ``None``)."""
    return len({card for card in hand or [] if card is not None and card != "Pardon"})


def series(game: Game, data: Mapping[str, Any]) -> tuple[str, dict[str, list[int]]] | None:
    """What the index charts, from the record: the kind (``score``: Sultan's running totals;
    ``types``: the Court's number of power types held) and each player's value from the start
    (round 0) to each round resolved; None for a game without a chart."""
    players: list[str] = list(data["players"])
    rounds: list[dict[str, Any]] = list(data.get("rounds") or [])
    if game.name == "sultan":
        score = importlib.import_module("adjudicator.games.sultan.rules").score
        collections: dict[str, dict[str, int]] = {p: {} for p in players}
        values = {p: [0] for p in players}
        for item in rounds:
            for award in item.get("awards", []):
                if award.get("winner") not in collections:
                    continue
                jewels = collections[award["winner"]]
                jewels[award["jewel"]] = jewels.get(award["jewel"], 0) + 1
            for p in players:
                values[p].append(int(score(collections[p], len(players))["total"]))
        return "score", values
    if game.name == "sultans_court":
        start = (data.get("deal") or {}).get("hands") or {}
        values = {p: [_power_types(start.get(p))] for p in players}
        for item in rounds:
            hands = item.get("after", {}).get("hands", {})
            for p in players:
                values[p].append(_power_types(hands.get(p)))
        return "types", values
    return None


def court_votes(data: Mapping[str, Any]) -> tuple[str, dict[str, list[int]]] | None:
    """The Court's second chart: each player's votes at court (the seat numbers of their vizirs
    at court, added up) as the game opened and after each round; None for another game."""
    if data.get("game") != "sultans_court":
        return None
    deal = data.get("deal") or {}
    markers: list[int] = list(deal.get("markers") or [])
    players: list[str] = list(data["players"])

    def votes(places: Mapping[str, Any], player: str) -> int:
        return sum(
            markers[place]
            for vizir, place in places.items()
            if vizir.split(".", 1)[0] == player and isinstance(place, int) and place < len(markers)
        )

    moments = [deal.get("vizirs") or {}]
    moments += [item.get("after", {}).get("vizirs", {}) for item in data.get("rounds") or []]
    return "votes", {p: [votes(places, p) for places in moments] for p in players}


def charts(game: Game, data: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every chart of the index: Sultan's scores; the Court's power types and votes at court."""
    found = [series(game, data), court_votes(data)]
    return [chart(data, *one) for one in found if one is not None]


def chart(data: Mapping[str, Any], kind: str, values: dict[str, list[int]]) -> dict[str, Any]:
    """A chart's drawing as numbers (the template adds its words): each player's line as SVG
    points, the axes' ticks, and the players' colours."""
    count = max(len(v) for v in values.values()) if values else 1
    top = max([1, *(max(v) for v in values.values() if v)])
    step = max(1, -(-top // 5))
    top = step * -(-top // step)
    plot_w, plot_h = WIDTH - 2 * MARGIN, HEIGHT - 2 * MARGIN

    def x(i: int) -> float:
        return MARGIN + (plot_w * i / (count - 1) if count > 1 else 0)

    def y(v: int) -> float:
        return HEIGHT - MARGIN - plot_h * v / top

    colours = data.get("colours") or {}
    lines = []
    for seat, (player, vals) in enumerate(values.items()):
        colour = NAMED.get(str(colours.get(player)), COLOURS[seat % len(COLOURS)])
        points = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(vals))
        last = vals[-1] if vals else 0
        lines.append({"player": player, "colour": colour, "points": points, "last": last})
    xs = sorted({0, count - 1, *range(0, count, max(1, count // 10))})
    return {
        "kind": kind,
        "width": WIDTH,
        "height": HEIGHT,
        "left": MARGIN,
        "right": WIDTH - MARGIN,
        "top": MARGIN,
        "bottom": HEIGHT - MARGIN,
        "lines": lines,
        "x_ticks": [(i, f"{x(i):.1f}") for i in xs if count > 0],
        "y_ticks": [(v, f"{y(v):.1f}") for v in range(0, top + 1, step)],
    }
