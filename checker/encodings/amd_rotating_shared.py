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

from collections.abc import Sequence
from dataclasses import dataclass

from ..layout import LinearLayout
from .cga import combine_cta_cga_with_shape, shape_per_cta
from .swizzled_shared import PhasedSharedEncoding, swizzled_cta_layout


@dataclass(frozen=True)
class AmdRotatingSharedEncoding(PhasedSharedEncoding):
    kind = "amd_rotating_shared"

    def validate(self) -> None:
        self.validate_phases(min_vec=0, why=" (Triton divides by it)")

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
