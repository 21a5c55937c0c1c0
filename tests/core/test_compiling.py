"""compile_notice: said once on a cold numba cache, never on a warm one."""

import subprocess
import sys
import textwrap

KERNELS = textwrap.dedent("""
    from numba import njit

    @njit(cache=True)
    def inner(x):
        return x * 2 + 1

    @njit(cache=True)
    def outer(x):
        return inner(x) + 3
""")

SCRIPT = textwrap.dedent("""
    import sys
    sys.path.insert(0, sys.argv[1])
    from solver.core.compiling import compile_notice
    with compile_notice("Compiling the test kernels..."):
        import kern
        print(kern.outer(3))
""")


def run(tmp_path, cache):
    return subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path)], capture_output=True,
                          text=True, env={"NUMBA_CACHE_DIR": str(cache), "PATH": "/usr/bin:/bin"},
                          timeout=300)


def test_notice_once_when_compiling_and_never_from_the_cache(tmp_path):
    (tmp_path / "kern.py").write_text(KERNELS)
    cache = tmp_path / "cache"
    cold = run(tmp_path, cache)
    assert cold.returncode == 0, cold.stderr
    assert cold.stdout == "10\n"
    assert cold.stderr == "Compiling the test kernels...\n"  # two kernels compiled, said once
    warm = run(tmp_path, cache)
    assert warm.returncode == 0, warm.stderr
    assert warm.stdout == "10\n" and warm.stderr == ""


ASIDE_KERNELS = textwrap.dedent("""
    from numba import njit

    @njit(cache=True)
    def here(x):
        return x + 1

    @njit(cache=True)
    def aside(x):
        return x * 3

    @njit(cache=True)
    def other(x):
        return x - 1

    if __name__ == "__main__":  # the helper: compiles aside (and other, never copied)
        aside(2)
        other(2)
""")

ASIDE_SCRIPT = textwrap.dedent("""
    import sys
    sys.path.insert(0, sys.argv[1])
    from solver.core.compiling import compile_aside, compile_log
    import kern
    with compile_log() as events:
        with compile_aside("kern", (kern.aside,), busy=sys.argv[2] == "busy"):
            print(kern.here(1))
        print(kern.aside(2))
    print(sorted({e.kernel for e in events}))
""")


def run_aside(tmp_path, cache, path_dirs, busy="idle"):
    import os
    env = {"NUMBA_CACHE_DIR": str(cache), "PATH": "/usr/bin:/bin",
           "PYTHONPATH": os.pathsep.join(path_dirs)}
    return subprocess.run([sys.executable, "-c", ASIDE_SCRIPT, str(tmp_path), busy],
                          capture_output=True, text=True, env=env, timeout=300)


def test_compile_aside_compiles_in_a_helper_and_merges_its_cache(tmp_path):
    from pathlib import Path
    (tmp_path / "kern.py").write_text(ASIDE_KERNELS)
    cache = tmp_path / "cache"
    path = [str(tmp_path)]  # the helper runs ``python -m kern``
    cold = run_aside(tmp_path, cache, path)
    assert cold.returncode == 0, cold.stderr
    lines = cold.stdout.splitlines()
    assert lines[:2] == ["2", "6"]
    assert lines[2] == "['kern.here']"  # kern.aside came from the helper's cache, merged here
    assert len(list(cache.rglob("kern.aside-*.nbi"))) == 1
    assert not list(cache.rglob("kern.other-*"))  # only the kernels asked for are copied
    assert not list(Path("/tmp").glob("pyramid-compile-*/kern*"))  # its directory removed
    warm = run_aside(tmp_path, cache, path)
    assert warm.returncode == 0, warm.stderr
    assert warm.stdout.splitlines() == ["2", "6", "[]"]  # nothing compiled, no helper needed


def test_compile_aside_helper_failing_costs_only_time(tmp_path):
    (tmp_path / "kern.py").write_text(ASIDE_KERNELS.replace("aside(2)\n", "raise SystemExit(1)\n"))
    cold = run_aside(tmp_path, tmp_path / "cache", [str(tmp_path)])
    assert cold.returncode == 0, cold.stderr
    assert cold.stdout.splitlines() == ["2", "6", "['kern.aside', 'kern.here']"]  # compiled here


def test_merge_cache_keeps_an_index_already_there(tmp_path):
    from solver.core.compiling import merge_cache
    src, dst = tmp_path / "src" / "m", tmp_path / "dst" / "m"
    src.mkdir(parents=True)
    dst.mkdir(parents=True)
    for name, text in [("k.f-1.py311.nbi", "src index"), ("k.f-1.py311.1.nbc", "src data"),
                       ("k.g-9.py311.nbi", "src g"), ("k.g-9.py311.1.nbc", "src g data")]:
        (src / name).write_text(text)
    (dst / "k.f-1.py311.nbi").write_text("dst index")
    assert merge_cache(tmp_path / "src", tmp_path / "dst", ("k.h-*.nbi",)) == 0
    assert merge_cache(tmp_path / "src", tmp_path / "dst") == 1
    assert (dst / "k.f-1.py311.nbi").read_text() == "dst index"
    assert not (dst / "k.f-1.py311.1.nbc").exists()  # never data under another process's index
    assert (dst / "k.g-9.py311.nbi").read_text() == "src g"
    assert (dst / "k.g-9.py311.1.nbc").read_text() == "src g data"
    assert not list(dst.glob(".*tmp"))


def test_compile_log_records_each_compilation_with_its_own_time():
    from numba import njit

    from solver.core.compiling import compile_log

    @njit  # no cache: compiled in this test whatever the cache holds
    def leaf(x):
        return x + 1

    @njit
    def root(x):
        return leaf(x) * 2

    with compile_log() as events:
        assert root(1) == 4
        root(2)  # the same signature: no new compilation
        root(1.5)
    assert [(e.kernel.rsplit(".", 1)[-1], e.depth) for e in events] == \
        [("leaf", 1), ("root", 0), ("leaf", 1), ("root", 0)]
    assert "int64" in events[1].signature and "float64" in events[3].signature
    assert all(0 <= e.own_seconds <= e.seconds for e in events)
    assert events[1].own_seconds < events[1].seconds  # the nested compile is not its own


def test_compile_aside_starts_no_helper_on_a_busy_machine(tmp_path):
    (tmp_path / "kern.py").write_text(ASIDE_KERNELS)
    cache = tmp_path / "cache"
    busy = run_aside(tmp_path, cache, [str(tmp_path)], busy="busy")
    assert busy.returncode == 0, busy.stderr
    assert busy.stdout.splitlines() == ["2", "6", "['kern.aside', 'kern.here']"]  # both here
    assert not list(cache.rglob("kern.other-*"))  # the helper never ran
