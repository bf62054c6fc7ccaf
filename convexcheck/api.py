"""The front door: `analyze(problem, data=None, *, ...)`, the parallel of
`solvers.minimize(problem, data=None, *, ...)`.

A problem is a `Problem`, a problem file's path, problem text, or a CVXPY Expression or
Problem, which goes through the bridge (`bridge.translate.from_cvxpy`: its parameters'
and constants' values become the data). It sits above both the analysis and the bridge,
which builds on the analysis.
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import tensorcalc as tc
from convexcheck import analysis
from convexcheck.bridge.translate import from_cvxpy
from convexcheck.budget import Budget
from convexcheck.problem.model import Problem
from convexcheck.report import Report
from tensorcalc.arrays import library


def analyze(problem: Problem | str | os.PathLike | Any, data: Mapping[str, Any] | None = None, *,
            samples: int = 20, seed: int = 0, dims: dict[str, int] | None = None, progress: bool = False,
            budget: Budget | float = Budget(), verdict_only: bool = False) -> Report:
    """The convexity verdicts of `problem` (see `convexcheck.analysis`): `data` gives
    parameters fixed values (arrays by name); `samples` points are sampled per part where
    no proof settles a side, drawn from `seed`; `dims` sets named dimension lengths;
    `progress` shows a bar; `budget` bounds the work (a `Budget` or its seconds);
    `verdict_only` searches only the sides `Report.verdict` reads (see `analysis.analyze`).

    A CVXPY Expression or Problem is translated first (`from_cvxpy`; the translated text
    is `report.problem.text`) and analysed at its parameters' values: give those as
    `Parameter.value`, not in `data` (the translation names them)."""
    if library(problem) == "cvxpy":
        if data:
            raise tc.TensorCalcError("data: a CVXPY problem's parameter values are read from the CVXPY "
                                     "parameters themselves; set Parameter.value instead")
        problem, data = from_cvxpy(problem)
    return analysis.analyze(problem, data, samples=samples, seed=seed, dims=dims, progress=progress, budget=budget,
                             verdict_only=verdict_only)
