"""Hessian evaluation: tensorcalc against a hand-written closed form and autodiff frameworks.

    python benchmarks/hessians.py [--sizes 100 300 1000 2000] [--device cpu|gpu] [--save] [--png FILE]

Problems (float64): (a) x^T A x; (b) logistic regression sum(log(1 + exp(-y .* (X w))))
with m = 2n samples; (c) matrix factorisation sum(M .* (T - U V^T)^2) in U, k = 5, M and
T n x n (dense Hessian (nk)^2 entries, so sizes above --mf-max are skipped).

Columns, measured in one run: tensorcalc compiled; the NumPy closed form; jax.jit of
jax.hessian; torch.func.hessian; HIPS autograd (a column is skipped with a note when its
package is missing, and a framework is skipped at larger sizes once one call exceeds
--cap seconds). Every result is checked against the closed form before it is timed.
Prints markdown tables of times, ratios tensorcalc / closed form and tensorcalc / JAX,
and symbolic build + compile times. Only with --save are they written, naming the commit,
to benchmarks/RESULTS_<device>.md with a log-log plot beside (--png FILE: the plot only).
"""
from __future__ import annotations

import argparse
import importlib.util
import pathlib
import sys
import time

import numpy as np

import tensorcalc as tc

PROBLEMS = {
    "quadratic": ("declare x 1 A 2 expression x *(i,ij->j) A *(j,j->) x", "x"),
    "logistic": ("declare X 2 y 1 w 1 expression 1 *(i,i->) log(1 + exp(-(y *(i,i->i) (X *(ij,j->i) w))))", "w"),
    "factorisation": ("declare M 2 T 2 U 2 V 2 expression "
                      "1 *(ij,ij->) (M *(ij,ij->ij) ((T - U *(ik,jk->ij) V) ^ 2))", "U"),
}
K = 5


