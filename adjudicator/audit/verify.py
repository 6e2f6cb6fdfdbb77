"""``verify``: check an archive on its own, from the setup, the signed orders and the journal.

In order: the journal is one hash chain (and passes through a head a player holds); every file
the archive holds is the one the journal names, by its digest; the seed and salt, once revealed,
open the commitment made at ``new``; every order's signature verifies against the key its player
had when it was accepted (as ``ssh-keygen -Y verify`` would) and its envelope names the game, the
player and the turn; and, with the seed, the whole game is played again from the journal by the
engine's own code (:mod:`adjudicator.audit.replica`): every order and notice a line took is
judged again by the intake as the game stood then, and every state, resolution and view is made
again and compared with the digest the journal holds for it. A public archive of a game still
running holds neither the seed nor the hidden files, so its intake and play wait for the end.
Mail as sent is checked by the digest ``send`` journaled. What disagrees is a :class:`Finding`
(data: the presentation layer words it); docs/archive.md says the same for players.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
from pathlib import Path
from typing import Any

from adjudicator.audit import signatures
from adjudicator.audit.archive import FORMAT, VERSION, shareable
from adjudicator.audit.findings import Finding, Seat, Summary
from adjudicator.audit.seats import joins
from adjudicator.audit.signatures import order_path
from adjudicator.audit.walk import Walk, loads
from adjudicator.engine.orders import Kind
from adjudicator.rules import digests
from adjudicator.rules.contract import Game, Msg, msg
from adjudicator.rules.errors import InputRefused, NotNow, UsageProblem
from adjudicator.store import journal
from adjudicator.store.gamedir import GENESIS
from adjudicator.store.readfile import FileRefused, read_regular

MAX_ARCHIVE_BYTES = 1 << 30
"""An archive is read whole: 1 GiB is far above any game's (a long game with mail: some MiB)."""
HEAD = re.compile(r"[0-9a-fA-F]{32,64}")
RESULT = re.compile(r"turns/[0-9]{4,}/(state\.json|resolution\.json|views/[^/]+)")
"""A turn's state, resolution and views: written once, by the step that made them."""
TAKEN_FILE = re.compile(r"turns/[0-9]{4,}/orders/[^/]+|notices/[^/]+/[^/]+|seats/joins/[^/]+")
"""Where a step puts what it takes from a player, signed: an order, a notice, a join or a
leave, and each one's signature."""
MAKERS = ("created", "adjudicated")
"""The lines whose steps make a turn's files (and a line that deals, of any type)."""
REFUSED_WHEN_OVER = tuple(kind for kind in journal.GM_ACTIONS if kind != "rolled-back")
"""The game master's lines whose commands refuse a game that is over (a rollback undoes the
adjudication that ended it)."""
HEADER = ("game", "id", "players", "options", "shares", "signup")
"""What the first line's header says of the game, which ``game.json`` must say too: the deal
and the seats follow ``game.json`` where an archive holds it."""
SUPERSEDED = re.compile(r"superseded-[0-9]+")
"""How a rollback marks the copy of what it set aside (``turns/0004.superseded-1``)."""


# -- reading --------------------------------------------------------------------------------------
def _refused(path: Path, why: Msg, line: int | None = None) -> InputRefused:
    if line:
        return InputRefused(msg("archive-refused-at", path=str(path), line=line, why=why))
    return InputRefused(msg("archive-refused", path=str(path), why=why))


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(f"duplicate key {key!r}")
        result[key] = value
    return result


def read(path: Path) -> dict[str, Any]:
    """The archive at ``path``, its shape checked; InputRefused (exit 3) naming the file, the
    line and the reason when it is no archive this version reads."""
    try:
        data = read_regular(path, MAX_ARCHIVE_BYTES)
    except FileRefused as error:
        raise _refused(path, error.why) from None
    try:
        text = data.decode("utf-8")
        archive = json.loads(
            text,
            object_pairs_hook=_unique,
            parse_constant=journal.refused,
            parse_float=journal.finite,
        )
    except UnicodeDecodeError as error:
        raise _refused(path, msg("archive-not-utf8", offset=error.start)) from None
    except json.JSONDecodeError as error:
        raise _refused(path, msg("archive-not-json", why=error.msg), error.lineno) from None
    except (ValueError, RecursionError) as error:
        raise _refused(path, msg("archive-not-json", why=str(error)[:80])) from None
    problem = _shape_problem(archive)
    if problem is not None:
        raise _refused(path, problem)
    checked: dict[str, Any] = archive
    return checked


