"""Players check the game master's work: the one-file archive of a game and its verification.

This package reads a game directory (:mod:`adjudicator.store.gamedir`, the journal) and the games'
contract, and nothing of mail or presentation: it returns data, which the command line words.
docs/archive.md describes the archive; docs/how-to-check.md tells a player how to check a game.
"""