def data(problem: str, n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    if problem == "quadratic":
        return {"x": rng.normal(size=n), "A": rng.normal(size=(n, n))}
    if problem == "logistic":
        m = 2 * n
        return {"X": rng.normal(size=(m, n)) / np.sqrt(n), "y": rng.choice([-1.0, 1.0], m),
                "w": rng.normal(size=n)}
    return {"M": (rng.uniform(size=(n, n)) < 0.3).astype(float), "T": rng.normal(size=(n, n)),
            "U": rng.normal(size=(n, K)), "V": rng.normal(size=(n, K))}


# --------------------------------------------------------------------------- closed forms

def closed_form(problem: str, v: dict, xp=np):
    if problem == "quadratic":
        return v["A"] + v["A"].T
    if problem == "logistic":
        s = 1.0 / (1.0 + xp.exp(-v["y"] * (v["X"] @ v["w"])))
        Z = xp.sqrt(s * (1.0 - s))[:, None] * v["X"]      # X' D X as Z' Z: a symmetric rank-k update (syrk)
        return Z.T @ Z
    n, k = v["U"].shape
    outer = (v["V"][:, :, None] * v["V"][:, None, :]).reshape(-1, k * k)   # V_j V_j' by row j
    blocks = 2.0 * (v["M"] @ outer).reshape(n, k, k)                       # one GEMM: sum_j M_ij V_j V_j'
    hessian = xp.zeros((n, k, n, k))
    rows = xp.arange(n)
    hessian[rows, :, rows, :] = blocks
    return hessian


# --------------------------------------------------------------------------- frameworks

def _functions(np_like):
    """f(x, data) with the data an argument: nothing is baked into a traced program."""
    return {
        "quadratic": (lambda x, v: x @ v["A"] @ x, "x"),
        "logistic": (lambda w, v: np_like.sum(np_like.log(1 + np_like.exp(-v["y"] * (v["X"] @ w)))), "w"),
        "factorisation": (lambda u, v: np_like.sum(v["M"] * (v["T"] - u @ v["V"].T) ** 2), "U"),
    }


def _rest(v: dict, wrt: str) -> dict:
    return {k: a for k, a in v.items() if k != wrt}


def jax_hessian(problem, v):
    import jax
    import jax.numpy as jnp
    jax.config.update("jax_enable_x64", True)
    jv = {k: jnp.asarray(a) for k, a in v.items()}
    f, wrt = _functions(jnp)[problem]
    h = jax.jit(jax.hessian(f))                      # the data are traced arguments, not constants
    x, rest = jv[wrt], _rest(jv, wrt)
    return lambda: h(x, rest).block_until_ready()


def torch_hessian(problem, v):
    import torch
    tv = {k: torch.as_tensor(a, dtype=torch.float64) for k, a in v.items()}
    f, wrt = _functions(torch)[problem]
    x, rest = tv[wrt], _rest(tv, wrt)
    return lambda: torch.func.hessian(f)(x, rest)


def autograd_hessian(problem, v):
    import autograd
    import autograd.numpy as anp
    f, wrt = _functions(anp)[problem]
    h = autograd.hessian(f)
    x, rest = v[wrt], _rest(v, wrt)
    return lambda: h(x, rest)


FRAMEWORKS = {"jax": ("jax", jax_hessian), "torch": ("torch", torch_hessian),
              "autograd": ("autograd", autograd_hessian)}


# --------------------------------------------------------------------------- timing

def best_time(fn, budget: float = 1.0, repeats: int = 7) -> float:
    """Best of up to `repeats` calls, stopping once `budget` seconds are spent."""
    fn()                                              # warm-up (JIT compilation, path caches)
    times, spent = [], 0.0
    while len(times) < repeats and (spent < budget or len(times) < 2):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
        spent += times[-1]
    return min(times)


def paired_best(first, second, budget: float = 2.0, rounds: int = 30) -> tuple[float, float]:
    """Best times of two functions called alternately, so that both meet the same
    machine conditions (this machine shares its host; neighbours add noise)."""
    first(), second()
    best, spent, k = [float("inf"), float("inf")], 0.0, 0
    while k < rounds and (spent < budget or k < 5):
        for i, fn in enumerate((first, second)):
            start = time.perf_counter()
            fn()
            elapsed = time.perf_counter() - start
            best[i], spent = min(best[i], elapsed), spent + elapsed
        k += 1
    return best[0], best[1]


def agree(result, reference, name: str) -> None:
    result = np.asarray(result.get() if hasattr(result, "get") else result).reshape(reference.shape)
    scale = max(1.0, float(np.abs(reference).max()))
    err = float(np.abs(result - reference).max()) / scale
    if err > 1e-8:
        raise AssertionError(f"{name} disagrees with the closed form: relative error {err:.2e}")


def build(problem: str):
    """Parse, differentiate twice, simplify and compile; returns (compiled, seconds)."""
    start = time.perf_counter()
    inp = tc.parse(PROBLEMS[problem][0])
    fn = tc.compile(tc.hessian(inp.expr, PROBLEMS[problem][1]))
    return fn, time.perf_counter() - start


def run_problem(problem, sizes, args, xp, rows, builds):
    fn, seconds = build(problem)
    builds.append((problem, seconds, fn.source.count("\n") - 1))
    skip: dict[str, str] = {}
    for n in sizes:
        if problem == "factorisation" and n > args.mf_max:
            print(f"# {problem} n={n}: skipped (dense Hessian of {(n * K) ** 2:,} entries; --mf-max {args.mf_max})",
                  file=sys.stderr)
            continue
        v = data(problem, n, np.random.default_rng(n))
        dv = {k: xp.asarray(a) for k, a in v.items()}
        reference = np.asarray(closed_form(problem, v))
        row = {"problem": problem, "n": n}
        agree(fn(dv), reference, "tensorcalc")
        row["tensorcalc"], row["closed"] = paired_best(lambda: _sync(fn(dv)),
                                                       lambda: _sync(closed_form(problem, dv, xp)), args.budget)
        for name, (module, make) in FRAMEWORKS.items():
            if args.device == "gpu" or name in skip or importlib.util.find_spec(module) is None:
                row[name] = skip.get(name, "n/a" if args.device == "gpu" else f"{module} not installed")
                continue
            row[name] = _framework(name, make, problem, v, reference, args, skip)
        rows.append(row)
        print(f"# {problem} n={n}: " + ", ".join(f"{k} {_fmt(v)}" for k, v in row.items() if k not in ("problem", "n")),
              file=sys.stderr)


def _framework(name, make, problem, v, reference, args, skip):
    """Time one framework (best of three calls); a failure (out of memory, say) is reported, not raised,
    except disagreement with the closed form, which stops the benchmark."""
    try:
        h = make(problem, v)
        start = time.perf_counter()
        result = h()
        elapsed = time.perf_counter() - start
    except Exception as err:  # noqa: BLE001 - a framework failing is a result to report
        reason = "out of memory" if "memory" in str(err).lower() else f"failed: {type(err).__name__}"
        skip[name] = reason
        return reason
    agree(result, reference, name)
    if elapsed > args.cap:
        skip[name] = f"> {args.cap:g} s"
    return best_time(h, args.budget, repeats=3) if elapsed < args.cap else elapsed


def _sync(result):
    if hasattr(result, "device") and hasattr(result.device, "synchronize"):
        result.device.synchronize()
    return result


def _fmt(value) -> str:
    return f"{value * 1000:.2f} ms" if isinstance(value, float) else str(value)


def _ratio(a, b) -> str:
    return f"{a / b:.2f}" if isinstance(a, float) and isinstance(b, float) else "-"


def report(rows, builds, device: str) -> str:
    columns = ["tensorcalc", "closed", "jax", "torch", "autograd"]
    out = [f"## Hessian evaluation time ({device}, float64, best of repeated calls)", "",
           "Closed forms in their best NumPy form: A + A' for the quadratic, Z' Z with Z = sqrt(s(1-s)) X "
           "(a symmetric rank-k update, as the generated code) for logistic regression, the diagonal blocks "
           "2 sum_j M_ij V_j V_j' as one matrix product M (V_j V_j')_j for the factorisation. JAX, PyTorch and "
           "autograd get the data as arguments of the differentiated function (nothing baked in as constants).", "",
           "| problem | n | " + " | ".join(columns) + " | tensorcalc / closed | tensorcalc / JAX |",
           "|---|---|" + "---|" * (len(columns) + 2)]
    for r in rows:
        cells = [_fmt(r.get(c, "-")) for c in columns]
        out.append(f"| {r['problem']} | {r['n']} | " + " | ".join(cells) +
                   f" | {_ratio(r['tensorcalc'], r['closed'])} | {_ratio(r['tensorcalc'], r.get('jax'))} |")
    out += ["", "## Symbolic build (parse, Hessian, simplify) plus compile: the first call's extra cost", "",
            "| problem | time | generated lines |", "|---|---|---|"]
    out += [f"| {problem} | {seconds * 1000:.1f} ms | {lines} |" for problem, seconds, lines in builds]
    return "\n".join(out) + "\n"


def header(args, argv) -> str:
    import os
    import platform
    import subprocess
    root = pathlib.Path(__file__).resolve().parent.parent

    def git(*a):
        return subprocess.run(["git", *a], cwd=root, capture_output=True, text=True).stdout.strip()
    dirty = " + local edits" if any(line.endswith((".py", ".lark")) for line in      # sources, not results
                                    git("status", "--porcelain", "--", "tensorcalc", "benchmarks").splitlines()) else ""
    versions = [f"NumPy {np.__version__}"] + [
        f"{m} {__import__(m).__version__}" if importlib.util.find_spec(m) else f"{m} not installed"
        for m in ("jax", "torch", "autograd")]
    load = ", ".join(f"{v:.1f}" for v in os.getloadavg())
    return (f"# benchmarks/hessians.py, commit {git('rev-parse', '--short', 'HEAD')}{dirty}\n\n"
            f"Command: `python benchmarks/hessians.py {' '.join(argv)}` on {platform.machine()}, {os.cpu_count()} "
            f"cores shared with other work (load average at the end {load}; tensorcalc and the closed form are "
            f"timed interleaved, best of up to 30 calls). {', '.join(versions)}. All results agree with the "
            f"closed form (checked before timing).\n\n")


def plot(rows, path: pathlib.Path, device: str) -> None:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("# matplotlib not installed: no plot (pip install '.[plot]')", file=sys.stderr)
        return
    problems = list(dict.fromkeys(r["problem"] for r in rows))
    fig, axes = plt.subplots(1, len(problems), figsize=(5 * len(problems), 4), squeeze=False)
    for ax, problem in zip(axes[0], problems):
        sub = [r for r in rows if r["problem"] == problem]
        for column in ["tensorcalc", "closed", "jax", "torch", "autograd"]:
            pts = [(r["n"], r[column]) for r in sub if isinstance(r.get(column), float)]
            if pts:
                ax.loglog(*zip(*pts), marker="o", label=column)
        ax.set_title(f"{problem} Hessian ({device})")
        ax.set_xlabel("n")
        ax.set_ylabel("seconds")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    print(f"# plot saved to {path}", file=sys.stderr)


def array_module(device: str):
    if device == "cpu":
        return np
    try:
        import cupy
        cupy.zeros(1)
        return cupy
    except Exception as err:  # noqa: BLE001 - any failure means no usable GPU
        raise SystemExit(f"hessians.py: --device gpu needs CuPy and a CUDA GPU; none is usable here ({err})")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 300, 1000, 2000])
    parser.add_argument("--problems", nargs="+", default=list(PROBLEMS), choices=list(PROBLEMS))
    parser.add_argument("--device", choices=["cpu", "gpu"], default="cpu")
    parser.add_argument("--mf-max", type=int, default=1000, help="largest n for matrix factorisation")
    parser.add_argument("--cap", type=float, default=20.0, help="skip a framework after a call this slow")
    parser.add_argument("--budget", type=float, default=2.0, help="seconds of repeated calls per timing")
    parser.add_argument("--save", action="store_true", help="write benchmarks/RESULTS_<device>.md and .png")
    parser.add_argument("--png", type=pathlib.Path, default=None, help="also save the plot here")
    argv = sys.argv[1:] if argv is None else argv
    args = parser.parse_args(argv)
    if (args.save or args.png) and importlib.util.find_spec("matplotlib") is None:     # say so before the run
        print("# matplotlib is not installed: no plot at the end (pip install '.[plot]')", file=sys.stderr)
    xp = array_module(args.device)
    start = time.perf_counter()
    tc.parse("declare x 0 expression x")                 # builds the LALR tables, once per process
    print(f"# parser tables built in {(time.perf_counter() - start) * 1000:.1f} ms (once per process)",
          file=sys.stderr)
    rows, builds = [], []
    for problem in args.problems:
        run_problem(problem, args.sizes, args, xp, rows, builds)
    text = report(rows, builds, args.device)
    print(text)
    results = pathlib.Path(__file__).resolve().parent / f"RESULTS_{args.device}"
    if args.save:                          # only then: a default run never overwrites results
        results.with_suffix(".md").write_text(header(args, argv) + text)
        print(f"# results written to {results.with_suffix('.md')}", file=sys.stderr)
    for path in ([results.with_suffix(".png")] if args.save else []) + ([args.png] if args.png else []):
        plot(rows, path, args.device)
    return 0


if __name__ == "__main__":
    sys.exit(main())
