"""The games shipped with adjudicator: rules only, no I/O (installed as adjudicator.games)."""
