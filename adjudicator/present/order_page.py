"""The order page: one self-contained HTML file beside each order form (docs/order-page.md).

It is rendered from the same stored view as the form and holds no more than the form does: the
order's envelope, the controls (each named by its key's path in the order file, offering only
the values the form's context allows), and the reasons ``check`` gives for what the controls can
make. Those reasons are not a second copy of the rules: every combination of a part's controls
is judged here, when the page is made, by the game's own schema and ``validate`` (as ``check``
judges an order, through :func:`adjudicator.engine.orders.game_found`), and the page carries
the reasons of the combinations that are refused, and the notes of those taken with notes, in
the player's language. The choices each game offers are written here (``_SPECS``), as its form
template writes its comments; a game without an entry gets no page.

The page's script signs the order in the browser with the player's OpenSSH Ed25519 key (Web
Crypto), as ``ssh-keygen -Y sign -n adjudicator-orders`` does; its Content-Security-Policy
allows no connection.
"""

from __future__ import annotations

import functools
import itertools
import json
import re
from dataclasses import dataclass, field
from typing import Any

from adjudicator.engine.orders import game_found, game_notes, order_schema_problems
from adjudicator.present.hashes import head_line
from adjudicator.present.reports import report_environment
from adjudicator.present.words import say
from adjudicator.rules import sealing, shipped
from adjudicator.rules.contract import Game, Problem, msg
from adjudicator.signing.sshsig import NAMESPACE

CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:"
"""The page's Content-Security-Policy: inline script and styles, no connection of any kind."""

Value = int | str
Judged = tuple[list[Problem], list[Problem], str]
"""What ``check`` says of an order the page makes: its problems, its notes, and the paths and
messages of what the page shows of it (its problems, or else its notes) as one text
(``_found_key``; empty when there is nothing to show)."""


@dataclass
class Control:
    """One ``<select>``: its name (the key's path in the order file), its label and its
    choices as (value, words); ``blank`` words the empty choice (None: a value is required)."""

    name: str
    label: str
    choices: list[tuple[Value, str]]
    blank: str | None = None
    row: int | None = None
    """The row of a list this control is in (0 first), shown as its own line "1.", "2."."""


@dataclass
class Section:
    """A heading of the page and the controls under it, with a line of help (``hint``)."""

    heading: str
    hint: str = ""
    controls: list[Control] = field(default_factory=list)


@dataclass
class Spec:
    """What the page offers: its sections of controls, the order keys the script builds from
    them (``keys``, for the script), and the parts whose combinations are judged."""

    sections: list[Section]
    keys: list[dict[str, Any]]
    parts: list[list[str]]
    """Each part's controls; a part's reasons are those whose path starts with its first name's
    top key (the first part also takes those of the file as a whole)."""
    facts: list[str] = field(default_factory=list)
    """What the player needs to choose, shown above the choices (the hand, the jewels drawn)."""


