"""A game directory opened with its game module: :class:`OpenGame`, the engine's working handle.

It reads the journal once; every step and every read command asks it what the game is now.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from adjudicator.rules import deal, schedule, votes
from adjudicator.rules.contract import Game, State, msg
from adjudicator.rules.errors import NotNow, UsageProblem
from adjudicator.rules.options import ENGINE_OPTIONS, NUMBER_OPTIONS
from adjudicator.store import clock, journal
from adjudicator.store.gamedir import GameDir
from adjudicator.store.registry import BUILT_IN, load_game

if TYPE_CHECKING:
    from adjudicator.rules import sealing


class OpenGame:
    """A game directory opened with its game module: the engine's working handle.

    It reads the journal once: everything it says (the turn, the orders in effect, the seats)
    is as the journal stood then. Within a step, the orders the step accepted so far are
    ``pending`` and count as accepted.
    """

    def __init__(self, root: Path | GameDir, log: list[dict[str, Any]] | None = None) -> None:
        """``log``: the journal as it stood at a line (``verify`` judges each order again as the
        game stood when it was taken), instead of the journal read now."""
        self.dir = root if isinstance(root, GameDir) else GameDir(root)
        self._log = log
        self._clocks: journal.ClockFold | None = None
        if log is None:
            self.dir.require()
            summary = self.dir.summary()  # the journal read on from where it was last read
            self.facts, self.meta, self._clocks = summary.facts, summary.meta(), summary.clocks
        else:
            self.facts = journal.facts(log)
            self.meta = journal.seats(self.dir.created(), log, self.dir.read_json)
        name = self.meta["game"]
        # A game of another package is loaded now, so that one not installed is refused before
        # the command does anything; a built-in game (always there) when first asked for.
        self._game: Game | None = None if name in BUILT_IN else load_game(name)
        self.pending: list[dict[str, Any]] = []
        self.noticed: list[dict[str, Any]] = []
        """The notices this step accepted so far (press, absences, votes)."""
        self._notices: dict[tuple[str, str], dict[str, Any]] = {}
        """The notice files read so far, by kind and file (each is read once per opening)."""
        self.opens: dict[str, Any] | None = None
        """The reveal this step opens (``sealing: commit-reveal``), journaled with its line."""
        self.sender: str | None = None
        """The address the mail this step judges came from (None: not by mail, the game
        master's own command); an open game's joins are answered by it (docs/signup.md)."""
        self.seating: dict[str, Any] = {}
        """What this step changed of an open game's seats (docs/signup.md), as its line says
        it: ``joins``, ``leaves``, ``left``, ``confirmed``, ``seated``, ``turned_away``."""

    @property
    def game(self) -> Game:
        """The game's module (its rules, views and words); a built-in one is loaded when first
        asked for: a report shown again from the cache needs none of it."""
        if self._game is None:
            self._game = load_game(self.meta["game"])
        return self._game

    @property
    def log(self) -> list[dict[str, Any]]:
        """The journal's lines as the game was opened (read when first asked for: most commands
        need only what its summary says)."""
        if self._log is None:
            self._log = self.dir.log()[: self.facts.lines]
        return self._log

    @property
    def players(self) -> list[str]:
        return [p["name"] for p in self.meta["players"]]

    def key_of(self, player: str) -> str:
        for p in self.meta["players"]:
            if p["name"] == player:
                key: str = p["key"]
                return key
        raise KeyError(player)

    def former_keys(self, player: str) -> list[dict[str, Any]]:
        """The keys ``player``'s seat held before the game master replaced them, with the turn
        and time of each replacement (:func:`journal.former_keys`)."""
        return [
            k for k in journal.former_keys(self.dir.created(), self.log) if k["player"] == player
        ]

    def turn(self) -> int:
        """The current turn (0 while the deal waits for the players' shares)."""
        return self.facts.turn

    def state(self, turn: int | None = None) -> State:
        if self.signing_up():
            raise NotNow(msg("game-in-signup", game=self.meta["id"]))
        if self.waiting():  # no turn has a state before the deal
            raise NotNow(msg("waiting-for-shares", game=self.meta["id"], players=self.owing()))
        return self.dir.state(self.turn() if turn is None else turn, self.facts.files)

    def waiting(self) -> bool:
        """The game asks for the players' shares (``shares: ask``) and has not dealt yet."""
        return self.facts.turn == 0

    def signing_up(self) -> bool:
        """The game is open for sign-up (docs/signup.md): its seats are not fixed yet."""
        facts = self.facts
        return facts.signup is not None and not facts.started and not facts.closed

    def joining(self) -> dict[str, dict[str, Any]]:
        """The joins taken and not yet seated, refused or gone, by name (this step's
        included)."""
        return journal.joins([*self.log, self.seating])

    def shares(self) -> dict[str, str]:
        """Each share taken so far (this step's included), by player: a join's, or a share
        notice's."""
        found = [self.notice(n) for n in self.notices() if n["kind"] == "share"]
        noticed = {str(d["player"]): str(d["share"]) for d in found}
        joined = journal.joined_shares(self.log)
        # a name that joined (again, after its seat was given up) plays the join's share
        return {**noticed, **{p: joined[p] for p in self.players if p in joined}}

    def owing(self) -> list[str]:
        """The players who owe a share, in seat order (none once the game dealt, nor while
        it is open for sign-up)."""
        if not self.waiting() or self.signing_up() or self.facts.closed:
            return []
        taken = self.shares()
        return [p for p in self.players if p not in taken]

    def play_seed(self) -> int | str:
        """The seed the game plays with: the game master's, or under ``shares: ask`` the one
        hashed from it and every player's share (:func:`adjudicator.rules.deal.dealt_seed`)."""
        seed: int | str = self.meta["seed"]
        if self.meta.get("shares") != "ask":
            return seed
        shares = self.shares()
        return deal.dealt_seed(seed, [shares[p] for p in self.players])

    def in_effect(self, turn: int) -> dict[str, dict[str, Any]]:
        """Each player's order in effect for ``turn`` (this step's orders included)."""
        orders = dict(self.facts.in_effect.get(turn, {}))
        orders.update(
            {o["player"]: o for o in self.pending if o["turn"] == turn and not o.get("kind")}
        )
        return orders

    def committed(self, turn: int) -> dict[str, dict[str, Any]]:
        """Each player's commitment in effect for ``turn`` (this step's included)."""
        commitments = dict(self.facts.committed.get(turn, {}))
        commitments.update(
            {o["player"]: o for o in self.pending if o["turn"] == turn and o.get("kind")}
        )
        return commitments

    def sealing_option(self) -> str:
        """``plain``, or ``commit-reveal`` (docs/commit-reveal.md)."""
        return str(self.meta["options"].get("sealing", "plain"))

    def phase(self, turn: int | None = None) -> sealing.Phase:
        """What ``turn`` (default: the current one) asks for now."""
        turn = self.turn() if turn is None else turn
        if self.sealing_option() != "commit-reveal":
            return "orders"
        return "reveal" if turn in self.revealing() else "commit"

    def revealing(self) -> dict[int, dict[str, Any]]:
        """The turns whose reveal has opened (this step's opening included)."""
        return {**self.facts.revealing, **({self.opens["turn"]: self.opens} if self.opens else {})}

    def received(self, turn: int) -> dict[str, dict[str, Any]]:
        """What each player sent that counts now: their commitment in the commit phase, else
        their order."""
        return self.committed(turn) if self.phase(turn) == "commit" else self.in_effect(turn)

    def without(self, turn: int) -> list[str]:
        """The players who made no commitment for ``turn`` before its reveal opened."""
        return list(self.revealing().get(turn, {}).get("without", []))

    def orders_used(self) -> dict[str, Any]:
        """Every order each turn resolved so far used, from its resolution, by turn:
        ``{"1": {"alice": {...}, "bob": null}}`` (null: the default)."""
        result: dict[str, Any] = {}
        for turn in range(1, self.turn()):
            rel = f"{self.dir.turn_dir(turn)}/resolution.json"
            result[str(turn)] = journal.parse(self.dir.named(rel, self.facts.files))["orders"]
        return result

    def accepted(self) -> dict[str, int]:
        """The digest of every order accepted in this game, with its turn (for replays)."""
        return {
            **self.facts.accepted,
            **{o["digest"]: o["turn"] for o in self.pending},
            **{n["digest"]: n["turn"] for n in self.noticed},
        }

    def notices(self) -> list[dict[str, Any]]:
        """Every notice accepted, in the order they came (this step's included)."""
        return [*self.facts.notices, *self.noticed]

    def resigned(self) -> list[str]:
        """The players who resigned: their seats play the default orders."""
        return [p["name"] for p in self.meta["players"] if p.get("resigned")]

    def clock(self) -> journal.Clock:
        if self._clocks is not None:
            return self._clocks.result(self.turn())
        return journal.clock(self.log, self.turn())

    def over(self) -> bool:
        """The game is over: by its rules, because the players' votes ended it, or because it
        did not start (an open game with too few players at its sign-up deadline)."""
        if self.facts.closed:
            return True
        if self.waiting():
            return False
        return self.facts.ended is not None or self.game.is_over(self.state())

    def notice(self, entry: dict[str, Any]) -> dict[str, Any]:
        """The notice a journal entry names, as its player signed it (:func:`notices.stored`;
        read once per opening of the game: votes and absences are asked for again and again)."""
        key = (str(entry["kind"]), str(entry["file"]))
        if key not in self._notices:
            from adjudicator.engine import notices  # pydantic: only for a game that has notices

            self._notices[key] = notices.stored(self.dir, *key, self.facts.files)
        return self._notices[key]

    def votes(self) -> votes.Tally:
        """The players' draw votes and concessions as they stand (this step's included)."""
        found = [self.notice(n) for n in self.notices() if n["kind"] == "vote"]
        return votes.tally((d["player"], d["vote"]) for d in found)

    def ending(self) -> dict[str, Any] | None:
        """How the votes as they stand end the game at the adjudication of the current turn
        (None: they do not)."""
        if self.facts.ended is not None:
            return None
        return votes.ending(self.votes(), self.players, self.resigned(), self.turn())

    def opening(self) -> dict[str, Any]:
        """What the step's line says of the reveal it opens (nothing when it opens none)."""
        return {"reveal": self.opens} if self.opens else {}

    def require_player(self, player: str) -> None:
        if player not in self.players:
            raise UsageProblem(
                f"no player {player!r} in game {self.meta['id']} "
                f"(players: {', '.join(self.players)})"
            )


def game_options(meta: dict[str, Any]) -> dict[str, Any]:
    """The options the game module sees: the engine's own (nmr, sealing, press, absence,
    absence_days) left out."""
    engine = {*ENGINE_OPTIONS, *NUMBER_OPTIONS}
    return {k: v for k, v in meta["options"].items() if k not in engine}


def now() -> str:
    return clock.stamp()


def deadline_of(meta: dict[str, Any], opened: datetime) -> str | None:
    """The deadline of a turn that opens at ``opened`` (None when the game has none)."""
    spec = meta.get("deadline")
    if not spec:
        return None
    try:
        return clock.stamp(schedule.deadline_after(spec, opened, meta))
    except schedule.PastTheCalendar:
        return None  # the setup's first deadline was checked; a later one past 9999: none
