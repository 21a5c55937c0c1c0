"""The ``noalloc`` kernels (``solver.core.jit``): none returns an array.

Such a kernel counts no references, so an array it handed back would be dropped by its caller
without ever having been counted: freed while still in use. The test types every kernel call
reachable from the searches' entry kernels (numba's type inference, no compilation) and checks
the return type of each call of a ``noalloc`` kernel."""

import sys

from numba.core import compiler, ir, typed_passes, types
from numba.core.registry import CPUDispatcher, cpu_target

from solver.pyramid.model.deals import deal_from_seed
from solver.pyramid.optimal.api import load_kernels
from solver.pyramid.model.rules import PRESETS, Rules
from solver.pyramid.winnable.solve import solve_winnable
from solver.pyramid.challenge.api import card_challenge, score_challenge


def holds_array(ty) -> bool:
    """Whether the numba type ``ty`` is an array or a tuple holding one."""
    if isinstance(ty, types.Array):
        return True
    if isinstance(ty, types.BaseTuple):
        return any(holds_array(t) for t in ty.types)
    return False


class TypeOnly(compiler.CompilerBase):
    """numba's pipeline up to its type inference: every call typed, nothing compiled."""

    def define_pipelines(self):
        pm = compiler.DefaultPassBuilder.define_untyped_pipeline(self.state)
        pm.add_pass(typed_passes.NopythonTypeInference, "nopython type inference")
        pm.finalize()
        return [pm]


def is_noalloc(disp) -> bool:
    return disp.targetoptions.get("_nrt") is False


def calls_from(disp, args, seen):
    """Record in ``seen`` every dispatcher call reachable from ``disp`` called with ``args``:
    ``(dispatcher, argument types) -> return type``."""
    flags = compiler.Flags()
    flags.nrt = not is_noalloc(disp)  # allocating is typed only with numba's runtime on
    pipeline = TypeOnly(cpu_target.typing_context, cpu_target.target_context, None, args, None,
                        flags, {})
    try:
        pipeline.compile_extra(disp.py_func)
    except AttributeError:  # the pipeline has run; there is no compiled result to hand back
        pass
    typed = pipeline.state
    for inst, sig in typed.calltypes.items():
        if not (isinstance(inst, ir.Expr) and inst.op == "call"):
            continue
        fnty = typed.typemap[inst.func.name]
        if not isinstance(fnty, types.Dispatcher):
            continue
        callee = fnty.dispatcher
        args = tuple(types.unliteral(a) for a in sig.args)
        if (callee, args) not in seen:
            seen[(callee, args)] = sig.return_type
            calls_from(callee, args, seen)


def entry_kernels():
    """Every solver kernel called from Python so far: ``(dispatcher, argument types) -> return
    type``."""
    found = {}
    for mname, mod in list(sys.modules.items()):
        if mname.startswith("solver."):
            for obj in vars(mod).values():
                if isinstance(obj, CPUDispatcher):
                    for sig, cres in obj.overloads.items():
                        found[(obj, tuple(sig))] = cres.signature.return_type
    return found


def test_no_noalloc_kernel_returns_an_array():
    load_kernels()  # the minimum-move kernels
    deal = deal_from_seed(3)
    for rules in (PRESETS["standard"], PRESETS["msc"], Rules(recycles=0, stock_top=True)):
        solve_winnable(deal, rules, max_states=2_000)
    score_challenge(deal_from_seed(21))  # the objective searches' kernels: the largest score ...
    card_challenge(deal_from_seed(7), 1)  # ... and the fewest-moves A* (seed 21's score is a
    # whole-deck line, found by the minimum-move search, so it never runs the A*)
    entries = entry_kernels()
    seen = dict(entries)
    for disp, args in entries:
        calls_from(disp, args, seen)
    checked = {disp.py_func.__qualname__ for (disp, _) in seen if is_noalloc(disp)}
    for name in ("astar_run", "bound", "gen_optimal", "forced_jump", "find_tagged", "pass_subgame_clears",
                 "subgame_clears", "table_has", "gen_concrete", "gen_moves", "gen_free_moves",
                 "moves_lower_bound", "upper_bound", "access"):
        assert name in checked, sorted(checked)
    for (disp, args), ret in seen.items():
        if is_noalloc(disp):
            assert not holds_array(ret), (disp.py_func.__qualname__, args, ret)
