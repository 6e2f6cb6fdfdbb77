"""What ``adjudicate --preview`` prints: the adjudication's summary and the reports of the turn
it would open, each rendered by the presentation layer exactly as ``report`` renders it.

Text: everything on standard output, a header first, each report under a separator naming its
reader (and the option that shows it with ``report``). HTML: one reader's page on standard
output (so that it can go to a file), the header and the summary on standard error.
"""

from __future__ import annotations

from pathlib import Path

from adjudicator.cli.support import echo

NOTICE = (
    "preview of {gamedir}: nothing was changed, written or sent; the chain heads below are "
    "the preview's own, not the game's"
)


def show(gamedir: Path, default_missing: bool, reader: str | None, fmt: str | None) -> None:
    """Preview the adjudication of ``gamedir``'s current turn: every reader's report, or only
    ``reader``'s (a player's name, ``gm`` or ``public``)."""
    from adjudicator.engine import open_game
    from adjudicator.engine.preview import preview
    from adjudicator.present.status import adjudicated_lines

    if reader not in (None, "gm", "public"):
        open_game.OpenGame(gamedir).require_player(reader)
    seen = preview(gamedir, default_missing)
    html = fmt == "html"
    echo(NOTICE.format(gamedir=gamedir), err=html)
    for line in adjudicated_lines(gamedir, seen.result, would=True):
        echo(line, err=html)
    if seen.result["revealing"]:
        echo(
            "the reveal opens no turn: the reports stay as they are "
            f"(adjudicator report {gamedir} --player NAME)",
            err=html,
        )
        return
    from adjudicator.rules.lang import lang_of

    chosen = [reader] if reader else ["gm", *(r for r in seen.views if r not in ("gm", "public"))]
    if not reader:
        chosen.append("public")
    for name in chosen:
        doc = seen.views[name]
        lang = lang_of(seen.meta, name)
        if html:
            from adjudicator.present.html import render_page

            page = render_page(seen.game, seen.meta, doc, lang, head=seen.head)
            echo(page.html, nl=False)
            continue
        from adjudicator.present.reports import render_view

        echo(_separator(name))
        echo(render_view(seen.game, seen.meta, doc, lang, seen.head), nl=False)


def _separator(reader: str) -> str:
    """The line above ``reader``'s report."""
    if reader == "gm":
        who = "the game master (--gm)"
    elif reader == "public":
        who = "the spectators (--public)"
    else:
        who = f"{reader} (--player {reader})"
    return f"===== report for {who} ====="
