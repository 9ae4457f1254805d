"""``#ttg.nvmma_shared``: the shared-memory tiles that TMA writes and wgmma / tcgen05 read (NVIDIA).

With s = swizzlingByteWidth and b = elementBitWidth: vec = 128/b,
perPhase = 128/s, maxPhase = s/16 (all 1 when s = 0).

TMA block shape, from shapePerCTA, with contig = dim 0 if transposed else
the last dim: contig doubles if fp4Padded; every dim is clamped to 256; if
s > 0, contig must be at least 8s/b (else "block shape along the contiguous
dimension ... too small") and becomes 8s/b; for lowering, fp4Padded halves
contig again (the packed size). An im2col descriptor's block (TMAMode::Im2Col) is 2-D, [pixelsPerColumn,
channelsPerPixel]: contig is clamped to 256 and then takes the swizzle's 8s/b as above, the other dim is not
clamped and may be at most 1024 pixels (one message along the pixels: Triton 3.9 aborts with "getTMABlockShape
failed" past it).

s = 0: identity over the box (the TMA block, rotated left by one when
transposed) with the last dim fastest, its components kept in the order
[r-1, ..., 0]. A transposed tile then has those components permuted
*positionally* by [r-1, 0, 1, ..., r-2], as Triton 3.9 does: for rank 2 this
makes dim0 the fastest; for rank >= 3 the box's extents land on other dims,
and clamping to the shape leaves zero offset bases. The tile is grown (in
its component order) to shapePerCTA, then combined with the CGA.

s > 0: a core matrix of 8 rows x C = 8 * max(16, s) / b columns,

    column bases (0, c) for c = 1, 2, 4, ... < C
    row bases    (r, vec * ((r / perPhase) % maxPhase)) for r = 1, 2, 4

where fp4Padded stores each column value v at 8 * (v / 16) + v % 8 (the 8
padding offsets of every 16 alias the real ones, so one offset basis is 0).
The TMA block is collapsed to [product of all dims but the last, the last]
(swapped when transposed; smaller than the core matrix is "Illegal shared
layout"); the core matrix
is grown to it (rows first), reshaped to the TMA block (rotated left by one
when transposed, and then its components permuted to [r-1, 0, 1, ..., r-2]),
grown to shapePerCTA (dim0 first) and combined with the CGA.

Up to Triton 3.7 an unswizzled layout (swizzlingByteWidth = 0) ignores ``transposed`` (`checker.versions`
change ``nvmma_unswizzled_transposed``).

The buffer alignment is 128 * maxPhase bytes (128, 256, 512, 1024).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from ..errors import EncodingError, LayoutError, NotModelled
from ..layout import (
    LinearLayout,
    ensure_layout_not_smaller_than,
    is_power_of_two,
    powers_below,
    standard_out_dims,
    transpose_components,
)
from ..versions import follows
from .base import BOOL, CGA, INT, OFFSET, RANK, Bases, SharedEncoding, param
from .cga import combine_cta_cga_with_shape, shape_per_cta, validate_cga
from .closed import combine

SWIZZLE_WIDTHS = (0, 32, 64, 128)
TMA_MAX_BOX = 256
TMA_MAX_IM2COL_PIXELS = 1024
CORE_ROWS = 8


@dataclass(frozen=True)
class NvmmaSharedEncoding(SharedEncoding):
    kind = "nvmma_shared"

    swizzling_byte_width: int = param("swizzlingByteWidth", INT, gluon="swizzle_byte_width")
    transposed: bool = param("transposed", BOOL, text_default=False, gluon_default=False)
    element_bit_width: int = param("elementBitWidth", INT, gluon="element_bitwidth")
    fp4_padded: bool = param("fp4Padded", BOOL, default=False, elided=True)
    rank: int = param("rank", RANK, default=2)  # a field here, a property elsewhere
    cga_layout: Bases = param("CGALayout", CGA, default=())

    # ---------------------------------------------------------------- params

    @property
    def vec(self) -> int:
        return 128 // self.element_bit_width if self.swizzling_byte_width else 1

    @property
    def per_phase(self) -> int:
        return 128 // self.swizzling_byte_width if self.swizzling_byte_width else 1

    @property
    def max_phase(self) -> int:
        return self.swizzling_byte_width // 16 if self.swizzling_byte_width else 1

    def alignment(self) -> int:
        return 128 * self.max_phase

    def padding_offset_bits(self) -> tuple[int, ...]:
        """fp4Padded (swizzled): core-matrix column v sits at 8 * (v / 16) + v % 8, so column 8 (offset bit 3)
        lands on column 0: of every 16 offsets the 8 with bit 3 set are the TMA padding bytes, mapped by
        Triton onto the real elements (a zero basis). Those offsets are declared padding."""
        if not (self.fp4_padded and self.swizzling_byte_width):
            return ()
        cols = 8 * max(16, self.swizzling_byte_width) // self.element_bit_width
        return tuple(j for j in range(cols.bit_length() - 1) if (1 << j) // 16 * 8 + (1 << j) % 8 == 0)

    def validate(self) -> None:
        if self.element_bit_width <= 0:
            raise self.fail("elementBitWidth", f"elementBitWidth must be non-zero, got {self.element_bit_width}")
        if self.swizzling_byte_width not in SWIZZLE_WIDTHS:
            raise self.fail("swizzlingByteWidth", f"swizzlingByteWidth must be 0, 32, 64, or 128, "
                                                  f"got {self.swizzling_byte_width}")
        s, b = self.swizzling_byte_width, self.element_bit_width
        if s and (not is_power_of_two(b) or b > 8 * s):
            raise self.fail("elementBitWidth", f"a {s}-byte swizzle needs a power-of-two elementBitWidth of at "
                                               f"most {8 * s} (Triton aborts otherwise), got {b}")
        if self.rank < 1:
            raise self.fail("rank", f"rank must be at least 1, got {self.rank}")
        validate_cga(self.cga_layout, self.rank, self.kind)

    # ----------------------------------------------------------------- shapes

    def check_shape(self, shape: Sequence[int]) -> None:
        n = len(shape)
        if self.rank not in (n, n - 1):
            raise EncodingError(f"{self.kind}: rank must be equal to or one less than the shape size. "
                                f"Got {self.rank} and {n}", field="shape")
        if self.rank != n:
            raise EncodingError(f"{self.kind}: a shape of rank {n} is a buffer of {shape[0]} tiles of rank "
                                f"{self.rank}; Triton lowers only one tile: give the shape {list(shape[1:])}",
                                field="shape")
        super().check_shape(shape)
        if self.swizzling_byte_width and n < 2:
            raise EncodingError(f"{self.kind}: a swizzled layout needs rank >= 2, got the shape {list(shape)}",
                                field="shape")
        cga = self.cga_layout
        block = self.tma_block_shape(shape_per_cta(cga, shape) if cga else shape, packed=False)
        if self.swizzling_byte_width:
            if self.fp4_padded:                         # the packed box (tma_block_shape's packed=True)
                block[0 if self.transposed else n - 1] //= 2
            self._check_core_matrix_fits(block)

    def tma_block_shape(self, per_cta: Sequence[int], packed: bool, im2col: bool = False) -> list[int]:
        """The TMA box for a CTA's tile (see the module docstring); packed halves fp4Padded contig; im2col: the
        box of an im2col descriptor (its block 2-D, the pixels unclamped up to TMA_MAX_IM2COL_PIXELS)."""
        block = list(per_cta)
        contig = 0 if self.transposed else len(block) - 1
        if self.fp4_padded:
            block[contig] *= 2
        if im2col:
            if len(block) != 2:
                raise EncodingError(f"{self.kind}: an im2col block is 2-D [pixels, channels], got {block}",
                                    field="shape")
            if block[1 - contig] > TMA_MAX_IM2COL_PIXELS:
                raise EncodingError(f"{self.kind}: im2col mode: pixelsPerColumn dimension {block[1 - contig]} "
                                    f"exceeds the maximum supported value of {TMA_MAX_IM2COL_PIXELS}", field="shape")
            block[contig] = min(block[contig], TMA_MAX_BOX)
        else:
            block = [min(s, TMA_MAX_BOX) for s in block]
        s = self.swizzling_byte_width
        if s:
            need = 8 * s // self.element_bit_width
            if block[contig] < need:
                raise EncodingError(f"{self.kind}: block shape along the contiguous dimension {contig} is too small "
                                    f"for the swizzle byte size {s} in an NVMMASharedLayout, got {block[contig]} "
                                    f"but expected at least {need}", field="shape")
            block[contig] = need
        if self.fp4_padded and packed:
            block[contig] //= 2
        return block

    def _collapsed(self, tma: Sequence[int]) -> list[int]:
        rows = 1
        for s in tma[:-1]:
            rows *= s
        return [tma[-1], rows] if self.transposed else [rows, tma[-1]]

    def _check_core_matrix_fits(self, tma: Sequence[int]) -> None:
        rows, cols = self._collapsed(tma)
        core_cols = _core_parts(self.swizzling_byte_width, self.element_bit_width, self.fp4_padded)[2]
        packing = 2 if self.fp4_padded else 1
        if cols * packing < core_cols or rows < CORE_ROWS:
            # Triton's memdesc verifier accepts such a buffer (a TMA box of one row, say; it checks only the
            # swizzle width above, MemDescType::verify) but its toLinearLayout aborts: not an invalid
            # encoding, a lowering that does not exist (NotModelled: skipped in TTGIR)
            raise NotModelled(f"{self.kind}: Illegal shared layout: the TMA block collapsed to 2-D is "
                              f"[{rows}, {cols}], smaller than one core matrix "
                              f"[{CORE_ROWS}, {core_cols // packing}] (Triton builds no LinearLayout for it)",
                              field="shape")

    # --------------------------------------------------------------- lowering

    def core_matrix(self) -> LinearLayout:
        """The 8-row core matrix: offset -> (row, col), out sizes inferred and surjectivity checked (the
        reference the closed form `_core_parts` is tested against)."""
        cols = 8 * max(16, self.swizzling_byte_width) // self.element_bit_width

        def stored(v: int) -> int:
            return (v // 16) * 8 + v % 8 if self.fp4_padded else v

        bases = [(0, stored(c)) for c in powers_below(cols)]
        bases += [(r, stored(self.vec * ((r // self.per_phase) % self.max_phase))) for r in powers_below(CORE_ROWS)]
        return LinearLayout.from_bases([(OFFSET, bases)], standard_out_dims(2))

    def to_linear_layout(self, shape: Sequence[int]) -> LinearLayout:
        """Closed form of to_linear_layout_generic: the offset bases written in standard component order.

        The tile's out sizes need no scan of its bases: unswizzled, dim d's bases are the powers below
        box[d], rotated onto dim d-1 when transposed, so the sizes are the box rotated left by one; swizzled,
        the flattened core matrix is surjective onto the box (its packed bases OR to every bit), so the
        sizes are the box, rotated back to the TMA block when transposed. `combine` grows the tile to
        shape / CGA, which is shapePerCTA for a valid CGA (one non-zero basis per bit of each dim)."""
        if self.transposed and not self.swizzling_byte_width and not follows("nvmma_unswizzled_transposed"):
            return dataclasses.replace(self, transposed=False).to_linear_layout(shape)    # Triton <= 3.7
        rank = len(shape)
        cga = self.cga_layout
        tma = self.tma_block_shape(shape_per_cta(cga, shape) if cga else shape, packed=True)
        transposed = self.transposed
        box = tma[1:] + tma[:1] if transposed else tma
        if not self.swizzling_byte_width:
            outs = tuple(range(rank - 1, -1, -1))       # the tile's out order [r-1, ..., 0]
            zero = (0,) * rank
            bases = []
            for d in outs:                              # positional over [r-1, ..., 0]: a rotation of dims
                e = d - 1 if transposed else d          # (d - 1 = -1 is the last component)
                head, tail = zero[:e], zero[e + 1:] if e != -1 else ()
                v, n = 1, box[d]
                while v < n:
                    bases.append(head + (v,) + tail)
                    v <<= 1
            sizes = box[1:] + box[:1] if transposed else box
        else:
            outs = tuple(range(rank))
            core, core_rows, core_cols = _core_parts(self.swizzling_byte_width, self.element_bit_width,
                                                     self.fp4_padded)
            rows, cols = self._collapsed(tma)
            packed_cols = max(core_cols, cols)
            shift = packed_cols.bit_length() - 1
            flat = [c | (r << shift) for r, c in core]  # (row, col) packed into one index, columns low
            v = core_rows
            while v < rows:
                flat.append(v << shift)
                v <<= 1
            v = core_cols
            while v < cols:
                flat.append(v)
                v <<= 1
            total = 1
            for x in box:
                total *= x
            if total != max(core_rows, rows) * packed_cols:
                raise LayoutError(f"reshape_outs: total size {total} != {max(core_rows, rows) * packed_cols}")
            fields = []                                 # (shift, mask) of each box dim, the last dim lowest
            low = 0
            for d in range(rank - 1, -1, -1):
                fields.append((low, box[d] - 1))
                low += box[d].bit_length() - 1
            fields.reverse()
            if transposed:                              # components rotated right: [r-1, 0, 1, ..., r-2]
                fields = fields[-1:] + fields[:-1]
            bases = [tuple([(x >> sh) & mask for sh, mask in fields]) for x in flat]
            sizes = tma
        return combine(((OFFSET, tuple(bases)),), sizes, outs, cga, shape)

    def to_linear_layout_generic(self, shape: Sequence[int]) -> LinearLayout:
        if self.transposed and not self.swizzling_byte_width and not follows("nvmma_unswizzled_transposed"):
            return dataclasses.replace(self, transposed=False).to_linear_layout_generic(shape)
        rank = len(shape)
        names = standard_out_dims(rank)
        per_cta = shape_per_cta(self.cga_layout, shape)
        tma = self.tma_block_shape(per_cta, packed=True)
        box = tma[1:] + tma[:1] if self.transposed else list(tma)
        if not self.swizzling_byte_width:
            # out-dims stay in the order [r-1, ..., 0]: the permutation below is positional
            tile = LinearLayout.empty()
            for d in reversed(range(rank)):
                tile = tile * LinearLayout.identity_1d(box[d], OFFSET, names[d])
        else:
            rows, cols = self._collapsed(tma)
            flat = ensure_layout_not_smaller_than(self.core_matrix(), {"dim0": rows, "dim1": cols})
            tile = _reshape(flat, box)
        if self.transposed:
            tile = transpose_components(tile, [rank - 1] + list(range(rank - 1)))
        tile = ensure_layout_not_smaller_than(tile, dict(zip(names, per_cta)))
        return combine_cta_cga_with_shape(tile, self.cga_layout, shape)


@lru_cache(maxsize=256)
def _core_parts(swizzle: int, bits: int, fp4_padded: bool) -> tuple[tuple[tuple[int, int], ...], int, int]:
    """The swizzled core matrix in closed form: its (row, col) bases and its two out sizes (cached per
    parameters). With C = 8 * max(16, s) / b columns, vec = 128 / b, perPhase = 128 / s, maxPhase = s / 16:
    the column bases (0, c) for c = 1, 2, 4, ... < C, then the row bases (r, vec * ((r / perPhase) %
    maxPhase)) for r = 1, 2, 4, every column stored at 8 * (v / 16) + v % 8 when fp4Padded. The rows span 8;
    the columns span the smallest power of two above the largest stored column (C, or C / 2 when padded:
    the row columns stay below it, vec * (maxPhase - 1) < C)."""
    cols = 8 * max(16, swizzle) // bits
    vec, per_phase, max_phase = 128 // bits, 128 // swizzle, swizzle // 16
    phases = [vec * ((r // per_phase) % max_phase) for r in (1, 2, 4)]
    if fp4_padded:
        stored = [(v >> 4 << 3) | (v & 7) for v in powers_below(cols)]
        phases = [(v >> 4 << 3) | (v & 7) for v in phases]
    else:
        stored = powers_below(cols)
    bases = tuple([(0, c) for c in stored] + [(r, c) for r, c in zip((1, 2, 4), phases)])
    widest = 0
    for _, c in bases:
        widest |= c
    return bases, CORE_ROWS, 1 << widest.bit_length()


def _reshape(L: LinearLayout, shape: Sequence[int]) -> LinearLayout:
    """Re-split L's out space (last dim fastest on both sides) into `shape` (Triton's reshapeLayout)."""
    names = standard_out_dims(len(shape))
    flipped = L.transpose_outs(list(reversed(L.out_dims)))
    reshaped = flipped.reshape_outs(list(reversed(list(zip(names, shape)))))
    return reshaped.transpose_outs(names)