_STRINGS = ("format", "made_by", "game", "id")


def _shape_problem(archive: Any) -> Msg | None:
    if not isinstance(archive, dict):
        return msg("archive-not-object")
    if archive.get("format") != FORMAT:
        return msg("archive-wrong-format", format=FORMAT)
    version = archive.get("version")
    if type(version) is not int or version != VERSION:
        return msg("archive-wrong-version", version=str(archive.get("version")), known=VERSION)
    known = {*_STRINGS, "version", "public", "over", "journal", "files", "seed", "salt"}
    unknown = sorted(set(archive) - known)
    if unknown:
        return msg("archive-unknown-key", key=unknown[0])
    for key in _STRINGS:
        if not isinstance(archive.get(key), str):
            return msg("archive-bad-key", key=key)
    for key in ("public", "over"):
        if type(archive.get(key)) is not bool:
            return msg("archive-bad-key", key=key)
    lines = archive.get("journal")
    if not isinstance(lines, list) or not lines:
        return msg("archive-bad-key", key="journal")
    for line in lines:
        if not isinstance(line, str) or "\n" in line:
            return msg("archive-bad-key", key="journal")
    if "seed" in archive and type(archive["seed"]) not in (str, int):
        return msg("archive-bad-key", key="seed")
    if "salt" in archive and not isinstance(archive["salt"], str):
        return msg("archive-bad-key", key="salt")
    return _files_problem(archive.get("files"))


def _files_problem(files: Any) -> Msg | None:
    if not isinstance(files, list):
        return msg("archive-bad-key", key="files")
    seen: set[str] = set()
    for item in files:
        if not isinstance(item, dict) or not isinstance(item.get("path"), str):
            return msg("archive-bad-file")
        rel = item["path"]
        if not journal.plain(rel):
            return msg("archive-bad-path", path=rel)
        body = set(item) - {"path"}
        if body not in ({"text"}, {"base64"}) or not isinstance(item[body.pop()], str):
            return msg("archive-bad-file-body", path=rel)
        if rel in seen:
            return msg("archive-file-twice", path=rel)
        seen.add(rel)
    return None


def contents(archive: dict[str, Any]) -> dict[str, bytes]:
    """Each file's bytes by path (an entry whose base64 is broken: None, found as differing)."""
    result: dict[str, bytes] = {}
    for item in archive["files"]:
        if "text" in item:
            result[item["path"]] = item["text"].encode("utf-8", errors="surrogatepass")
        else:
            try:
                result[item["path"]] = base64.b64decode(item["base64"], validate=True)
            except (binascii.Error, ValueError):
                result[item["path"]] = b"\x00not base64"
    return result


# -- checking -------------------------------------------------------------------------------------


def verify(archive: dict[str, Any], head: str | None = None, seat: Seat | None = None) -> Summary:
    """Check ``archive`` (as :func:`read` returns it); ``head``: a chain head a player holds
    (32 to 64 hex digits), which the journal must pass through; ``seat``: a player and the key
    they hold, under which every order and notice of their seat must have been accepted."""
    summary = Summary(archive["id"], archive["game"], archive["public"], archive["over"])
    summary.seat = seat
    entries = _chain(archive["journal"], summary, head)
    if entries is None:
        return summary
    from adjudicator.store.doctor import first_unreadable_line

    misfit = first_unreadable_line(entries)
    if misfit is not None:
        summary.findings.append(Finding(None, "log.jsonl", misfit.problem))
        return summary
    try:
        _check(archive, entries, summary)
    except (
        KeyError,
        TypeError,
        ValueError,
        AttributeError,
        IndexError,
        RecursionError,
        ArithmeticError,  # a date or a span out of any calendar's range
        NotNow,  # the engine, replaying, finds a file that is not what its line named
    ) as error:
        # a journal whose lines fit their types but not one another (only a forger makes one)
        why = f"{type(error).__name__}: {error}"[:200]
        summary.findings.append(Finding(None, "log.jsonl", msg("verify-cannot-follow", why=why)))
    return summary


