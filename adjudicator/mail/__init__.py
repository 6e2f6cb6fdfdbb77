"""Play by email: the top of the house below the command line.

Messages in: ``sources`` (standard input, Maildir, mbox) and ``imap`` give raw messages,
``incoming`` finds the signed files in one, ``ingest`` hands them to the engine's intake and
queues the answers (``answers``: whether and how often to answer). Messages out: ``outgoing``
composes them, ``turn_reports``, ``press`` and ``due`` (reminders and notices by the clock)
queue them, ``queue`` holds and delivers them, ``send`` is one game's send step. ``clock_step``
is what the clock asks of one game, ``idle`` knows a game with nothing due without opening it,
and ``run`` is the sequence of ``ingest``, ``send`` and ``tick`` over many games. The settings
of both: ``config`` and ``tls``.
"""
