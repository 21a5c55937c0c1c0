"""The winnability search: its entry point (``solve``: ``solve_winnable`` and its workspace), the
depth-first searches (``dfs``; the free-stock search, ``free_search``; under limited recycles,
``limited``), the table of positions proved lost (``lost_table``), every pruning rule and proof
(``prune``, ``subgame``, ``pass_subgame``), and the kernel that decides a batch chunk in one call
(``chunk``). It imports ``solver.core`` and ``solver.pyramid.model``, never the minimum-move
search or the analysis (``tests/cli/test_layout.py`` checks it); docs/internals.md, "The
winnability search". Every pruning rule and proof, with the test that checks it against a plain
reference: docs/internals.md, "Pruning rules and proofs"."""