def _check(archive: dict[str, Any], entries: list[dict[str, Any]], summary: Summary) -> None:
    walk = Walk(entries)
    files = contents(archive)
    created = entries[0]
    key = _secrets(archive, created, files, summary)
    digester = digests.Digester(key) if key is not None or "seed" in archive else None
    _files(files, walk, digester, summary)
    meta = None if _differs(summary, "game.json") else _game_json(files, summary)
    header = created.get("public")
    if not isinstance(header, dict):  # a game made before the created line said it
        header = None if meta is None else _header_of(meta)
    if header is None:
        summary.findings.append(Finding(None, "log.jsonl", msg("verify-no-header")))
        return
    for name in ("id", "game"):  # what the summary names the game by: the journal's, or refused
        if archive.get(name) != header.get(name):
            summary.findings.append(Finding(None, name, msg("verify-header-differs")))
    if meta is not None:
        _agrees(meta, header, archive, summary)
    from adjudicator.store.registry import load_game

    try:
        game = load_game(str(header["game"]))
    except UsageProblem:  # an archive of a game this machine does not have installed
        summary.findings.append(
            Finding(None, "log.jsonl", msg("verify-unknown-game", game=str(header["game"])))
        )
        return
    signatures.check(walk, files, header, summary)
    joins(walk, files, bool(archive["public"]), summary, digester)
    _over_as_recorded(archive, walk, files, summary)
    changed = _made_kept(walk)
    try:
        if "seed" in archive and not summary.findings:
            _replay(walk, files, header, archive, game, digests.Digester(key), summary)
    finally:  # after the replay's, which say more where both find (a deal taken out of its line)
        summary.findings += changed


def _differs(summary: Summary, path: str) -> bool:
    return any(f.path == path for f in summary.findings)


def _chain(lines: list[str], summary: Summary, head: str | None) -> list[dict[str, Any]] | None:
    """The journal's entries, if it is one unbroken hash chain starting with ``created``."""
    entries: list[dict[str, Any]] = []
    previous = GENESIS
    seen = []
    for number, line in enumerate(lines, 1):
        try:
            raw = line.encode("utf-8") + b"\n"  # a lone surrogate is no UTF-8: no journal line
            entry = journal.parse(line)
        except (ValueError, RecursionError):
            entry = None
        if not isinstance(entry, dict) or not isinstance(entry.get("type"), str):
            summary.findings.append(
                Finding(None, "log.jsonl", msg("verify-line-not-journal", line=number))
            )
            return None
        if entry.get("prev") != previous:
            summary.findings.append(
                Finding(None, "log.jsonl", msg("verify-chain-broken", line=number))
            )
            return None
        previous = hashlib.sha256(raw).hexdigest()
        seen.append(previous)
        entries.append(entry)
    summary.lines, summary.head = len(entries), previous
    if entries[0]["type"] != "created":
        summary.findings.append(Finding(None, "log.jsonl", msg("verify-no-header")))
        return None
    if head is not None and not any(h.startswith(head.lower()) for h in seen):
        summary.findings.append(Finding(None, "log.jsonl", msg("verify-head-not-found", head=head)))
    return entries


def _game_json(files: dict[str, bytes], summary: Summary) -> dict[str, Any] | None:
    raw = files.get("game.json")
    if raw is None:
        return None
    meta = loads(raw)
    if not isinstance(meta, dict):
        summary.findings.append(Finding(None, "game.json", msg("verify-file-unreadable")))
        return None
    return meta


def _header_of(meta: dict[str, Any]) -> dict[str, Any]:
    from adjudicator.engine.create import public_header

    return public_header(meta)


def _secrets(
    archive: dict[str, Any],
    created: dict[str, Any],
    files: dict[str, bytes],
    summary: Summary,
) -> bytes | None:
    """The game's file key, once the seed and salt are revealed and open the commitment; when
    they do not, which of them differs from what the game recorded."""
    commitment = created.get("commitment")
    summary.commitment = "none" if commitment is None else "sealed"
    if "seed" not in archive or commitment is None:
        return None
    seed, salt = archive["seed"], archive.get("salt")
    if not isinstance(salt, str):
        summary.findings.append(Finding(None, "salt", msg("verify-secret-missing")))
        return None
    try:
        opened = digests.commitment(seed, salt)
    except UnicodeEncodeError:
        opened = ""
    if opened == commitment:
        summary.commitment = "opened"
        return digests.file_key(seed, salt)
    changed = [
        name for name in ("seed", "salt") if _recorded(name, files) not in (None, archive.get(name))
    ]
    for name in changed:
        summary.findings.append(Finding(None, name, msg("verify-secret-differs", what=name)))
    if not changed:
        summary.findings.append(Finding(None, "seed", msg("verify-commitment-differs")))
    return None


