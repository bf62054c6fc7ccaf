"""det and adj, and their derivatives, exact also at singular matrices.

det(X) is a polynomial of degree n in the entries of X and adj(X) one of degree n - 1, so
both have derivatives everywhere. The derivative rules are written in the language
(`tensorcalc.derivatives.reverse`): d det = adj^T, and d adj = inv(X) (x) adj(X) - adj(X) (x) inv(X)
(`adj_derivative`), the form whose identity adj = det inv convexcheck reads. Evaluated as
written that form divides by det(X) in effect: it raises at a singular X and loses all
accuracy near one. So evaluation and compiled code never evaluate it as written:
`exact_forms` replaces every node `adj_derivative(X)` (found by identity in the
hash-consed DAG, however it was built) by the node `dadj(X)`, computed by `adj_jacobian`.

Both numerical functions use the SVD X = U diag(s) V^T and products of singular values,
never a division (Cauchy-Binet on the minors of order n - 1 and n - 2):

    adj(X)                  = det(U) det(V) V diag(w) U^T,    w_i  = prod_{k != i} s_k
    d^2 det / dX[p,q] dX[r,t] = det(U) det(V) (G[p,q,r,t] - G[p,t,r,q]),
    G[p,q,r,t] = sum_{i,j} W_ij U[p,i] V[q,i] U[r,j] V[t,j],  W_ij = prod_{k != i,j} s_k, W_ii = 0

and d adj(X)[a,b] / dX[c,d] = d^2 det / dX[b,a] dX[c,d]. They take the array module `xp`
(NumPy, CuPy, JAX, ...) and run the same code on each; contractions go through opt_einsum,
which dispatches on the array type. The error is that of the SVD: a few ulps of
|X|^(n-1) (adj) and |X|^(n-2) (its derivative), at singular X as anywhere else.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import opt_einsum

from tensorcalc import dag
from tensorcalc.arrays import Array, ArrayModule
from tensorcalc.dag import Expr, Special


def adj_derivative(x: Expr) -> Expr:
    """d adj(X)[a,b] / dX[c,d] = inv[a,b] adj[d,c] - adj[a,c] inv[d,b] (adj = det inv, table
    3.1), as the language writes it; evaluated through `adj_jacobian` (see the module)."""
    inv, adj = dag.special("inv", x), dag.special("adj", x)
    return dag.sub(dag.product(inv, adj, ("ab", "dc", "abcd")),
                   dag.product(adj, inv, ("ac", "db", "abcd")))


def exact_forms(exprs: Sequence[Expr]) -> list[Expr]:
    """`exprs` with every `adj_derivative(X)` node replaced by the node dadj(X) that
    evaluates it exactly; the expressions themselves when they have none. One walk."""
    nodes = dag.topo(*exprs)
    found = {adj_derivative(n.args[0]): n.args[0] for n in nodes if isinstance(n, Special) and n.fn == "adj"}
    if not any(n in found for n in nodes):
        return list(exprs)
    new: dict[Expr, Expr] = {}
    for node in nodes:
        if node in found:      # an evaluation-only node: built directly, dag.special would refuse it
            new[node] = dag.intern(Special, ("dadj",), (new[found[node]],), node.axes)
        else:
            new[node] = dag.rebuild(node, tuple(new[c] for c in node.args))
    return [new[e] for e in exprs]


def adjugate(a: Array, xp: ArrayModule = np) -> Array:
    """adj(a) of one square matrix, exact also for singular a (nan where a is not finite)."""
    n = a.shape[-1]
    if n == 0 or not _finite(xp, a):
        return _nan_like(xp, a, a.shape)
    u, s, vt, sign = _svd(xp, a)
    w = xp.prod(xp.where(xp.eye(n, dtype=bool), xp.ones_like(s)[None, :], s[None, :]), axis=1)
    return sign * opt_einsum.contract("iq,i,pi->qp", vt, w, u)


def det_hessian(a: Array, xp: ArrayModule = np) -> Array:
    """H[p,q,r,t] = d^2 det(a) / da[p,q] da[r,t], exact also for singular a."""
    n = a.shape[-1]
    if n == 0 or not _finite(xp, a):
        return _nan_like(xp, a, a.shape * 2)
    u, s, vt, sign = _svd(xp, a)
    k = xp.arange(n)
    hit = (k[None, None, :] == k[:, None, None]) | (k[None, None, :] == k[None, :, None])
    w = xp.prod(xp.where(hit, xp.ones_like(s)[None, None, :], s[None, None, :]), axis=2)
    w = xp.where(xp.eye(n, dtype=bool), xp.zeros_like(w), w)
    g = opt_einsum.contract("pi,iq,ij,rj,jt->pqrt", u, vt, w, u, vt)
    return sign * (g - opt_einsum.contract("ptrq->pqrt", g))


def adj_jacobian(a: Array, xp: ArrayModule = np) -> Array:
    """D[a,b,c,d] = d adj(a)[a,b] / da[c,d], exact also for singular a."""
    return opt_einsum.contract("bacd->abcd", det_hessian(a, xp))


EXACT = {"dadj": adj_jacobian}          # the nodes `exact_forms` introduces, by name


def _svd(xp: ArrayModule, a: Array) -> tuple[Array, Array, Array, Array]:
    u, s, vt = xp.linalg.svd(a)
    return u, s, vt, xp.linalg.det(u) * xp.linalg.det(vt)


def _finite(xp: ArrayModule, a: Array) -> bool:
    return bool(xp.all(xp.isfinite(a)))


def _nan_like(xp: ArrayModule, a: Array, shape: tuple[int, ...]) -> Array:
    return xp.full(shape, float("nan"), dtype=a.dtype) if a.shape[-1] else xp.zeros(shape, dtype=a.dtype)
