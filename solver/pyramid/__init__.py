"""Pyramid Solitaire: the rules and presets, deals and deal files, the packed position, the plain
replay checker, the winnability search and its proofs, the minimum-move search (``optimal/``),
the analysis of a deal (best partial result, reasons, first losing move, choices, playouts,
difficulty, the rules matrix), the sentences a user reads, and the ``--html`` page. It may import
``solver.core`` only, never ``solver.batch``, ``solver.games`` or ``cli`` (docs/internals.md,
"Layout"; ``tests/cli/test_layout.py`` checks it)."""
