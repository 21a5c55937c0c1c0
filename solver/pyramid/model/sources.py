"""Deal files: one deal per line, read once from start to end, every refusal one clear message.

``DealFile(path)`` reads a file of deals (``-`` = stdin) for every command that takes
``--deal-file``: ``lines()`` yields ``(line number, text)`` of each non-blank line, ``deals()``
the parsed deals. The file may be anything that can be read once: a regular file, a FIFO, a pipe
such as a shell's ``<(...)`` (``/dev/fd/N``), a character device (``/dev/null``), stdin. It is
read lazily, a line at a time, and no line longer than a deal can be is ever held in memory.

A regular file can be read twice: ``check_deals()`` reads it through once (every refusal comes
then, before any work) and ``deals()`` again. Anything else is a *stream* (``is_stream()``): its
lines are handed on as they arrive (a line is yielded as soon as its newline is read, never after
the next one), so a command can answer deal by deal in a pipe or as a coprocess; a bad line is
then refused when it is reached.

The text is UTF-8 (a byte-order mark at its start is skipped); line numbers count every line,
blank ones included, so that they match an editor's. Every refusal is a ``ValueError`` naming the
file (and the line, where there is one): a file that does not exist, a directory, stdin closed
(``<&-``), one that cannot be opened (permission denied, a socket), binary data or UTF-16 (NUL
bytes), other encodings (not UTF-8, the first bad byte shown), a line too long for a deal, a
malformed deal, a file with no deal at all.
"""

from __future__ import annotations

import contextlib
import os
import select
import sys
from typing import Iterator

import numpy as np

from solver.core.text import shorten_path
from solver.pyramid.model.deals import Deal, DealError, PLAIN_DEAL_CHARS, parse_deal, plain_deals
from solver.pyramid.model.layout import DECK_CARDS

STDIN = "-"
"""The path that means standard input."""
MAX_DEAL_LINE_CHARS = 4096
"""A deal line longer than this is refused before parsing (a deal is 52 short card tokens)."""
UTF8_MAX_BYTES = 4
"""Most bytes one character takes in UTF-8."""
READ_LIMIT = UTF8_MAX_BYTES * MAX_DEAL_LINE_CHARS + 2
"""Bytes of one line read at most: a longer line holds more than ``MAX_DEAL_LINE_CHARS``
characters, and is refused without reading the rest of it (a 10 GB line is never loaded)."""
UTF8_BOM = b"\xef\xbb\xbf"
NUL = b"\0"
NEWLINE = ord("\n")
CARRIAGE_RETURN = ord("\r")
CHECK_BLOCK_BYTES = 8 << 20
"""Bytes of a regular file read at a time by ``check_deals``."""
MESSAGE_CHARS = 160
"""A deal's error message is cut to this length (it quotes the bad token)."""
STREAM_READ_BYTES = 64 * 1024
"""Bytes asked of the operating system per read of a stream (a read returns what has arrived)."""


def line_error(lineno: int, message: str) -> str:
    """``line N: message``, the message cut to ``MESSAGE_CHARS``: how a bad deal line is named
    (the caller puts the file's name in front)."""
    if len(message) > MESSAGE_CHARS:
        message = message[:MESSAGE_CHARS] + "…"
    return f"line {lineno}: {message}"


def parse_lines(lines) -> tuple[np.ndarray, np.ndarray]:
    """The line numbers (int64) and deals (``(n, 52)`` int64) of a deal file's ``(line number,
    text)`` pairs. The texts written as ``format_deal`` writes them are read all at once
    (``plain_deals``), the others one at a time; the first malformed one (in order) raises a
    ``DealError`` naming its line (``line N: ...``)."""
    ids = np.array([lineno for lineno, _ in lines], dtype=np.int64)
    deals = np.empty((len(lines), DECK_CARDS), dtype=np.int64)
    texts = [text for _, text in lines]
    plain = np.zeros(len(texts), dtype=bool)
    sized = [k for k, text in enumerate(texts) if len(text) == PLAIN_DEAL_CHARS]
    data = "".join(texts[k] for k in sized).encode("utf-8")
    if sized and len(data) == len(sized) * PLAIN_DEAL_CHARS:  # ASCII, one byte a character
        cards, ok = plain_deals(np.frombuffer(data, dtype=np.uint8).reshape(len(sized), -1))
        plain[sized] = ok
        deals[plain] = cards[ok]
    for k in np.flatnonzero(~plain).tolist():
        try:
            deals[k] = parse_deal(texts[k])
        except DealError as e:
            raise DealError(line_error(int(ids[k]), str(e))) from None
    return ids, deals


