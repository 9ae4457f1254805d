"""``#ttg.shared_linear``: a shared layout given directly by its bases (offset, block -> dims).

The stored layout is used as is: out sizes are inferred from the bases, and
the tensor shape must equal them (no broadcasting). Triton requires it to be
surjective, and invertible once zero bases are removed; `alignment` (bytes)
must be a positive power of two.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .. import f2
from ..layout import LinearLayout, is_power_of_two, standard_out_dims
from .base import (
    BASES,
    BLOCK,
    INT,
    OFFSET,
    Bases,
    SharedEncoding,
    bases_extent,
    bases_rank,
    derived,
    packed_columns,
    param,
    require_stored_shape,
    stored_layout,
)


@dataclass(frozen=True)
class SharedLinearEncoding(SharedEncoding):
    kind = "shared_linear"

    offset_bases: Bases = param("offset", BASES)
    block_bases: Bases = param("block", BASES, default=())
    alignment_bytes: int = param("alignment", INT, default=16, yaml="alignment", gluon="alignment")

    @derived
    def rank(self) -> int:
        return bases_rank(self.offset_bases, self.block_bases) or 1

    def alignment(self) -> int:
        return self.alignment_bytes

    @property
    def cga_layout(self) -> Bases:
        return self.block_bases

    def stored_layout(self) -> LinearLayout:
        return stored_layout(self, [(OFFSET, self.offset_bases), (BLOCK, self.block_bases)], "offset")

    @derived
    def _extent(self) -> list[int]:
        """The out sizes the bases span (`bases_extent`), read by validate, check_shape and the lowering."""
        return bases_extent(self.offset_bases + self.block_bases, self.rank)

    def _invertible_without_zeros(self) -> bool:
        """The non-zero bases, packed into columns (dim0 in the low bits, each dim as wide as `_extent`), are
        independent and as many as the out bits: the layout is then surjective and invertible once its zero
        bases are removed."""
        every = self.offset_bases + self.block_bases
        if every and min(map(min, zip(*every))) < 0:         # (every basis has `rank` components by now)
            return False
        cols, bits = packed_columns(every, self.rank, self._extent)
        cols = [c for c in cols if c]
        return len(cols) == bits and f2.rank(cols) == bits

    def validate(self) -> None:
        if not is_power_of_two(self.alignment_bytes):
            raise self.fail("alignment", f"must be a positive power of two, got {self.alignment_bytes}")
        rank = self.rank
        if set(map(len, self.offset_bases + self.block_bases)) - {rank}:
            for name, bs in (("offset", self.offset_bases), ("block", self.block_bases)):
                if any(len(b) != rank for b in bs):
                    raise self.fail(name, f"every basis must have {rank} components (the rank)")
        if self._invertible_without_zeros():
            return
        L = self.stored_layout()                # the error, as Triton words it
        nonzero = L.remove_zero_bases_along_dim(OFFSET).remove_zero_bases_along_dim(BLOCK)
        if not nonzero.is_invertible():
            raise self.fail("offset", "the layout must be invertible after removing broadcast (zero) bases")

    def check_shape(self, shape: Sequence[int]) -> None:
        super().check_shape(shape)
        require_stored_shape(self, self._extent, shape, "the bases cover")

    def to_linear_layout(self, shape: Sequence[int]) -> LinearLayout:
        """The stored layout, built from its parts: validated, its bases span exactly the sizes they infer."""
        return LinearLayout._of(((OFFSET, self.offset_bases), (BLOCK, self.block_bases)),
                                tuple(zip(standard_out_dims(self.rank), self._extent)))
