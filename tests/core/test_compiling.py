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