class StreamReader:
    """``readline(limit)`` over an unbuffered binary file (``raw``), with a buffer of its own:
    how a stream is read.

    A batch run reads a stream in a thread of its own, which may be waiting for the next line
    when the run ends, or when a worker process is forked. Python's buffered reader
    (``sys.stdin.buffer``) holds a lock of its own for the whole of a read, wait included, and
    both need that lock: the interpreter's shutdown closes stdin (after a second it aborts with
    "Fatal Python error: ... could not acquire lock for <stdin> at interpreter shutdown", exit
    134), and a forked worker closes its copy of stdin (for ever, its copy of the lock being
    held). A raw file takes no lock, and neither does this buffer.
    """

    def __init__(self, raw) -> None:
        self.raw = raw
        self.buffer = bytearray()

    def readline(self, limit: int) -> bytes:
        """The next line (its newline included), or its first ``limit`` bytes when it is longer;
        ``b""`` at the end. Returns as soon as the line's newline has arrived."""
        searched = 0
        while True:
            end = self.buffer.find(b"\n", searched, limit)
            if end >= 0:
                return self.take(end + 1)
            if len(self.buffer) >= limit:
                return self.take(limit)
            searched = len(self.buffer)
            more = self.raw.read(STREAM_READ_BYTES)
            if more is None:  # a non-blocking file with nothing yet: wait for it
                select.select([self.raw], [], [])
                continue
            if not more:
                return self.take(len(self.buffer))
            self.buffer += more

    def take(self, n: int) -> bytes:
        """The buffer's first ``n`` bytes, removed from it."""
        line = bytes(self.buffer[:n])
        del self.buffer[:n]
        return line

    def close(self) -> None:
        self.raw.close()


def stdin_reader(buffer):
    """Standard input (its binary ``buffer``) as a context manager giving a ``StreamReader``
    (stdin itself left open); a stdin without a file descriptor (click's test runner) as it
    is."""
    try:
        fd = buffer.fileno()
    except (AttributeError, ValueError, OSError):
        return contextlib.nullcontext(buffer)
    return contextlib.closing(StreamReader(open(fd, "rb", buffering=0, closefd=False)))


