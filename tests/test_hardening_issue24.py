"""Hardening from issue 24, items 9, 10, 11 and the position part of 11b.

9. The epigraph walk (solvers/epigraph.py) is iterative: long sums, deep negations and
   deep maxes lift without Python's recursion limit.
10. Declarations no value can satisfy (or only one degenerate value) are named with
    their line, the contradictory attributes and the fix, by analyze and by minimize alike.
11. The CVXPY bridge: 0-d axes, constant matrix_frac, constant folding CVXPY refuses.
11b. Shape errors of problem text carry line, column and caret.
"""
from __future__ import annotations

import numpy as np
import pytest

import solvers
from solvers import epigraph
from solvers.data import prepare


# ----------------------------------------------------------------------------- item 9: the epigraph walk

def _abs_sum(n: int) -> str:
    return "variable x\nminimize " + " + ".join(f"abs(x - {k})" for k in range(n)) + "\n"


def test_a_sum_of_ten_thousand_kinks_lifts_each_once():
    lifted = epigraph.lift(prepare(_abs_sum(10_000)))
    assert len(lifted.added) == 10_000 == len(set(lifted.added))
    assert lifted.added[:3] == ("t_abs", "t_abs_2", "t_abs_3") and lifted.added[-1] == "t_abs_10000"
    assert len(lifted.labels) == 20_000


@pytest.mark.parametrize("depth, lifted", [(5_000, ("t_abs",)), (5_001, ())])
def test_five_thousand_nested_negations_keep_the_sign(depth, lifted):
    text = "variable x\nminimize " + "-" * depth + "abs(x - 1)\n"
    assert epigraph.lift(prepare(text)).added == lifted       # an odd count: the kink is concave, left alone


def test_deeply_nested_maxes_flatten_into_one_site():
    depth = 5_000
    text = "variable x\nminimize " + "maximum(" * depth + "x" + "".join(f", {k})" for k in range(depth)) + "\n"
    lifted = epigraph.lift(prepare(text))
    assert lifted.added == ("t_max",) and len(lifted.labels) == depth + 1


def test_the_reproducers_solve():
    result = solvers.minimize(_abs_sum(350))                    # the median of 0..349
    assert result.success, result.message
    assert 174 - 1e-6 <= float(result.x["x"]) <= 175 + 1e-6
    result = solvers.minimize("variable x\nminimize " + "-" * 500 + "(x - 3)^2\n")
    assert result.success and float(result.x["x"]) == pytest.approx(3.0), result.message
