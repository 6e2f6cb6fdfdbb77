"""The game directory on disk: its files (``gamedir``), the journal (``journal``), the step
runner and its recovery (``steps``), ``doctor``, the clock (``clock``), crash points for the
kill tests (``failpoint``), the installed games (``registry``) and the bounded reading of a file
a user names (``readfile``). It knows no game's rules beyond the contract.
"""
