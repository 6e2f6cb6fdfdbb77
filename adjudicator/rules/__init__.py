"""The pure core: the game contract and everything a rule needs, with no I/O.

The game contract (``contract``), seeded randomness (``rng``), deadline arithmetic
(``schedule``), draw votes (``votes``), the commit-reveal formulas (``sealing``), keyed digests
(``digests``), problem codes (``problems``), the strict YAML reader (``strictyaml``), what each
reader may see (``views``), domain errors (``errors``), reserved names (``names``), languages
(``lang``), an order's verdict (``verdict``), the order files' schema (``schema``), the form's
carried lines (``formlines``) and the engine's own options (``options``). Games import only
this package. docs/architecture.md draws every layer.
"""
