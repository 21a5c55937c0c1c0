"""The game itself, with no search: the rules and presets (``rules``), the layout of pyramid and
stock (``layout``), deals and deal files (``deals``, ``sources``), the packed position and its
move generator (``state``), the plain replay checker (``replay``), readable steps (``explain``),
what a search found (``outcome``) and the sentences a user reads (``sentences``). It imports
``solver.core`` and nothing else of ``solver`` (``tests/cli/test_layout.py`` checks it)."""
