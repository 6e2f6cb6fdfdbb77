"""adjudicator: moderated play-by-email board games with signed orders."""

__version__ = "0.1.0"