def render_order_page(
    game: Game,
    meta: dict[str, Any],
    doc: dict[str, Any],
    lang: str,
    address: str,
    head: str | None = None,
    answers: str | None = None,
    judged: dict[Any, Judged] | None = None,
) -> str | None:
    """The order page of a player's stored view in ``lang``, or None when they owe nothing or
    the game is one the page does not know (a third-party game); in a game that seals orders by
    commit-reveal the page makes the signed commitment and the salted order with its signature
    (the reveal, for the player to keep), as ``adjudicator commit`` does;
    ``address`` is where the signed order goes (the game's mail address); the page shows the
    chain head ``head`` (None: none) at its foot, as the form does; its ``mailto:`` link
    answers the mail whose Message-ID is ``answers`` (None: no mail), so the order threads.
    ``judged`` keeps what ``check`` said of each order the page makes, for a caller that renders
    the same page again in another language (what ``check`` says has no language): pass the
    same dict for the same view and game only (None: nothing is kept past this page)."""
    if "to_do" not in doc:
        return None
    sealed = meta["options"].get("sealing") == "commit-reveal"
    if game.name not in _SPECS:  # a game the page does not know yet: the form alone
        return None
    env = report_environment(game, lang)
    player, turn = doc["reader"], doc["turn"]
    spec = _spec(game, lang, env, doc)
    reasons: list[str] = []
    judged = {} if judged is None else judged
    parts = []
    for names in spec.parts:
        part: dict[str, Any] = {"names": names}
        part["table"], part["notes"] = _table(game, meta, doc, spec, names, lang, reasons, judged)
        row = _row_of(spec, names)
        if row is not None:
            part["list"], part["row"] = row
        parts.append(part)
    data = {
        "id": meta["id"],
        "player": player,
        "turn": turn,
        "namespace": NAMESPACE,
        "address": address,
        "subject": f"[{meta['id']}] turn {turn} order",
        "answers": answers,
        "registered": registered_key(meta, player),
        "sealed": sealed,
        "domain": sealing.DOMAIN.decode("ascii") if sealed else None,
        "file": f"{meta['id']}-turn{turn}-{player}.yaml",
        "keyfile": f"{meta['id']}-{player}",
        "keys": spec.keys,
        "parts": parts,
        "reasons": reasons,
    }
    script = page_script("_order_page.js")
    return env.get_template("order_page.html.j2").render(
        csp=CSP,
        game=game,
        meta=meta,
        player=player,
        turn_label=say(msg("turn-label", turn=turn), game, lang),
        sections=spec.sections,
        facts=spec.facts,
        chain=[] if head is None else [head_line(head)],
        json=lambda value: json.dumps(value, sort_keys=True, ensure_ascii=False),
        data=json.dumps(data, sort_keys=True, ensure_ascii=False).replace("<", "\\u003c"),
        script=script,
        keyfile=data["keyfile"],
        order_file=data["file"],
        sealed=sealed,
    )


def registered_key(meta: dict[str, Any], player: str) -> str | None:
    """The base64 of ``player``'s registered public key, which the page signs with alone (a
    key of another kind than Ed25519 the page cannot use, and says so); None: none known."""
    seat: dict[str, Any] = next((p for p in meta["players"] if p["name"] == player), {})
    parts = str(seat.get("key") or "").split()
    return parts[1] if len(parts) > 1 else None


def page_script(name: str) -> str:
    """A signing page's script: what the signing pages share (``_signing.js``), then ``name``."""
    folder = shipped.templates() / "common"
    return "\n".join((folder / part).read_text("utf-8") for part in ("_signing.js", name))


# -- judging what the controls can make --------------------------------------------------------
def _row_of(spec: Spec, names: list[str]) -> tuple[str, int] | None:
    """The list and row a part is one row of (``demand.1.from``: ``("demand", 1)``), or None."""
    top, _, rest = names[0].partition(".")
    lists = {key["name"] for key in spec.keys if key["kind"] == "list"}
    row = rest.split(".")[0]
    if top in lists and row.isdigit() and len(spec.parts) > 1:
        return top, int(row)
    return None


