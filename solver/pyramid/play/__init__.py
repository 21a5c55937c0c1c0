"""Playing a deal with the solver at your side: the game model and the solver's answers about a
position (``session``), which the terminal game shows.

May import ``solver.core``, ``solver.pyramid.model``, ``solver.api`` and
``solver.pyramid.analysis`` (the best partial result); nothing imports this package but the
command-line tool.
"""
