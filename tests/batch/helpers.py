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