def _recorded(name: str, files: dict[str, bytes]) -> Any:
    """The seed or salt as the game recorded it: in game.json, or in the last public view (a
    finished game's views reveal both); None when neither says."""
    for rel in ("game.json", _last_public(files)):
        data = loads(files[rel]) if rel in files else None
        if isinstance(data, dict) and name in data:
            return data[name]
    return None


def _last_public(files: dict[str, bytes]) -> str | None:
    current = [rel for rel in files if digests.is_public(rel) and "superseded" not in rel]
    return max(current, default=None)


def _agrees(
    meta: dict[str, Any], header: dict[str, Any], archive: dict[str, Any], summary: Summary
) -> None:
    """game.json (its digest checked) says what the journal's first line and the archive say."""
    ours = _header_of(meta)
    if any(ours.get(key) != header.get(key) for key in HEADER):
        summary.findings.append(Finding(None, "game.json", msg("verify-header-differs")))
    for name in ("seed", "salt"):
        if name in archive and name in meta and meta[name] != archive[name]:
            summary.findings.append(Finding(None, name, msg("verify-secret-differs", what=name)))


def _files(
    files: dict[str, bytes],
    walk: Walk,
    digester: digests.Digester | None,
    summary: Summary,
) -> None:
    named = walk.facts.files
    for rel, data in sorted(files.items()):
        expected = named.get(rel)
        if expected is None:
            summary.findings.append(Finding(walk.turn_of(rel), rel, msg("verify-not-named")))
            continue
        if digests.is_public(rel):
            digest = hashlib.sha256(data).hexdigest()
        elif digester is None:
            summary.findings.append(Finding(walk.turn_of(rel), rel, msg("verify-cannot-check")))
            continue
        else:
            digest = digester.data(rel, data)
        if digest != expected:
            line = walk.named_by[rel]
            summary.findings.append(
                Finding(walk.turn_of(rel), rel, msg("verify-file-differs", line=line))
            )
        summary.files += 1
    held = set(named)  # a full archive holds every file; a public one what it may show now
    if summary.public:
        held = {rel for rel in named if shareable(rel, summary.over)}
    for rel in sorted(held - set(files)):
        summary.findings.append(Finding(walk.turn_of(rel), rel, msg("verify-file-missing")))


def _made_kept(walk: Walk) -> list[Finding]:
    """Each line names only what its step made or took, and what a step made or took stays as
    it was: a turn's state, resolution and views are named only by the line that made them
    (``created``, the line that deals, ``adjudicated``), an order, notice, join or leave (and
    its signature) only by the line that takes it, ``game.json`` and ``setup.yaml`` only by the
    first line; no later line names one anew, or moves one, or moves another file onto one,
    but a rollback, which moves the rolled-back turn's resolution and the next turn's files
    aside to their superseded copies, kept as they were. A mail is never named anew with other
    bytes (it moves on its way out, from the queue to sent, failed or withdrawn).
    Otherwise the file the archive holds at a path, which :func:`_files` checks against the
    last line that named it, need not be the one the replay made or the intake took: a line
    could swap an unsigned order in for a signed one before the turn was played, or name
    another winner's views after the game's end."""
    made: dict[str, str] = {}  # each file a step made or took, by where it is now: its digest
    findings: list[Finding] = []
    waits = walk.entries[0].get("turn") == 0  # the deal waits for the players' shares
    names_files = "files" in walk.entries[0]  # a journal written before lines named them: none
    for number, entry in enumerate(walk.entries, 1):
        findings += _unstored_notices(entry, number, names_files)
        kind = entry["type"]
        dealt = bool(entry.get("dealt"))
        if (kind == "created" and number > 1) or (dealt and not waits):
            findings.append(Finding(None, "log.jsonl", msg("verify-line-misplaced", line=number)))
        waits = waits and not dealt
        maker = kind in MAKERS or dealt
        moves = entry.get("moved") or {}
        named = [*(entry.get("files") or {}), *moves, *moves.values()]
        if not all(journal.plain(str(rel)) for rel in named):
            findings.append(Finding(None, "log.jsonl", msg("verify-path-not-plain", line=number)))
        changed: list[str] = []
        for source, target in moves.items():
            aside = kind == "rolled-back" and _set_aside(entry, source, target)
            on_its_way = source.startswith("mail/") and target.startswith("mail/")
            if source in made and not aside and not on_its_way:
                changed.append(source)
            elif target in made or (target.startswith("turns/") and not aside):
                changed.append(target)  # a turn's folder: what its steps made, and set aside
            elif source in made:
                made[target] = made.pop(source)
        took = _taken(entry)
        for rel, digest in (entry.get("files") or {}).items():
            if rel in made and made[rel] != digest:
                changed.append(rel)
            elif rel in took or (maker and RESULT.fullmatch(rel)) or number == 1:
                made[rel] = digest  # the first line's too: the game as it was made
            elif rel.startswith("mail/"):
                made[rel] = digest  # a mail is written once, then moved on its way out
            elif TAKEN_FILE.fullmatch(rel):
                why = msg("verify-file-not-taken", line=number)
                findings.append(Finding(walk.turn_of(rel), rel, why))
            elif rel.startswith("turns/"):
                changed.append(rel)  # no step makes it: a rollback that never was, say
        why = msg("verify-made-changed", line=number)
        findings += [Finding(walk.turn_of(rel), rel, why) for rel in dict.fromkeys(changed)]
    return findings


