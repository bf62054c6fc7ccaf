"""Axis classes of the meaning stage: every axis of every syntax node gets an id, and ids
that must be one axis (a contracted index, the two sides of a sum) are joined; a class
may know its dimension (a declared name or a length), and two known ones may clash.

    >>> classes = UnionFind()
    >>> a, b = classes.new(), classes.new()
    >>> classes.dim[a] = "n"
    >>> classes.union(a, b); classes.dims([b])
    ['n']
"""
from __future__ import annotations

from collections.abc import Iterable

from tensorcalc.disjoint import DisjointSets


class UnionFind:
    """Axis classes, numbered from 0 as made; `dim` holds a class's dimension (a name or a
    length) where known, under the class's representative."""

    def __init__(self) -> None:
        self.sets: DisjointSets[int] = DisjointSets()
        self.dim: dict[int, str | int] = {}
        self.count = 0

    def new(self) -> int:
        """A new id, in a class of its own."""
        self.sets.add(self.count)
        self.count += 1
        return self.count - 1

    def find(self, a: int) -> int:
        """The representative id of a's class."""
        return self.sets.find(a)

    def union(self, a: int, b: int) -> None:
        """Join the classes of a and b; the joined class keeps b's dimension, else a's."""
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.sets.merge(ra, rb)
            root = self.find(ra)
            for old in (rb, ra):
                if old in self.dim:
                    self.dim[root] = self.dim[old]
                    break

    def clash(self, a: int, b: int) -> bool:
        """Whether the classes of a and b know two different dimensions."""
        da, db = self.dim.get(self.find(a)), self.dim.get(self.find(b))
        return da is not None and db is not None and da != db

    def dims(self, ids: Iterable[int]) -> list[str | int | None]:
        """The dimension of each id's class, None where unknown."""
        return [self.dim.get(self.find(i)) for i in ids]
