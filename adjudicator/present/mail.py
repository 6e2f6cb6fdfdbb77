"""The words of the mail the adjudicator writes itself: receipts, notices, reminders, digests.

(The report mails are reports: :mod:`adjudicator.present.reports`.) The mail modules hand over
plain facts; this module turns them into a subject and a body. A body is a Jinja template of
``templates/common/mail/`` (``receipt.txt.j2``, ``set-aside.txt.j2``, ...), a subject the text
of a code of ``templates/common/texts/mail.yaml`` (``mail-...-subject``).

Text from an incoming message (a file name, a sender, a subject) is a stranger's choice: the
mail modules escape it (:mod:`adjudicator.present.quoting`) before it becomes a fact here, and the
templates put it in as it comes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import jinja2

from adjudicator.present.catalogs import environment, translations
from adjudicator.present.hashes import head_line, say_filter
from adjudicator.present.quoting import one_line
from adjudicator.present.verdict_lines import placed
from adjudicator.present.words import say
from adjudicator.rules import shipped
from adjudicator.rules.contract import Game, Msg, Reason, msg


@dataclass(frozen=True)
class Mail:
    """The words of one mail."""

    subject: str
    body: str


@cache
def _environment(lang: str) -> jinja2.Environment:
    """The environment of ``templates/common/mail`` in ``lang`` (set as the reports' one is)."""
    common = shipped.templates() / "common"
    loader = jinja2.ChoiceLoader(
        [jinja2.FileSystemLoader(str(common / "mail")), jinja2.FileSystemLoader(str(common))]
    )
    env = environment(loader, translations(None, lang))
    env.filters["say"] = say_filter(lambda message: say(message, None, lang))
    return env


def body(template: str, lang: str = "en", **facts: Any) -> str:
    """The body made by ``templates/common/mail/<template>`` from ``facts``, in ``lang``."""
    return _environment(lang).get_template(template).render(lang=lang, **facts)


def subject(message: Msg, game: Game | None = None, lang: str = "en") -> str:
    """A mail's subject: the words of a ``mail-...-subject`` code."""
    return say(message, game, lang)


def turn_label(turn: int) -> Msg:
    """A turn by its number as the game calls it ("turn 3", the Court's "round 3")."""
    return msg("turn-label", turn=turn)


def _label(turn: int | None, game: Game | None, lang: str) -> str | None:
    return None if turn is None else say(turn_label(turn), game, lang)


def reason_lines(reasons: Sequence[Reason], game: Game | None, lang: str = "en") -> list[str]:
    """Each reason or note in words, as one line of printable characters."""
    return [one_line(placed(reason, game, lang)) for reason in reasons]


def receipt(
    *,
    game_id: str,
    name: str,
    turn: int | None,
    accepted: bool,
    replaces: bool = False,
    sha256: str | None = None,
    notes: Sequence[Reason] = (),
    reasons: Sequence[Reason] = (),
    order: str = "",
    in_effect_turn: int | None = None,
    in_effect: str | None = None,
    game: Game | None = None,
    lang: str = "en",
    head: str | None = None,
    kind: str | None = None,
    pasted: bool = False,
    commitment: bool = False,
) -> Mail:
    """A receipt: the order's (or a notice's, of ``kind``) fate, to its signer only. ``name``
    is the attachment's name, escaped (``pasted``: the order was pasted into the message, and
    is named so; ``commitment``: it is the commitment to a sealed order, whose receipt says to
    keep the order for the reveal); ``order`` the order in effect (accepted); ``in_effect``
    the SHA-256 of the order in effect for ``in_effect_turn`` (refused), None when there is
    none; ``head`` the chain head as the receipt is written (None: none)."""
    fate = "accepted" if accepted else "refused"
    code = f"mail-receipt-{fate}{'' if turn is not None else '-no-turn'}-subject"
    if commitment and accepted and turn is not None:
        code = "mail-receipt-commitment-accepted-subject"
    if kind is not None:
        code = f"mail-receipt-notice-{fate}-subject"
    text = body(
        "receipt.txt.j2",
        lang,
        game_id=game_id,
        name=say(msg("mail-pasted-order"), game, lang) if pasted else name,
        turn=_label(turn, game, lang),
        accepted=accepted,
        replaces=replaces,
        sha256=sha256,
        notes=reason_lines(notes, game, lang),
        reasons=reason_lines(reasons, game, lang),
        order=order,
        in_effect_turn=None
        if in_effect_turn is None
        else say(turn_label(in_effect_turn), game, lang),
        in_effect=in_effect,
        chain=[] if head is None else [head_line(head)],
        kind=None if kind is None else say(msg(f"notice-kind-{kind}"), game, lang),
        commitment=commitment,
    )
    about = Msg(code, {"game": game_id, "turn": None if turn is None else turn_label(turn)})
    if kind is not None:
        about = Msg(code, {"game": game_id, "kind": msg(f"notice-kind-{kind}")})
    return Mail(subject(about, game, lang), text)


def set_aside(
    *,
    game_id: str | None,
    whys: Sequence[str],
    pasted: bool,
    facts: dict[str, Any],
    about: Msg | None = None,
    lang: str = "en",
) -> Mail:
    """The notice to the game master of a message set aside (in the game ``game_id``, or in
    none), and why: ``whys``; ``pasted`` when a pasted order did not verify. ``facts`` name the
    message, every one escaped: ``sender``, ``subject`` (None when it has none), ``date``,
    ``message_id``, ``size`` and ``cap`` (bytes), ``sha256``, ``where`` (the file it is kept
    as), ``excerpt`` (its first lines), ``excerpt_lines`` and ``excerpt_bytes``. ``about``: the
    subject's code when it is not the usual one."""
    if about is None:
        about = (
            Msg("mail-set-aside-subject", {"game": game_id})
            if game_id is not None
            else Msg("mail-set-aside-no-game-subject", {})
        )
    text = body("set-aside.txt.j2", lang, whys=list(whys), pasted=pasted, **facts)
    return Mail(subject(about, lang=lang), text)


def reminder(
    *, game_id: str, turn: int, due: str, lang: str = "en", game: Game | None = None
) -> Mail:
    """A reminder to a player who still owes orders; ``due``: the deadline and the time left."""
    label = turn_label(turn)
    text = body("reminder.txt.j2", lang, game_id=game_id, turn=say(label, game, lang), due=due)
    about = Msg("mail-reminder-subject", {"game": game_id, "turn": label})
    return Mail(subject(about, game, lang), text)


def waiting(
    *,
    game_id: str,
    turn: int,
    due: str,
    waiting: Sequence[str],
    lang: str = "en",
    game: Game | None = None,
) -> Mail:
    """The game master's notice that a turn under ``nmr: wait`` passed its deadline without
    orders from the players ``waiting``."""
    label = turn_label(turn)
    words = say(label, game, lang)
    text = body("waiting.txt.j2", lang, game_id=game_id, turn=words, due=due, waiting=waiting)
    about = Msg("mail-waiting-subject", {"game": game_id, "turn": label})
    return Mail(subject(about, game, lang), text)


def announcement(*, game_id: str, action: Msg, lang: str = "en", game: Game | None = None) -> Mail:
    """The players' notice of a game master's action (a ``mail-announce-...`` code), or of a
    deadline an absence or the wait for the mail moved, which no game master did."""
    text = body("announcement.txt.j2", lang, game_id=game_id, text=say(action, game, lang))
    moves = ("mail-announce-absence", "mail-announce-mailed")
    code = "mail-absence-subject" if action.code in moves else None
    about = Msg(code or "mail-announcement-subject", {"game": game_id})
    return Mail(subject(about, lang=lang), text)


def digest(
    *,
    game_id: str,
    limit: int,
    answers: Sequence[dict[str, str]],
    in_full: int,
    lang: str = "en",
) -> Mail:
    """The answers held back from one address, as one mail: the first ``in_full`` of
    ``answers`` (each a ``subject``, a ``date`` and the ``text``) in full, the rest by subject;
    ``limit``: the most answers an address gets in an hour."""
    text = body(
        "digest.txt.j2",
        lang,
        game_id=game_id,
        limit=limit,
        count=len(answers),
        in_full=answers[:in_full],
        rest=answers[in_full:],
    )
    about = Msg("mail-digest-subject", {"game": game_id, "count": len(answers), "limit": limit})
    return Mail(subject(about, lang=lang), text.rstrip("\n") + "\n")


def refused(
    *, name: str, recipients: str, subject_line: str, answer: str, lang: str = "en"
) -> Mail:
    """The game master's notice that the server refused the queued message ``name`` for good;
    every fact escaped (the message's ``recipients``, its ``subject_line``, the server's
    ``answer``)."""
    text = body(
        "refused.txt.j2",
        lang,
        name=name,
        recipients=recipients,
        subject=subject_line,
        answer=answer,
    )
    return Mail(subject(Msg("mail-refused-subject", {"name": name}), lang=lang), text)


def told(*, about: Msg, text: Msg, lang: str = "en") -> Mail:
    """The game master's notice of a problem told once: ``about`` its subject (a
    ``mail-told-...-subject`` code), ``text`` what it is and what to do (a ``told-...`` code)."""
    return Mail(subject(about, lang=lang), body("told.txt.j2", lang, text=say(text, lang=lang)))


def press(
    *, game_id: str, press: dict[str, Any], lang: str = "en", game: Game | None = None
) -> Mail:
    """Press relayed to a recipient, or its copy to the game master, as its reader sees it
    (:func:`adjudicator.engine.press.seen`: ``from`` None under grey, and then nothing names the
    sender)."""
    to = [msg("press-to-everyone")] if press["to"] == "all" else list(press["to"])
    sender = press["from"]
    if sender is None:
        said = msg("press-from-someone", to=to)
        title = msg("mail-press-someone-subject", game=game_id)
    else:
        said = msg("press-from", sender=sender, to=to)
        title = msg("mail-press-subject", game=game_id, sender=sender)
    if press.get("gm"):
        title = msg("mail-press-gm-subject", game=game_id, sender=sender, to=to)
    text = body(
        "press.txt.j2",
        lang,
        game_id=game_id,
        said=say(said, game, lang),
        text=press["text"].rstrip("\n"),
        gm=bool(press.get("gm")),
    )
    return Mail(subject(title, game, lang), text)
