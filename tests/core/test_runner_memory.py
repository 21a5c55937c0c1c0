"""The process pool (``solver.core.runner.run_tasks``) when memory runs out in a worker: one
``MemoryError`` in this process, and nothing of what the worker wrote on its stderr."""

from __future__ import annotations

import faulthandler
import os

import pytest

from solver.core.runner import WorkerOutOfMemory, run_tasks


def abort_saying_out_of_memory(_: int) -> None:
    """What LLVM does when an allocation fails: a line on stderr, then ``abort()``."""
    faulthandler.disable()  # pytest's would report the abort on a stderr of its own
    os.write(2, b"Buffer allocation failed\nLLVM ERROR: out of memory\n")
    os.abort()


def fail_to_load_a_library(_: int) -> None:
    """What numba's llvmlite raises when the loader cannot map its library (``ulimit -v``)."""
    try:
        raise OSError("libllvmlite.so: failed to map segment from shared object")
    except OSError:
        raise OSError("Could not find/load shared object file 'libllvmlite.so'")  # noqa: B904


def test_a_worker_aborted_by_llvm_is_out_of_memory_and_silent(capfd):
    with pytest.raises(WorkerOutOfMemory, match="out of memory in a worker process"):
        list(run_tasks(abort_saying_out_of_memory, [(k,) for k in range(2)], jobs=2))
    assert capfd.readouterr().err == ""


def test_a_library_not_loaded_for_memory_in_a_worker_is_a_memory_error():
    with pytest.raises(MemoryError, match="libllvmlite.so"):
        list(run_tasks(fail_to_load_a_library, [(k,) for k in range(2)], jobs=2))
