"""``#ttg.amd_wmma``: accumulators of AMD RDNA / gfx1250 matrix-core (WMMA) instructions, and their operands.

A wave has 32 lanes. One 16x16 tile is given in the dims (inner, outer) =
(threadOrder[0], threadOrder[1]), threadOrder = the matrix order, row-major
([r-1, r-2, ..]) unless isTransposed ([r-2, r-1, ..]):

    v1:     register -> (0,2) (0,4) (0,8)       lane -> (1,0) (2,0) (4,0) (8,0) (0,1)
    v2, v3: register -> (0,1) (0,2) (0,4)       lane -> (1,0) (2,0) (4,0) (8,0) (0,8)

(a batch dim 0 gets size 1). The ctaLayout (register and warp bases, in
units of tiles: the product scales them by 16) places the tiles:

    L = combine(transposeOuts(tile * ctaLayout, [r-1, .., 0]), CGA, shape)

The ctaLayout must be surjective onto the sizes its bases span; the result,
like every distributed lowering Triton hands out, must be a permutation
matrix once its zero bases are removed (duplicated tiles are rejected).

Closed form (`to_linear_layout`; the composition above is `to_linear_layout_generic`, the
reference it is tested against): the product's register bases are the tile's, placed in
(inner, outer), then the ctaLayout's with every component scaled by the tile's size along its
dim (16 along inner and outer, 1 along batch); its lane bases are the tile's; its warp bases
the ctaLayout's, scaled; its out sizes the tile's times the ctaLayout's; its out order
[r-1, .., 0]. `closed.combine` writes the CGA combination out from those.

Dot operand (K, nonK as for every operand; nonKDim = instrShape[0] for A,
[1] for B, depth = 32 / nonKDim), with out order [K, nonK, batch]:

    op = id(kWidth, register, K) * id(nonKDim, lane, nonK)
         * (v1: zeros(depth, lane, K); v2/v3: id(depth, lane, K))
         * id(instrShape[2] / (depth * kWidth), register, K)                     # 0 = none
         * ctaLayout with its K components zeroed and its zero register bases removed
    L = combine(op, the CGA with its K components zeroed, shape)

(Triton 3.9 sizes the K repetition by instrShape[2] alone: a larger
shape[K] is reached by the combine, whose K registers come after the
ctaLayout's. The conformance data rules out max(shape[K], instrShape[2]).)

Verifier: version 1..3; instrShape [16,16,16] (v1), [16,16,16|32] (v2),
[16,16,4|32|64|128] (v3: Gluon's default [16,16,16] is invalid); operand
kWidth 8 or 16 (v1), 4, 8 or 16 (v2), a power of two (v3).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from .. import f2
from ..errors import EncodingError, LayoutError
from ..layout import LinearLayout, standard_out_dims
from .base import (BASES, BOOL, CGA, INT, INTS, LANE, RANK, REGISTER, WARP, Bases, DistributedEncoding,
                   bases_extent, matrix_order, packed_columns, param)
from .cga import combine_cta_cga_with_shape, validate_cga
from .closed import combine
from .dot_operand import dot_operand_cga, dot_operand_k_dim, require_k_width
from .linear import check_permutation_matrix

WAVE_SIZE = 32
TILE = 16
# (register, lane) bases of one 16x16 tile in (inner, outer), for v2/v3 (False) and v1 (True)
TILE_BASES = {False: (((0, 1), (0, 2), (0, 4)), ((1, 0), (2, 0), (4, 0), (8, 0), (0, 8))),
              True: (((0, 2), (0, 4), (0, 8)), ((1, 0), (2, 0), (4, 0), (8, 0), (0, 1)))}
DEFAULT_INSTR_SHAPE = (16, 16, 16)
WMMA_INSTR_SHAPES = {
    1: ((16, 16, 16),),
    2: ((16, 16, 16), (16, 16, 32)),
    3: ((16, 16, 4), (16, 16, 32), (16, 16, 64), (16, 16, 128)),
}
OPERAND_K_WIDTHS = {1: (8, 16), 2: (4, 8, 16)}


@dataclass(frozen=True)
class AmdWmmaEncoding(DistributedEncoding):
    kind = "amd_wmma"

    version: int = param("version", INT)
    is_transposed: bool = param("isTranspose", BOOL, text_default=False, gluon="transposed")
    register_bases: Bases = param("register", BASES, text_default=(), gluon="reg_bases", gluon_default=())
    warp_bases: Bases = param("warp", BASES, text_default=())
    instr_shape: tuple[int, ...] = param("instrShape", INTS, default=DEFAULT_INSTR_SHAPE, elided=True)
    cga_layout: Bases = param("CGALayout", CGA, default=())
    rank: int = param("rank", RANK, default=2)  # type: ignore[assignment]  (a field here, a property elsewhere)

    def validate(self) -> None:
        if not 1 <= self.version <= 3:
            raise self.fail("version", f"WMMA version must be in the [1, 3] range, got {self.version}")
        shapes = WMMA_INSTR_SHAPES[self.version]
        if tuple(self.instr_shape) not in shapes:
            raise self.fail("instrShape", f"invalid WMMA v{self.version} instruction shape {list(self.instr_shape)}:"
                                          f" must be one of {', '.join(str(list(s)) for s in shapes)}")
        if self.rank not in (2, 3):
            raise self.fail("rank", f"a WMMA layout has rank 2 or 3 (batch), got {self.rank}")
        for field, bases in (("register", self.register_bases), ("warp", self.warp_bases)):
            if any(len(b) != self.rank for b in bases):
                raise self.fail("ctaLayout", f"every {field} basis must have {self.rank} components (the rank), "
                                             f"got {[list(b) for b in bases]}")
        if not self._cta_spans_its_extent():
            self.cta_layout()                   # the error, as from_bases words it
        validate_cga(self.cga_layout, self.rank, self.kind)

    def _cta_spans_its_extent(self) -> bool:
        """The ctaLayout is surjective onto the sizes its bases span: its packed columns have full rank."""
        every = self.register_bases + self.warp_bases
        if any(c < 0 for b in every for c in b):
            return False
        cols, bits = packed_columns(every, self.rank)
        return f2.rank(cols) == bits

    def cta_layout(self) -> LinearLayout:
        """register, warp -> dims, out sizes inferred from the bases (must be surjective)."""
        try:
            return LinearLayout.from_bases([(REGISTER, self.register_bases), (WARP, self.warp_bases)],
                                           standard_out_dims(self.rank))
        except LayoutError as e:
            raise self.fail("ctaLayout", f"the register and warp bases must cover every element of the sizes "
                                         f"they span: {e.message}") from None

    def tile_layout(self) -> LinearLayout:
        r = self.rank
        names = standard_out_dims(r)
        order = matrix_order(r, row_major=not self.is_transposed)
        regs, lanes = TILE_BASES[self.version == 1]
        tile = LinearLayout([(REGISTER, regs), (LANE, lanes)], [(names[order[0]], TILE), (names[order[1]], TILE)])
        if r == 3:
            tile = tile * LinearLayout.identity_1d(1, REGISTER, names[0]) * LinearLayout.identity_1d(1, LANE, names[0])
        return tile.transpose_outs(names)

    def to_linear_layout(self, shape: Sequence[int]) -> LinearLayout:
        """Closed form of to_linear_layout_generic (module docstring)."""
        r = self.rank
        inner, outer = matrix_order(r, row_major=not self.is_transposed)[:2]
        regs, lanes = TILE_BASES[self.version == 1]

        def placed(b: tuple[int, int]) -> tuple[int, ...]:
            v = [0] * r
            v[inner], v[outer] = b
            return tuple(v)
        tile = [1] * r
        tile[inner] = tile[outer] = TILE
        shifts = [t.bit_length() - 1 for t in tile]

        def scaled(b: tuple[int, ...]) -> tuple[int, ...]:
            return tuple(c << sh for c, sh in zip(b, shifts))
        sizes = [t * c for t, c in zip(tile, bases_extent(self.register_bases + self.warp_bases, r))]
        ins = ((REGISTER, tuple(map(placed, regs)) + tuple(map(scaled, self.register_bases))),
               (LANE, tuple(map(placed, lanes))),
               (WARP, tuple(map(scaled, self.warp_bases))))
        return self._permutation(combine(ins, sizes, range(r - 1, -1, -1), self.cga_layout, shape))

    def to_linear_layout_generic(self, shape: Sequence[int]) -> LinearLayout:
        names = standard_out_dims(self.rank)
        L = (self.tile_layout() * self.cta_layout()).transpose_outs(names[::-1])
        return self._permutation(combine_cta_cga_with_shape(L, self.cga_layout, shape))

    def _permutation(self, L: LinearLayout) -> LinearLayout:
        check_permutation_matrix(self, L, f"the lowered {self.kind} layout (duplicated or non-power-of-two "
                                          f"ctaLayout bases)")
        return L

    # ------------------------------------------------------------ dot operands

    def validate_dot_operand(self, op_idx: int, k_width: int) -> None:
        allowed = OPERAND_K_WIDTHS.get(self.version)
        if allowed is not None and k_width not in allowed:
            raise EncodingError(f"dot_op: kWidth must be {' or '.join(map(str, allowed))} for a WMMA "
                                f"v{self.version} parent, got {k_width}", field="kWidth")
        require_k_width(k_width, f"a WMMA v{self.version}")

    def dot_operand_layout(self, op_idx: int, k_width: int, shape: Sequence[int]) -> LinearLayout:
        r = self.rank
        names = standard_out_dims(r)
        k = dot_operand_k_dim(op_idx, r)
        non_k = r - 2 if op_idx == 0 else r - 1
        non_k_dim = self.instr_shape[0] if op_idx == 0 else self.instr_shape[1]
        depth = WAVE_SIZE // non_k_dim
        across_k = LinearLayout.zeros_1d if self.version == 1 else LinearLayout.identity_1d
        op = (LinearLayout.identity_1d(k_width, REGISTER, names[k])
              * LinearLayout.identity_1d(non_k_dim, LANE, names[non_k])
              * across_k(depth, LANE, names[k])
              * LinearLayout.identity_1d(self.instr_shape[2] // (depth * k_width), REGISTER,
                                         names[k]))
        cta = self.cta_layout()
        projected = [(d, [tuple(0 if i == k else c for i, c in enumerate(b)) for b in bs])
                     for d, bs in cta.bases.items()]
        cta = LinearLayout.from_bases(projected, names).remove_zero_bases_along_dim(REGISTER)
        order = matrix_order(r, row_major=(op_idx == 0))
        L = (op * cta).transpose_outs([names[d] for d in order])
        return self._permutation(combine_cta_cga_with_shape(L, dot_operand_cga(self.cga_layout, op_idx, r), shape))
