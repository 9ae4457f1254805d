"""``#ttg.swizzled_shared``: rows of a shared tile XOR-swizzled in units of `vec` elements.

On the per-CTA shape, with col = order[0] (fastest) and row = order[1]:

    offset bit for column c = 1, 2, 4, ... < numCols  ->  (row 0, col c)
    offset bit for row r    = 1, 2, 4, ... < numRows  ->  (row r, col (vec * ((r / perPhase) % maxPhase)) % numCols)

then identity bases for the remaining dims in order[2:], and the CGA.
Element (r, c) is stored at column c XOR (vec * phase(r)). Rank 1 is the
identity.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import cast

from ..layout import LinearLayout, axis_bases, powers_below, standard_out_dims
from .base import BLOCK, CGA, INT, INTS, OFFSET, Bases, SharedEncoding, param, require_permutation
from .cga import combine_cta_cga_with_shape, shape_per_cta, validate_cga
from .closed import combine, names


def swizzled_row_bases(num_rows: int, num_cols: int, row_basis: Callable[[int], int]) -> list[tuple[int, int]]:
    """(row, col) bases: columns first, then one per row bit with row_basis(r) as its column."""
    bases = []
    c = 1
    while c < num_cols:
        bases.append((0, c))
        c *= 2
    r = 1
    while r < num_rows:
        bases.append((r, row_basis(r)))
        r *= 2
    return bases


def swizzled_cta_layout(shape: Sequence[int], order: Sequence[int],
                        row_basis: Callable[[int], int] | None) -> LinearLayout:
    """The per-CTA offset layout shared by swizzled and AMD rotating encodings (`row_basis` None: rank 1 only)."""
    rank = len(shape)
    names = standard_out_dims(rank)
    if rank == 1:
        return LinearLayout.identity_1d(shape[0], OFFSET, names[0])
    col, row = order[0], order[1]
    bases = swizzled_row_bases(shape[row], shape[col], cast("Callable[[int], int]", row_basis))  # None: rank 1
    cta = LinearLayout.from_bases([(OFFSET, bases)], [names[row], names[col]])
    for d in order[2:]:
        cta = cta * LinearLayout.identity_1d(shape[d], OFFSET, names[d])
    return cta


@dataclass(frozen=True)
class PhasedSharedEncoding(SharedEncoding):
    """The parameters swizzled and AMD rotating shared layouts share: vec, perPhase, maxPhase, order, CGA."""

    vec: int = param("vec", INT)
    per_phase: int = param("perPhase", INT)
    max_phase: int = param("maxPhase", INT)
    order: tuple[int, ...] = param("order", INTS, gives_rank=True)
    cga_layout: Bases = param("CGALayout", CGA, default=())

    @property
    def rank(self) -> int:
        return len(self.order)

    def validate_phases(self, min_vec: int, why: str = "") -> None:
        """vec >= min_vec, perPhase and maxPhase >= 1, order a permutation, a valid CGA."""
        for field, v, least in (("vec", self.vec, min_vec), ("perPhase", self.per_phase, 1),
                                ("maxPhase", self.max_phase, 1)):
            if v < least:
                kind = "positive" if least else "non-negative"
                raise self.fail(field, f"must be a {kind} integer{why if least else ''}, got {v}")
        require_permutation(self, "order", self.order, self.rank)
        validate_cga(self.cga_layout, self.rank, self.kind)


@dataclass(frozen=True)
class SwizzledSharedEncoding(PhasedSharedEncoding):
    kind = "swizzled_shared"

    def validate(self) -> None:
        """Triton 3.9 reads vec, perPhase and maxPhase as unsigned integers (a negative one: "expected an
        unsigned integer value in vec") and its verifier accepts any of them. vec = 0 builds the identity
        (every row basis has column vec * ... = 0), as Triton does; perPhase or maxPhase of 0 pass Triton's
        verifier but its lowering divides by them (SIGFPE), so they are refused here.

        The rules in one test first (vec >= 0, perPhase >= 1, maxPhase >= 1, order a permutation; the CGA
        checked only when there is one, as validate_cga passes an empty one); when one fails, the checks
        run one by one in Triton's order, so the first broken rule is the one reported."""
        order = self.order
        if self.vec >= 0 and self.per_phase >= 1 and self.max_phase >= 1 \
                and sorted(order) == list(range(len(order))):
            if self.cga_layout:
                validate_cga(self.cga_layout, len(order), self.kind)
            return
        for field, v in (("vec", self.vec), ("perPhase", self.per_phase), ("maxPhase", self.max_phase)):
            if v < 0:
                raise self.fail(field, f"expected an unsigned integer value in {field}, got {v}")
        self.validate_phases(min_vec=0, why=" (Triton's lowering divides by it)")

    def to_linear_layout(self, shape: Sequence[int]) -> LinearLayout:
        """Closed form: the bases of the module docstring written in standard component order.

        Every basis lies inside shapePerCTA (a row r < numRows, a column reduced mod numCols) and the tile's
        sizes are shapePerCTA itself, so with one CTA (no CGA: shapePerCTA is the shape) combine would
        neither clamp nor grow anything: the layout is the offset bases and an empty block dim, out sizes
        the shape, built directly."""
        cga = self.cga_layout
        per_cta = shape_per_cta(cga, shape) if cga else shape
        order = self.order
        rank = len(order)
        if rank == 1:
            bases: list[tuple[int, ...]] = [(v,) for v in powers_below(per_cta[0])]
            outs: tuple[int, ...] = (0,)
        else:
            col, row = order[0], order[1]
            num_cols, num_rows = per_cta[col], per_cta[row]
            vec, per_phase, max_phase = self.vec, self.per_phase, self.max_phase
            bases = axis_bases(rank, col, num_cols)
            r = 1
            while r < num_rows:
                b = [0] * rank
                b[row] = r
                b[col] = (vec * ((r // per_phase) % max_phase)) % num_cols
                bases.append(tuple(b))
                r <<= 1
            for d in order[2:]:
                bases += axis_bases(rank, d, per_cta[d])
            outs = (row, col) + tuple(order[2:])
        if not cga:
            return LinearLayout._of(((OFFSET, tuple(bases)), (BLOCK, ())), tuple(zip(names(rank), shape)))
        return combine(((OFFSET, tuple(bases)),), per_cta, outs, cga, shape)

    def to_linear_layout_generic(self, shape: Sequence[int]) -> LinearLayout:
        per_cta = shape_per_cta(self.cga_layout, shape)
        num_cols = per_cta[self.order[0]] if self.rank > 1 else 1

        def row_basis(r: int) -> int:
            return (self.vec * ((r // self.per_phase) % self.max_phase)) % num_cols

        cta = swizzled_cta_layout(per_cta, self.order, row_basis)
        return combine_cta_cga_with_shape(cta, self.cga_layout, shape)