def _unstored_notices(entry: dict[str, Any], number: int, names_files: bool) -> list[Finding]:
    """A notice a line takes is one of the kinds a player may send, and its line names the
    file it stored (a notice listed with no file is none a player sent, though the record
    lists press by the journal's notices)."""
    from adjudicator.engine import notices

    found = []
    for notice in entry.get("notices") or []:
        rel = notices.path(str(notice["kind"]), str(notice["file"]))
        if notice["kind"] not in notices.KINDS or (
            names_files and rel not in entry.get("files", {})
        ):
            why = msg("verify-notice-unstored", line=number)
            found.append(Finding(notice["turn"], rel, why))  # an integer: the fold says so
    return found


def _taken(entry: dict[str, Any]) -> set[str]:
    """The files a line takes: its orders, notices, joins and leaves, and their signatures."""
    from adjudicator.engine import notices

    taken = {order_path(order) for order in journal.order_entries(entry)}
    taken |= {
        notices.path(str(notice["kind"]), str(notice["file"]))
        for notice in entry.get("notices") or []
    }
    taken |= {str(seat["file"]) for seat in [*(entry.get("joins") or []), *_leaves(entry)]}
    return taken | {f"{rel}.sig" for rel in taken}


def _leaves(entry: dict[str, Any]) -> list[dict[str, Any]]:
    return [leave for leave in entry.get("leaves") or [] if "file" in leave]


def _set_aside(entry: dict[str, Any], source: str, target: str) -> bool:
    """Whether a rollback's line may move ``source`` to ``target``: the rolled-back turn's
    resolution, and each file of the next turn's folder, to its superseded copy."""
    turn, copy = int(entry["turn"]), entry.get("superseded")
    mark = f"superseded-{copy}" if copy is not None else None
    resolution = f"turns/{turn:04d}/resolution"
    if source == f"{resolution}.json":
        aside = target.removeprefix(f"{resolution}.").removesuffix(".json")
    else:
        folder = f"turns/{turn + 1:04d}"
        if not source.startswith(f"{folder}/"):
            return False
        rest = source.removeprefix(folder)
        if not target.endswith(rest) or not target.startswith(f"{folder}."):
            return False
        aside = target.removeprefix(f"{folder}.").removesuffix(rest)
    return bool(SUPERSEDED.fullmatch(aside)) and (mark is None or aside == mark)


def _over_as_recorded(
    archive: dict[str, Any], walk: Walk, files: dict[str, bytes], summary: Summary
) -> None:
    """The archive's ``over`` is what the current turn's public view says, and a finished
    game's archive reveals its seed (no archive may keep the replay waiting for ever)."""
    rel = f"turns/{walk.facts.turn:04d}/views/public.json"
    if walk.facts.turn == 0:  # shares: ask, not dealt yet: running, no view
        if archive["over"]:
            summary.findings.append(Finding(None, "log.jsonl", msg("verify-claims-over")))
        return
    if rel not in files:
        summary.findings.append(Finding(walk.turn_of(rel), rel, msg("verify-file-missing")))
        return
    view = loads(files[rel])
    over = isinstance(view, dict) and view.get("over") is True
    if over != archive["over"]:
        code = "verify-claims-running" if over else "verify-claims-over"
        summary.findings.append(Finding(None, rel, msg(code)))
    elif over and "seed" not in archive:
        summary.findings.append(Finding(None, "seed", msg("verify-seed-withheld")))


