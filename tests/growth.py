"""Expression DAGs that grow with n, for the linear-growth test and benchmarks/thesis_checks.py."""
from tensorcalc import dag


def chain(n: int) -> dag.Expr:
    """n nested operations, alternating exp(-e) and sin(e) + e .* x, over a vector x."""
    x = dag.var("x", [dag.Axis("x", 0)])
    e = x
    for k in range(n):
        e = dag.add(dag.elementwise("sin", e), dag.hadamard(e, x)) if k % 2 else dag.elementwise("exp", dag.neg(e))
    return e


def shared(uses: int) -> dag.Expr:
    """500 subexpressions tanh(c x), each used in many of `uses` distinct products."""
    x = dag.var("x", [dag.Axis("x", 0)])
    pieces = [dag.elementwise("tanh", dag.scale(dag.const(k + 1.0), x)) for k in range(500)]
    total = pieces[0]
    for j in range(uses):
        partner = (7 * j + j // 500 + 3) % 500          # every (j % 500, partner) pair distinct
        total = dag.add(total, dag.hadamard(pieces[j % 500], pieces[partner]))
    return total
