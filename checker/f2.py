"""Linear algebra over GF(2) on integer bitmasks.

A vector of F2^n is a Python int whose bit i is coordinate i. A matrix is a
list of such ints, read as its *columns* (``cols[j]`` is column j) unless a
function says otherwise. Python ints are arbitrary precision, so there is no
64-bit ceiling, and XOR on ints is the fastest row operation CPython offers
(measured in bench/: an order of magnitude faster than packed numpy rows for
the <= 64-column matrices layouts produce).

Pivot convention (it matters for reproducing Triton bit for bit): columns are
scanned in index order and column j is a *pivot* iff it is linearly
independent of columns 0..j-1. This is exactly the set of leading columns of
the reduced row echelon form with column 0 first, so every solution below
("free variables set to zero") is the one Triton's ``lstsq`` returns.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence


class _EchelonBasis:
    """Incremental basis of a span, remembering how each vector was made.

    ``add(v, tag)`` inserts v; each stored vector keeps the XOR of the tags of
    the inserted vectors it is combined from, so ``express(w)`` returns which
    inserted vectors sum to w.
    """

    __slots__ = ("_by_lead",)

    def __init__(self) -> None:
        # highest set bit -> (vector, combination mask of inserted tags)
        self._by_lead: dict[int, tuple[int, int]] = {}

    def reduce(self, v: int) -> tuple[int, int]:
        """Return (remainder, combination) with v = remainder ^ span-part."""
        combo = 0
        by_lead = self._by_lead
        while v:
            lead = v.bit_length() - 1
            entry = by_lead.get(lead)
            if entry is None:
                break
            v ^= entry[0]
            combo ^= entry[1]
        return v, combo

    def add(self, v: int, tag: int) -> bool:
        """Insert v with combination tag; False when v is already in the span."""
        rem, combo = self.reduce(v)
        if rem == 0:
            return False
        self._by_lead[rem.bit_length() - 1] = (rem, combo ^ tag)
        return True

    def __len__(self) -> int:
        return len(self._by_lead)


def rank(vectors: Iterable[int]) -> int:
    """Dimension of the span of the given vectors."""
    basis: dict[int, int] = {}
    for v in vectors:
        while v:
            lead = v.bit_length() - 1
            b = basis.get(lead)
            if b is None:
                basis[lead] = v
                break
            v ^= b
    return len(basis)


def pivot_columns(cols: Sequence[int]) -> list[int]:
    """Indices j such that column j is independent of columns 0..j-1."""
    basis = _EchelonBasis()
    return [j for j, c in enumerate(cols) if basis.add(c, 0)]


def free_columns(cols: Sequence[int]) -> list[int]:
    """Indices of the non-pivot columns (in the span of earlier columns)."""
    pivots = set(pivot_columns(cols))
    return [j for j in range(len(cols)) if j not in pivots]


def solve(cols: Sequence[int], targets: Sequence[int]) -> list[int] | None:
    """Least-squares-style solve of A x = t for each target t.

    Returns for each target the bitmask x over the columns of A with
    A x = t that uses pivot columns only (free variables zero), or None if
    some target lies outside the column space of A.
    """
    basis = _EchelonBasis()
    for j, c in enumerate(cols):
        basis.add(c, 1 << j)
    out = []
    for t in targets:
        rem, combo = basis.reduce(t)
        if rem:
            return None
        out.append(combo)
    return out


class Span:
    """A subspace of F2^n that grows: ``span.add(v)`` inserts v (False when v is in the span already) and
    ``v in span`` tests membership, against one echelon basis kept between calls (`in_span` builds its own
    each call: a search that asks many questions of one span builds it once)."""

    __slots__ = ("_basis",)

    def __init__(self, vectors: Iterable[int] = ()) -> None:
        self._basis = _EchelonBasis()
        for v in vectors:
            self._basis.add(v, 0)

    def add(self, v: int) -> bool:
        return self._basis.add(v, 0)

    def __contains__(self, v: int) -> bool:
        return self._basis.reduce(v)[0] == 0


def in_span(v: int, vectors: Iterable[int]) -> bool:
    basis = _EchelonBasis()
    for w in vectors:
        basis.add(w, 0)
    return basis.reduce(v)[0] == 0


def first_outside_span(targets: Iterable[int], vectors: Iterable[int]) -> int | None:
    """The first of `targets` that is not in the span of `vectors` (None when all are): one echelon basis
    for all of them, where `in_span` builds one per target."""
    basis = _EchelonBasis()
    for w in vectors:
        basis.add(w, 0)
    for t in targets:
        if basis.reduce(t)[0]:
            return t
    return None


def nullspace(cols: Sequence[int]) -> list[int]:
    """A basis of {x : XOR of cols[j] for set bits j of x == 0}.

    One kernel vector per non-pivot column j: x = e_j + (pivot combination
    that produces cols[j]).
    """
    basis = _EchelonBasis()
    kernel = []
    for j, c in enumerate(cols):
        rem, combo = basis.reduce(c)
        if rem == 0:
            kernel.append(combo | (1 << j))
        else:
            basis._by_lead[rem.bit_length() - 1] = (rem, combo ^ (1 << j))
    return kernel


def span_basis(vectors: Iterable[int]) -> list[int]:
    """A basis of the span (the independent vectors, in first-seen order)."""
    basis = _EchelonBasis()
    return [v for v in vectors if basis.add(v, 0)]


def span_intersection(a: Sequence[int], b: Sequence[int]) -> list[int]:
    """A basis of span(a) ∩ span(b).

    Zassenhaus-free formulation: (x, y) in ker [a | b] gives a·x = b·y, and
    the vectors a·x over the kernel span the intersection.
    """
    a = span_basis(a)
    b = span_basis(b)
    kernel = nullspace(list(a) + list(b))
    out = []
    for x in kernel:
        v = 0
        for j, col in enumerate(a):
            if x >> j & 1:
                v ^= col
        out.append(v)
    return span_basis(out)


def combine(cols: Sequence[int], x: int) -> int:
    """A·x: the XOR of the columns selected by the bits of x."""
    v = 0
    j = 0
    while x:
        if x & 1:
            v ^= cols[j]
        x >>= 1
        j += 1
    return v


def rref(rows: Sequence[int], ncols: int) -> list[int]:
    """Reduced row echelon form of a matrix given by its rows (bit j = column j).

    The leading entry of a row is its lowest set bit; columns are eliminated
    from 0 upward. Zero rows are dropped. The RREF is unique, so this agrees
    with any other correct implementation (Triton uses f2reduce).
    """
    rows = [r & ((1 << ncols) - 1) for r in rows]
    out: list[int] = []
    for col in range(ncols):
        bit = 1 << col
        pivot_idx = next((i for i, r in enumerate(rows) if r & bit), None)
        if pivot_idx is None:
            continue
        pivot = rows.pop(pivot_idx)
        rows = [r ^ pivot if r & bit else r for r in rows]
        out = [r ^ pivot if r & bit else r for r in out]
        out.append(pivot)
    return out
