"""The minimum-move search: an A* over packed positions (``astar``) with its admissible bound
(``bound``, ``passes``), move generation (``moves``), tables (``tables``, ``index``) and the entry
point ``api.solve_optimal``; docs/internals.md, "The minimum-move search". It uses the rest of
``solver.pyramid`` and ``solver.core``, never ``solver.batch``, ``solver.games`` or ``cli``. Every
pruning rule and proof, with the test that checks it against a plain reference: docs/internals.md,
"Pruning rules and proofs"."""
