"""Cold start of benchmarks/solvers.py: the first call in a fresh process, ours against
scikit-learn, each in its own subprocess (what a command-line user waits for each time).

Every child imports NumPy and scipy.optimize before any timer starts (importing
scikit-learn loads scipy.optimize too, and ours imports it when it builds the result),
makes the same seeded data, then times: importing the library, the first call and a
second call. Ours runs with the disk cache off (CONVEXCHECK_CACHE=0) and with a warm
disk cache (a private folder filled by one earlier process). Runs are interleaved;
medians over --cold-runs processes per configuration.
"""
from __future__ import annotations

import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent

CHILD = r"""
import json, sys, time
import numpy as np, scipy.optimize
which, m, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = np.random.default_rng(m + n)
X = rng.normal(size=(m, n))
w_true = 3.0 * rng.normal(size=n) / np.sqrt(n)
y = np.where(rng.uniform(size=m) < 1.0 / (1.0 + np.exp(-X @ w_true)), 1.0, -1.0)
from threadpoolctl import threadpool_limits
with threadpool_limits(int(sys.argv[4])):
    t0 = time.perf_counter()
    if which == "sklearn":
        from sklearn.linear_model import LogisticRegression
        def call():
            LogisticRegression(solver="newton-cholesky", C=1.0, fit_intercept=False, tol=1e-8,
                               max_iter=1000).fit(X, y)
    else:
        import solvers
        text = open(sys.argv[5]).read()
        def call():
            r = solvers.minimize(text, data={"X": X, "y": y, "s": 1.0 / m, "lam": 1.0 / m}, method="newton", gtol=1e-8)
            assert r.success, r.message
    t1 = time.perf_counter()
    call()
    t2 = time.perf_counter()
    call()
    t3 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "first": t2 - t1, "second": t3 - t2}))
"""

CONFIGS = (("ours, disk cache off", "ours", {"CONVEXCHECK_CACHE": "0"}),
           ("ours, warm disk cache", "ours", {"CONVEXCHECK_CACHE": "1"}),
           ("sklearn newton-cholesky tol=1e-8", "sklearn", {}))


def _child(which: str, m: int, n: int, threads: int, env: dict) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD, which, str(m), str(n), str(threads),
                          str(ROOT / "examples" / "logistic_regression_l2.tc")],
                         capture_output=True, text=True, env=env, cwd=ROOT, timeout=600)
    if out.returncode != 0:
        raise RuntimeError(f"cold-start child {which} failed: {out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def measure(m: int, n: int, runs: int, threads: int) -> list[dict]:
    """One row per configuration: medians of import, first call and second call."""
    with tempfile.TemporaryDirectory(prefix="convexcheck-cold-") as folder:
        base = {**os.environ, "CONVEXCHECK_CACHE_DIR": folder, "PYTHONPATH": str(ROOT),
                "OPENBLAS_NUM_THREADS": str(threads), "OMP_NUM_THREADS": str(threads)}
        _child("ours", m, n, threads, {**base, "CONVEXCHECK_CACHE": "1"})           # fills the cache
        samples: dict[str, list[dict]] = {label: [] for label, _, _ in CONFIGS}
        for _ in range(runs):                                                        # interleaved
            for label, which, extra in CONFIGS:
                samples[label].append(_child(which, m, n, threads, {**base, **extra}))
    return [{"setting": label, **{k: statistics.median(s[k] for s in samples[label])
                                  for k in ("import", "first", "second")}, "runs": runs}
            for label, _, _ in CONFIGS]


def _s(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms" if seconds < 1 else f"{seconds:.2f} s"


def report(rows: list[dict], m: int, n: int) -> list[str]:
    lines = [f"## Cold start: logistic regression {m:,} x {n}, a fresh process per call", "",
             __doc__.split("\n\n", 1)[1].replace("\n", " ").strip(), "",
             "| setting | import | first call | second call | import + first call |", "|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['setting']} | {_s(r['import'])} | {_s(r['first'])} | {_s(r['second'])} | "
                     f"{_s(r['import'] + r['first'])} |")
    return lines + [""]


def target(rows: list[dict]) -> str:
    by = {r["setting"]: r for r in rows}
    ours, sk = by["ours, warm disk cache"], by["sklearn newton-cholesky tol=1e-8"]
    ratio = ours["first"] / sk["first"]
    total = (ours["import"] + ours["first"]) / (sk["import"] + sk["first"])
    return (f"- Newton, fresh process, warm disk cache: first call {_s(ours['first'])} = {ratio:.2f}x "
            f"scikit-learn's first call {_s(sk['first'])} (target <= 1.5x: "
            f"{'holds' if ratio <= 1.5 else 'does not hold'}); import + first call {total:.2f}x; "
            f"disk cache off: first call {_s(by['ours, disk cache off']['first'])}")
