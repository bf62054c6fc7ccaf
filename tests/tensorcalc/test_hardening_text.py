"""Hardening of the text front ends (issue 14, items 1, 3, 4 and 10).

1. Compiled code follows NumPy semantics for constants (no Python float arithmetic), and
   text whose constant subexpression is not finite is refused with a located error.
3. Every text error carries line, column and caret exactly once.
4. Every CLI option is validated by argparse (exit status 2, argparse's message).
10. `tensorcalc diff --check` checks every order, at points of both signs, and what it prints.
"""
import re

import numpy as np
import pytest

import tensorcalc as tc
from convexcheck import ProblemError, load_problem
from convexcheck_cli import convexcheck_main
from tensorcalc import dag
from tensorcalc.cli import main as tensorcalc_main
from tensorcalc.derivatives import reverse as diff_module

X = dag.var("x", [dag.Axis("x", 0)])
N = dag.Axis("x", 0)


def _position_count(message: str) -> int:
    return len(re.findall(r"line \d+, column \d+", message))


def _assert_located(message: str, line: int, column: int) -> None:
    assert _position_count(message) == 1, message
    assert f"line {line}, column {column}:" in message, message
    caret_lines = [row for row in message.split("\n") if row.strip() == "^"]
    assert len(caret_lines) == 1, message


# ----------------------------------------------------------------------------- item 1: compiled constants

def _c(value):
    return dag.const(value)


CONSTANT_TAILS = {                                   # x + (a constant subexpression), built through the API
    "1/0": dag.div(_c(1.0), _c(0.0)),
    "0^-1": dag.power(_c(0.0), _c(-1.0)),
    "1e308^2": dag.power(_c(1e308), _c(2.0)),
    "(-8)^(1/3)": dag.power(_c(-8.0), _c(1.0 / 3.0)),
    "(-2)^3": dag.power(_c(-2.0), _c(3.0)),
    "(-2)^-2": dag.power(_c(-2.0), _c(-2.0)),
    "log(0)": dag.elementwise("log", _c(0.0)),
    "1e308^1.5": dag.power(_c(1e308), _c(1.5)),
}


@pytest.mark.parametrize("name", sorted(CONSTANT_TAILS))
def test_compiled_constant_arithmetic_equals_evaluation(name):
    tail = dag.scale(CONSTANT_TAILS[name], dag.const(1.0, (N,)))     # broadcast to x's axis
    expr = dag.add(X, tail)
    values = {"x": np.array([1.0, -2.0, 3.0])}
    expected = tc.evaluate(expr, values)
    got = tc.compile(expr)(values)
    np.testing.assert_array_equal(got, expected)    # equal, nan where NumPy gives nan
    assert got.dtype == np.float64 and got.shape == (3,)


def test_compiled_constant_scale_that_overflows_is_inf_not_a_name_error():
    big = dag.scale(_c(1e308), dag.scale(_c(10.0), X))     # folded scale of a contraction: 1e309
    e = dag.product(big, X, ("i", "i", ""))
    got = tc.compile(e)({"x": np.ones(2)})
    assert got == tc.evaluate(e, {"x": np.ones(2)}) == np.inf


def test_elementwise_function_of_a_constant_is_a_full_tensor_in_a_contraction():
    y = dag.var("y", [dag.Axis("y", 0), dag.Axis("y", 1), dag.Axis("y", 1)])
    for value in (0.3, 300.0):                       # arcsin(300) is nan: it stays unfolded
        c = dag.elementwise("arcsin", dag.const(value, (dag.Axis("y", 1), dag.Axis("y", 1))))
        e = dag.product(c, y, ("ii", "lij", "li"))
        values = {"y": np.arange(18.0).reshape(2, 3, 3) - 5.0}
        np.testing.assert_array_equal(tc.compile(e)(values), tc.evaluate(e, values))


def test_negative_base_with_integer_exponent_is_exact_and_real():
    e = dag.power(dag.neg(X), _c(3.0))
    values = {"x": np.array([2.0, -3.0])}
    got = tc.compile(e)(values)
    assert got.tolist() == [-8.0, 27.0] and got.dtype == np.float64


@pytest.mark.parametrize("tail, column", [("1/0", 17), ("0^-1", 17), ("1e308^2", 21), ("1e308*10", 21),
                                          ("log(0)", 16), ("(1 - 1)^(0 - 1)", 23)])