def _table(
    game: Game,
    meta: dict[str, Any],
    doc: dict[str, Any],
    spec: Spec,
    names: list[str],
    lang: str,
    reasons: list[str],
    judged: dict[Any, Judged],
) -> tuple[dict[str, list[int]], dict[str, list[int]]]:
    """Every combination of ``names``' choices (and none, where a control may be left empty)
    that ``check`` refuses, as the JSON of its values, with the indices of its reasons; and
    those it takes with notes (a pardon that cannot apply as things stand), with theirs. A part
    that is one row of a list is judged at each place the row can take in the order file (the
    rows above it left empty or filled in), its key then starting with that place; ``judged``
    keeps what ``check`` said of each order, once for every row of a list that makes it alike,
    and for the same page in every language (:func:`render_order_page`)."""
    controls = {c.name: c for s in spec.sections for c in s.controls}
    domains: list[list[Value | None]] = []
    jsons: list[list[str]] = []
    for name in names:
        control = controls[name]
        values: list[Value | None] = [value for value, _ in control.choices]
        values = values if control.blank is None else [None, *values]
        domains.append(values)
        # each value's JSON, from which a combination's key is joined
        jsons.append([_json(value) for value in values])
    top = names[0].split(".")[0]
    first = names is spec.parts[0]
    row = _row_of(spec, names)
    places = range(row[1] + 1) if row is not None else [None]
    named = tuple(names)
    filler: dict[str, Value | None] = {}
    worded: dict[tuple[Any, str], list[int]] = {}
    noted: dict[str, list[int]] = {}
    table: dict[str, list[int]] = {}
    notes: dict[str, list[int]] = {}
    for place in places:
        above = {}
        if row is not None and place:
            assert filler, "a row with no good choice"
            for earlier in range(place):
                above.update(
                    {
                        n.replace(f"{top}.{row[1]}", f"{top}.{earlier}", 1): v
                        for n, v in filler.items()
                    }
                )
        # the other keys as the page writes them with their controls left as they are
        # (empty): built once, only the part's own key built for each combination
        envelope = {"id": meta["id"], "player": doc["reader"], "turn": doc["turn"]}
        rest = {k: v for k, v in build_body(spec.keys, above).items() if k != top}
        own = [key for key in spec.keys if key["name"] == top]
        alike = row is not None and not any(key.get("fixed") for key in own)
        # each combination of values with their JSON texts, in the same order
        combinations = zip(itertools.product(*domains), itertools.product(*jsons), strict=True)
        for combination, texts in combinations:
            # a row of a list at a place makes the same order whichever row it is (the rows
            # above it filled in, the rows between left out), unless its rows differ by a
            # fixed value (a pardon's vizir): judged once for every row
            memo = (top, first, place, combination) if alike else (named, place, combination)
            if memo in judged:
                found, told, found_key = judged[memo]
            else:
                chosen = {**above, **dict(zip(names, combination, strict=True))}
                body = {**rest, **build_body(own, chosen)}
                found, told = _judge(game, doc["context"], envelope, body, top, place, first)
                found_key = _found_key(found or told) if found or told else ""
                judged[memo] = (found, told, found_key)
            # the JSON of the combination's key, as json.dumps(separators=(",", ":")) writes it
            said = "[" + ",".join(texts if place is None else (str(place), *texts)) + "]"
            if found:
                at = None if row is None or place is None else (top, place, row[1])
                # many combinations share their reasons: each list of them worded once
                same = (at, found_key)
                if same not in worded:
                    found = [_for_page(problem, controls, spec, at) for problem in found]
                    worded[same] = _indices(found, game, lang, reasons)
                table[said] = worded[same]
                continue
            if not filler and None not in combination:
                filler = dict(zip(names, combination, strict=True))
            if told:
                # as reasons are: each list of notes worded once
                if found_key not in noted:
                    noted[found_key] = _indices(told, game, lang, reasons)
                notes[said] = noted[found_key]
    return table, notes


def _json(value: Value | None) -> str:
    return json.dumps(value, ensure_ascii=False)


def _found_key(found: list[Problem]) -> str:
    """Problems' (or notes') paths and messages as one text: those alike in these are worded
    alike (made once for an order judged once for every row of a list). Their ``repr``, not
    their JSON: in half the time, and as telling (a message's parameters are plain values and
    other messages)."""
    return repr([(problem.path, problem.msg) for problem in found])


