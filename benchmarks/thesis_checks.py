"""Measure the calculus on the thesis examples and on growing DAGs; prints markdown tables.

    python benchmarks/thesis_checks.py [--orders 1 2] [--points 3]

Table 1: for every example of tests/data/thesis_examples.tc, the largest relative error
of the derivative against finite differences over several random points, per order.
Table 2: node counts and differentiation time for a chain of n operations and for a DAG
of 500 subexpressions shared n times (thesis section 4.8: growth O(|V| + |E|)).
"""
import argparse
import pathlib
import sys
import time

import tensorcalc as tc
from tensorcalc import dag
from tensorcalc.derivatives.check import check_derivative

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from growth import chain, shared  # noqa: E402 - the DAGs the growth test uses


def thesis_table(orders, points):
    lines = [raw.strip() for raw in (ROOT / "tests/data/thesis_examples.tc").read_text().splitlines()
             if raw.strip() and not raw.startswith("#")]
    print("| example | " + " | ".join(f"order {k}" for k in orders) + " |")
    print("|---|" + "---|" * len(orders))
    worst = dict.fromkeys(orders, 0.0)
    for line in lines:
        try:
            inp = tc.parse(line)
        except tc.TensorCalcError as err:
            print(f"| `{line[8:]}` | rejected: {str(err).splitlines()[0]} |")
            continue
        cells = []
        for k in orders:
            try:
                e = max(check_derivative(inp.expr, inp.declared[inp.wrt], k, seed=s,
                                         variables=inp.declared).error for s in range(points))
                worst[k] = max(worst[k], e)
                cells.append(f"{e:.1e}")
            except tc.TensorCalcError as err:
                cells.append(f"skipped ({str(err)[:40]}...)")
        print(f"| `{line[8:]}` | " + " | ".join(cells) + " |")
    print("\nworst relative error per order: " + ", ".join(f"{k}: {v:.2e}" for k, v in worst.items()))


def growth_table():
    print("\n| DAG | n | nodes V | edges E | derivative nodes | added / (V+E) | reverse mode (ms) "
          "| simplified nodes | simplify (ms) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, build in (("chain", chain), ("500 shared", shared)):
        for n in (500, 1000, 2000, 4000):
            e = build(n)
            v, edges = tc.count_nodes(e), sum(len(m.args) for m in dag.topo(e))
            start = time.perf_counter()
            d = tc.derivative(e, "x", simplify=False)        # the thesis' claim: section 4.8
            middle = time.perf_counter()
            s = tc.simplify(d)
            end = time.perf_counter()
            added = tc.count_nodes(d, e) - v
            print(f"| {name} | {n} | {v} | {edges} | {tc.count_nodes(d)} | {added / (v + edges):.2f} "
                  f"| {1000 * (middle - start):.0f} | {tc.count_nodes(s)} | {1000 * (end - middle):.0f} |")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--orders", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--points", type=int, default=3)
    args = parser.parse_args(argv)
    thesis_table(args.orders, args.points)
    growth_table()


if __name__ == "__main__":
    sys.exit(main())
