"""``#ttg.nvidia_mma``: tensor-core accumulators (Ampere v2, Hopper v3) and their register dot operands.

Every layout here is one MMA tile, given an order (inner = order[0],
outer = order[1]), m rows along outer, n columns along inner and kWidth k,
built with its out-dims in that order (so repetitions fill inner first):

    tile(m, n, k) = id(k, register, inner) * id(4, lane, inner) * id(8, lane, outer)
                  * id(m/8, register, outer) * id(n/(4k), register, inner)

Accumulator: order [r-1, ..., 0], k = 2, (m, n) = instrShape for v2 ([16, 8];
[1, 16, 8] with a batch dim) and instrShape[:2] for v3 ([16, N, K]);

    L = combine(tile * idND(warp, warpsPerCTA, warp order), CGA, shape)

with the warp order row-major ([r-1, ..., 0]) for v2 and dim0 first for v3.

Dot operand opIdx (A = [.., M, K] with order [r-1, r-2, ..]; B = [.., K, N]
with order [r-2, r-1, ..]: K is always inner). With M = instrShape[r-2] and
K = 4k if M = 8 (the fp64 m8n8k4 tile) else 8k, the tile is (M, K) for A and
(8, K) for B (Ampere only: Hopper reads B from shared memory). Warps are as
for the accumulator but zero along K (the warps of one K row hold the same
operand), and the CGA is the parent's with its K components zeroed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import ClassVar

from ..errors import EncodingError
from ..layout import LinearLayout, identity_standard_nd, is_power_of_two, standard_out_dims
from .base import (
    CGA,
    INT,
    INTS,
    LANE,
    REGISTER,
    REQUIRED,
    WARP,
    Bases,
    DistributedEncoding,
    matrix_order,
    param,
    require_power_of_two_entries,
)
from .cga import combine_cta_cga_with_shape, validate_cga
from .closed import FrozenTile, Tile
from .dot_operand import broadcast_along_k, dot_operand_cga, dot_operand_k_dim

ACCUMULATOR_K_WIDTH = 2


def mma_tile(rank: int, order: Sequence[int], m: int, n: int, k_width: int) -> LinearLayout:
    """The tile of the module docstring; out-dims in rep order = `order` (inner = order[0])."""
    names = standard_out_dims(rank)
    inner, outer = names[order[0]], names[order[1]]
    return (identity_standard_nd(REGISTER, [1] * rank, order)
            * LinearLayout.identity_1d(k_width, REGISTER, inner)
            * LinearLayout.identity_1d(4, LANE, inner)
            * LinearLayout.identity_1d(8, LANE, outer)
            * LinearLayout.identity_1d(m // 8, REGISTER, outer)
            * LinearLayout.identity_1d(n // (4 * k_width), REGISTER, inner))


@dataclass(frozen=True)
class NvidiaMmaEncoding(DistributedEncoding):
    kind = "nvidia_mma"

    version_major: int = param("versionMajor", INT, gluon=None)       # Gluon: version = [major, minor]
    version_minor: int = param("versionMinor", INT, text_default=0, yaml_default=REQUIRED, gluon=None)
    warps_per_cta: tuple[int, ...] = param("warpsPerCTA", INTS, gives_rank=True)
    instr_shape: tuple[int, ...] = param("instrShape", INTS)
    cga_layout: Bases = param("CGALayout", CGA, default=())

    # Triton prints the CGA before instrShape
    attribute_order: ClassVar[tuple[str, ...]] = ("version_major", "version_minor", "warps_per_cta", "cga_layout",
                                                  "instr_shape")

    @property
    def rank(self) -> int:
        return len(self.warps_per_cta)

    @property
    def is_hopper(self) -> bool:
        return self.version_major == 3

    def validate(self) -> None:
        """Triton's attribute verifier checks only versionMajor; warps that are not powers of two
        (and a rank below 2) abort every lowering, so they are rejected here too."""
        if self.version_major == 1:
            raise self.fail("versionMajor", "Volta (versionMajor = 1) MMA layouts are deprecated and no longer "
                                            "supported; versionMajor must be 2 (Ampere) or 3 (Hopper)")
        if self.version_major not in (2, 3):
            raise self.fail("versionMajor", f"versionMajor must be 2 (Ampere) or 3 (Hopper), got {self.version_major}")
        if self.rank < 2:
            raise self.fail("warpsPerCTA", f"an MMA layout has rank >= 2, got {self.rank} warp entries")
        require_power_of_two_entries(self, "warpsPerCTA", self.warps_per_cta)
        validate_cga(self.cga_layout, self.rank, self.kind)

    def tile_shape(self) -> tuple[int, int]:
        """(m, n) of the accumulator tile; rejects the instrShapes Triton's lowering aborts on."""
        r, instr = self.rank, list(self.instr_shape)
        if self.is_hopper:
            if r != 2 or len(instr) < 2:
                raise self.fail("instrShape", f"a Hopper (v3) accumulator needs rank 2 and instrShape [M, N, K], "
                                              f"got rank {r} and {instr} (Triton aborts)")
            m, n = instr[0], instr[1]
        else:
            if len(instr) != r:
                raise self.fail("instrShape", f"an Ampere (v2) instrShape has one entry per dim ({r}), got {instr} "
                                              f"(Triton aborts)")
            m, n = instr[-2], instr[-1]
        for what, v in (("M", m), ("N", n)):
            _require_tile_extent(self, what, v)
        return m, n

    def warp_order(self) -> list[int]:
        return matrix_order(self.rank, row_major=not self.is_hopper)

    def to_linear_layout(self, shape: Sequence[int]) -> LinearLayout:
        """Closed form: the tile with its warps, cached per encoding, then combined with the CGA."""
        return _accumulator_tile(self).combine(self.cga_layout, shape)

    def to_linear_layout_generic(self, shape: Sequence[int]) -> LinearLayout:
        m, n = self.tile_shape()
        order = matrix_order(self.rank, row_major=True)
        tile = mma_tile(self.rank, order, m, n, ACCUMULATOR_K_WIDTH)
        warps = identity_standard_nd(WARP, self.warps_per_cta, self.warp_order()).transpose_outs(tile.out_dims)
        return combine_cta_cga_with_shape(tile * warps, self.cga_layout, shape)

    # ------------------------------------------------------------ dot operands

    def validate_dot_operand(self, op_idx: int, k_width: int) -> None:
        if k_width == 0:
            raise EncodingError("dot_op: kWidth is mandatory for an Ampere or Hopper MMA parent", field="kWidth")
        if not is_power_of_two(k_width):
            raise EncodingError(f"dot_op: kWidth must be a power of two for an MMA parent (Triton aborts "
                                f"otherwise), got {k_width}", field="kWidth")
        if self.is_hopper and op_idx != 0:
            raise EncodingError("dot_op: opIdx must be 0 for a Hopper MMA parent: wgmma takes only its first "
                                "operand from registers", field="opIdx")

    def dot_operand_layout(self, op_idx: int, k_width: int, shape: Sequence[int]) -> LinearLayout:
        """Closed form of dot_operand_layout_generic (tile and warps cached per (encoding, opIdx, kWidth))."""
        return _operand_tile(self, op_idx, k_width).combine(dot_operand_cga(self.cga_layout, op_idx, self.rank),
                                                            shape)

    def operand_tile_shape(self, op_idx: int, k_width: int) -> tuple[int, int]:
        r = self.rank
        if len(self.instr_shape) < r - 1:
            raise self.fail("instrShape", f"a dot operand reads M from instrShape[{r - 2}], got "
                                          f"{list(self.instr_shape)} (Triton aborts)")
        instr_m = self.instr_shape[r - 2]
        _require_tile_extent(self, "M", instr_m)
        k_extent = k_width * (4 if instr_m == 8 else 8)
        return (instr_m, k_extent) if op_idx == 0 else (8, k_extent)

    def dot_operand_layout_generic(self, op_idx: int, k_width: int, shape: Sequence[int]) -> LinearLayout:
        r = self.rank
        k_dim = dot_operand_k_dim(op_idx, r)
        m, n = self.operand_tile_shape(op_idx, k_width)
        # rep order: K fastest, then the non-K matrix dim, then the batch dim
        order = matrix_order(r, row_major=(op_idx == 0))
        tile = mma_tile(r, order, m, n, k_width)
        warps = broadcast_along_k(WARP, self.warps_per_cta, self.warp_order(), k_dim).transpose_outs(tile.out_dims)
        return combine_cta_cga_with_shape(tile * warps, dot_operand_cga(self.cga_layout, op_idx, r), shape)


