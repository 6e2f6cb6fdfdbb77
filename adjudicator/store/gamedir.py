"""The game directory: everything accepted, kept byte for byte, written atomically under a lock.

Layout (docs/game-directory.md says more)::

    GAMEDIR/
      game.json                      the game as created: id, game, players and keys, options, seed
      setup.yaml                     the setup file as given
      log.jsonl                      the journal: one hash-chained JSON line per step
      .lock                          the lock that serialises commands
      .step                          present only while a step runs (or was cut short)
      turns/0001/state.json          the state as turn 1 opens
      turns/0001/orders/alice-1.yaml the exact bytes each accepted order file signed ...
      turns/0001/orders/alice-1.yaml.sig   ... and its signature (ssh-keygen -Y verify works)
      turns/0001/resolution.json     after adjudication: the orders used, defaults, events
      turns/0001/views/…             what each reader may see as the turn opened
      discarded/…                    what recovery moved aside (the journal names it)

No file is rewritten in place: a step writes new files (and moves files), then its journal line.
What the journal does not name is not part of the game (see :mod:`adjudicator.store.steps`).
"""

from __future__ import annotations

import errno
import hashlib
import json
import marshal
import os
import stat
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from adjudicator.rules.contract import msg
from adjudicator.rules.digests import Digester
from adjudicator.rules.errors import Locked, NotNow, UsageProblem
from adjudicator.store import failpoint, interrupts, journal, summary

if TYPE_CHECKING:
    from concurrent.futures import Future, ThreadPoolExecutor

LOCK_TIMEOUT = 30.0
_found_locked: set[str] = set()
"""The games this command waited for in vain: not waited for again (:meth:`GameDir.locked`)."""


def forget_locked() -> None:
    """A command's end: the next one waits for each game again."""
    _found_locked.clear()


LOG = "log.jsonl"
MARKER = ".step"
GENESIS = "0" * 64
"""The ``prev`` of a journal's first line."""
KEPT_BY_RECOVERY = ("outbox/",)
"""Where a step's recovery keeps (and names) the files a step cut short wrote, rather than move
them aside: copies of mail written out, which may have been read already."""


def atomic_write(path: Path, data: bytes, *, sync_dir: bool = True, step: bool = False) -> None:
    """Write ``data`` to ``path`` so that a crash leaves the old file or the new one, never half.
    The folder is fsynced too (``sync_dir``): at once, or within :func:`batched` once before the
    next durable point.

    ``step``: a file of the game that a step writes, which recovery moves aside when the step's
    journal line never came. Within :func:`batched`, such a file, if new (none at ``path``
    yet), is fsynced at the next durable point with the others, not before its rename: a crash
    before the line may leave it short, but no line names it and recovery moves it aside."""
    import tempfile  # only a command that writes needs it

    make_folder(path.parent)
    failpoint.reached("write")
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    later = step and bool(_put_off) and not os.path.lexists(path)
    try:
        with open(fd, "wb", closefd=False) as handle:
            handle.write(data)
            handle.flush()
        failpoint.reached("written")
        if not later:
            os.fsync(fd)
        os.replace(tmp, path)
    except BaseException:
        os.close(fd)
        Path(tmp).unlink(missing_ok=True)
        raise
    if later:
        _unsynced.append(fd)  # closed once fsynced
        if len(_unsynced) >= MOST_UNSYNCED:
            files = list(_unsynced)
            _unsynced.clear()
            _sync_now(files)
    else:
        os.close(fd)
    failpoint.reached("renamed")
    if sync_dir:
        sync_folder(path.parent)


def make_folder(folder: Path) -> None:
    """Make ``folder`` and the folders above it that are missing; each folder a new one went
    into is fsynced as :func:`sync_folder` says, so that the new names last."""
    if folder.is_dir():
        return
    missing = [folder]
    while not missing[-1].parent.exists() and missing[-1].parent != missing[-1]:
        missing.append(missing[-1].parent)
    folder.mkdir(parents=True, exist_ok=True)
    for made in reversed(missing):
        sync_folder(made.parent)


def fsync_dir(folder: Path) -> None:
    """Make the names in ``folder`` last, with everything :func:`batched` put off."""
    if _put_off:
        _put_off[-1].add(str(folder))
        durable_point()
    else:
        _fsync_dir(folder)


