"""Everything that changes a game, and what the read commands ask of it.

A game made (``create``, from ``setup``), opened (``open_game``), its orders and notices taken
(``intake`` and ``notice_intake`` through one ``gate``, reading ``orders`` and ``notices``
files), its turns played (``adjudication``), absences, press, the game master's tools (``gm``),
``preview``, order forms read back (``forms``) and the read side (``queries``). Each step runs
through the store's step runner, whose journal line is its commit point.
"""