def _judge(
    game: Game,
    context: dict[str, Any],
    envelope: dict[str, Any],
    body: dict[str, Any],
    top: str,
    place: int | None,
    first: bool,
) -> tuple[list[Problem], list[Problem]]:
    """What ``check`` says of the order ``body`` (its ``envelope`` put before it) that belongs
    to the part at ``top`` (and, for the first part, to the file as a whole): its problems, as
    ``check`` finds them (the schema's, then the game's), or else its notes (of the part's own
    row at ``place``, not the rows above's). As ``check`` does, it hands ``validate`` its own
    copy of the order, and ``notes`` another."""
    schema = order_schema_problems(game, {**envelope, **body})
    found = [
        problem
        for problems in (schema, game_found(game, context, dict(body), schema))
        for problem in problems
        if (problem.path[:1] == (top,)) or (first and not problem.path)
    ]
    if found:
        return found, []
    mine = (top,) if place is None else (top, place)
    return [], [n for n in game_notes(game, context, body) if n.path[: len(mine)] == mine]


def _for_page(
    problem: Problem, controls: dict[str, Control], spec: Spec, at: tuple[str, int, int] | None
) -> Problem:
    """``problem`` as the page names things: a value left out where the page has a control for
    it is named by the control ("Jewel to return: choose one"), and a problem of one row of a
    list shown as rows "1.", "2." names its row ("Trades 2: ..."), not its place in the order
    file. ``at`` is the part's row: (list, place in the order file, row on the page)."""
    path = problem.path
    if at is not None and path[:2] == at[:2]:
        path = (at[0], at[2], *path[2:])  # the row as the page shows it
    if problem.code in ("missing-key", "owed-key-missing"):  # the latter: Sultan's own
        key = str(problem.params["key"])
        name = re.sub(r"\[(\d+)\]", lambda m: f".{int(m[1]) - 1}", key)
        if at is not None and name.startswith(f"{at[0]}.{at[1]}."):
            name = f"{at[0]}.{at[2]}." + name.split(".", 2)[2]
    elif problem.code == "entry-missing-key":
        name = ".".join(str(part) for part in (*path, problem.params["key"]))
    else:
        name = ""
    control = controls.get(name)
    if control is not None:
        return Problem(problem.code, path, words=msg("page-choose", label=_label(control, spec)))
    if len(path) >= 2 and isinstance(path[1], int):
        row = next(
            (c for c in controls.values() if c.name.startswith(f"{path[0]}.{path[1]}.")), None
        )
        if row is not None and row.row is not None:
            where = f"{_heading(row, spec)} {row.row + 1}"
            return Problem(problem.code, path, words=msg("page-row", row=where, said=problem.msg))
    return problem


def _heading(control: Control, spec: Spec) -> str:
    # by identity: comparing controls field by field (their choices too) was most of the time
    # a page took to word its reasons
    return next(s.heading for s in spec.sections if any(c is control for c in s.controls))


def _label(control: Control, spec: Spec) -> str:
    """A control as a player finds it on the page: its label, and its row's where it has one."""
    if control.row is not None:  # a row of a list shown as "1.", "2." under its heading
        return f"{_heading(control, spec)} {control.row + 1}, {control.label}"
    if any(part.isdigit() for part in control.name.split(".")):  # a row shown as a section
        return f"{_heading(control, spec)}, {control.label}"
    return control.label


_WORDED: dict[tuple[str, str, str], str] = {}
"""Each message worded so far in this process, by game, language and message: a page words
the same few reasons for thousands of combinations."""


def _indices(problems: list[Problem], game: Game, lang: str, said: list[str]) -> list[int]:
    """Each problem's words as their index in ``said`` (added there when new)."""
    indices = []
    for problem in problems:
        key = (game.name, lang, json.dumps(problem.msg.to_json(), sort_keys=True, default=str))
        text = _WORDED.get(key)
        if text is None:
            text = _WORDED[key] = say(problem.msg, game, lang)
        if text not in said:
            said.append(text)
        indices.append(said.index(text))
    return indices


