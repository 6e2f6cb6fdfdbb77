"""The game record (``log --json``) as readable text: the default output of ``adjudicator log``.

One generic rendering for every game, read from the record's keys only (docs/record.md): the
game, its players and options, then each resolved round in brief (its header from ``stage``,
``round``, ``turn``/``turns`` and ``start_player``, its events one a line with the type first,
the rest as short ``key: value`` lines; a round's ``after``, the full position when it ended,
only in the JSON), then the deal, the decks
and the seed once they are public, and the result. Nothing here knows a game's rules, so it shows
exactly what the record holds, no more (a ``start_player`` option left null says ``drawn``, as
docs/record.md defines it). ``none`` is an empty or null value; ``?`` in a list
(a card in a city stack while the game runs) is one the record keeps hidden (null) for now.
"""

from __future__ import annotations

from typing import Any

_ROUND_HEAD = ("stage", "round", "turn", "turns", "start_player")
_LEFT_OUT = ("after",)


def record_text(record: dict[str, Any], title: str, lang: str = "en") -> str:
    """``record`` (the JSON of ``log --json``) as text; ``title``: the game's title; ``lang``:
    the language of the reasons a deadline moved."""
    players = record["players"]
    colours = record.get("colours")
    if isinstance(colours, dict):
        players = [f"{p} ({colours[p]})" if p in colours else p for p in players]
    lines = [
        f"{title}, game {record['id']} ({record['game']})",
        f"players: {', '.join(players) or 'none'}",
        f"options: {_options(record)}",
    ]
    if "commitment" in record:
        lines.append(f"seed commitment: {record['commitment']}")
    rounds = record.get("rounds", [])
    if "phase" in record:  # not dealt yet
        lines.append(_before_the_deal(record))
    elif record["over"]:
        lines.append(f"the game is over: the record is complete ({len(rounds)} rounds)")
    else:
        lines.append(
            f"the game is running: the record holds what is public, ? what is not yet "
            f"({len(rounds)} rounds resolved)"
        )
    for entry in rounds:
        lines.append("")
        lines.append(_round_head(entry))
        for key, value in entry.items():
            if key == "events":
                lines.append("  events:")
                lines.extend(f"    - {_event(event, entry)}" for event in value)
            elif key not in _ROUND_HEAD and key not in _LEFT_OUT:
                lines.extend(_field(key, value, "  "))
    for key in ("deal", "decks"):
        if key in record:
            lines.append("")
            lines.extend(_field(key, record[key], ""))
    if "orders" in record:
        lines.append("")
        lines.append("orders: every order by turn, in log --json")
    if record.get("press"):
        lines.append(f"press: {len(record['press'])}, each with its sender, in log --json")
    if "seed" in record:
        lines.append(f"seed: {record['seed']}")
    if "salt" in record:
        lines.append(f"salt: {record['salt']}")
    if record.get("absences"):
        away = [f"{a['player']} {a['from']} to {a['to']}" for a in record["absences"]]
        lines.append(f"absences: {', '.join(away)}")
    lines.extend(_deadlines_moved(record.get("deadlines_moved") or [], lang))
    if record.get("conceded"):
        lines.append(f"conceded: {', '.join(record['conceded'])}")
    for forfeit in record.get("forfeits") or []:
        lines.append(f"forfeit: turn {forfeit['turn']}: {', '.join(forfeit['players'])}")
    ended = record.get("ended")
    if ended is not None:  # the players' votes ended it: the game's own result never came
        lines.append("")
        lines.append(_ended(ended))
    elif record.get("result") is not None:
        lines.append("")
        lines.extend(_result(record["result"]))
    return "\n".join(lines) + "\n"


def _deadlines_moved(moved: list[dict[str, Any]], lang: str) -> list[str]:
    """Each deadline the clock moved, with its reason in words (``why``: ``mail``, the turn's
    reports waited to be sent)."""
    if not moved:
        return []
    from adjudicator.present.words import say  # YAML: only when there is a reason to word
    from adjudicator.rules.contract import Msg

    return [
        f"deadline moved: turn {m['turn']}: {_when(m['deadline'])} (was {_when(m['was'])}): "
        + say(Msg(f"record-deadline-moved-{m['why']}", {}), lang=lang)
        for m in moved
    ]


def _when(stamp: str) -> str:
    """A journal time as ``2026-11-25 10:00 UTC``."""
    return f"{stamp[:10]} {stamp[11:16]} UTC"