def _fsync_dir(folder: Path | str) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


_put_off: list[set[str]] = []
"""The folders whose fsync :func:`batched` puts off (innermost last)."""
_unsynced: list[int] = []
"""The open files :func:`atomic_write` wrote within :func:`batched`, not fsynced yet."""
MOST_UNSYNCED = 64
"""The most files left open for the next durable point (then they are fsynced at once)."""


@contextmanager
def batched() -> Iterator[None]:
    """Within: a new file, and each folder a file was written or moved into, is fsynced at the
    next durable point (a journal line, a marker, a mail moved on its way out, or
    :func:`fsync_dir`), not as it is written, and a folder once. A step's files are not part of
    the game until its journal line, so they need to last only from then on; everything written
    before a durable point lasts by it."""
    _put_off.append(set())
    try:
        yield
    finally:
        try:
            durable_point()
        finally:
            _put_off.pop()


def sync_folder(folder: Path) -> None:
    """Fsync ``folder`` now, or at the next durable point within :func:`batched`."""
    if _put_off:
        _put_off[-1].add(str(folder))
    else:
        _fsync_dir(folder)


def durable_point() -> None:
    """Fsync every file and folder :func:`batched` put off, each once, side by side: the
    fsyncs that wait together share the filesystem's commit (ext4's journal makes one for them
    all). Nine new files of 3 KB on this project's test machine (ext4): 4.8 ms against 6.8 ms
    fsynced one after the other."""
    opened = list(_unsynced)
    _unsynced.clear()
    folders = sorted({folder for pending in _put_off for folder in pending})
    for pending in _put_off:
        pending.clear()
    try:
        for folder in folders:
            with suppress(FileNotFoundError):  # a folder a step's discard emptied and removed
                opened.append(os.open(folder, os.O_RDONLY))
    except BaseException:
        for fd in opened:
            os.close(fd)
        raise
    _sync_now(opened)


def _sync_now(fds: list[int]) -> None:
    """Fsync and close the open files (or folders) ``fds``, side by side (at most
    :data:`SIDE_BY_SIDE` at once, each group beyond the first handed to this process's fsync
    threads, and made here when no thread began it), all done before this returns; the first
    error, once every one is fsynced or failed, and closed. Ctrl-C waits until then."""
    if not fds:
        return
    failed: list[BaseException] = []

    def sync(some: list[int]) -> None:
        for fd in some:
            try:
                os.fsync(fd)
            except OSError as error:
                failed.append(error)

    groups = [fds[k::SIDE_BY_SIDE] for k in range(min(SIDE_BY_SIDE, len(fds)))]
    handed: list[tuple[Future[None], list[int]]] = []
    with interrupts.held():
        try:
            for group in groups[1:]:
                try:
                    handed.append((_fsync_threads().submit(sync, group), group))
                except RuntimeError:  # no thread to be had (none can start, Python is ending)
                    _drop_fsync_threads()  # what was queued and not begun: made here
                    sync(group)
            sync(groups[0])
        finally:
            for future, group in handed:
                if future.cancel():  # not begun by a thread: made here
                    sync(group)
                elif (error := future.exception()) is not None:
                    failed.append(error)
            for fd in fds:
                os.close(fd)
    if failed:
        raise failed[0]


SIDE_BY_SIDE = 16
"""The most fsyncs :func:`durable_point` waits on at once."""
_THREADS: list[ThreadPoolExecutor] = []
"""This process's fsync threads, once a durable point has needed them."""


def _fsync_threads() -> ThreadPoolExecutor:
    """This process's fsync threads: started as first needed and kept (a demo's steps reach
    some 180 durable points, and starting a thread costs about as much as a small fsync) until
    :func:`end_fsync_threads`."""
    if not _THREADS:
        from concurrent.futures import ThreadPoolExecutor

        _THREADS.append(ThreadPoolExecutor(SIDE_BY_SIDE - 1, thread_name_prefix="fsync"))
    return _THREADS[0]


def end_fsync_threads() -> None:
    """End this process's fsync threads, idle between durable points: as a command ends, and
    before a site's pages are shared among forked processes (a process that runs threads makes
    them alone)."""
    while _THREADS:
        _THREADS.pop().shutdown()