def build_body(keys: list[dict[str, Any]], chosen: dict[str, Value | None]) -> dict[str, Any]:
    """The order body the page's script builds from the controls' values (``chosen``; a
    control not in it is empty): the same rules as ``body()`` in ``_order_page.js``."""
    out: dict[str, Any] = {}
    for key in keys:
        name = key["name"]
        if key["kind"] == "value":
            if chosen.get(name) is not None:
                out[name] = chosen[name]
        elif key["kind"] == "map":
            mapping = {}
            for f in key["fields"]:
                value = chosen.get(f"{name}.{f}")
                if value is not None:
                    mapping[f] = value
            if mapping or not key.get("optional"):
                out[name] = mapping
        else:
            items: list[Any] = []
            for row in range(key["rows"]):
                if "fields" not in key:
                    if chosen.get(f"{name}.{row}") is not None:
                        items.append(chosen[f"{name}.{row}"])
                    continue
                prefix = f"{name}.{row}."
                entry = {}
                for f in key["fields"]:
                    value = chosen.get(prefix + f)
                    if value is not None:
                        entry[f] = value
                if entry:
                    for fixed_row, fixed_key, fixed_value in key.get("fixed", []):
                        if fixed_row == row:
                            entry[fixed_key] = fixed_value
                    items.append(entry)
            if items or not key.get("optional"):
                out[name] = items
    return out


# -- what each game's page offers --------------------------------------------------------------
def _spec(game: Game, lang: str, env: Any, doc: dict[str, Any]) -> Spec:
    return _SPECS[game.name](_words(game, lang), env, doc)


def _words(game: Game, lang: str) -> Any:
    """The page's words for its controls: ``page-…`` codes, said in ``lang``."""

    def said(code: str, **params: Any) -> str:
        return say(msg(f"page-{code}", **params), game, lang)

    return said


def _sultan(_: Any, env: Any, doc: dict[str, Any]) -> Spec:
    jewels = env.get_template("_jewels.txt.j2").module
    view, context = doc["view"], doc["context"]
    to_do = context["to_do"]
    if to_do == "return":
        drawn = list(dict.fromkeys(context["drawn"]))
        choices: list[tuple[Value, str]] = [(c, str(jewels.jewel_word(c))) for c in drawn]
        control = Control("return", _("return"), choices, blank="—")
        twice = len(drawn) < len(context["drawn"])  # the earlier drawn of a colour goes back
        section = Section(_("which-colour"), _("drawn-twice") if twice else "", [control])
        drew = _("drawn", jewels=", ".join(str(jewels.jewel_word(c)) for c in context["drawn"]))
        return Spec([section], [{"kind": "value", "name": "return"}], [["return"]], [drew])
    offered = view.get("offered") or []
    used = context.get("used_cushions") or []
    cushions: list[tuple[Value, str]] = []
    for number in range(1, context["cushions"] + 1):
        if number in used:
            continue
        jewel = offered[number - 1] if number <= len(offered) else None
        words = _("cushion-number", number=number)
        if jewel is not None:
            words += f" ({jewels.jewel_word(jewel)})"
        cushions.append((number, words))
    cards: list[tuple[Value, str]] = [(c, str(c)) for c in sorted(set(context["hand"]))]
    hand = _("hand", hand=", ".join(str(c) for c in sorted(context["hand"])))
    if to_do == "bid":
        controls = [
            Control("bid.cushion", _("cushion"), cushions, blank="—"),
            Control("bid.card", _("card"), cards, blank="—"),
        ]
        section = Section(_("place-one"), controls=controls)
        keys: list[dict[str, Any]] = [{"kind": "map", "name": "bid", "fields": ["cushion", "card"]}]
        return Spec([section], keys, [[c.name for c in controls]], [hand])
    sections = []
    names = []
    for row in range(2):
        heading = _("first-placement") if row == 0 else _("second-placement")
        controls = [
            Control(f"bids.{row}.cushion", _("cushion"), cushions, blank="—"),
            Control(f"bids.{row}.card", _("card"), cards, blank="—"),
        ]
        names += [c.name for c in controls]
        sections.append(Section(heading, controls=controls))
    keys = [{"kind": "list", "name": "bids", "rows": 2, "fields": ["cushion", "card"]}]
    return Spec(sections, keys, [names], [hand])


