"""What a problem file says, as plain immutable data (the parser in `problem.py` builds it).

A `Problem` holds the declarations (variables and parameters with their dimensions and
attributes) and the parts whose curvature is analysed: the objective and one part per
constraint, each a scalar tensorcalc expression with what a convex problem needs of it.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from tensorcalc import Expr

DEFAULT_DIM = 4          # length used for a named dimension when sampling, unless --dim sets it
DEFINITE = ("psd", "pd", "nsd", "nd")


@dataclass(frozen=True)
class Attributes:
    """Declared attributes of one variable or parameter; entrywise bounds and matrix cones.

    `lower`/`upper` bound every entry (`None`: unbounded); `*_strict` marks `>`/`<`.
    `nonneg` is `lower=0`, `pos` is `lower=0, lower_strict=True`, and so on.
    `definite` is one of DEFINITE for square matrices and implies `symmetric`."""

    lower: float | None = None
    lower_strict: bool = False
    upper: float | None = None
    upper_strict: bool = False
    symmetric: bool = False
    definite: str | None = None

    @property
    def is_symmetric(self) -> bool:
        return self.symmetric or self.definite is not None

    def describe(self) -> str:
        """The attributes as the file would write them, e.g. 'nonneg psd' or '>= 1 <= 2'."""
        words = []
        if self.lower is not None:
            words.append(f"{'>' if self.lower_strict else '>='} {self.lower:g}")
        if self.upper is not None:
            words.append(f"{'<' if self.upper_strict else '<='} {self.upper:g}")
        if self.definite:
            words.append(self.definite)
        elif self.symmetric:
            words.append("symmetric")
        return " ".join(words)


@dataclass(frozen=True)
class Declaration:
    """`variable NAME[DIM, ...] ATTR...` or `parameter ...`; dims: one per axis, () for a scalar.
    A dimension is a name (its length set at sampling time) or a positive integer."""

    name: str
    kind: str                                   # "variable" | "parameter"
    dims: tuple[str | int, ...]
    attributes: Attributes = field(default_factory=Attributes)
    line: int = 0

    def shape(self, sizes: dict[str, int] | None = None) -> tuple[int, ...]:
        """The array shape for the given named-dimension lengths (DEFAULT_DIM otherwise)."""
        sizes = sizes or {}
        return tuple(d if isinstance(d, int) else int(sizes.get(d, DEFAULT_DIM)) for d in self.dims)


@dataclass(frozen=True)
class Part:
    """One scalar expression whose curvature is analysed.

    `need` is what a convex problem needs of `expr`: "convex" (minimised objective, the
    g - h of `g <= h`), "concave" (maximised objective, the g - h of `g >= h`), "affine"
    (the g - h of `g == h`) or "any" (`expression EXPR`)."""

    label: str                                   # "objective", "constraint 1", ...
    text: str                                    # the source text of the statement
    expr: Expr
    need: str
    line: int = 0


@dataclass(frozen=True)
class Problem:
    """A parsed problem file. `sense` is "minimize", "maximize" or "expression"."""

    declarations: dict[str, Declaration]
    sense: str
    objective: Part
    constraints: tuple[Part, ...] = ()
    source: str | None = None                    # the path it was read from, if any
    text: str = ""

    @property
    def variables(self) -> dict[str, Declaration]:
        return {n: d for n, d in self.declarations.items() if d.kind == "variable"}

    @property
    def parameters(self) -> dict[str, Declaration]:
        return {n: d for n, d in self.declarations.items() if d.kind == "parameter"}

    @property
    def parts(self) -> tuple[Part, ...]:
        return (self.objective, *self.constraints)

    def dimension_names(self) -> list[str]:
        """Named dimensions in order of first appearance."""
        return list(dict.fromkeys(d for decl in self.declarations.values()
                                  for d in decl.dims if isinstance(d, str)))