def _replay(
    walk: Walk,
    files: dict[str, bytes],
    header: dict[str, Any],
    archive: dict[str, Any],
    game: Game,
    digester: digests.Digester,
    summary: Summary,
) -> None:
    """Play the game again from the journal through the engine's own code, line by line, as
    the game stood at each: every order and notice a line took is judged again by the intake,
    every turn is played again, and what each step made is compared with what the journal
    names."""
    from adjudicator.audit.replica import archive_dir, judged_again
    from adjudicator.engine.adjudication import (
        ending_files,
        missing_from,
        opening_files,
        play_current,
    )
    from adjudicator.engine.open_game import OpenGame, game_options
    from adjudicator.rules.rng import Rng

    created = walk.entries[0]
    meta = {**header, "seed": archive["seed"]}
    if created.get("commitment"):
        meta.update(salt=archive.get("salt"), commitment=created["commitment"])
    states: dict[int, bytes] = {}
    if created.get("turn") != 0:  # 0: the deal waits for the players' shares
        state = game.setup(header["players"], game_options(meta), Rng(meta["seed"]))
        states[1] = _as_stored(state)
        if not _compare(opening_files(game, meta, 1, state, None), created, 1, digester, summary):
            return
    recorded = _game_json(files, summary) if "game.json" in files else None
    store = archive_dir(files, walk.at, walk.entries, recorded or meta, states, digester)
    for number, entry in enumerate(walk.entries, 1):
        store.line = number  # each path read as the game stood after this line
        before = walk.entries[: number - 1]
        if journal.order_entries(entry) or entry.get("notices"):
            refused = judged_again(store, before, entry, recorded is not None)
            if refused is not None:
                rel, why = refused
                turn_of = walk.turn_of(rel)
                summary.findings.append(Finding(turn_of or walk.turn_at[number - 1], rel, why))
                return
        waits = created.get("turn") == 0 and 1 not in states  # no deal yet
        if waits and not _dealt_again(store, walk.entries[:number], states, digester, summary):
            return
        if entry["type"] in REFUSED_WHEN_OVER and OpenGame(store, log=before).over():
            why = msg("verify-after-the-end", line=number, type=entry["type"])
            summary.findings.append(Finding(walk.turn_at[number - 1], "log.jsonl", why))
            return
        if entry["type"] == "rolled-back":
            states.pop(int(entry["turn"]) + 1, None)
        if entry["type"] == "revealing" and not _revealed_as_open(
            OpenGame(store, log=before), game, (number, entry), recorded is not None, summary
        ):
            return
        if entry["type"] != "adjudicated":
            continue
        handle = OpenGame(store, log=before)
        turn = int(entry["turn"])
        if turn != handle.turn():
            raise ValueError(f"line {number} adjudicates turn {turn}, not the one open")
        ending = handle.ending()
        if ending != entry.get("ended"):
            summary.findings.append(
                Finding(turn, "log.jsonl", msg("verify-ending-differs", line=number))
            )
            return
        state = handle.state(turn)
        if ending is not None:
            made = ending_files(game, handle.meta, state, ending, handle.orders_used())
            after = {**state, "turn": turn + 1}
        else:
            missing = missing_from(game, state, handle.players, handle.received(turn))
            if missing != entry.get("defaulted"):
                summary.findings.append(
                    Finding(turn, "log.jsonl", msg("verify-defaulted-differs", line=number))
                )
                return
            if _waits_on(handle, turn, missing, (number, entry), recorded is not None, summary):
                return
            played = play_current(handle)
            made, after = played.files, played.state
        if not _compare(made, entry, turn, digester, summary):
            return
        states[turn + 1] = _as_stored(after)
        summary.turns += 1
    summary.replayed = True