_COURT_CARDS = ("Horses", "Cannons", "Gold", "Troops", "Supplies", "Ships", "Pardon")
_POWER = _COURT_CARDS[:-1]
_COURT_CITIES = ("Bukhara", "Tabriz", "Shiraz", "Kaffa", "Gidda", "Uskub", "Isfahan")
_KINDS = ("fat", "small", "big")
_COURT_ROWS = 6
"""The rows the page offers for demands and for trades (the order file takes any number)."""


_COURT_HINTS = {
    "accuse": (
        "Accuse one vizir, or none. An accusation counts only against a vizir at court or "
        "in a city whose owner holds 4 or more power types when banishment begins. At "
        "court or in a city now:"
    ),
    "kaffa": (
        "kaffa: if a vizir of yours is alone in Kaffa, the card you want most first, from "
        "%(cards)s."
    ),
    "demand": (
        "demand: if a vizir of yours sits on seat 1 after collecting, the first demand "
        "for a power type you lack, from a player who holds two or more of it, is carried "
        "out."
    ),
    "pardon": (
        "pardon: one Pardon card each, for a vizir of yours in Dungeon 2 or 3; the card "
        "goes under the stack of the city you name."
    ),
    "trades": (
        "trades: one power card each way, made before travel when the other player offers "
        "the mirror."
    ),
}
"""What the Court's form says of each part, by its own msgids (so the page has its words)."""


def said(env: Any, msgid: str, **params: Any) -> str:
    """A comment of the game's form in the reader's words (the form's own msgid, so the page
    says what the form says, in the form's translations)."""
    return str(_gettext_template(env).render(msgid=msgid, params=params))


@functools.cache
def _gettext_template(env: Any) -> Any:
    """The template that says a msgid in ``env``'s language, compiled once per environment
    (there is one per game and language, :func:`report_environment`)."""
    return env.from_string("{{ gettext(msgid, **params) }}")


