"""Package discovery, which pyproject.toml's ``[tool.setuptools.packages.find]`` cannot do here.

``games/``, ``templates/`` and ``docs/`` are top-level folders of the repository, but they install
inside the ``adjudicator`` namespace (``adjudicator.games``, ``adjudicator.templates``,
``adjudicator.docs``): nothing installs
a top-level ``games`` package. setuptools' own ``find`` names a package after its folder, so it
would find ``games.sultan``, never ``adjudicator.games.sultan``. This file finds every package
below each mapped folder and names it under its installed parent; everything else (metadata,
package data, the entry points that register the games) is in pyproject.toml.
"""

from setuptools import find_namespace_packages, setup

ROOTS = {
    "adjudicator": "adjudicator",
    "adjudicator.games": "games",
    "adjudicator.templates": "templates",
    "adjudicator.docs": "docs",  # the player's guide goes with every welcome mail
}
"""Each installed package and the repository folder it is built from."""


def packages() -> list[str]:
    """Every package below each root: with ``__init__.py`` or without (a template folder)."""
    found = []
    for name, folder in ROOTS.items():
        found.append(name)
        found += [
            f"{name}.{sub}"
            for sub in find_namespace_packages(where=folder, exclude=["*__pycache__*"])
        ]
    return sorted(set(found))


setup(package_dir=ROOTS, packages=packages())