def _revealed_as_open(
    handle: Any,
    game: Game,
    line: tuple[int, dict[str, Any]],
    zone_known: bool,
    summary: Summary,
) -> bool:
    """A ``revealing`` line (the adjudication of a turn whose commitments are not all in)
    opens the reveal of the turn that is open, in its commit phase, without exactly the seats
    that made no commitment, and none a game under ``nmr: wait`` waits for: as ``adjudicate``
    opens it. ``line``: the line's number and the line."""
    from adjudicator.audit.replica import opening
    from adjudicator.engine.adjudication import missing_from

    entry = line[1]
    turn = handle.turn()
    missing = missing_from(game, handle.state(turn), handle.players, handle.received(turn))
    as_open = (turn, sorted(missing)) if handle.phase(turn) == "commit" else (None, [])
    if opening(entry.get("reveal")) != as_open:
        why = msg("verify-reveal-opened", turn=turn)
        summary.findings.append(Finding(turn, "log.jsonl", why))
        return False
    return not _waits_on(handle, turn, missing, line, zone_known, summary)


def _waits_on(
    handle: Any,
    turn: int,
    missing: list[str],
    line: tuple[int, dict[str, Any]],
    zone_known: bool,
    summary: Summary,
) -> bool:
    """Whether ``line`` (its number and the line) played its turn with ``missing`` defaulted
    where a game under ``nmr: wait`` waits for one of them (named then), as the game stood on
    the line's day. Who was away that day needs the game's time zone, which a public archive
    withholds: there, a game that leaves the absent out is not judged."""
    from adjudicator.audit.replica import taken_at
    from adjudicator.engine import absences
    from adjudicator.engine.adjudication import waited_for

    number, entry = line
    if not zone_known and absences.mode(handle.meta) == "default":
        return False
    with taken_at(entry, zone_known):
        waited = waited_for(handle, turn, missing)
    if waited:
        why = msg("verify-waited-for", line=number, players=", ".join(waited))
        summary.findings.append(Finding(turn, "log.jsonl", why))
    return bool(waited)


def _dealt_again(
    store: Any,
    upto: list[dict[str, Any]],
    states: dict[int, bytes],
    digester: digests.Digester,
    summary: Summary,
) -> bool:
    """A line of a game waiting for shares deals exactly when it took the last share, and
    deals what the game master's seed and the shares make (:mod:`adjudicator.rules.deal`)."""
    from adjudicator.engine.adjudication import opening_files
    from adjudicator.engine.open_game import OpenGame, game_options
    from adjudicator.rules.rng import Rng

    entry = upto[-1]
    # The line as the game stood within its step: its seats changed (an open game's), its
    # notices taken, before it dealt.
    within = {k: v for k, v in entry.items() if k not in ("notices", "dealt")}
    handle = OpenGame(store, log=[*upto[:-1], within])
    handle.noticed = list(entry.get("notices") or [])
    dealt = not handle.signing_up() and not handle.facts.closed and not handle.owing()
    if dealt != bool(entry.get("dealt")):
        summary.findings.append(Finding(1, "log.jsonl", msg("verify-deal-differs", line=len(upto))))
        return False
    if not dealt:
        return True
    meta, game = handle.meta, handle.game
    state = game.setup(meta["players"], game_options(meta), Rng(handle.play_seed()))
    states[1] = _as_stored(state)
    return _compare(opening_files(game, meta, 1, state, None), entry, 1, digester, summary)


def _kind(header: dict[str, Any], order: dict[str, Any]) -> Kind:
    """How an accepted file reads: a commitment, a reveal (``sealing: commit-reveal``), or an
    order."""
    if order.get("kind") == "commitment":
        return "commitment"
    return "reveal" if header["options"].get("sealing") == "commit-reveal" else "order"


def _as_stored(state: Any) -> bytes:
    """The state's file as the next step reads it (keys sorted: its views keep the order of the
    keys they were made from); each reading parses it anew, so no step sees another's changes."""
    from adjudicator.store.gamedir import dump_json

    return dump_json(state)


def _compare(
    made: dict[str, bytes],
    entry: dict[str, Any],
    turn: int,
    digester: digests.Digester,
    summary: Summary,
) -> bool:
    """Whether every file the replay ``made`` is the one the journal line names, and the line
    names no other state, resolution or view."""
    named = entry.get("files") or {}
    for rel, data in made.items():
        if named.get(rel) != digester.data(rel, data):
            summary.findings.append(Finding(turn, rel, msg("verify-replay-differs")))
            return False
    for rel in sorted(named):
        if RESULT.fullmatch(rel) and rel not in made:
            summary.findings.append(Finding(turn, rel, msg("verify-replay-differs")))
            return False
    return True
