"""``#ttg.amd_mfma``: accumulators of AMD CDNA matrix-core (MFMA) instructions, and their register operands.

A wave has 64 lanes. With M = dim r-2, N = dim r-1 (dim 0 is the batch at
rank 3), instrShape = [mDim, nDim, K], height = 1 for 64-bit accumulators
(elementBitWidth 64) else 4, and tiles = mDim * nDim / (64 * height), one
MFMA tile is

    not transposed:  id(height, register, M) * id(nDim, lane, N) * id(64 / nDim, lane, M)
                     * id(tiles, register, M)
    transposed:      the same with M and N (and mDim, nDim) swapped

(a 64x4 tile must be transposed). The tile is grown N first, over the whole
tensor N extent, before going along M (tiles of one warp stay N-contiguous):

    L = tile * id(tpw[N], register, N) * id(wpc[N], warp, N)
             * id(shape[N] / (nDim * wpc[N] * tpw[N]), register, N)     # integer division, 0 = none
             * id(tpw[M], register, M) * id(wpc[M], warp, M)
             [* id(wpc[0], warp, batch)]
    L = combine(L, CGA, shape)                                          # out order [N, M, batch]

with tpw = tilesPerWarp (all ones when empty) and wpc = warpsPerCTA.

Dot operand opIdx (A = [.., M, K], B = [.., K, N]; nonK = M for A, N for B,
nonKDim = mDim for A, nDim for B), built with out order [K, nonK, batch]:

    op = id(kWidth, register, K) * id(nonKDim, lane, nonK) * id(64 / nonKDim, lane, K)
    kTile = (64 / nonKDim) * kWidth
    [* id(16, register, K), kTile *= 16]             # the 64x64 operand of a 64x4 (A) or 4x64 (B) tile
    [* id(shape[K] / kTile, register, K)]            # when shape[K] > kTile
    * id(tpw[nonK], register, nonK)
    L = combine(op * idND(warp, wpc, [r-1, .., 0]), the parent's CGA, shape)

Warps are not broadcast along K, and the CGA keeps its K component, unlike
the NVIDIA operands.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import ClassVar

from ..layout import LinearLayout, identity_standard_nd, standard_out_dims
from ..versions import follows
from .base import (
    BOOL,
    CGA,
    INT,
    INTS,
    LANE,
    REGISTER,
    WARP,
    Bases,
    DistributedEncoding,
    param,
    require_power_of_two_entries,
)
from .cga import combine_cta_cga_with_shape, validate_cga
from .closed import Tile, tile_combine
from .dot_operand import dot_operand_k_dim, require_k_width

WAVE_SIZE = 64
MFMA_TILES = ((32, 32), (16, 16), (64, 4), (4, 64))


@dataclass(frozen=True)
class AmdMfmaEncoding(DistributedEncoding):
    kind = "amd_mfma"

    version: int = param("version", INT, lenient_default=0)
    warps_per_cta: tuple[int, ...] = param("warpsPerCTA", INTS, gives_rank=True)
    instr_shape: tuple[int, ...] = param("instrShape", INTS)
    is_transposed: bool = param("isTransposed", BOOL, lenient_default=False, gluon="transposed")
    tiles_per_warp: tuple[int, ...] = param("tilesPerWarp", INTS, default=(), elided=True)
    element_bit_width: int = param("elementBitWidth", INT, default=32, elided=True, gluon="element_bitwidth")
    cga_layout: Bases = param("CGALayout", CGA, default=())

    # Triton prints the CGA after isTransposed
    attribute_order: ClassVar[tuple[str, ...]] = ("version", "warps_per_cta", "instr_shape", "is_transposed",
                                                  "cga_layout", "tiles_per_warp", "element_bit_width")

    def __post_init__(self) -> None:
        """tilesPerWarp of all ones (of any length, as Triton's parser may give) is stored as (), as Triton
        stores it."""
        if self.tiles_per_warp and all(t == 1 for t in self.tiles_per_warp):
            object.__setattr__(self, "tiles_per_warp", ())

    @property
    def rank(self) -> int:
        return len(self.warps_per_cta)

    @property
    def tiles(self) -> tuple[int, ...]:
        """tilesPerWarp, all ones when empty."""
        return self.tiles_per_warp or (1,) * self.rank

    def validate(self) -> None:
        """Triton's verifier (version, tile, element width), plus what its lowering aborts on:
        a rank other than 2 or 3, warps or tiles per warp that are not powers of two."""
        if not 0 <= self.version <= 4:
            raise self.fail("version", f"version must be in the [0, 4] range, got {self.version}")
        if len(self.instr_shape) < 2 or tuple(self.instr_shape[:2]) not in MFMA_TILES:
            raise self.fail("instrShape", f"invalid (mDim, nDim) combination in {list(self.instr_shape)}: "
                                          f"must be one of {', '.join(f'({m}, {n})' for m, n in MFMA_TILES)}")
        if self.element_bit_width not in (32, 64):
            raise self.fail("elementBitWidth", f"elementBitWidth must be 32 or 64, got {self.element_bit_width}")
        if self.rank not in (2, 3):
            raise self.fail("warpsPerCTA", f"an MFMA layout has rank 2 or 3 (batch), got {self.rank} entries")
        require_power_of_two_entries(self, "warpsPerCTA", self.warps_per_cta)
        if self.tiles_per_warp and len(self.tiles_per_warp) != self.rank:
            raise self.fail("tilesPerWarp", f"has {len(self.tiles_per_warp)} entries but the encoding has rank "
                                            f"{self.rank}")
        require_power_of_two_entries(self, "tilesPerWarp", self.tiles)
        validate_cga(self.cga_layout, self.rank, self.kind)

    def to_linear_layout(self, shape: Sequence[int]) -> LinearLayout:
        """Closed form of to_linear_layout_generic: the MFMA tile cached per encoding, then written out."""
        r = self.rank
        m, n = r - 2, r - 1
        n_dim = self.instr_shape[1]
        t = _mfma_tile(self).copy()
        tpw, wpc = self.tiles, self.warps_per_cta
        (t.id(tpw[n], REGISTER, n).id(wpc[n], WARP, n).id(shape[n] // (n_dim * wpc[n] * tpw[n]), REGISTER, n)
         .id(tpw[m], REGISTER, m).id(wpc[m], WARP, m))
        if r == 3:
            t.id(1, REGISTER, 0).id(1, LANE, 0).id(wpc[0], WARP, 0)
        return tile_combine(t, self.cga_layout, shape)

    def to_linear_layout_generic(self, shape: Sequence[int]) -> LinearLayout:
        m_dim, n_dim = self.instr_shape[0], self.instr_shape[1]
        if (m_dim, n_dim) == (64, 4) and not self.is_transposed:
            raise self.fail("isTransposed", "a 64x4 MFMA layout must be transposed (Triton aborts otherwise)")
        r = self.rank
        names = standard_out_dims(r)
        m, n = r - 2, r - 1
        height = 1 if self.element_bit_width == 64 else 4
        tiles = m_dim * n_dim // (WAVE_SIZE * height)
        # registers run along `along`; the first lane bits cover `lane_extent` of `across`
        if self.is_transposed:
            along, across, lane_extent = names[n], names[m], m_dim
        else:
            along, across, lane_extent = names[m], names[n], n_dim
        tile = (LinearLayout.identity_1d(height, REGISTER, along)
                * LinearLayout.identity_1d(lane_extent, LANE, across)
                * LinearLayout.identity_1d(WAVE_SIZE // lane_extent, LANE, along)
                * LinearLayout.identity_1d(tiles, REGISTER, along))
        tile = tile.transpose_outs([names[n], names[m]])
        tpw, wpc = self.tiles, self.warps_per_cta
        L = (tile
             * LinearLayout.identity_1d(tpw[n], REGISTER, names[n])
             * LinearLayout.identity_1d(wpc[n], WARP, names[n])
             * LinearLayout.identity_1d(shape[n] // (n_dim * wpc[n] * tpw[n]), REGISTER, names[n])
             * LinearLayout.identity_1d(tpw[m], REGISTER, names[m])
             * LinearLayout.identity_1d(wpc[m], WARP, names[m]))
        if r == 3:
            L = (L * LinearLayout.identity_1d(1, REGISTER, names[0]) * LinearLayout.identity_1d(1, LANE, names[0])
                 * LinearLayout.identity_1d(wpc[0], WARP, names[0]))
        return combine_cta_cga_with_shape(L, self.cga_layout, shape)

    # ------------------------------------------------------------ dot operands

    def validate_dot_operand(self, op_idx: int, k_width: int) -> None:
        require_k_width(k_width, "an MFMA")

    def _operand_tiles(self) -> tuple[int, ...]:
        """tilesPerWarp as a dot operand reads it: Triton 3.5 reads it reversed (operand A tiles M by
        tilesPerWarp[1]; `checker.versions` change ``mfma_operand_tiles_per_warp``)."""
        return self.tiles if follows("mfma_operand_tiles_per_warp") else self.tiles[::-1]

    def dot_operand_layout(self, op_idx: int, k_width: int, shape: Sequence[int]) -> LinearLayout:
        """Closed form of dot_operand_layout_generic."""
        r = self.rank
        k = dot_operand_k_dim(op_idx, r)
        non_k = r - 2 if op_idx == 0 else r - 1
        m_dim, n_dim = self.instr_shape[0], self.instr_shape[1]
        non_k_dim = m_dim if op_idx == 0 else n_dim
        t = Tile(r).id(k_width, REGISTER, k).id(non_k_dim, LANE, non_k).id(WAVE_SIZE // non_k_dim, LANE, k)
        k_tile = WAVE_SIZE // non_k_dim * k_width
        if (m_dim, n_dim, op_idx) in ((64, 4, 0), (4, 64, 1)):
            t.id(16, REGISTER, k)
            k_tile *= 16
        if shape[k] > k_tile:
            t.id(shape[k] // k_tile, REGISTER, k)
        t.id(self._operand_tiles()[non_k], REGISTER, non_k)
        t.outs = [k, non_k]
        if r == 3:
            t.id(1, REGISTER, 0).id(1, LANE, 0)
        for d in range(r - 1, -1, -1):
            t.id(self.warps_per_cta[d], WARP, d)
        return tile_combine(t, self.cga_layout, shape)

    def dot_operand_layout_generic(self, op_idx: int, k_width: int, shape: Sequence[int]) -> LinearLayout:
        r = self.rank
        names = standard_out_dims(r)
        k = dot_operand_k_dim(op_idx, r)
        non_k = r - 2 if op_idx == 0 else r - 1
        m_dim, n_dim = self.instr_shape[0], self.instr_shape[1]
        non_k_dim = m_dim if op_idx == 0 else n_dim
        dim_k, dim_non_k = names[k], names[non_k]
        op = (LinearLayout.identity_1d(k_width, REGISTER, dim_k)
              * LinearLayout.identity_1d(non_k_dim, LANE, dim_non_k)
              * LinearLayout.identity_1d(WAVE_SIZE // non_k_dim, LANE, dim_k))
        k_tile = WAVE_SIZE // non_k_dim * k_width
        if (m_dim, n_dim, op_idx) in ((64, 4, 0), (4, 64, 1)):
            op = op * LinearLayout.identity_1d(16, REGISTER, dim_k)
            k_tile *= 16
        if shape[k] > k_tile:
            op = op * LinearLayout.identity_1d(shape[k] // k_tile, REGISTER, dim_k)
        op = op * LinearLayout.identity_1d(self._operand_tiles()[non_k], REGISTER, dim_non_k)
        op = op.transpose_outs([dim_k, dim_non_k])
        if r == 3:
            op = op * LinearLayout.identity_1d(1, REGISTER, names[0]) * LinearLayout.identity_1d(1, LANE, names[0])
        warps = identity_standard_nd(WARP, self.warps_per_cta, list(range(r - 1, -1, -1)))
        return combine_cta_cga_with_shape(op * warps, self.cga_layout, shape)


@lru_cache(maxsize=1024)
def _mfma_tile(enc: AmdMfmaEncoding) -> Tile:
    """One MFMA tile, out order [N, M] (callers copy it before growing it)."""
    m_dim, n_dim = enc.instr_shape[0], enc.instr_shape[1]
    if (m_dim, n_dim) == (64, 4) and not enc.is_transposed:
        raise enc.fail("isTransposed", "a 64x4 MFMA layout must be transposed (Triton aborts otherwise)")
    r = enc.rank
    m, n = r - 2, r - 1
    height = 1 if enc.element_bit_width == 64 else 4
    tiles = m_dim * n_dim // (WAVE_SIZE * height)
    along, across, lane_extent = (n, m, m_dim) if enc.is_transposed else (m, n, n_dim)
    t = (Tile(r).id(height, REGISTER, along).id(lane_extent, LANE, across)
         .id(WAVE_SIZE // lane_extent, LANE, along).id(tiles, REGISTER, along))
    t.outs = [n, m]
    return t