def _court(_: Any, env: Any, doc: dict[str, Any]) -> Spec:
    words = env.get_template("_words.txt.j2").module
    view, context = doc["view"], doc["context"]
    player = doc["reader"]
    others = [p for p in context["players"] if p != player]
    all_travel = bool(context.get("first_round_all_travel")) and context.get("round") == 1
    markers = view.get("markers")
    sections: list[Section] = []
    keys: list[dict[str, Any]] = []
    parts: list[list[str]] = []

    travel = Section(_("travel"))
    movable = []
    for kind in _KINDS:
        place = context["vizirs"][kind]["place"]
        at_court = isinstance(place, int) and not isinstance(place, bool)
        if not (at_court or place in _COURT_CITIES or place == "reserve"):
            continue
        movable.append(kind)
        choices: list[tuple[Value, str]] = [(c, c) for c in _COURT_CITIES if c != place]
        if not all_travel:
            if not at_court:
                choices += [(s, _("seat", seat=s)) for s in range(1, 13)]
            choices.insert(0, ("stay", _("stay")))
        where = str(words.place(place, markers))
        blank = "—" if all_travel else None  # each must travel: no city chosen for the player
        travel.controls.append(Control(f"travel.{kind}", f"{kind} ({where})", choices, blank))
    if not movable:
        travel.hint = _("no-travel")
    sections.append(travel)
    keys.append({"kind": "map", "name": "travel", "fields": movable})
    parts.append([c.name for c in travel.controls] or [])

    accusable: list[tuple[Value, str]] = [("none", _("none"))]
    for vizir, place in (view.get("vizirs") or {}).items():
        if (isinstance(place, int) and not isinstance(place, bool)) or place in _COURT_CITIES:
            accusable.append((vizir, vizir))
    sections.append(
        Section(
            _("accuse"),
            said(
                env,
                _COURT_HINTS["accuse"],
            ).removesuffix(" At court or in a city now:"),
            [Control("accuse", _("accuse"), accusable)],
        )
    )
    keys.append({"kind": "value", "name": "accuse"})
    parts.append(["accuse"])

    # each card's words made once: a page offers the cards in some 150 choices
    card_words = {name: str(words.card_value(name)) for name in _COURT_CARDS}

    def card(name: str) -> tuple[Value, str]:
        return name, card_words[name]

    kaffa = Section(
        _("kaffa"),
        said(
            env,
            _COURT_HINTS["kaffa"],
            cards=", ".join(str(words.card_value(c)) for c in _COURT_CARDS),
        ),
    )
    for row in range(len(_COURT_CARDS)):
        kaffa.controls.append(
            Control(f"kaffa.{row}", str(row + 1), [card(c) for c in _COURT_CARDS], blank="—")
        )
    sections.append(kaffa)
    keys.append({"kind": "list", "name": "kaffa", "rows": len(_COURT_CARDS)})
    parts += [[c.name] for c in kaffa.controls]

    demand = Section(
        _("demand"),
        said(
            env,
            _COURT_HINTS["demand"],
        ),
    )
    for row in range(_COURT_ROWS):
        demand.controls += [
            Control(f"demand.{row}.from", _("demand-from"), [(p, p) for p in others], "—", row),
            Control(f"demand.{row}.card", _("demand-card"), [card(c) for c in _POWER], "—", row),
        ]
        parts.append([f"demand.{row}.from", f"demand.{row}.card"])
    sections.append(demand)
    keys.append({"kind": "list", "name": "demand", "rows": _COURT_ROWS, "fields": ["from", "card"]})

    pardon = Section(
        _("pardon"),
        said(
            env,
            _COURT_HINTS["pardon"],
        ),
    )
    for row, kind in enumerate(_KINDS):
        pardon.controls.append(
            Control(
                f"pardon.{row}.city",
                f"{kind} ({words.place(context['vizirs'][kind]['place'], markers)})",
                [(c, c) for c in _COURT_CITIES],
                blank="—",
            )
        )
        parts.append([f"pardon.{row}.city"])
    sections.append(pardon)
    fixed = [[row, "vizir", kind] for row, kind in enumerate(_KINDS)]
    keys.append({"kind": "list", "name": "pardon", "rows": 3, "fields": ["city"], "fixed": fixed})

    trades = Section(
        _("trades"),
        said(
            env,
            _COURT_HINTS["trades"],
        ),
    )
    for row in range(_COURT_ROWS):
        trades.controls += [
            Control(f"trades.{row}.with", _("trade-with"), [(p, p) for p in others], "—", row),
            Control(f"trades.{row}.give", _("trade-give"), [card(c) for c in _POWER], "—", row),
            Control(f"trades.{row}.get", _("trade-get"), [card(c) for c in _POWER], "—", row),
        ]
        parts.append([f"trades.{row}.with", f"trades.{row}.give", f"trades.{row}.get"])
    sections.append(trades)
    keys.append(
        {"kind": "list", "name": "trades", "rows": _COURT_ROWS, "fields": ["with", "give", "get"]}
    )
    for key in keys:
        if key["kind"] == "list":
            key["optional"] = False
    held = [str(words.card_value(c)) for c in (view.get("hands") or {}).get(player) or []]
    facts = [_("court-hand", cards=", ".join(held) or _("none"))]
    return Spec(sections, keys, [p for p in parts if p], facts)


_SPECS = {"sultan": _sultan, "sultans_court": _court}
"""What each game's page offers, by the game's name; other games get no page."""