def _drop_fsync_threads() -> None:
    """Let the fsync threads go, and cancel what was handed to them and not begun."""
    while _THREADS:
        _THREADS.pop().shutdown(wait=False, cancel_futures=True)


# A forked copy of the process has none of its threads: its first durable point starts its own.
os.register_at_fork(after_in_child=_THREADS.clear)


_LOGS: dict[str, tuple[bytes, list[dict[str, Any]]]] = {}
"""The journals read last in this process: their complete lines' bytes and their entries."""
KEEP_LOGS = 8
"""At most this many journals are kept parsed (a ``tick`` over many games reads each once)."""


def _first_line(path: Path) -> Any:
    """The first of the journal's complete lines (as :meth:`GameDir.log` reads them), parsed;
    None when there is none. Only the bytes up to it are read."""
    try:
        with _open_regular(path) as handle:
            data = b""
            while block := handle.read(_BLOCK):
                data += block
                for line in data[: data.rfind(b"\n") + 1].splitlines():
                    if line:
                        return journal.parsed_line(path.parent, data, data.find(line), line)
    except FileNotFoundError:
        pass
    except OSError as error:  # a folder in its place, say
        raise unreadable(path.parent, LOG, error) from None
    return None


def _planned(plan: Any) -> bool:
    """Whether a marker's plan is one a step writes: its moves, each from a plain path of the
    game to another, and the journal line that ends it."""
    if plan is None:
        return True
    if not isinstance(plan, dict) or not isinstance(plan.get("line"), dict):
        return False
    moves = plan.get("moves")
    return isinstance(moves, list) and all(
        isinstance(move, list)
        and len(move) == 2
        and all(isinstance(rel, str) and journal.plain(rel) for rel in move)
        for move in moves
    )


def unreadable(root: Path, rel: str, error: OSError | str) -> NotNow:
    """The error of a game file that is there but cannot be read (a folder in its place), for
    the ``error`` reading it raised or the reason given."""
    why = error if isinstance(error, str) else error.strerror or type(error).__name__
    return NotNow(msg("game-file-unreadable", game=str(root), file=rel, why=why))


