"""Helpers shared by the batch tests."""

import solver.batch.run as batch_mod


def fail_after(n_chunks, monkeypatch):
    """Make the inline executor raise KeyboardInterrupt (a Ctrl-C) after ``n_chunks`` chunks."""
    calls = {"n": 0}
    real = batch_mod.solve_chunk

    def flaky(task):
        calls["n"] += 1
        if calls["n"] > n_chunks:
            raise KeyboardInterrupt
        return real(task)

    monkeypatch.setattr(batch_mod, "solve_chunk", flaky)


def one_line_error(result, *words):
    """A click result of bad input: exit 2, nothing on stdout, one ``Error:`` line on stderr
    holding each of ``words``."""
    assert result.exit_code == 2, (result.stdout, result.stderr)
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error:"), result.stderr
    for w in words:
        assert w in lines[0], lines[0]


def assert_checked_alike(tmp_path, lines, k, column, value, error, blocks_of):
    """Field ``column`` of line ``k`` of a results CSV (``lines``, the header first) set to
    ``value`` gives the same blocks (``blocks_of(blocks)``) or the same error, naming line
    ``k + 1``, through the quick check (the file as it is) as through the csv module row by row
    (its first field quoted); ``error``: words of the error, or None for a row still good."""
    from solver.batch.results import read_results

    header = lines[0].rstrip("\n").split(",")
    fields = lines[k].rstrip("\n").split(",")
    fields[header.index(column)] = value
    changed = lines[:k] + [",".join(fields) + "\n"] + lines[k + 1:]
    plain, quoted = tmp_path / "p.csv", tmp_path / "q.csv"
    plain.write_text("".join(changed))
    first = changed[1].split(",", 1)
    quoted.write_text(changed[0] + f'"{first[0]}",{first[1]}' + "".join(changed[2:]))

    def result(path):
        try:
            _, bs = read_results(str(path))
            return blocks_of(bs)
        except ValueError as e:
            return str(e).replace(path.name, "FILE")

    got = result(plain)
    assert got == result(quoted)
    if error is None:
        assert isinstance(got, list)
    else:
        assert isinstance(got, str) and f"FILE line {k + 1}: " in got and error in got, got
