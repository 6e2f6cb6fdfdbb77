"""The ``adjudicator`` command, and ``python -m adjudicator``: the command line, started with
the garbage collector set for a short run (:func:`main`)."""

from __future__ import annotations

import gc

YOUNG_OBJECTS = 100_000
"""The objects made and not yet freed that start a collection of the youngest generation
(Python's default is 700). A command makes some 30,000 to 50,000 objects that last as long as
it does (its modules, their classes and functions) as it starts: with the default, each is
looked at again by some 50 collections of the youngest generation and a few of the next, none
of which frees anything, about a tenth of a ``submit``. A longer run (a site, ``tick`` over
many games) still collects every 100,000 objects, and holds that much garbage at most in
between: the site of a finished 4-player game peaked at 51 MB instead of 41 MB (and was made
in some 12% less time)."""


def main() -> None:
    gc.set_threshold(YOUNG_OBJECTS, *gc.get_threshold()[1:])
    from adjudicator.cli import main as command_line  # imported with the collector set

    command_line()


if __name__ == "__main__":
    main()
