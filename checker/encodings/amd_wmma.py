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
[r-1, .., 0]. `closed.combine` writes the CGA combination out from those (at rank 2 it is written
out in place, two dims at a time). The tile's placed bases are a constant table (`PLACED_TILES`).

Triton's final check (a permutation matrix once the zero bases go) is skipped when it cannot fail:
when the ctaLayout's bases and the CGA's are permutation matrices themselves (`permutation_sizes`).
Along each dim d the tile holds the out bits below tile[d] once, the scaled ctaLayout those from
tile[d] up to the product's size once, the repetitions those up to t[d] = shape[d] / c[d], the clamp
zeroes the one-bit bases at or above t[d], and the CGA's clamped bases, shifted by log2 t[d], hold
those from t[d] up to shape[d] once. A ctaLayout with duplicated or multi-bit bases (which the
verifier accepts when it is surjective) is checked, as Triton does: a shape can hide the duplicates.

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

Triton 3.6 and before (PR #8946 brought ctaLayout in 3.7) spell the ctaLayout as warpsPerCTA and
tilesPerWarp (w, t: per dim); the reader turns them into the ctaLayout #8946's own conversion writes
(`cta_bases_of_warps`: dim r-1 first, t's register tiles then w's warps, each dim's warps above its
tiles), and `warps_and_tiles` gives them back. Triton 3.6 lowers them by its own code (change
``wmma_lowered_from_cta_layout``, `_lower_by_warps`, `_operand_by_warps`), with the dims
N = r-1, M = r-2:

    L = tile (out order N, M) * id(t[N], register, N) * id(w[N], warp, N)
        * id(shape[N] / (instrShape[1] * w[N] * t[N]), register, N)        # 0 = none
        * id(t[M], register, M) * id(w[M], warp, M) [* id(w[0], warp, batch)]
    L = combine(L, CGA, shape)

(the N repetitions come before the M tiles of a warp; t[0] is not read), and for an operand

    op = id(kWidth, register, K) * id(nonKDim, lane, nonK) * (v1: zeros, v2/v3: id)(depth, lane, K)
         * (t[nonK] > 1: id(max(shape[K], instrShape[2]) / (depth * kWidth), register, K)
                         * id(t[nonK], register, nonK)
            else:        id(instrShape[2] / (depth * kWidth), register, K))
    L = combine(op * the warps w with those along K zeroed (dim r-1 first), the parent's CGA, shape)

in the out order [K, nonK, batch]; the CGA is the parent's as it is (3.7 zeroes its K components).
A ctaLayout that has no warpsPerCTA/tilesPerWarp form has no Triton 3.6 lowering.

Verifier: version 1..3 (1..2 before Triton 3.6: change ``wmma_version_3``);
instrShape [16,16,16] (v1), [16,16,16|32] (v2), [16,16,4|32|64|128] (v3:
Gluon's default [16,16,16] is invalid); operand kWidth 8 or 16 (v1), 4, 8 or
16 (v2), a power of two (v3; 2, 8 or 16 in Triton 3.6: change
``wmma_v3_any_k_width``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .. import f2
from ..errors import EncodingError, LayoutError, NotModelled
from ..layout import LinearLayout, standard_out_dims
from ..versions import follows
from .base import (
    BASES,
    BLOCK,
    BOOL,
    CGA,
    INT,
    INTS,
    LANE,
    RANK,
    REGISTER,
    WARP,
    Bases,
    DistributedEncoding,
    bases_extent,
    derived,
    matrix_order,
    packed_columns,
    param,
)
from .cga import combine_cta_cga_with_shape, validate_cga
from .closed import cga_parts, combine, growth
from .dot_operand import broadcast_along_k, dot_operand_cga, dot_operand_k_dim, require_k_width
from .linear import check_permutation_matrix, permutation_sizes

WAVE_SIZE = 32
TILE = 16
TILE_SHIFT = TILE.bit_length() - 1     # log2 TILE: a ctaLayout component (in tiles) << TILE_SHIFT is in elements
# (register, lane) bases of one 16x16 tile in (inner, outer), for v2/v3 (False) and v1 (True)
TILE_BASES = {False: (((0, 1), (0, 2), (0, 4)), ((1, 0), (2, 0), (4, 0), (8, 0), (0, 8))),
              True: (((0, 2), (0, 4), (0, 8)), ((1, 0), (2, 0), (4, 0), (8, 0), (0, 1)))}


def placed_tile(v1: bool, transposed: bool, rank: int) -> tuple[Bases, Bases]:
    """The tile's (register, lane) bases in standard component order: each (inner, outer) basis of
    TILE_BASES written at the dims (threadOrder[0], threadOrder[1]), zero along the batch dim."""
    inner, outer = matrix_order(rank, row_major=not transposed)[:2]

    def placed(b: tuple[int, int]) -> tuple[int, ...]:
        v = [0] * rank
        v[inner], v[outer] = b
        return tuple(v)
    regs, lanes = TILE_BASES[v1]
    return tuple(map(placed, regs)), tuple(map(placed, lanes))


# placed_tile for every (v1, isTranspose, rank) the verifier accepts: a constant table, like TILE_BASES
PLACED_TILES = {(v1, t, r): placed_tile(v1, t, r) for v1 in (False, True) for t in (False, True) for r in (2, 3)}
DEFAULT_INSTR_SHAPE = (16, 16, 16)
WMMA_INSTR_SHAPES = {
    1: ((16, 16, 16),),
    2: ((16, 16, 16), (16, 16, 32)),
    3: ((16, 16, 4), (16, 16, 32), (16, 16, 64), (16, 16, 128)),
}
OPERAND_K_WIDTHS = {1: (8, 16), 2: (4, 8, 16)}


def cta_bases_of_warps(warps_per_cta: Sequence[int], tiles_per_warp: Sequence[int]) -> tuple[Bases, Bases]:
    """The ctaLayout's (register, warp) bases of Triton <= 3.6's warpsPerCTA and tilesPerWarp, as PR #8946
    converts them (chooseWmmaCTALinearLayout): dim r-1 first, down to dim 0, each dim's tiles (register
    bases 1, 2, .. t[d] / 2) then its warps (warp bases t[d], 2 t[d], ..); sizes are powers of two."""
    rank = len(warps_per_cta)
    registers: list[tuple[int, ...]] = []
    warps: list[tuple[int, ...]] = []
    for d in range(rank - 1, -1, -1):
        t, w = tiles_per_warp[d], warps_per_cta[d]
        registers += [tuple(1 << i if e == d else 0 for e in range(rank)) for i in range(t.bit_length() - 1)]
        warps += [tuple(t << i if e == d else 0 for e in range(rank)) for i in range(w.bit_length() - 1)]
    return tuple(registers), tuple(warps)


@dataclass(frozen=True)
class AmdWmmaEncoding(DistributedEncoding):
    kind = "amd_wmma"

    version: int = param("version", INT)
    is_transposed: bool = param("isTranspose", BOOL, text_default=False, gluon="transposed")
    register_bases: Bases = param("register", BASES, text_default=(), gluon="reg_bases", gluon_default=())
    warp_bases: Bases = param("warp", BASES, text_default=())
    instr_shape: tuple[int, ...] = param("instrShape", INTS, default=DEFAULT_INSTR_SHAPE, elided=True)
    cga_layout: Bases = param("CGALayout", CGA, default=())
    rank: int = param("rank", RANK, default=2)  # a field here, a property elsewhere

    def validate(self) -> None:
        newest = 3 if follows("wmma_version_3") else 2
        if not 1 <= self.version <= newest:
            raise self.fail("version", f"WMMA version must be in the [1, {newest}] range, got {self.version}"
                                       + ("" if newest == 3 else " (version 3, gfx1250's, came with Triton 3.6)"))
        shapes = WMMA_INSTR_SHAPES[self.version]
        if tuple(self.instr_shape) not in shapes:
            raise self.fail("instrShape", f"invalid WMMA v{self.version} instruction shape {list(self.instr_shape)}:"
                                          f" must be one of {', '.join(str(list(s)) for s in shapes)}")
        if self.rank not in (2, 3):
            raise self.fail("rank", f"a WMMA layout has rank 2 or 3 (batch), got {self.rank}")
        rank = self.rank
        for field, bases in (("register", self.register_bases), ("warp", self.warp_bases)):
            for b in bases:
                if len(b) != rank:
                    raise self.fail("ctaLayout", f"every {field} basis must have {rank} components (the rank), "
                                                 f"got {[list(b) for b in bases]}")
        if self._cta_permutation_sizes is None and not self._cta_spans_its_extent():
            self.cta_layout()                   # the error, as from_bases words it
        if self.cga_layout:                     # no CGA (one CTA) is always valid
            validate_cga(self.cga_layout, rank, self.kind)

    @derived
    def _cta_permutation_sizes(self) -> list[int] | None:
        """`permutation_sizes` of the ctaLayout's bases, read by validate and the lowering (meaningful once
        every basis has `rank` components, which validate checks first)."""
        return permutation_sizes(self.register_bases + self.warp_bases, self.rank)

    def _cta_spans_its_extent(self) -> bool:
        """The ctaLayout is surjective onto the sizes its bases span: its packed columns have full rank
        (validate asks only when the bases are no permutation matrix, which always spans its sizes)."""
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
        """Closed form of to_linear_layout_generic, Triton's final check only where it can fail (module
        docstring)."""
        if not follows("wmma_lowered_from_cta_layout"):
            return self._lower_by_warps(shape)
        r = self.rank
        cta_sizes = self._cta_permutation_sizes
        a_permutation = cta_sizes is not None and permutation_sizes(self.cga_layout, r) is not None
        if cta_sizes is None:
            cta_sizes = bases_extent(self.register_bases + self.warp_bases, r)
        key = (self.version == 1, self.is_transposed, r)
        regs, lanes = PLACED_TILES.get(key) or placed_tile(*key)
        if r != 2:                      # batch dims (all but the last two) keep their components
            def scaled(b: tuple[int, ...]) -> tuple[int, ...]:
                return b[:-2] + (b[-2] << TILE_SHIFT, b[-1] << TILE_SHIFT)
            ins = ((REGISTER, regs + tuple(map(scaled, self.register_bases))), (LANE, lanes),
                   (WARP, tuple(map(scaled, self.warp_bases))))
            sizes = cta_sizes[:-2] + [cta_sizes[-2] << TILE_SHIFT, cta_sizes[-1] << TILE_SHIFT]
            L = combine(ins, sizes, range(r - 1, -1, -1), self.cga_layout, shape)
            return L if a_permutation else self._permutation(L)
        # rank 2: the tile is 16 along both dims (scaled is << TILE_SHIFT throughout), and `combine` is
        # written out for two dims: the per-CTA shape t, every component >= t[d] zeroed (no basis dropped),
        # the repetitions after the registers (out order dim1, dim0), then the CGA's block bases
        shape = tuple(shape)
        t, block = cga_parts(tuple(self.cga_layout), shape) if self.cga_layout else (shape, ())
        t0, t1 = t

        def clamped(bases: Bases, shift: int) -> Bases:
            return tuple([(x if x < t0 else 0, y if y < t1 else 0)
                          for x, y in ((x << shift, y << shift) for x, y in bases)])
        registers = clamped(regs, 0) + clamped(self.register_bases, TILE_SHIFT)
        registers += tuple(growth([cta_sizes[0] << TILE_SHIFT, cta_sizes[1] << TILE_SHIFT], t, (1, 0)))
        L = LinearLayout._of(((REGISTER, registers), (LANE, clamped(lanes, 0)),
                              (WARP, clamped(self.warp_bases, TILE_SHIFT)), (BLOCK, block)),
                             (("dim0", shape[0]), ("dim1", shape[1])))      # t[d] * c[d] = shape[d]
        return L if a_permutation else self._permutation(L)

    def to_linear_layout_generic(self, shape: Sequence[int]) -> LinearLayout:
        names = standard_out_dims(self.rank)
        L = (self.tile_layout() * self.cta_layout()).transpose_outs(names[::-1])
        return self._permutation(combine_cta_cga_with_shape(L, self.cga_layout, shape))

    # ------------------------------------------------------------ Triton <= 3.6: warpsPerCTA, tilesPerWarp

    @derived
    def warps_and_tiles(self) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
        """(warpsPerCTA, tilesPerWarp) whose ctaLayout (`cta_bases_of_warps`) is this one's, else None."""
        counts = []
        for bases in (self.warp_bases, self.register_bases):
            n = [1] * self.rank
            for b in bases:
                along = [d for d, c in enumerate(b) if c]
                if len(along) != 1:
                    return None
                n[along[0]] *= 2
            counts.append(tuple(n))
        warps, tiles = counts
        if cta_bases_of_warps(warps, tiles) != (tuple(self.register_bases), tuple(self.warp_bases)):
            return None
        return warps, tiles

    def _warps_and_tiles(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        wt = self.warps_and_tiles
        if wt is None:
            raise NotModelled(f"Triton 3.6 and before spell {self.kind} by warpsPerCTA and tilesPerWarp, which "
                              f"cannot give ctaLayout = {{register = {[list(b) for b in self.register_bases]}, "
                              f"warp = {[list(b) for b in self.warp_bases]}}} (a ctaLayout from Triton 3.7, PR "
                              f"#8946)", field="ctaLayout")
        return wt

    def _lower_by_warps(self, shape: Sequence[int]) -> LinearLayout:
        """Triton 3.6's AMDWmmaEncodingAttr::toLinearLayout (module docstring)."""
        warps, tiles = self._warps_and_tiles()
        r = self.rank
        names = standard_out_dims(r)
        m, n = r - 2, r - 1
        order = matrix_order(r, row_major=not self.is_transposed)
        regs, lanes = TILE_BASES[self.version == 1]
        L = LinearLayout([(REGISTER, regs), (LANE, lanes)], [(names[order[0]], TILE), (names[order[1]], TILE)])
        L = L.transpose_outs([names[n], names[m]])
        L = (L * LinearLayout.identity_1d(tiles[n], REGISTER, names[n])
             * LinearLayout.identity_1d(warps[n], WARP, names[n])
             * LinearLayout.identity_1d(shape[n] // (self.instr_shape[1] * warps[n] * tiles[n]), REGISTER, names[n])
             * LinearLayout.identity_1d(tiles[m], REGISTER, names[m])
             * LinearLayout.identity_1d(warps[m], WARP, names[m]))
        if r == 3:
            L = (L * LinearLayout.identity_1d(1, REGISTER, names[0]) * LinearLayout.identity_1d(1, LANE, names[0])
                 * LinearLayout.identity_1d(warps[0], WARP, names[0]))
        return combine_cta_cga_with_shape(L, self.cga_layout, shape)

    def _operand_by_warps(self, op_idx: int, k_width: int, shape: Sequence[int]) -> LinearLayout:
        """Triton 3.6's wmmaDotOperandToLinearLayout (module docstring)."""
        warps, tiles = self._warps_and_tiles()
        r = self.rank
        names = standard_out_dims(r)
        k, non_k, depth, op = self._operand_lanes(op_idx, k_width)
        k_tile = depth * k_width
        if tiles[non_k] > 1:
            op = (op * LinearLayout.identity_1d(max(shape[k], self.instr_shape[2]) // k_tile, REGISTER, names[k])
                  * LinearLayout.identity_1d(tiles[non_k], REGISTER, names[non_k]))
        else:
            op = op * LinearLayout.identity_1d(self.instr_shape[2] // k_tile, REGISTER, names[k])
        if r == 3:
            op = op * LinearLayout.identity_1d(1, REGISTER, names[0]) * LinearLayout.identity_1d(1, LANE, names[0])
        rep_order = [names[d] for d in matrix_order(r, row_major=(op_idx == 0))]
        warp = broadcast_along_k(WARP, warps, range(r - 1, -1, -1), k)
        L = op.transpose_outs(rep_order) * warp.transpose_outs(rep_order)
        return combine_cta_cga_with_shape(L, self.cga_layout, shape)

    def _operand_lanes(self, op_idx: int, k_width: int) -> tuple[int, int, int, LinearLayout]:
        """(K dim, non-K dim, lanes along K, the operand's kWidth registers along K, then its lanes: nonKDim
        along non-K and `depth` along K, zeros for v1), which every version's operand layout starts from."""
        r = self.rank
        names = standard_out_dims(r)
        k = dot_operand_k_dim(op_idx, r)
        non_k = r - 2 if op_idx == 0 else r - 1
        non_k_dim = self.instr_shape[0] if op_idx == 0 else self.instr_shape[1]
        depth = WAVE_SIZE // non_k_dim
        across_k = LinearLayout.zeros_1d if self.version == 1 else LinearLayout.identity_1d
        return k, non_k, depth, (LinearLayout.identity_1d(k_width, REGISTER, names[k])
                                 * LinearLayout.identity_1d(non_k_dim, LANE, names[non_k])
                                 * across_k(depth, LANE, names[k]))

    def _permutation(self, L: LinearLayout) -> LinearLayout:
        check_permutation_matrix(self, L, f"the lowered {self.kind} layout (duplicated or non-power-of-two "
                                          f"ctaLayout bases)")
        return L

    # ------------------------------------------------------------ dot operands

    def validate_dot_operand(self, op_idx: int, k_width: int) -> None:
        allowed = OPERAND_K_WIDTHS.get(self.version)
        if self.version == 3 and not follows("wmma_v3_any_k_width"):
            allowed = (2, 8, 16)
        if allowed is not None and k_width not in allowed:
            raise EncodingError(f"dot_op: kWidth must be {' or '.join(map(str, allowed))} for a WMMA "
                                f"v{self.version} parent, got {k_width}", field="kWidth")
        require_k_width(k_width, f"a WMMA v{self.version}")

    def dot_operand_layout(self, op_idx: int, k_width: int, shape: Sequence[int]) -> LinearLayout:
        if not follows("wmma_lowered_from_cta_layout"):
            return self._operand_by_warps(op_idx, k_width, shape)
        r = self.rank
        names = standard_out_dims(r)
        k, _, depth, op = self._operand_lanes(op_idx, k_width)
        op = op * LinearLayout.identity_1d(self.instr_shape[2] // (depth * k_width), REGISTER, names[k])
        cta = self.cta_layout()
        projected = [(d, [tuple(0 if i == k else c for i, c in enumerate(b)) for b in bs])
                     for d, bs in cta.bases.items()]
        cta = LinearLayout.from_bases(projected, names).remove_zero_bases_along_dim(REGISTER)
        order = matrix_order(r, row_major=(op_idx == 0))
        L = (op * cta).transpose_outs([names[d] for d in order])
        L = self._permutation(combine_cta_cga_with_shape(L, dot_operand_cga(self.cga_layout, op_idx, r), shape))
        if self.version != 3 or follows("wmma_operand_parent_tiles_first"):
            return L
        # Triton <= 3.7, WMMA v3: every register basis along K comes before the others (the parent's tiles)
        k_out = names[k]
        regs = L.in_bases(REGISTER)
        along = [b for b in regs if any(b) and all(c == 0 for d, c in zip(L.out_dims, b) if d != k_out)]
        rest = [b for b in regs if not (any(b) and all(c == 0 for d, c in zip(L.out_dims, b) if d != k_out))]
        return LinearLayout([(d, along + rest if d == REGISTER else L.in_bases(d)) for d in L.in_dims],
                            L.out_dim_sizes)
