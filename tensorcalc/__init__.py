"""tensorcalc: a symbolic tensor calculus (Lippmann 2022; Laue, Mitterreiter, Giesen 2018/2020).

Expressions are written in an Einstein-like language (`x *(i,ij->j) A`), parsed into a
hash-consed DAG, differentiated symbolically in reverse mode to any order, printed back
into the language and evaluated with NumPy.

    >>> import numpy as np, tensorcalc
    >>> inp = tensorcalc.parse("declare x 1 A 2 expression x *(i,ij->j) A *(j,j->) x derivative wrt x")
    >>> H = tensorcalc.derivative(inp.expr, "x", order=2)
    >>> A = np.arange(4.0).reshape(2, 2)
    >>> tensorcalc.evaluate(H, {"x": np.ones(2), "A": A}).tolist()
    [[0.0, 3.0], [3.0, 6.0]]
"""
from tensorcalc.algebra.simplify import simplify
from tensorcalc.codegen.compiled import compile
from tensorcalc.codegen.matrix_views import as_matrix, hessian_matrix
from tensorcalc.dag import Axis, Expr, Spec, count_nodes, variables
from tensorcalc.derivatives.check import check_derivative
from tensorcalc.derivatives.forward import pushforward
from tensorcalc.derivatives.reverse import derivative, hessian
from tensorcalc.errors import DomainError, ParseError, ShapeError, TensorCalcError
from tensorcalc.graph import digest, same_structure
from tensorcalc.language.definitions import parse_def
from tensorcalc.language.meaning import Input, parse, parse_expr
from tensorcalc.numeric.evaluate import evaluate
from tensorcalc.printing.text import to_text

__all__ = [
    "Axis", "Expr", "Spec", "Input", "TensorCalcError", "ParseError", "ShapeError", "DomainError",
    "parse", "parse_expr", "parse_def", "compile", "derivative", "hessian", "pushforward", "hessian_matrix",
    "as_matrix", "simplify", "evaluate", "to_text", "count_nodes", "same_structure", "digest", "variables",
    "check_derivative",
]