def test_text_with_a_constant_that_is_not_finite_is_refused_where_it_is(tail, column):
    with pytest.raises(ProblemError) as err:
        load_problem(f"variable x\nminimize x^2 + {tail}\n")
    _assert_located(str(err.value), 2, column)
    assert "not finite" in str(err.value)
    with pytest.raises(tc.ParseError) as err:
        tc.parse_expr(f"x^2 + {tail}", {"x": 0})
    _assert_located(str(err.value), 1, column - 9)


@pytest.mark.parametrize("body, column", [("x[i] + 1/0", 27), ("x[i] + 1e308*10", 31), ("x[i] * 0^-1", 27)])
def test_definition_with_a_constant_that_is_not_finite_is_refused_where_it_is(body, column):
    with pytest.raises(ProblemError) as err:
        load_problem(f"variable x[3]\ndefine g[i < 3] = {body}\nminimize sum(g^2)\n")
    _assert_located(str(err.value), 2, column)
    with pytest.raises(tc.ParseError, match="not finite"):
        tc.parse_def(f"g[i] = {body}", {"x": (3,), "g": (3,)})


def test_text_arcsin_out_of_domain_constant_is_refused_with_its_place():
    with pytest.raises(tc.ParseError, match="arcsin") as err:
        tc.parse("declare x 3 expression arcsin(3e2) *(ii,lij->li) x")
    _assert_located(str(err.value), 1, 24)


def test_finite_constant_subexpressions_still_parse():
    e = tc.parse_expr("x + 2^3 + (0 - 8)^3 + 1e308 / 1e300 + log(2)", {"x": 0})
    assert tc.evaluate(e, {"x": 1.0}) == tc.compile(e)({"x": 1.0}) == 1.0 + 8.0 - 512.0 + 1e8 + np.log(2.0)


def test_constant_that_overflows_only_at_length_n_follows_numpy():
    e = tc.parse_expr("x + sum(1e308 *(,i->i) y)", {"x": 0, "y": 1})      # 1e308 n: inf for n >= 2
    values = {"x": 1.0, "y": np.ones(3)}
    assert tc.evaluate(e, values) == tc.compile(e)(values) == np.inf


