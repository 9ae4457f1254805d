"""``#ttg.amd_rotating_shared``: swizzled shared memory whose XOR pattern changes from block to block of rows.

On the full tensor shape, with col = order[0] (fastest) and row = order[1]:

    offset bit for column c = 1, 2, 4, ... < numCols  ->  (row 0, col c)
    offset bit for row r    = 1, 2, 4, ... < numRows  ->  (row r, col (vec * (phase(r) XOR block(r))) % numCols)
        phase(r) = (r / perPhase) % maxPhase
        block(r) = (r / (perPhase * maxPhase)) % maxPhase

then identity bases for the remaining dims in order[2:], and the CGA (rank 1:
the identity on the per-CTA shape). Unlike ``swizzled_shared``, whose
pattern repeats every perPhase * maxPhase rows, the first element of each
such block of rows is itself rotated by the block number. With powers of two
the map is linear, so element (r, c) sits at column c XOR vec * (phase(r) XOR
block(r)) of row r.

Gluon has no class for it and Triton exposes no LinearLayout for it; the
construction follows Triton's sharedToLinearLayoutAMDRotating. perPhase and
maxPhase must be positive (Triton divides by them).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from ..layout import LinearLayout
from .base import Bases, SharedEncoding, require_permutation
from .cga import combine_cta_cga_with_shape, shape_per_cta, validate_cga
from .swizzled_shared import swizzled_cta_layout


@dataclass(frozen=True)
class AmdRotatingSharedEncoding(SharedEncoding):
    kind = "amd_rotating_shared"

    vec: int
    per_phase: int
    max_phase: int
    order: tuple[int, ...]
    cga_layout: Bases = ()

    @property
    def rank(self) -> int:
        return len(self.order)

    def validate(self) -> None:
        if self.vec < 0:
            raise self.fail("vec", f"must be a non-negative integer, got {self.vec}")
        for field, v in (("perPhase", self.per_phase), ("maxPhase", self.max_phase)):
            if v < 1:
                raise self.fail(field, f"must be a positive integer (Triton divides by it), got {v}")
        require_permutation(self, "order", self.order, self.rank)
        validate_cga(self.cga_layout, self.rank, self.kind)

    def rotated_column(self, row: int, num_cols: int) -> int:
        """The column offset-bit `row` moves to: vec * (phase XOR block) mod numCols."""
        phase = (row // self.per_phase) % self.max_phase
        block = (row // (self.per_phase * self.max_phase)) % self.max_phase
        return (self.vec * (phase ^ block)) % num_cols

    def to_linear_layout(self, shape: Sequence[int]) -> LinearLayout:
        if self.rank == 1:
            cta = swizzled_cta_layout(shape_per_cta(self.cga_layout, shape), self.order, None)
        else:
            num_cols = shape[self.order[0]]
            cta = swizzled_cta_layout(shape, self.order, lambda r: self.rotated_column(r, num_cols))
        return combine_cta_cga_with_shape(cta, self.cga_layout, shape)