class DealFile:
    """A deal file (``-`` = stdin), read once, lazily; see the module docstring."""

    def __init__(self, path: str) -> None:
        if not isinstance(path, str):
            raise ValueError(f"a deal file's path must be a string, not {type(path).__name__}")
        self.path = path

    @property
    def name(self) -> str:
        """How messages name the file: ``stdin``, or the path (its start cut when long)."""
        return "stdin" if self.path == STDIN else shorten_path(self.path)

    def is_regular(self) -> bool:
        """Whether the file is a regular file (which can be read more than once)."""
        return self.path != STDIN and os.path.isfile(self.path)

    def is_stream(self) -> bool:
        """Whether the file can only be read once, as its lines arrive (stdin, a FIFO, a pipe,
        a character device): the opposite of ``is_regular``."""
        return not self.is_regular()

    def check_deals(self) -> int:
        """Read the whole file once and check every line (the refusals of ``deals()``, the
        first bad line the one named); returns how many deals it holds. For a regular file only:
        a stream would be used up.

        The file is read in blocks of ``CHECK_BLOCK_BYTES``; the lines of a block written as
        ``format_deal`` writes them (any case) are checked all at once (``plain_deals``: about
        1.3 million lines, 200 MB, in a few seconds where a line at a time took 25 s); any other
        line is read one at a time, exactly as ``deals()`` reads it."""
        if not self.is_regular():
            raise ValueError(f"{self.name} is not a regular file: it can be read only once")
        found = 0
        lineno = 0
        carry = b""
        with self._open() as f:
            try:
                while block := f.read(CHECK_BLOCK_BYTES):
                    data = carry + block
                    cut = data.rfind(b"\n") + 1
                    found += self._check_block(data[:cut], lineno)
                    lineno += data.count(b"\n", 0, cut)
                    carry = data[cut:]
                    if len(carry) >= READ_LIMIT:  # the next line is too long for a deal
                        self._text(lineno + 1, carry[:READ_LIMIT])
            except OSError as e:
                raise self.cannot_read(e.strerror or str(e)) from None
        if carry:  # the last line, without a newline
            found += self._check_block(carry + b"\n", lineno, last_unterminated=True)
        if not found:
            raise ValueError(self.no_deal())
        return found

    def _check_block(self, data: bytes, lineno: int, last_unterminated: bool = False) -> int:
        """Check the complete lines ``data`` (each ending in a newline) that follow line
        ``lineno``; returns how many deals they hold."""
        buf = np.frombuffer(data, dtype=np.uint8)
        ends = np.flatnonzero(buf == NEWLINE)
        starts = np.concatenate(([0], ends[:-1] + 1))
        plain = np.zeros(len(ends), dtype=bool)
        chars = ends - starts
        crlf = (chars == PLAIN_DEAL_CHARS + 1) & (buf[np.maximum(ends - 1, 0)] == CARRIAGE_RETURN)
        candidates = np.flatnonzero((chars == PLAIN_DEAL_CHARS) | crlf)
        if len(candidates) and len(buf) >= PLAIN_DEAL_CHARS:
            rows = np.lib.stride_tricks.sliding_window_view(buf, PLAIN_DEAL_CHARS)
            plain[candidates] = plain_deals(rows[starts[candidates]])[1]
        found = int(plain.sum())
        for k in np.flatnonzero(~plain).tolist():  # in order: the first bad line is named
            end = ends[k] + (0 if last_unterminated else 1)
            raw = data[starts[k]:min(end, starts[k] + READ_LIMIT)]  # as readline(READ_LIMIT)
            text = self._text(lineno + k + 1, raw)
            if text is not None:
                self._deal(lineno + k + 1, text)
                found += 1
        return found

    def check(self) -> None:
        """Refuse a path that cannot be a deal file, without reading it (a pipe reads once)."""
        if self.path == STDIN:
            self.stdin()
            return
        self.check_path()
        if not os.path.lexists(self.path):
            raise self.cannot_read("no such file")
        if os.path.isdir(self.path):
            raise self.cannot_read("it is a directory")
        if self.is_regular():  # open it now to report a refusal early
            with self._open():
                pass

    def count(self) -> int | None:
        """Non-blank lines of a regular file (one quick pass); ``None`` for stdin or a pipe."""
        if not self.is_regular():
            return None
        with self._open() as f:
            return sum(1 for line in f if line.strip())

    def _open(self):
        """The file in binary mode, as a context manager: a regular file buffered as usual, a
        stream as a ``StreamReader`` (stdin for ``-``, left open)."""
        if self.path == STDIN:
            return stdin_reader(self.stdin())
        self.check_path()
        try:
            if self.is_regular():
                return open(self.path, "rb")  # noqa: PTH123
            # a FIFO or /dev/fd/N is read as it is
            return contextlib.closing(StreamReader(open(self.path, "rb", buffering=0)))
        except FileNotFoundError:
            raise self.cannot_read("no such file") from None
        except IsADirectoryError:
            raise self.cannot_read("it is a directory") from None
        except OSError as e:
            raise self.cannot_read(e.strerror or str(e)) from None

    def stdin(self):
        """Standard input's binary buffer; a ``ValueError`` when stdin is closed (``<&-``: Python
        then sets ``sys.stdin`` to None)."""
        if sys.stdin is None:
            raise self.cannot_read("stdin is closed")
        return sys.stdin.buffer

    def cannot_read(self, why: str) -> ValueError:
        """The error for a file that cannot be opened or read, saying ``why``."""
        return ValueError(f"cannot read the deal file {self.name}: {why}")

    def check_path(self) -> None:
        """Refuse the empty path (``open('')`` would say "no such file" of a file never named)."""
        if self.path == "":
            raise ValueError("--deal-file must name a file ('-' for stdin), not ''")

    def lines(self) -> Iterator[tuple[int, str]]:
        """``(line number, text)`` of every non-blank line, stripped, read lazily."""
        with self._open() as f:
            try:
                yield from self._read(f)
            except OSError as e:
                raise self.cannot_read(e.strerror or str(e)) from None

    def _read(self, f) -> Iterator[tuple[int, str]]:
        lineno = 0
        while raw := f.readline(READ_LIMIT):
            lineno += 1
            text = self._text(lineno, raw)
            if text is not None:
                yield lineno, text

    def _text(self, lineno: int, raw: bytes) -> str | None:
        """The text of line ``lineno`` read as ``raw`` (at most ``READ_LIMIT`` bytes, its
        newline included when it fits), stripped; ``None`` for a blank line. Refuses a line too
        long for a deal, NUL bytes and text that is not UTF-8."""
        if len(raw) == READ_LIMIT and not raw.endswith(b"\n"):
            self._too_long(lineno, f"over {MAX_DEAL_LINE_CHARS}")
        if NUL in raw:
            raise ValueError(f"{self.name} is not a text file of deals: it holds NUL bytes "
                             f"(binary data, or UTF-16 text; save it as UTF-8)")
        if lineno == 1:
            raw = raw.removeprefix(UTF8_BOM)
        try:
            text = raw.decode("utf-8").strip()
        except UnicodeDecodeError as e:
            raise ValueError(f"{self.name} line {lineno} is not UTF-8 text (byte "
                             f"0x{raw[e.start]:02x}); save the file as UTF-8") from None
        if not text:
            return None
        if len(text) > MAX_DEAL_LINE_CHARS:
            self._too_long(lineno, str(len(text)))
        return text

    def _too_long(self, lineno: int, chars: str) -> None:
        raise ValueError(f"{self.name} line {lineno} is too long for a deal ({chars} characters; "
                         f"a deal is 52 cards)")

    def deals(self) -> Iterator[tuple[int, Deal]]:
        """``(line number, deal)`` of every non-blank line; a malformed deal is a ``ValueError``
        naming the file and the line, and so is a file with no deal at all."""
        found = False
        for lineno, text in self.lines():
            deal = self._deal(lineno, text)
            found = True
            yield lineno, deal
        if not found:
            raise ValueError(self.no_deal())

    def _deal(self, lineno: int, text: str) -> Deal:
        """The deal of line ``lineno``'s ``text``; a ``ValueError`` naming the file and line."""
        try:
            return Deal.parse(text)
        except ValueError as e:
            raise ValueError(f"{self.name} {line_error(lineno, str(e))}") from None

    def only_deal(self, need: str) -> tuple[int, Deal]:
        """``(line number, deal)`` of a file that holds a single deal. A file of more is refused
        at its second deal, read no further (a file of a million deals is not read through): a
        ``ValueError`` that starts with ``need`` (what takes a single deal) and names the lines
        of the first two."""
        deals = self.deals()
        try:
            first = next(deals)
            second = next(deals, None)
        finally:
            deals.close()
        if second is not None:
            raise ValueError(f"{need}: {self.name} holds more than one (deals on lines "
                             f"{first[0]} and {second[0]})")
        return first

    def deal_at(self, lineno: int) -> Deal:
        """The deal on line ``lineno`` (1-based, every line counted, blank ones included, as
        ``deals()`` numbers them), read no further. A ``ValueError`` when the file has fewer
        lines, when that line is blank, or when it is not a deal (the line named); a line
        before it that cannot be read is refused as ``lines()`` refuses it."""
        if lineno < 1:
            raise ValueError(f"line numbers start at 1, not {lineno}")
        seen = 0
        with self._open() as f:
            try:
                while raw := f.readline(READ_LIMIT):
                    seen += 1
                    text = self._text(seen, raw)
                    if seen == lineno:
                        if text is None:
                            raise ValueError(f"{self.name} line {lineno} is blank, not a deal")
                        return self._deal(lineno, text)
            except OSError as e:
                raise self.cannot_read(e.strerror or str(e)) from None
        lines = "line" if seen == 1 else "lines"
        raise ValueError(f"{self.name} has {seen} {lines}: there is no line {lineno}")

    def no_deal(self) -> str:
        """The message for a file without a deal."""
        return f"{self.name} holds no deal (it is empty or only blank lines)"
