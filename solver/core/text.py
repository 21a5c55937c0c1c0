"""Quoting user input in error messages without echoing all of it."""

from __future__ import annotations

MAX_QUOTED = 40
"""Characters of a bad token shown in an error message (a 10 MB token is not echoed back)."""
MAX_PATH = 80
"""Characters of a file name shown in an error message (a long one loses its start)."""
ELLIPSIS = "…"
ECHO_CHARS = 80
"""At most this many characters of a bad token or line are echoed by ``clip``."""


def shorten(text: str, limit: int = MAX_QUOTED) -> str:
    """``text``, cut to ``limit`` characters with an ellipsis when it is longer."""
    if limit < 2:
        raise ValueError(f"limit must be at least 2, not {limit}")
    text = str(text)
    return text if len(text) <= limit else text[:limit - 1] + ELLIPSIS


def shorten_path(path: str, limit: int = MAX_PATH) -> str:
    """``path``, its start cut to ``limit`` characters with an ellipsis when it is longer (the
    file's name, at the end, is what tells it apart)."""
    if limit < 2:
        raise ValueError(f"limit must be at least 2, not {limit}")
    path = str(path)
    return path if len(path) <= limit else ELLIPSIS + path[-(limit - 1):]


def quoted(text: str, limit: int = MAX_QUOTED) -> str:
    """``repr`` of ``text`` shortened to ``limit`` characters: how an error names a bad token."""
    return repr(shorten(text, limit))


def clip(text, limit: int = ECHO_CHARS, quote: bool = True) -> str:
    """``text`` (quoted with ``repr`` unless ``quote`` is false) cut to about ``limit``
    characters (ending "…"), for error messages: a bad token may be megabytes long."""
    text = str(text) if quote else " ".join(str(text).split())  # one line, whatever it held
    show = repr if quote else str
    if len(text) > limit:
        return show(text[:limit]) + f"… ({len(text)} characters)"
    return show(text)
