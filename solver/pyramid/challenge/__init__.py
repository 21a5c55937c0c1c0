"""The challenges of Microsoft Solitaire Collection beyond clearing the board: the most points
(``score_challenge``) and the most cards of a rank (``card_challenge``) a deal gives, each with a
line reaching them in the fewest moves (``api``). One search serves both and the best partial
result of ``solver.pyramid.analysis``: the best line for an ``Objective``, a value of the cards
gone given as data (``objective``; kernels in ``bounds``, ``moves`` and ``kernels``, their Python
side in ``search``, the steps in ``best``).

May import ``solver.core``, ``solver.pyramid.model``, and the two searches through their entry
points only (``solver.pyramid.winnable.solve``, ``solver.pyramid.optimal.api``); never
``solver.pyramid.analysis`` (which imports this package).
"""