@pytest.mark.parametrize("command", ["analyze", "solve"])
@pytest.mark.parametrize("tail", ["1/0", "0^-1", "1e308^2", "1e308*10"])
def test_cli_refuses_constant_that_is_not_finite_with_exit_2(tmp_path, capsys, command, tail):
    path = tmp_path / "p.tc"
    path.write_text(f"variable x\nminimize x^2 + {tail}\n")
    assert convexcheck_main([command, str(path)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "line 2, column" in err and "not finite" in err


# ----------------------------------------------------------------------------- item 3: located errors

def test_too_large_number_is_located_once_in_tensorcalc():
    with pytest.raises(tc.ParseError) as err:
        tc.parse("declare x 0 expression x + 1e400 derivative wrt x")
    _assert_located(str(err.value), 1, 28)
    assert err.value.reason.startswith("number 1e400")


def test_too_large_number_is_located_once_in_a_thesis_problem_file(tmp_path):
    path = tmp_path / "t.tc"
    path.write_text("declare x 0 expression x + 1e400\n")
    with pytest.raises(ProblemError) as err:
        load_problem(path)
    _assert_located(str(err.value), 1, 28)


def test_overflowing_constant_in_a_problem_is_located():
    with pytest.raises(ProblemError) as err:
        load_problem("variable x\nminimize x^2 + 1e308*10\n")
    _assert_located(str(err.value), 2, 21)


@pytest.mark.parametrize("text, column", [
    ("declare x 1e400 expression x derivative wrt x", 11),
    ("declare x 1e2 expression x derivative wrt x", 11),
    ("declare x " + "9" * 5000 + " expression x", 11),
    ("declare x 1 expression delta(" + "9" * 5000 + ")", 30),
])
def test_bad_orders_are_located_errors(text, column):
    with pytest.raises(tc.ParseError) as err:
        tc.parse(text)
    _assert_located(str(err.value), 1, column)


def test_tensorcalc_cli_order_1e400_exits_2(capsys):
    assert tensorcalc_main(["diff", "declare x 1e400 expression x derivative wrt x"]) == 2
    err = capsys.readouterr().err
    assert "line 1, column 11" in err and "Traceback" not in err


# ----------------------------------------------------------------------------- item 4: options

def _argparse_error(main, argv, capsys, option):
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {option}:" in err and "usage:" in err, err


QUADRATIC = "declare x 1 expression x *(i,i->) x derivative wrt x"


@pytest.mark.parametrize("option, value", [
    ("--points", "0"), ("--points", "-3"), ("--points", "2.5"), ("--order", "-1"), ("--order", "x"),
    ("--order", "100000"), ("--seed", "-1"), ("--tol", "nan"), ("--tol", "-1"), ("--tol", "inf"),
    ("--wrt", "1x"),
])
def test_tensorcalc_options_are_validated_by_argparse(capsys, option, value):
    _argparse_error(tensorcalc_main, ["diff", QUADRATIC, "--check", option, value], capsys, option)


@pytest.mark.parametrize("option, value", [
    ("--seed", "-1"), ("--seed", "1.5"), ("--samples", "0"), ("--samples", "100001"), ("--dim", "n=0"),
    ("--dim", "n"), ("--dim", "n=100001"), ("--dim", "n=" + "9" * 5000),
])
def test_analyze_options_are_validated_by_argparse(capsys, option, value):
    _argparse_error(convexcheck_main, ["analyze", "examples/least_squares.tc", option, value], capsys, option)


@pytest.mark.parametrize("option, value", [
    ("--gtol", "nan"), ("--gtol", "-1"), ("--tol", "inf"), ("--tol", "-1e-3"), ("--max-iter", "-1"),
    ("--max-iter", "many"), ("--max-iter", "10000001"), ("--blocks", "U,,V"), ("--blocks", "U+"), ("--blocks", "1a"),
])
def test_solve_options_are_validated_by_argparse(capsys, option, value):
    _argparse_error(convexcheck_main, ["solve", "examples/least_squares.tc", option, value], capsys, option)


def test_analyze_seed_zero_and_large_still_run(capsys):
    for seed in ("0", str(2**63 - 1)):
        assert convexcheck_main(["analyze", "examples/least_squares.tc", "--seed", seed, "--samples", "2"]) == 0
    capsys.readouterr()


# ----------------------------------------------------------------------------- item 10: --check

def _check_exit(argv, capsys) -> tuple[int, str]:
    status = tensorcalc_main(argv)
    return status, capsys.readouterr().err


def test_check_verifies_every_order_an_injected_wrong_first_derivative_fails(monkeypatch, capsys):
    text = "declare x 1 expression sum(sin(x)) derivative wrt x"
    original = diff_module._reverse
    root = tc.parse(text).expr

    def wrong_first(expr, x):
        d = original(expr, x)
        return dag.add(d, dag.const(0.5, d.axes)) if expr is root else d   # a wrong constant term

    monkeypatch.setattr(diff_module, "_reverse", wrong_first)
    status, err = _check_exit(["diff", text, "--order", "2", "--check"], capsys)
    assert status == 1 and "FAILED" in err and "order 1" in err


def test_check_samples_negative_entries_a_wrong_abs_rule_fails(monkeypatch, capsys):
    monkeypatch.setitem(diff_module.ELEMENTWISE_DERIVATIVES, "abs", lambda x: dag.const_like(1.0, x))
    status, err = _check_exit(["diff", "declare x 1 expression sum(abs(x)) derivative wrt x", "--check"], capsys)
    assert status == 1 and "FAILED" in err


def test_check_falls_back_to_positive_points_where_the_domain_needs_them(capsys):
    status, err = _check_exit(["diff", "declare x 1 expression sum(log(x) + x ^ 0.5) derivative wrt x",
                               "--order", "2", "--check"], capsys)
    assert status == 0 and "positive" in err
    status, err = _check_exit(["diff", "declare x 1 expression sum(abs(x) ^ 3) derivative wrt x",
                               "--order", "2", "--check"], capsys)
    assert status == 0 and "both signs" in err


def test_check_with_raw_checks_the_printed_unsimplified_derivative(monkeypatch, capsys):
    text = "declare x 1 expression sum(x ^ 3) derivative wrt x"
    original_reverse, original_simplify = diff_module._reverse, diff_module.simplified
    monkeypatch.setattr(diff_module, "_reverse", lambda e, x: dag.scale(dag.const(2.0), original_reverse(e, x)))
    monkeypatch.setattr(diff_module, "simplified",            # simplification undoes the injected factor
                        lambda e: original_simplify(dag.scale(dag.const(0.5), e)))
    assert _check_exit(["diff", text, "--check"], capsys)[0] == 0          # simplified: right
    status, err = _check_exit(["diff", text, "--check", "--raw"], capsys)   # raw, printed: twice too large
    assert status == 1 and "FAILED" in err


def test_check_derivative_reports_each_order():
    e = tc.parse_expr("sum(x ^ 3 + sin(x))", {"x": 1})
    result = tc.check_derivative(e, "x", order=3)
    assert len(result.errors) == 3 and max(result.errors) == result.error <= 1e-6
    assert (result.values["x"] < 0).any()                   # a point with negative entries was used
