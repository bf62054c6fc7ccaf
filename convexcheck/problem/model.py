"""What a problem file says, as plain immutable data (the parser in `problem.py` builds it).

A `Problem` holds the declarations (variables and parameters with their dimensions and
attributes) and the parts whose curvature is analysed: the objective and one part per
constraint, each a scalar tensorcalc expression with what a convex problem needs of it.
"""
from __future__ import annotations

from collections.abc import ItemsView, Iterable, Iterator, KeysView, Mapping, ValuesView
from dataclasses import dataclass, field
from typing import Any

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


class Declarations(Mapping):
    """Declarations by name in the order of the file, read-only: a `Problem` may be shared
    (`parse_problem` returns the same one for the same text), so nothing may change it in
    place. Equal to a dict or mapping with the same items; hashable; pickles. For changed
    declarations build a dict and `dataclasses.replace(problem, declarations=that_dict)`."""

    __slots__ = ("_by_name", "_hash")
    _by_name: dict[str, Declaration]
    _hash: int | None

    def __init__(self, items: Iterable[tuple[str, Declaration]] | Mapping[str, Declaration] = ()) -> None:
        object.__setattr__(self, "_by_name", dict(items))
        object.__setattr__(self, "_hash", None)

    def __setattr__(self, name, value):
        raise AttributeError("Declarations are read-only; build a dict and dataclasses.replace the problem")

    def __delattr__(self, name):
        raise AttributeError("Declarations are read-only; build a dict and dataclasses.replace the problem")

    def __getitem__(self, name: str) -> Declaration:
        return self._by_name[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._by_name)

    def __len__(self) -> int:
        return len(self._by_name)

    def __contains__(self, name) -> bool:
        return name in self._by_name

    def get(self, key: str, default: Any = None) -> Any:
        return self._by_name.get(key, default)

    def keys(self) -> KeysView[str]:                       # views of the dict: read-only, C speed
        return self._by_name.keys()

    def items(self) -> ItemsView[str, Declaration]:
        return self._by_name.items()

    def values(self) -> ValuesView[Declaration]:
        return self._by_name.values()

    def __eq__(self, other) -> bool:
        if isinstance(other, Declarations):
            return self._by_name == other._by_name
        if isinstance(other, Mapping):
            return self._by_name == dict(other.items())
        return NotImplemented

    def __hash__(self) -> int:
        if self._hash is None:
            object.__setattr__(self, "_hash", hash(frozenset(self._by_name.items())))
        return hash(frozenset(self._by_name.items())) if self._hash is None else self._hash

    def __reduce__(self):
        return (Declarations, (tuple(self._by_name.items()),))

    def __repr__(self) -> str:
        return f"Declarations({self._by_name!r})"


@dataclass(frozen=True)
class Problem:
    """A parsed problem file. `sense` is "minimize", "maximize" or "expression".

    Immutable all the way down (frozen records, tuples, `Declarations`, immutable
    expressions), so one Problem can be shared by every caller that parses the same text.
    `declarations` given as a dict is stored as `Declarations`, `constraints` as a tuple."""

    declarations: Mapping[str, Declaration]     # stored as Declarations
    sense: str
    objective: Part
    constraints: tuple[Part, ...] = ()
    source: str | None = None                    # the path it was read from, if any
    text: str = ""

    def __post_init__(self):
        if not isinstance(self.declarations, Declarations):
            object.__setattr__(self, "declarations", Declarations(self.declarations))
        if not isinstance(self.constraints, tuple):
            object.__setattr__(self, "constraints", tuple(self.constraints))

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
