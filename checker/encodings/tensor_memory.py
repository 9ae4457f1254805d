"""Blackwell tensor memory (TMEM): ``#ttng.tensor_memory_encoding`` and ``#ttng.tensor_memory_scales_encoding``.

TMEM is addressed by (row, col) in a 128-lane memory; layouts map
``row, col, block -> dim0, dim1``.

tensor_memory_encoding<blockM, blockN, colStride[, CGALayout][, twoCTAs]>,
on the per-CTA shape (M, N), with n = min(blockN, N):

    cols: log2(colStride) zero bases (packed columns), then identity1D(n, col, dim1)
    blockM = 128 (or 64 with twoCTAs):
        rows: identity1D(blockM, row, dim0)
        (64 with twoCTAs: the last col basis moves to the rows)
    blockM = 64:
        rows 0..15 -> dim0 0..15, then one row basis that is
        (64, 0) if M > 64, else (0, n) if N > n, else (0, 0) (undefined),
        then (16, 0), (32, 0); cols -> dim1 0..n-1
    tile *= identity1D(M / tileM, col, dim0) * identity1D(N / tileN, col, dim1)   # repetitions
    L = tile * CGA

tensor_memory_scales_encoding (tcgen05 scale factors), on (M, N) per CTA:

    tile = identity1D(32, row, dim0) * zeros1D(4, row, dim0)      # 4 warps broadcast
         * identity1D(4, col, dim1) * identity1D(2, col, dim0)
    tile *= identity1D(ceil(M / 64), col, dim0) * identity1D(ceil(N / 4), col, dim1)
    L = ensureLayoutNotLargerThan(tile, (M, N)) * CGA
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from ..layout import LinearLayout, ensure_layout_not_larger_than, is_power_of_two, standard_out_dims
from ..versions import follows
from .base import BLOCK, BOOL, CGA, INT, REQUIRED, Bases, Encoding, param
from .cga import cga_linear_layout, shape_per_cta, validate_cga

ROW, COL = "row", "col"


def _with_block(tile: LinearLayout, cga_bases: Bases) -> LinearLayout:
    """The tile times the CGA. Up to Triton 3.7 a TMEM layout has no ``block`` in-dim: the CGA's bases
    follow the columns' (`checker.versions` change ``tmem_block_in_dim``)."""
    cga = cga_linear_layout(cga_bases, 2)
    if follows("tmem_block_in_dim"):
        return tile * cga
    # the CGA's bases as more columns; `block` stays, of size 1 (an in-dim of size 1 changes no index)
    return tile * LinearLayout([(COL, cga.in_bases(BLOCK)), (BLOCK, ())], cga.out_dim_sizes)


@dataclass(frozen=True)
class TensorMemoryEncoding(Encoding):
    kind = "tensor_memory_encoding"

    block_m: int = param("blockM", INT, gluon=None)            # Gluon: block = [M, N]
    block_n: int = param("blockN", INT, gluon=None)
    col_stride: int = param("colStride", INT, default=1, text_default=REQUIRED)
    cga_layout: Bases = param("CGALayout", CGA, default=())
    two_ctas: bool = param("twoCTAs", BOOL, default=False, elided=True)
    # Triton <= 3.5's spelling (colStride from 3.6, PR #8136): None when colStride is written
    unpacked: bool | None = param("unpacked", BOOL, default=None, elided=True, gluon=None)

    rank: ClassVar[int] = 2
    attribute_dialect: ClassVar[str] = "ttng"
    attribute_braces: ClassVar[bool] = False                # Triton writes its entries without {}

    def validate(self) -> None:
        validate_cga(self.cga_layout, 2, self.kind)
        if self.two_ctas and (not self.cga_layout or tuple(self.cga_layout[0]) != (1, 0)):
            raise self.fail("twoCTAs", "a twoCTAs layout requires the first CGALayout basis to be [1, 0]")
        if self.block_m not in (64, 128):
            raise self.fail("blockM", f"must be 64 or 128, got {self.block_m}")
        if not is_power_of_two(self.block_n) or self.block_n > 512:
            raise self.fail("blockN", f"must be a power of two <= 512, got {self.block_n}")
        if self.col_stride not in (1, 2, 4):
            raise self.fail("colStride", f"must be 1, 2 or 4, got {self.col_stride}")

    def col_stride_for(self, bits: int) -> int:
        """The column stride for elements of `bits` bits: colStride, or from Triton 3.5's ``unpacked``
        (true: one element per 32-bit column, so 32 / bits; false: packed, 1)."""
        if self.unpacked is None:
            return self.col_stride
        return 32 // bits if self.unpacked and bits < 32 else 1

    def to_linear_layout(self, shape: Sequence[int]) -> LinearLayout:
        d0, d1 = standard_out_dims(2)
        m, n_total = shape_per_cta(self.cga_layout, shape)
        n = min(self.block_n, n_total)
        cols = [(0, 0)] * (self.col_stride.bit_length() - 1) + [(0, c) for c in _powers_below(n)]
        if self.block_m == 64 and not self.two_ctas:
            extra = (64, 0) if m > 64 else (0, n) if n_total > n else (0, 0)
            rows = [(r, 0) for r in _powers_below(16)] + [extra, (16, 0), (32, 0)]
        else:
            rows = [(r, 0) for r in _powers_below(self.block_m)]
            if self.block_m == 64:  # two CTAs: the top column bit addresses rows instead
                rows.append(cols.pop())
        tile = LinearLayout.from_bases([(ROW, rows), (COL, cols)], [d0, d1])
        reps_m = m // tile.out_dim_size(d0)
        reps_n = n_total // tile.out_dim_size(d1)
        if reps_m < 1 or reps_n < 1:
            raise self.fail("shape", f"the shape {list(shape)} is smaller than one {self.block_m}x{n} TMEM block")
        tile = tile * LinearLayout.identity_1d(reps_m, COL, d0) * LinearLayout.identity_1d(reps_n, COL, d1)
        return _with_block(tile, self.cga_layout)


def _powers_below(n: int) -> list[int]:
    return [1 << i for i in range(max(n, 1).bit_length() - 1)]


@dataclass(frozen=True)
class TensorMemoryScalesEncoding(Encoding):
    kind = "tensor_memory_scales_encoding"

    cga_layout: Bases = param("CGALayout", CGA, default=())

    rank: ClassVar[int] = 2
    attribute_dialect: ClassVar[str] = "ttng"
    attribute_braces: ClassVar[bool] = False

    def validate(self) -> None:
        validate_cga(self.cga_layout, 2, self.kind)

    def to_linear_layout(self, shape: Sequence[int]) -> LinearLayout:
        d0, d1 = standard_out_dims(2)
        m, n = shape_per_cta(self.cga_layout, shape)
        warps = LinearLayout.zeros_1d(4, ROW, d0) if follows("tmem_scales_broadcast_rows") else LinearLayout.empty()
        tile = (LinearLayout.identity_1d(32, ROW, d0) * warps
                * LinearLayout.identity_1d(4, COL, d1) * LinearLayout.identity_1d(2, COL, d0))
        tile = tile.transpose_outs([d0, d1])
        tile = (tile * LinearLayout.identity_1d(-(-m // tile.out_dim_size(d0)), COL, d0)
                * LinearLayout.identity_1d(-(-n // tile.out_dim_size(d1)), COL, d1))
        tile = tile * LinearLayout.identity_1d(1, BLOCK, d0)
        return _with_block(ensure_layout_not_larger_than(tile, {d0: m, d1: n}), self.cga_layout)
