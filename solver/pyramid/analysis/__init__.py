"""What is said about a deal beyond its verdict: ``deal`` (everything ``pyramid analyse``
prints), the best partial result of a lost deal (``partial``, a search of ``solver.pyramid.challenge``), a short proof
of a loss (``reasons``), the first losing move of a line (``losing_move``), the choices along a
line (``choices``), random and greedy players (``playouts``, ``playout_kernels``), how hard a won
deal is (``difficulty``), the verdict under every rule combination (``rules_matrix``) and the
``--html`` page (``replay_page``). It uses ``solver.pyramid.model``, ``winnable``,
``optimal`` and ``challenge``; nothing below imports it (``tests/cli/test_layout.py`` checks it)."""
