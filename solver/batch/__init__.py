"""Batch scoring of Pyramid deals: a run is planned (``plan``), its deals read as fixed chunks
(``sources``), scored in worker processes or on a Dask cluster (``work``, ``cluster``), written
as checked parts and joined (``io``, ``parts``, ``verify``, ``run``), and results files are read
back and summarised (``results``, ``quick``, ``summary``, ``plot``). It may import
``solver.core`` and ``solver.pyramid``, never ``solver.games`` or ``cli`` (docs/internals.md,
"Layout"; docs/batch.md for what a run promises)."""
