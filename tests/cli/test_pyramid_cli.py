"""The Pyramid commands through click: exit codes, stdout and stderr kept apart."""

import json

import pytest
from click.testing import CliRunner

from cli.main import cli
from solver.pyramid.model.deals import deal_from_seed, format_deal
from solver.pyramid.model.replay import parse_solution, replay
from solver.pyramid.model.rules import Rules
from tests.faults import error_lines

LOST_SEED, WON_SEED = 9, 1


def run(*args, input=None):
    return CliRunner().invoke(cli, list(args), input=input)


def one_error_line(result, needle):
    assert result.exit_code == 2, result.output
    lines = error_lines(result.stderr)  # a "Compiling ..." notice on a cold cache is allowed
    assert len(lines) == 1 and needle in lines[0], result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""


def test_solve_winnable_seed_prints_board_verdict_and_numbered_steps():
    r = run("solve", "--seed", str(WON_SEED))
    assert r.exit_code == 0
    out = r.stdout.splitlines()
    assert out[0].startswith("Seed 1 (unlimited recycles")
    assert out[-1].endswith(" ms.") and "positions explored" in out[-1]
    assert any(line.startswith("Winnable") for line in out)
    assert any(line.strip().startswith("1. ") for line in out)
    assert any(line.startswith("stock: ") for line in out)


def test_solve_lost_seed_exits_1():
    r = run("solve", "--seed", str(LOST_SEED))
    assert r.exit_code == 1 and "Not winnable." in r.stdout


def test_solve_json_fields_and_solution_replays():
    r = run("solve", "--seed", str(WON_SEED), "--json")
    assert r.exit_code == 0
    obj = json.loads(r.stdout)
    for key in ("deal", "rules", "winnable", "solution", "moves", "states", "seconds"):
        assert key in obj
    assert obj["winnable"] is True and obj["moves"] == len(obj["solution"])
    deal = deal_from_seed(WON_SEED)
    assert obj["deal"] == format_deal(deal)
    rep = replay(deal, Rules(), parse_solution(" ".join(obj["solution"])))
    assert rep.ok and rep.won


def test_rule_options_override_the_preset():
    obj = json.loads(run("solve", "--seed", "1", "--rules", "msc", "--recycles", "unlimited",
                         "--goal", "pyramid", "--json").stdout)
    assert obj["rules"] == {"recycles": "unlimited", "overlap": False, "stock_top": True,
                            "goal": "pyramid"}
    obj = json.loads(run("solve", "--seed", "1", "--recycles", "0", "--json").stdout)
    assert obj["rules"]["recycles"] == 0 and obj["winnable"] is False


def test_deal_text_and_deal_file_with_blank_lines(tmp_path):
    a, b = format_deal(deal_from_seed(WON_SEED)), format_deal(deal_from_seed(LOST_SEED))
    r = run("solve", "--deal", a.lower(), "--json")
    obj = json.loads(r.stdout)
    assert r.exit_code == 0 and obj["deal"] == a and "seed" not in obj and "line" not in obj
    f = tmp_path / "deals.txt"
    f.write_text(f"\n{a}\n\n{b}\n")
    r = run("solve", "--deal-file", str(f), "--json")
    rows = [json.loads(line) for line in r.stdout.splitlines()]
    assert [x["line"] for x in rows] == [2, 4] and not any("seed" in x for x in rows)
    assert [x["winnable"] for x in rows] == [True, False] and r.exit_code == 1
    r = run("solve", "--deal-file", "-", "--json", input=a + "\n")
    assert r.exit_code == 0 and json.loads(r.stdout)["winnable"] is True


def test_limit_reached_is_unknown_with_exit_3():
    r = run("solve", "--seed", "2776", "--max-states", "5", "--json")
    assert r.exit_code == 3
    obj = json.loads(r.stdout)
    assert obj["outcome"] == "unknown" and obj["winnable"] is None and obj["solution"] == []
    assert obj["reason"] == "states" and obj["seed"] == 2776


@pytest.mark.parametrize("args, needle", [
    (["solve", "--deal", "Ac 2c"], "too few cards"),
    (["solve", "--deal", format_deal(deal_from_seed(3)).replace("Ad", "Xd")], "token 1 'Xd'"),
    (["solve", "--seed", "-1"], "--seed"),
    (["solve", "--seed", str(2**63)], "--seed"),
    (["solve"], "exactly one of"),
    (["solve", "--seed", "1", "--deal", "Ac"], "exactly one of"),
    (["solve", "--seed", "1", "--rules", "vegas"], "'vegas' is not one of standard, msc"),
    (["solve", "--seed", "1", "--recycles", "lots"], "recycles"),
    (["solve", "--seed", "1", "--goal", "most"], "--goal"),
    (["solve", "--seed", "1", "--frobnicate"], "No such option"),
    (["check", "--seed", "1", "--solution", "draw 6h+"], "step 2"),
    (["show", "--seed", "x"], "--seed"),
])
def test_bad_input_is_one_line_and_exit_2(args, needle):
    one_error_line(run(*args), needle)


def test_empty_and_blank_deal_files_are_errors(tmp_path):
    f = tmp_path / "empty.txt"
    f.write_text("")
    one_error_line(run("solve", "--deal-file", str(f)), "holds no deal")
    f.write_text("\n  \n")
    one_error_line(run("solve", "--deal-file", str(f)), "holds no deal")
    f.write_text(format_deal(deal_from_seed(1)) + "\nAc Ad\n")
    one_error_line(run("solve", "--deal-file", str(f)), "line 2: too few cards")


