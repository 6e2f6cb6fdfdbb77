"""The documentation; the player's guides install as package data (adjudicator.docs), which
the welcome mail attaches."""
