"""What every game shares: the one card encoding (``cards``), seeded random streams (``rng``),
bitmask kernels (``bits``), how kernels that allocate nothing are compiled (``jit``), interval
statistics (``stats``), the parallel runner (``runner``), memory limits (``memory``), the notice
while kernels compile (``compiling``), quoting user input in errors (``text``) and input checks
(``validate``). It imports nothing else of ``solver`` (docs/internals.md, "Layout";
``tests/cli/test_layout.py`` checks it)."""
