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
from .dag import Axis, Expr, Spec, count_nodes, variables
from .check import check_derivative
from .compiled import compile
from .diff import derivative, hessian
from .simplification import simplify
from .errors import DomainError, ParseError, ShapeError, TensorCalcError
from .evaluation import evaluate
from .graph import digest, same_structure
from .forward import pushforward
from .matrix import as_matrix, hessian_matrix
from .infer import Input, parse, parse_expr
from .definitions import parse_def
from .printer import to_text

__all__ = [
    "Axis", "Expr", "Spec", "Input", "TensorCalcError", "ParseError", "ShapeError", "DomainError",
    "parse", "parse_expr", "parse_def", "compile", "derivative", "hessian", "pushforward", "hessian_matrix", "as_matrix", "simplify", "evaluate", "to_text", "count_nodes", "same_structure", "variables", "check_derivative",
]
