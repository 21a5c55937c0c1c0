"""``python -m cli``: the same as the ``pyramid`` command."""

from cli.main import main

main()
