"""The JSON Schema (draft-07, which editors' YAML support reads) of a game's order files."""

from __future__ import annotations

from typing import Any

from adjudicator.rules.contract import Game

DRAFT_07 = "http://json-schema.org/draft-07/schema#"


def order_schema(game: Game) -> dict[str, Any]:
    """The game's order model as draft-07: ``$defs`` become ``definitions``."""
    model = game.order_model()
    schema: dict[str, Any] = model.model_json_schema(
        ref_template="#/definitions/{model}", by_alias=True
    )
    if "$defs" in schema:
        schema["definitions"] = schema.pop("$defs")
    schema = {
        "$schema": DRAFT_07,
        "title": f"{game.title} order file",
        **{k: v for k, v in schema.items() if k != "title"},
    }
    return schema