def _options(record: dict[str, Any]) -> str:
    """The options on one line; a ``start_player`` left null was drawn (docs/record.md): it says
    so, with the player drawn once the record names one (the first round's start player)."""
    options = dict(record["options"])
    if "start_player" in options and options["start_player"] is None:
        rounds = record.get("rounds") or [{}]
        first = rounds[0].get("start_player") if isinstance(rounds[0], dict) else None
        options["start_player"] = "drawn" if first is None else f"drawn ({first})"
    return _flat(options)


def _ended(ended: dict[str, Any]) -> str:
    """How the players' votes ended the game."""
    if ended["by"] == "draw":
        return f"result: a draw, agreed by {', '.join(ended['players'])} at turn {ended['turn']}"
    winner = ended["winner"] or "nobody"
    return f"result: {winner} won, every other player having conceded at turn {ended['turn']}"


def _round_head(entry: dict[str, Any]) -> str:
    parts = []
    if "stage" in entry:
        parts.append(f"stage {entry['stage']}")
    if "round" in entry:
        parts.append(f"round {entry['round']}")
    head = ", ".join(parts) or "round"
    if "turns" in entry:
        turns = entry["turns"]
        head += f" (turn {turns[0]})" if len(turns) == 1 else f" (turns {_flat(turns)})"
    elif "turn" in entry:
        head += f" (turn {entry['turn']})"
    if entry.get("start_player") is not None:
        head += f": start player {entry['start_player']}"
    return head


def _event(event: Any, entry: dict[str, Any]) -> str:
    """An event: its type first, without what the round's header already says."""
    if not isinstance(event, dict) or "type" not in event:
        return _flat(event)
    rest = {
        k: v
        for k, v in event.items()
        if k != "type" and not (k in ("stage", "round") and entry.get(k) == v)
    }
    return f"{event['type']}: {_flat(rest)}" if rest else str(event["type"])


def _field(key: str, value: Any, indent: str) -> list[str]:
    """``key: value`` on one line when the value is flat, else one line per item below it."""
    if _is_flat(value):
        return [f"{indent}{key}: {_flat(value)}"]
    lines = [f"{indent}{key}:"]
    if isinstance(value, dict):
        for name, item in value.items():
            lines.extend(_field(str(name), item, indent + "  "))
    else:
        lines.extend(f"{indent}  - {_flat(item)}" for item in value)
    return lines


def _is_flat(value: Any) -> bool:
    """A scalar, or a list or mapping of scalars."""
    if isinstance(value, dict):
        return all(_is_scalar(v) for v in value.values())
    if isinstance(value, list):
        return all(_is_scalar(v) for v in value)
    return True


def _is_scalar(value: Any) -> bool:
    return not isinstance(value, (dict, list))


def _flat(value: Any, inner: bool = False) -> str:
    """A value on one line: mappings as ``key value`` pairs, lists comma-separated (in
    brackets inside another value)."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dict):
        if not value:
            return "none"
        text = ", ".join(f"{k} {_flat(v, True)}" for k, v in value.items())
        return f"({text})" if inner else text
    if isinstance(value, list):
        if not value:
            return "none"
        separator = ", " if all(_is_scalar(v) for v in value) else "; "
        text = separator.join("?" if v is None else _flat(v, True) for v in value)
        return f"[{text}]" if inner else text
    return str(value)


def _result(result: dict[str, Any]) -> list[str]:
    """Who won, then the rest of the result."""
    lines = []
    if "winners" in result:
        lines.append(f"result: {' and '.join(result['winners']) or 'nobody'} won")
    elif "winner" in result:
        won = "a draw" if result.get("draw") else f"{result['winner'] or 'nobody'} won"
        lines.append(f"result: {won}")
    else:
        lines.append("result:")
    for key, value in result.items():
        if key not in ("winners", "winner", "draw"):
            lines.extend(_field(key, value, "  "))
    return lines


def _before_the_deal(record: dict[str, Any]) -> str:
    """What a record without a deal says instead of its rounds."""
    if record["phase"] == "closed":
        return "the game did not start: too few players by the end of its sign-up"
    if record["phase"] == "shares":
        return "the game is not dealt yet: it waits for the players' shares"
    seats = record["seats"]
    span = str(seats["max"]) if seats["min"] == seats["max"] else f"{seats['min']}–{seats['max']}"
    return f"open for sign-up: {len(seats['taken'])} of {span} seats taken, {seats['open']} open"
