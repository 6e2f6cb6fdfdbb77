"""Rendered reports against golden files.

A fixed seeded game is played by the bots; the reports of chosen turns must equal the files in
tests/golden/. After a deliberate change to the templates, regenerate them with

    make golden        (ADJUDICATOR_REGENERATE_GOLDEN=1 pytest tests/test_golden_reports.py)

and review the diff before committing.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
from pathlib import Path
from typing import Any

import pytest

from adjudicator.games.sultan import GAME as SULTAN
from adjudicator.games.sultans_court import GAME as COURT
from adjudicator.present.notice_page import render_notice_page
from adjudicator.present.order_page import page_script, render_order_page
from adjudicator.present.reports import form_text, render, render_final
from adjudicator.rules import digests
from adjudicator.rules.contract import Game, State
from adjudicator.rules.lang import LANGUAGES
from adjudicator.rules.rng import Rng
from adjudicator.rules.views import reader_view
from adjudicator.store.registry import game_names

GOLDEN = Path(__file__).parent / "golden"
REGENERATE = os.environ.get("ADJUDICATOR_REGENERATE_GOLDEN") == "1"

# Seeds as setups give them (32 hex digits); "court" ends in a victory, "court-draw" in a draw.
GAMES: dict[str, tuple[Game, int, str, dict[str, Any]]] = {
    "four": (SULTAN, 4, "7a3e9c1f5b2d48069e1c7b3a5f2d8e40", {}),
    "two-sequential": (SULTAN, 2, "5c8e2a4f6b1d3097a5e3c1f7b9d2e468", {"placement": "sequential"}),
    "three-open": (
        SULTAN,
        3,
        "9b1f3d5a7c2e4086b3d1f9a7c5e2048a",
        {"jewel_choice": "random", "screens": False},
    ),
    "court": (COURT, 4, "09e1b7c4d2a6f8035b1c9d7e3f5a2468", {}),
    "court-draw": (
        COURT,
        4,
        "09e1b7c4d2a6f8035b1c9d7e3f5a2468",
        {"max_rounds": 7, "banish_tie": "higher_seat_goes", "first_round_all_travel": False},
    ),
}
READERS = ["alice", "public", "gm"]
SALT = hashlib.sha256(b"the golden salt").hexdigest()
"""A fixed salt as ``new`` draws one (64 hex digits): the seed commitment stays the same."""
HEAD = hashlib.sha256(b"the golden chain head").hexdigest()
"""A fixed chain head: every report shows the head it is given."""


def play(
    game: Game, count: int, seed: str, options: dict[str, Any]
) -> tuple[dict[str, Any], list[State], dict[str, Any]]:
    """The states of a bot game and every order used, by turn, normalised as the engine stores
    them (``None``: the default order), the last turn's included."""
    names = ["alice", "bob", "carol", "dave", "erin"][:count]
    effective, _ = game.options(names, options)
    meta = {
        "id": "golden",
        "game": game.name,
        "players": [{"name": n} for n in names],
        "options": {**effective, "nmr": "default"},
        "seed": seed,
        "salt": SALT,
        "commitment": digests.commitment(seed, SALT),
    }
    rng = Rng(seed)
    state = game.setup(meta["players"], effective, rng)
    states = [state]
    used: dict[str, Any] = {}
    while not game.is_over(state):
        owed = game.owed(state)
        orders: dict[str, Any] = {
            p: game.bot(game.view(state, p), rng.stream(f"bot {p} turn {state['turn']}"))
            for p in owed
        }
        if state["turn"] == 4:
            orders[next(iter(owed))] = None  # a default order, announced in every report
        used[str(state["turn"])] = {
            p: None if orders[p] is None else game.normalise(orders[p])
            for p in names
            if p in orders
        }
        state = game.resolve(state, orders, rng).state
        states.append(state)
    return meta, states, used


def cases() -> list[tuple[str, int, str]]:
    chosen = []
    for name in GAMES:
        for turn in (1, 5, 6, -1):
            for reader in READERS:
                chosen.append((name, turn, reader))
    return chosen


def scriptless(page: str, script: str) -> str:
    """A signing page with its shared script (a file of the package, run by the Chromium
    tests) written as its file names, so the golden pages keep their words, not its copies."""
    assert page.count(script) == 1
    return page.replace(script, "SCRIPT: _signing.js, then the page's own")


def compare(game: Game, name: str, text: str) -> None:
    path = GOLDEN / game.name / name
    if REGENERATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return
    assert path.exists(), f"no golden file {path.name}: run `make golden` and review it"
    assert text == path.read_text(encoding="utf-8"), f"{path.name} differs: see the docstring"


@pytest.mark.parametrize(("game", "turn", "reader"), cases())
def test_report(game: str, turn: int, reader: str) -> None:
    module = GAMES[game][0]
    meta, states, used = play(*GAMES[game])
    state = states[turn - 1] if turn > 0 else states[-1]
    label = "final" if turn < 0 else f"turn{turn}"
    text = render(module, meta, state, reader, orders=used, head=HEAD)
    compare(module, f"{game}-{label}-{reader}.txt", text)


