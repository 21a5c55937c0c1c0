"""The ``pyramid`` command line: click commands that parse options, call ``solver``, format output."""