def _open_regular(path: Path) -> BinaryIO:
    """The game file (the journal, say) at ``path`` opened to read, without waiting (a pipe in
    its place would wait for a writer that never comes), and only a regular file (a link to a
    device such as ``/dev/zero`` would read without end): OSError else."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR))
        if not stat.S_ISREG(mode):
            raise OSError(errno.EINVAL, "not a regular file")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _last_lines(path: Path) -> bytes:
    """The end of the journal, from a newline before its last complete line (or the whole
    journal): what :meth:`GameDir.head` needs, without reading the lines before."""
    try:
        with _open_regular(path) as handle:
            size = handle.seek(0, os.SEEK_END)
            start, block = size, _BLOCK
            while start > 0:
                start = max(0, start - block)
                handle.seek(start)
                data = handle.read(size - start)
                end = data.rfind(b"\n") + 1
                if end and data.rfind(b"\n", 0, end - 1) >= 0:
                    return data
                block *= 2
            handle.seek(0)
            return handle.read(size)
    except FileNotFoundError:
        return b""
    except OSError as error:  # a folder in its place, say
        raise unreadable(path.parent, LOG, error) from None


_BLOCK = 1 << 16


def dump_json(data: Any, sort_keys: bool = True) -> bytes:
    """``data`` as indented JSON; ``sort_keys=False`` keeps each mapping's order (a view's order
    is the order its report shows).

    The bytes are those of ``json.dumps(data, indent=2, ...)``, which ``verify`` recomputes and
    every archive holds; but that encoder is written in Python once it indents, and was most of
    the time an adjudication took. So a large document is encoded on one line by ``json``'s C
    encoder (the same text for every string and number) and laid out by ``msgspec.json.format``,
    which changes nothing but the spaces between the tokens. A small one is not worth the import,
    but is laid out so too once a document before it was (a fifth of the time: 50-75 us against
    340 us for a state or view of a few KiB). Once msgspec is loaded, it also encodes the line
    where it writes what ``json`` writes (:func:`_by_msgspec`).
    (From Python 3.12 on, a document nested deeper than the recursion limit, which no game's
    data comes near, would be written where json's indenting encoder raises RecursionError.)
    """
    if "msgspec.json" in sys.modules:
        written = _by_msgspec(data, sort_keys)
        if written is not None:
            return written
    compact = json.dumps(data, sort_keys=sort_keys, ensure_ascii=False, separators=_COMPACT)
    if len(compact) >= _LARGE or "msgspec.json" in sys.modules:
        import msgspec.json

        try:
            return (msgspec.json.format(compact, indent=2) + "\n").encode()
        except (msgspec.DecodeError, UnicodeError):  # a lone surrogate: say it as json does
            pass
    text = json.dumps(data, indent=2, sort_keys=sort_keys, ensure_ascii=False)
    return (text + "\n").encode()


_COMPACT = (",", ":")
_LARGE = 4096
"""From how many characters on one line ``dump_json`` lays a document out with msgspec (whose
import costs more than indenting a small document in Python)."""


def _by_msgspec(data: Any, sort_keys: bool) -> bytes | None:
    """``data`` encoded and laid out by msgspec (a view in some 70-75% of the time ``json``'s
    line and msgspec's layout took, the checks included), where that is what ``json`` writes:
    data of Python's own types alone (no subclass), whose line reads back as itself and holds
    no float. None for other data, which ``json`` writes (or refuses) as before: a subclass of a
    dict, list or string (``json`` asks it for its items, its order; msgspec reads what it
    holds), a float (msgspec writes ``1e16`` where json writes ``1e+16``, and ``null`` for
    NaN), anything that does not read back as itself (a tuple, a set, a key that is no string,
    a date: msgspec writes some that json refuses), or what msgspec refuses."""
    import msgspec.json

    encoder, decoder = _msgspec_coders(sort_keys)
    try:
        marshal.dumps(data)  # refuses any subclass (an OrderedDict, an IntEnum...), in C
        line = encoder.encode(data)
        if decoder.decode(line) != data:
            return None
        laid: bytes = msgspec.json.format(line, indent=2)
    except Exception:  # whatever it is, json says it as before
        return None
    return laid + b"\n"


_CODERS: dict[bool, tuple[Any, Any]] = {}


def _msgspec_coders(sort_keys: bool) -> tuple[Any, Any]:
    """msgspec's encoder (keys sorted or not) and a decoder that refuses any float."""
    coders = _CODERS.get(sort_keys)
    if coders is None:
        import msgspec.json

        encoder = msgspec.json.Encoder(order="sorted" if sort_keys else None)
        coders = _CODERS[sort_keys] = (encoder, msgspec.json.Decoder(float_hook=_no_float))
    return coders


class _HoldsFloat(Exception):
    """A float met while reading back a line msgspec wrote."""


def _no_float(text: str) -> float:
    raise _HoldsFloat(text)


class GameDir:
    """One game's directory."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._digester: Digester | None = None

    def digester(self) -> Digester:
        """The digests of this game's files (docs/archive.md): keyed once ``game.json`` holds a
        salt. ``game.json`` is written once, by ``new``, so what it said is kept."""
        if self._digester is None:
            try:
                created = self.created()
            except FileNotFoundError:
                return Digester(None)  # not yet: ``new`` is writing the game
            self._digester = Digester.of(created)
        return self._digester

    def digest(self, rel: str) -> str:
        """The digest the journal names the file at ``rel`` by."""
        return self.digester().file(self.root, rel)

    # -- locking -----------------------------------------------------------------------------
    @contextmanager
    def locked(self, timeout: float | None = None) -> Iterator[None]:
        """Hold the game's lock: commands on one game directory run one at a time. A game this
        command waited for in vain is not waited for again (:func:`forget_locked`): a run over
        many messages or steps leaves it at once."""
        from filelock import FileLock, Timeout  # only commands that change a game take it

        where = os.path.abspath(self.root)
        wait = LOCK_TIMEOUT if timeout is None else timeout
        lock = FileLock(str(self.root / ".lock"), timeout=0 if where in _found_locked else wait)
        try:
            lock.acquire()
        except Timeout:
            _found_locked.add(where)
            raise Locked(f"{self.root}: the game is locked by another command; try again") from None
        except OSError as error:  # a folder that cannot be written (a read-only mount, say)
            raise NotNow(
                f"{self.root}: cannot take the game's lock ({error.strerror or error}); "
                "nothing was changed"
            ) from None
        try:
            yield
        finally:
            lock.release()

    def busy(self) -> bool:
        """Whether another command holds the game's lock now (its step is under way); asked,
        not waited for. A lock this user cannot take here counts as free."""
        from filelock import FileLock, Timeout

        lock = FileLock(str(self.root / ".lock"), timeout=0)
        try:
            lock.acquire()
        except Timeout:
            return True
        except OSError:
            return False
        lock.release()
        return False

    # -- files -------------------------------------------------------------------------------
    def exists(self) -> bool:
        """A game: ``game.json`` and a journal whose first line says it was created."""
        if not (self.root / "game.json").is_file():
            return False
        first = _first_line(self.root / LOG)
        return first is not None and first.get("type") == "created"

    def require(self) -> None:
        if self.exists():
            return
        created = self.root / "game.json"
        if created.exists() and not created.is_file() and _first_line(self.root / LOG) is not None:
            raise unreadable(self.root, "game.json", "not a file")  # a folder in its place, say
        if (self.root / MARKER).exists() and _first_line(self.root / LOG) is None:
            raise UsageProblem(
                f"{self.root}: a `new` was cut short here; run `adjudicator new` again "
                "(it moves what was left aside)"
            )
        raise UsageProblem(f"{self.root}: not a game directory (no game.json and journal)")

    def read_bytes(self, rel: str) -> bytes:
        """The bytes of the game file at ``rel``; OSError for anything but a regular file."""
        with _open_regular(self.root / rel) as handle:
            return handle.read()

    def read_json(self, rel: str) -> Any:
        return journal.parse(self.read_bytes(rel).decode("utf-8"))

    def named(self, rel: str, files: Mapping[str, str]) -> bytes:
        """The bytes of the game file at ``rel``, as the journal named them in ``files`` (path
        to digest): NotNow, naming the file, when it is gone, cannot be read, or holds other
        bytes (changed by hand since; ``doctor`` lists all that differs). A file the journal
        does not name yet (a step's own) is read as it is."""
        game = str(self.root)
        try:
            data = self.read_bytes(rel)
        except FileNotFoundError:
            raise NotNow(msg("files-lost", game=game, files=[rel], count=1)) from None
        except OSError as error:
            raise unreadable(self.root, rel, error) from None
        digest = files.get(rel)
        if digest is not None and self.digester().data(rel, data) != digest:
            raise NotNow(msg("game-file-changed", game=game, file=rel))
        return data

    def write_json(self, rel: str, data: Any, sort_keys: bool = True) -> None:
        self.write_bytes(rel, dump_json(data, sort_keys))

    def write_bytes(self, rel: str, data: bytes) -> None:
        """Write the game file ``rel`` in a step (:func:`atomic_write`: a new one is fsynced
        at the step's next durable point, but where recovery keeps what it finds)."""
        atomic_write(self.root / rel, data, step=not rel.startswith(KEPT_BY_RECOVERY))

    def write_text(self, rel: str, text: str) -> None:
        self.write_bytes(rel, text.encode("utf-8"))

    # -- the journal -------------------------------------------------------------------------
    def log_bytes(self) -> bytes:
        try:
            return self.read_bytes(LOG)
        except FileNotFoundError:
            return b""
        except OSError as error:  # a folder in its place, say
            raise unreadable(self.root, LOG, error) from None

    def log(self) -> list[dict[str, Any]]:
        """The journal's complete lines (a last line cut short by a crash is not one).

        The lines read before in this process are not parsed again: the journal only grows
        (a line cut short is completed or removed, never another changed), so lines already
        parsed are reused while the bytes before them are the same. Callers never change the
        entries they get."""
        data = self.log_bytes()
        end = data.rfind(b"\n") + 1
        key = str(self.root / LOG)
        known, parsed = _LOGS.pop(key, (b"", []))
        if end < len(known) or data[: len(known)] != known:
            known, parsed = b"", []
        parsed = [*parsed, *journal.parsed_lines(self.root, data, len(known), end)]
        _LOGS[key] = (data[:end], parsed)
        while len(_LOGS) > KEEP_LOGS:  # the one read longest ago goes
            del _LOGS[next(iter(_LOGS))]
        return list(parsed)

    def head(self) -> str:
        """The SHA-256 of the journal's last complete line (the chain head)."""
        data = _last_lines(self.root / LOG)
        end = data.rfind(b"\n") + 1
        last = data[data.rfind(b"\n", 0, end - 1) + 1 : end].splitlines(keepends=True)
        return hashlib.sha256(last[-1]).hexdigest() if end else GENESIS

    def append_log(self, entry: dict[str, Any]) -> dict[str, Any]:
        """Append one line, chained to the one before (``prev``), and fsync it: the commit
        point of a step. Returns the line as written."""
        line_entry = {**entry, "prev": self.head()}
        line = json.dumps(line_entry, sort_keys=True, ensure_ascii=False) + "\n"
        durable_point()  # the step's files last before the line that makes them the game's
        failpoint.reached("journal")
        first = not (self.root / LOG).exists()
        with open(self.root / LOG, "ab") as handle:
            handle.write(line.encode())
            handle.flush()
            os.fsync(handle.fileno())
        if first:
            fsync_dir(self.root)  # the journal's own name lasts too
        failpoint.reached("journaled")
        return line_entry

    # -- the step marker ---------------------------------------------------------------------
    def marker(self) -> dict[str, Any] | None:
        """The marker of a step that runs or was cut short, or None."""
        data: object = None
        try:
            data = json.loads(self.read_bytes(MARKER).decode("utf-8"))
        except FileNotFoundError:
            return None
        except (ValueError, OSError):
            pass
        if not isinstance(data, dict) or not isinstance(data.get("lines"), int):
            return {"kind": "unknown", "lines": -1}
        if "plan" in data and not _planned(data["plan"]):
            return {"kind": "unknown", "lines": -1}  # changed by hand: discarded, not followed
        return data

    # -- the game ----------------------------------------------------------------------------
    def created(self) -> dict[str, Any]:
        """``game.json`` as ``new`` wrote it (the seats as they were then)."""
        try:
            data: dict[str, Any] = self.read_json("game.json")
        except ValueError:
            self.created_as_named()
            raise
        return data

    def created_as_named(self) -> None:
        """NotNow when ``game.json`` is not the file the journal's first line named (changed by
        hand since): what reading it failed on is then that, not a fault of the program."""
        first = _first_line(self.root / LOG)
        files = first.get("files") if isinstance(first, dict) else None
        named = files.get("game.json") if isinstance(files, dict) else None
        if named is None:
            return  # a game made before the journal named its files: nothing to hold it to
        try:
            data = self.read_bytes("game.json")
            meta = journal.parse(data)
            same = isinstance(meta, dict) and Digester.of(meta).data("game.json", data) == named
        except Exception:  # whatever it holds, it is not the file named
            same = False
        if not same:
            game = str(self.root)
            raise NotNow(msg("game-file-changed", game=game, file="game.json"))

    def meta(self) -> dict[str, Any]:
        """The game now: ``game.json`` with the seats as the journal changed them."""
        return self.summary().meta()

    @staticmethod
    def turn_dir(turn: int) -> str:
        return f"turns/{turn:04d}"

    def facts(self) -> journal.Facts:
        """What the journal says (:func:`journal.facts`), from its summary (read in full while
        ``new`` makes the game: it has no ``game.json`` yet)."""
        if not (self.root / "game.json").is_file():
            return journal.facts(self.log())
        return self.summary().facts

    def summary(self) -> summary.Summary:
        """The journal's summary (:mod:`adjudicator.store.summary`): read on from where the
        one kept in the user's cache folder ends, when it is this journal's."""
        try:
            created = self.read_bytes("game.json")
        except OSError as error:
            raise unreadable(self.root, "game.json", error) from None
        # a game.json changed by hand is named as such, never read as the game
        return summary.summary(
            self.root, self.log_bytes(), created, self.read_bytes, self.created_as_named
        )

    def state(self, turn: int, files: Mapping[str, str]) -> dict[str, Any]:
        """The state turn ``turn`` opened with, checked against the journal's ``files``
        (:meth:`named`)."""
        rel = f"{self.turn_dir(turn)}/state.json"
        data: dict[str, Any] = journal.parse_again(self.named(rel, files))
        return data