@pytest.mark.parametrize("game", list(GAMES))
def test_forms_and_final_table(game: str) -> None:
    module = GAMES[game][0]
    meta, states, _ = play(*GAMES[game])
    for state in states[:6]:
        for player in module.owed(state):
            text = form_text(module, meta, state, player, head=HEAD)
            assert text is not None
            compare(module, f"{game}-turn{state['turn']}-{player}-form.yaml", text)
    compare(
        module,
        f"{game}-final-table.txt",
        render_final(module, meta, reader_view(module, meta, states[-1], "public"), head=HEAD),
    )


SPOKEN = {"four": (1, 5, -1), "court": (1, 5, -1)}
"""The games whose reports are kept in every language, and the turns kept."""


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != "en"])
@pytest.mark.parametrize("game", list(SPOKEN))
def test_reports_in_every_language(game: str, lang: str) -> None:
    """Reports, a form and the final table in each language (read next to the rulebook of that
    language when they change: docs/glossary.md)."""
    module = GAMES[game][0]
    meta, states, used = play(*GAMES[game])
    for turn in SPOKEN[game]:
        state = states[turn - 1] if turn > 0 else states[-1]
        label = "final" if turn < 0 else f"turn{turn}"
        for reader in READERS:
            text = render(module, meta, state, reader, orders=used, lang=lang, head=HEAD)
            compare(module, f"{lang}/{game}-{label}-{reader}.txt", text)
    player = next(iter(module.owed(states[0])))
    form = form_text(module, meta, states[0], player, lang, HEAD)
    assert form is not None
    compare(module, f"{lang}/{game}-turn1-{player}-form.yaml", form)
    final = reader_view(module, meta, states[-1], "public")
    compare(module, f"{lang}/{game}-final-table.txt", render_final(module, meta, final, lang, HEAD))


@pytest.mark.seconds
@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("game", list(SPOKEN))
def test_order_pages_in_every_language(game: str, lang: str) -> None:
    """The order page of a turn's form in each language (docs/order-page.md): its words, its
    controls and the reasons it carries, which the game's own check gave."""
    module = GAMES[game][0]
    meta, states, _ = play(*GAMES[game])
    state = states[1]
    player = next(iter(module.owed(state)))
    view = reader_view(module, meta, state, player)
    page = render_order_page(module, meta, view, lang, "gm@example.org", HEAD)
    assert page is not None
    folder = "" if lang == "en" else f"{lang}/"
    page = scriptless(page, page_script("_order_page.js"))
    compare(module, f"{folder}{game}-turn{state['turn']}-{player}-page.html", page)


def test_every_registered_game_has_golden_reports() -> None:
    assert sorted({game.name for game, *_ in GAMES.values()}) == game_names()


WELCOMED = {"four": "sultan", "court": "sultans_court"}
"""The games whose welcome mail is kept, in every language."""


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("game", list(WELCOMED))
def test_welcome_in_every_language(game: str, lang: str) -> None:
    """alice's welcome mail (text, then its subject): a daily deadline, her own time zone,
    press, absences and the engine's other options worded."""
    from datetime import UTC, datetime

    from adjudicator.mail.welcome import welcome_facts
    from adjudicator.present.welcome import welcome

    module = GAMES[game][0]
    meta, states, _ = play(*GAMES[game])
    key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGoldenGoldenGoldenGoldenGoldenGoldenGolden"
    meta = {
        **meta,
        "players": [
            {**p, "email": f"{p['name']}@example.org", "key": key, "lang": lang}
            for p in meta["players"]
        ],
        "options": {**meta["options"], "press": "private", "absence": "extend"},
        "deadline": "20:00 Europe/Berlin",
        "timezone": "Europe/Berlin",
        "reminders": ["24h", "2h"],
    }
    meta["players"][0]["tz"] = "America/New_York"
    public = reader_view(module, meta, states[0], "public")["view"]
    deadline = datetime(2026, 11, 24, 19, 0, tzinfo=UTC)
    facts = welcome_facts(meta, "alice", "Cairo GM <gm@example.org>", 1, deadline, public)
    facts = dataclasses.replace(facts, notice_page="golden-notices-alice.html")
    mail = welcome(facts, module, lang)
    prefix = "" if lang == "en" else f"{lang}/"
    compare(module, f"{prefix}{game}-welcome-alice.txt", f"{mail.subject}\n\n{mail.text}")
    if game != "four":  # the notice page is the same for every game but its title
        return
    page = render_notice_page(
        module, meta["id"], "alice", ["alice", "bob", "carol", "dave"], facts.options, lang,
        "gm@example.org",
    )  # fmt: skip
    page = scriptless(page, page_script("_notice_page.js"))
    compare(module, f"{prefix}{game}-notices-alice.html", page)
