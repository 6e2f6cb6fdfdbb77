"""The welcome mail, and the lines every mail that asks for an order ends with: how to answer.

The mail layer hands over plain facts (:mod:`adjudicator.mail.welcome`,
:mod:`adjudicator.mail.turn_reports`); this module makes the words, in the player's language,
from ``templates/common/welcome.txt.j2`` and ``_answer.txt.j2`` (a game may word a player's seat
its own way: ``_welcome_seat.txt.j2`` in its folder comes first). A welcome holds only what its
player may know: the players, the options, the schedule, the player's own key; never a draw.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib.resources import files
from typing import Any

from markupsafe import Markup

from adjudicator.present.catalogs import DEFAULT
from adjudicator.present.reports import report_environment
from adjudicator.present.rules_summary import summary_html, summary_text
from adjudicator.present.words import say
from adjudicator.rules.contract import Game, msg


@dataclass(frozen=True)
class Answer:
    """What a player needs to answer a mail that asks for an order."""

    address: str
    """Where orders go: the game's address (the mail's From and Reply-To)."""
    file: str
    """The order form's file name, as the mail attaches it: ``<id>-turn<N>-<player>.yaml``."""
    key: str
    """The usual file name of the player's private key, by its type (``id_ed25519``)."""
    deadline: str | None
    """The deadline as shown in the player's time zone; None: there is none."""
    turn: int = 1
    example: bool = False
    """True in the welcome mail, which shows the first turn's form name as an example."""
    page: str | None = None
    """The order page attached beside the form (``<id>-turn<N>-<player>.html``), if one is."""
    sealed: bool = False
    """The game seals orders by commit-reveal: the player sends a commitment first."""
    game_id: str = ""
    player: str = ""


@dataclass(frozen=True)
class Welcome:
    """The words of a welcome mail: subject, text part and HTML part."""

    subject: str
    text: str
    html: str


@dataclass(frozen=True)
class WelcomeFacts:
    """What a welcome mail says (every fact one the player may know)."""

    game_id: str
    player: str
    seats: list[dict[str, Any]]
    """Every seat in seating order: ``name`` and the game's own public keys (``colour``)."""
    options: dict[str, Any]
    deadline_rule: str | None
    deadline_daily: bool
    zone: str
    reminders: list[str]
    answer: Answer
    engine_options: tuple[str, ...] = field(default=())
    """The options every game has (worded one by one, not listed with the game's)."""
    public: dict[str, Any] = field(default_factory=dict)
    """The spectators' view of the current turn (a game's ``_welcome_seat.txt.j2`` may show
    what it says of the seats there, such as the Court's colours)."""
    notice_page: str | None = None
    """The notice page attached to the welcome (``<id>-notices-<player>.html``), if one is."""


def guide(lang: str) -> tuple[str, str]:
    """The player's guide in ``lang`` as the welcome attaches it: its file name and its text
    (``docs/players.md``, or ``players.<lang>.md`` for another language)."""
    name = "players.md" if lang == DEFAULT else f"players.{lang}.md"
    return name, (files("adjudicator.docs") / name).read_text("utf-8")


def turns_said(game: Game, lang: str) -> str:
    """How a turn relates to the game's rounds, where it has both (``turns-explained``)."""
    return say(msg("turns-explained"), game, lang)


def _answer_facts(answer: Answer, game: Game, lang: str) -> dict[str, Any]:
    return {
        "address": answer.address,
        "file": answer.file,
        "key": answer.key,
        "deadline": answer.deadline,
        "example": answer.example,
        "page": answer.page,
        "first": say(msg("turn-label", turn=answer.turn), game, lang),
        "turn": answer.turn,
        "sealed": answer.sealed,
        "game_id": answer.game_id,
        "player": answer.player,
        "turns": turns_said(game, lang),
    }


def answer_text(answer: Answer, game: Game, lang: str = DEFAULT) -> str:
    """How to answer, as lines of text (after a report that asks for an order)."""
    env = report_environment(game, lang)
    return env.get_template("_answer.txt.j2").render(answer=_answer_facts(answer, game, lang))


def answer_html(answer: Answer, game: Game, lang: str = DEFAULT) -> str:
    """How to answer, as a block of a page (the words of :func:`answer_text`)."""
    return (
        report_environment(game, lang)
        .get_template("_answer.html.j2")
        .render(answer_text=answer_text(answer, game, lang).rstrip("\n"))
    )


def welcome(facts: WelcomeFacts, game: Game, lang: str = DEFAULT) -> Welcome:
    """The welcome mail of ``facts.player``, in ``lang``: its text ends with the game's rules
    summary (:mod:`adjudicator.present.rules_summary`) as plain text, its page with the same
    summary as HTML."""
    engine = set(facts.engine_options)
    game_options = [  # an option set to nothing (null: drawn, no limit) says nothing here
        f"{key}: {_value(value)}"
        for key, value in facts.options.items()
        if key not in engine and value is not None
    ]
    you = say(msg("welcome-you"), game, lang)
    names = [s["name"] + (f" {you}" if s["name"] == facts.player else "") for s in facts.seats]
    seat = next(i for i, s in enumerate(facts.seats, 1) if s["name"] == facts.player)
    title = say(msg("game-title", title=game.title), game, lang)
    said = {
        "title": title,
        "game_id": facts.game_id,
        "player": facts.player,
        "names": names,
        "names_only": [s["name"] for s in facts.seats],
        "notice_page": facts.notice_page,
        "seats": facts.seats,
        "seat": seat,
        "public": facts.public,
        "game_options": game_options,
        "options": facts.options,
        "deadline": {"rule": facts.deadline_rule, "daily": facts.deadline_daily},
        "zone": facts.zone,
        "reminders": facts.reminders,
        "turns": turns_said(game, lang),
        "answer": _answer_facts(facts.answer, game, lang),
        "guide": guide(lang)[0],
        "rules": (summary_text(game, lang) or "").strip() or None,
    }
    template = report_environment(game, lang).get_template("welcome.txt.j2")
    text = template.render(**said, page=False)
    above = template.render(**said, page=True)  # the page shows the rules as HTML below
    rules = summary_html(game, lang)
    html = (
        report_environment(game, lang)
        .get_template("welcome.html.j2")
        .render(
            lang=lang,
            title=title,
            game_id=facts.game_id,
            text=above.rstrip("\n"),
            rules=None if rules is None else Markup(rules),
        )
    )
    about = msg("mail-welcome-subject", game=facts.game_id, player=facts.player)
    return Welcome(say(about, game, lang), text, html)


def share_request(
    game_id: str,
    player: str,
    game: Game,
    lang: str = DEFAULT,
    key: str = "id_ed25519",
    page: str | None = None,
) -> Welcome:
    """The mail that asks ``player`` for their share of the deal (``shares: ask``), in
    ``lang``: how to make, sign and send one, in the attached ``page`` (if any), with OpenSSH
    (``key``: the usual file name of the player's private key) or with the program."""
    env = report_environment(game, lang)
    title = say(msg("game-title", title=game.title), game, lang)
    said = {"title": title, "game_id": game_id, "player": player, "key": key, "page": page}
    text = env.get_template("share_request.txt.j2").render(**said)
    rules = summary_html(game, lang)
    html = env.get_template("welcome.html.j2").render(
        lang=lang,
        title=title,
        game_id=game_id,
        text=text.rstrip("\n"),
        rules=None if rules is None else Markup(rules),
    )
    about = msg("mail-share-subject", game=game_id, player=player)
    return Welcome(say(about, game, lang), text, html)


def _value(value: Any) -> str:
    """An option's value as the setup file writes it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
