"""``#ttg.blocked``: each thread holds a sizePerThread tile, threads and warps tile it further.

    cta = idND(register, sizePerThread, order)
        * idND(lane, threadsPerWarp, order)
        * idND(warp, warpsPerCTA, order)
    L   = combine_cta_cga_with_shape(cta, CGA, shape)

``order`` lists dims fastest first; idND builds identity bases along
order[0] first. A shape larger than the CTA tile appends register bases
(repetitions along order[0] first); a smaller one turns the lane/warp bases
that fall outside into zeros (broadcast). The register bases that fall
outside are dropped from Triton 3.9 on (blocked layouts then never carry zero
register bases); up to 3.8 they stay as zero bases, each such register a
copy of another (`checker.versions`, change ``blocked_drops_cut_registers``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from ..errors import EncodingError
from ..layout import LinearLayout, identity_standard_nd
from ..versions import follows
from .base import (
    CGA,
    INTS,
    LANE,
    REGISTER,
    WARP,
    Bases,
    DistributedEncoding,
    param,
    require_permutation,
    require_power_of_two_entries,
    require_rank,
)
from .cga import combine_cta_cga_with_shape, validate_cga
from .closed import FrozenTile, Tile, tile_combine
from .dot_operand import broadcast_along_k, dot_operand_cga, dot_operand_k_dim


@dataclass(frozen=True)
class BlockedEncoding(DistributedEncoding):
    kind = "blocked"

    size_per_thread: tuple[int, ...] = param("sizePerThread", INTS, gives_rank=True)
    threads_per_warp: tuple[int, ...] = param("threadsPerWarp", INTS)
    warps_per_cta: tuple[int, ...] = param("warpsPerCTA", INTS)
    order: tuple[int, ...] = param("order", INTS)
    cga_layout: Bases = param("CGALayout", CGA, default=())

    @property
    def rank(self) -> int:
        return len(self.order)

    def validate(self) -> None:
        r = self.rank
        for field in ("sizePerThread", "threadsPerWarp", "warpsPerCTA"):
            require_rank(self, field, self._field(field), r)
        for field in ("sizePerThread", "threadsPerWarp", "warpsPerCTA"):
            require_power_of_two_entries(self, field, self._field(field))
        require_permutation(self, "order", self.order, r)
        validate_cga(self.cga_layout, r, self.kind)

    def _field(self, name: str) -> tuple[int, ...]:
        return {"sizePerThread": self.size_per_thread, "threadsPerWarp": self.threads_per_warp,
                "warpsPerCTA": self.warps_per_cta}[name]

    def cta_layout(self) -> LinearLayout:
        return (identity_standard_nd(REGISTER, self.size_per_thread, self.order)
                * identity_standard_nd(LANE, self.threads_per_warp, self.order)
                * identity_standard_nd(WARP, self.warps_per_cta, self.order))

    def to_linear_layout(self, shape: Sequence[int]) -> LinearLayout:
        """Closed form (checker/encodings/closed.py): the tile cached per encoding, then combined."""
        return _blocked_tile(self).combine(self.cga_layout, shape, broadcast_registers=_keeps_cut_registers())

    def to_linear_layout_generic(self, shape: Sequence[int]) -> LinearLayout:
        """The reference: the products of the module docstring, composed as LinearLayouts."""
        return combine_cta_cga_with_shape(self.cta_layout(), self.cga_layout, shape,
                                          broadcast_registers=_keeps_cut_registers())

    @property
    def num_warps(self) -> int:
        n = 1
        for w in self.warps_per_cta:
            n *= w
        return n

    # ------------------------------------------------------- FMA dot operands

    def validate_dot_operand(self, op_idx: int, k_width: int) -> None:
        if k_width != 0:
            raise EncodingError(f"dot_op: kWidth is not supported when the parent is a blocked layout (it must "
                                f"be 0), got {k_width}", field="kWidth")

    def dot_operand_layout(self, op_idx: int, k_width: int, shape: Sequence[int]) -> LinearLayout:
        """Closed form of dot_operand_layout_generic."""
        k = dot_operand_k_dim(op_idx, self.rank)
        t = Tile(self.rank)
        for d in self.order:
            t.id(shape[k] if d == k else self.size_per_thread[d], REGISTER, d)
        for in_dim, sizes in ((LANE, self.threads_per_warp), (WARP, self.warps_per_cta)):
            for d in self.order:
                (t.zeros if d == k else t.id)(sizes[d], in_dim, d)
        return tile_combine(t, dot_operand_cga(self.cga_layout, op_idx, self.rank), shape)

    def dot_operand_layout_generic(self, op_idx: int, k_width: int, shape: Sequence[int]) -> LinearLayout:
        """The FMA operand: each thread holds the whole K extent; lanes and warps broadcast along K.

            regs = idND(register, sizePerThread with [K] := shape[K], order)
            L    = combine(regs * broadcast_along_k(lane, threadsPerWarp, order, K)
                                * broadcast_along_k(warp, warpsPerCTA, order, K), K-zeroed CGA, shape)
        """
        k = dot_operand_k_dim(op_idx, self.rank)
        per_thread = list(self.size_per_thread)
        per_thread[k] = shape[k]
        cta = (identity_standard_nd(REGISTER, per_thread, self.order)
               * broadcast_along_k(LANE, self.threads_per_warp, self.order, k)
               * broadcast_along_k(WARP, self.warps_per_cta, self.order, k))
        return combine_cta_cga_with_shape(cta, dot_operand_cga(self.cga_layout, op_idx, self.rank), shape)


def _keeps_cut_registers() -> bool:
    """Up to Triton 3.8 the register bases a small shape cuts off stay as zero bases (PR #11541 drops them)."""
    return not follows("blocked_drops_cut_registers")


@lru_cache(maxsize=1024)
def _blocked_tile(enc: BlockedEncoding) -> FrozenTile:
    """idND(register, sizePerThread) * idND(lane, threadsPerWarp) * idND(warp, warpsPerCTA), all in `order`."""
    return FrozenTile.of_identities(enc.rank, ((REGISTER, enc.size_per_thread), (LANE, enc.threads_per_warp),
                                               (WARP, enc.warps_per_cta)), enc.order)