def _require_tile_extent(enc: NvidiaMmaEncoding, what: str, v: int) -> None:
    if v < 8 or not is_power_of_two(v):
        raise enc.fail("instrShape", f"the tile {what} = {v} must be a power of two >= 8 (Triton aborts "
                                     f"otherwise), instrShape {list(enc.instr_shape)}")


def mma_tile_closed(rank: int, order: Sequence[int], m: int, n: int, k_width: int) -> Tile:
    """mma_tile as a Tile: its bases written directly."""
    inner, outer = order[0], order[1]
    t = Tile(rank)
    for d in order:
        t.id(1, REGISTER, d)
    return (t.id(k_width, REGISTER, inner).id(4, LANE, inner).id(8, LANE, outer)
            .id(m // 8, REGISTER, outer).id(n // (4 * k_width), REGISTER, inner))


@lru_cache(maxsize=1024)
def _accumulator_tile(enc: NvidiaMmaEncoding) -> FrozenTile:
    m, n = enc.tile_shape()
    t = mma_tile_closed(enc.rank, matrix_order(enc.rank, row_major=True), m, n, ACCUMULATOR_K_WIDTH)
    for d in enc.warp_order():
        t.id(enc.warps_per_cta[d], WARP, d)
    return FrozenTile(t)


@lru_cache(maxsize=1024)
def _operand_tile(enc: NvidiaMmaEncoding, op_idx: int, k_width: int) -> FrozenTile:
    m, n = enc.operand_tile_shape(op_idx, k_width)
    k_dim = dot_operand_k_dim(op_idx, enc.rank)
    t = mma_tile_closed(enc.rank, matrix_order(enc.rank, row_major=(op_idx == 0)), m, n, k_width)
    for d in enc.warp_order():
        (t.zeros if d == k_dim else t.id)(enc.warps_per_cta[d], WARP, d)
    return FrozenTile(t)
