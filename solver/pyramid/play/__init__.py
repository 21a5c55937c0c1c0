"""Playing a deal with the solver at your side: the game model and the solver's answers about a
position (``session``) and a deal typed in card by card (``entry``), which the terminal game
shows (``app``, ``board``, ``entry_screen``).

May import ``solver.core``, ``solver.pyramid.model``, the searches through their entry points
(``solver.pyramid.winnable.solve``, ``solver.pyramid.optimal.api``) and
``solver.pyramid.analysis`` (the best partial result, the first losing move); nothing imports
this package but the command-line tool.
"""