def test_check_accepts_a_win_and_names_the_first_wrong_step():
    sol = json.loads(run("solve", "--seed", "1", "--json").stdout)["solution"]
    r = run("check", "--seed", "1", "--solution", " ".join(sol))
    assert r.exit_code == 0 and r.stdout.splitlines()[0] == f"won in {len(sol)} moves"
    bad = ["draw"] * 3 + ["Kd"]  # Kd is in the pyramid, covered
    r = run("check", "--seed", "1", "--solution", " ".join(bad))
    assert r.exit_code == 1 and r.stdout.startswith("step 4 is illegal: Kd")
    r = run("check", "--seed", "1", "--solution", "draw draw", "--json")
    obj = json.loads(r.stdout)
    assert r.exit_code == 1 and obj["outcome"] == "incomplete" and obj["pyramid_left"] == 28
    assert obj["seed"] == 1 and obj["failed_step"] is None and obj["error"] is None
    r = run("check", "--seed", "1", "--solution", " ".join(bad), "--json")
    obj = json.loads(r.stdout)
    assert r.exit_code == 1 and obj["outcome"] == "illegal" and obj["failed_step"] == 4
    assert obj["error"].startswith("Kd") and obj["moves"] == 3
    r = run("check", "--seed", "1", "--solution", " ".join(sol), "--json")
    assert r.exit_code == 0 and json.loads(r.stdout)["outcome"] == "won"


def test_show_prints_the_triangle_and_the_deal_text():
    r = run("show", "--seed", "3")
    assert r.exit_code == 0
    lines = r.stdout.splitlines()
    assert lines[0] == "Deal 3" and lines[-1] == format_deal(deal_from_seed(3))
    assert json.loads(run("show", "--seed", "3", "--json").stdout)["deal"] == lines[-1]


COMMON_KEYS = {"deal", "rules"}
SEARCH_KEYS = COMMON_KEYS | {"outcome", "reason", "winnable", "optimal", "lower_bound", "states",
                             "seconds"}


@pytest.mark.parametrize("args, keys, ident", [
    (["show", "--seed", "5"], {"deal"}, {"seed": 5}),
    (["show", "--deal", format_deal(deal_from_seed(5))], {"deal"}, {}),
    (["solve", "--seed", "5"], SEARCH_KEYS | {"solution", "moves"}, {"seed": 5}),
    (["solve", "--seed", "5", "--any"], SEARCH_KEYS | {"solution", "moves"}, {"seed": 5}),
    (["solve", "--deal", format_deal(deal_from_seed(5))], SEARCH_KEYS, {}),
    (["hint", "--seed", "5"], SEARCH_KEYS | {"next", "moves_left", "after"}, {"seed": 5}),
    (["hint", "--deal", format_deal(deal_from_seed(5))], SEARCH_KEYS, {}),
    (["check", "--seed", "5", "--solution", "draw"],
     COMMON_KEYS | {"outcome", "moves", "failed_step", "error", "pyramid_left"}, {"seed": 5}),
], ids=["show seed", "show deal", "solve", "solve --any", "solve deal", "hint", "hint deal",
        "check"])
def test_every_command_speaks_the_json_vocabulary(args, keys, ident):
    """docs/json.md: ``seed`` (int) / ``line`` (int) / neither, ``deal``, ``rules`` an object,
    ``outcome`` one of the documented words and ``reason`` only for unknown."""
    r = run(*args, "--json")
    assert r.exit_code in (0, 1, 3), r.stderr
    doc = json.loads(r.stdout)
    assert keys <= set(doc), keys - set(doc)
    assert {k: doc[k] for k in ("seed", "line") if k in doc} == ident
    assert "deal_label" not in doc and "ok" not in doc and "won" not in doc
    if "rules" in doc:
        assert isinstance(doc["rules"], dict)
    if "outcome" in doc and args[0] != "check":
        assert doc["outcome"] in ("won", "lost", "unknown")
        assert (doc["reason"] is not None) == (doc["outcome"] == "unknown")
    if args[0] == "check":
        assert doc["outcome"] in ("won", "incomplete", "illegal")


def test_deal_file_json_names_the_line(tmp_path):
    f = tmp_path / "d.txt"
    f.write_text("\n" + format_deal(deal_from_seed(5)) + "\n")
    for cmd in (["solve"], ["hint"], ["check", "--solution", "draw"]):
        doc = json.loads(run(*cmd, "--deal-file", str(f), "--json").stdout)
        assert doc["line"] == 2 and "seed" not in doc


def test_rules_and_goal_offer_their_values_to_shell_completion():
    import click

    cmd = cli.commands["solve"]
    params = {p.name: p for p in cmd.params}
    ctx = click.Context(cmd)
    for name, values in (("preset", ["standard", "msc"]), ("goal", ["pyramid", "all"])):
        param = params[name]
        assert [c.value for c in param.type.shell_complete(ctx, param, "")] == values


def test_the_cli_seed_limit_is_the_generators():
    """cli.common keeps its own copy of the largest seed (so that it loads without numba)."""
    from cli.common import MAX_SEED
    from solver.core.rng import MAX_SEED as RNG_MAX_SEED

    assert MAX_SEED == RNG_MAX_SEED
