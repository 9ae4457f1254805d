"""``#ttg.linear``: a distributed layout given directly by its bases.

The stored layout maps register, lane, warp, block -> dim0.. with out sizes
inferred from the bases (it must be surjective). Triton requires it to be a
permutation matrix once zero (broadcast) bases are removed. At a shape it is
re-fitted, along the *rep order* (dims in order of first appearance in the
register bases, then the rest from the last dim down):

    L' = transposeOuts(L, repOrder)
    L' = ensureLayoutNotSmallerThan(L', shape)    # append register repetitions
    L' = ensureLayoutNotLargerThan(L', shape)     # clamp; out-of-shape register bases dropped
    L  = transposeOuts(L', [dim0, dim1, ...])

Closed form (`to_linear_layout`; the composition above is `to_linear_layout_generic`, the
reference it is tested against), bases in standard component order throughout, s[d] the size
the bases span along d: for each dim d in rep order with shape[d] > s[d], the register bases
s[d]·2^j (j < log2(shape[d]/s[d])) are appended; then every component c >= shape[d] becomes 0,
and a register basis that became zero that way is dropped. Out sizes are the shape.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from ..layout import (LinearLayout, ensure_layout_not_larger_than, ensure_layout_not_smaller_than,
                      standard_out_dims)
from .base import (BASES, BLOCK, LANE, REGISTER, REQUIRED, WARP, Bases, DistributedEncoding, Encoding, bases_extent,
                   bases_rank, is_permutation_columns, is_permutation_matrix, order_by_first_appearance, param,
                   stored_layout)
from .closed import growth


def check_permutation_matrix(enc: Encoding, layout: LinearLayout, what: str) -> None:
    """After removing zero bases, every basis is one bit and they are independent and cover the outs."""
    if not is_permutation_columns(layout.columns, layout.total_out_size_log2):
        raise enc.fail("bases", f"{what} must be a permutation matrix after removing broadcast (zero) bases")


@dataclass(frozen=True)
class LinearEncoding(DistributedEncoding):
    kind = "linear"

    register: Bases = param("register", BASES, gluon="reg_bases")
    lane: Bases = param("lane", BASES, gluon="lane_bases")
    warp: Bases = param("warp", BASES, gluon="warp_bases")
    block: Bases = param("block", BASES, default=(), text_default=REQUIRED, gluon="block_bases")

    @property
    def rank(self) -> int:
        return bases_rank(self.register, self.lane, self.warp, self.block) or 1

    def stored_layout(self) -> LinearLayout:
        """The layout exactly as written, out sizes inferred from the bases."""
        return stored_layout(self, [(REGISTER, self.register), (LANE, self.lane), (WARP, self.warp),
                                    (BLOCK, self.block)], "bases")

    def validate(self) -> None:
        rank = self.rank
        for name, bs in (("register", self.register), ("lane", self.lane), ("warp", self.warp),
                         ("block", self.block)):
            if any(len(b) != rank for b in bs):
                raise self.fail(name, f"every basis must have {rank} components (the rank)")
            if any(c < 0 for b in bs for c in b):
                raise self.fail(name, "basis components must be non-negative")
        if is_permutation_matrix(self.register, self.lane, self.warp, self.block):
            return          # a permutation matrix spans its out sizes: the stored layout exists
        check_permutation_matrix(self, self.stored_layout(), "a linear layout")     # the error, as Triton words it

    @property
    def cga_layout(self) -> Bases:
        return self.block

    def rep_order(self) -> list[int]:
        return order_by_first_appearance(self.register, self.rank)

    def to_linear_layout(self, shape: Sequence[int]) -> LinearLayout:
        """Closed form of to_linear_layout_generic (module docstring)."""
        rank = self.rank
        sizes = bases_extent(self.register + self.lane + self.warp + self.block, rank)
        grown = growth(sizes, shape, self.rep_order())
        groups = ((REGISTER, self.register), (LANE, self.lane), (WARP, self.warp), (BLOCK, self.block))
        names = standard_out_dims(rank)
        if all(s <= n for s, n in zip(sizes, shape)):          # nothing to clamp
            return LinearLayout._of(((REGISTER, self.register + tuple(grown)),) + groups[1:],
                                    tuple(zip(names, shape)))
        ins = []
        for name, bs in groups:
            kept = []
            for b in bs:
                clamped = tuple(0 if c >= n else c for c, n in zip(b, shape))
                if name == REGISTER and any(b) and not any(clamped):
                    continue
                kept.append(clamped)
            ins.append((name, tuple(kept) + (tuple(grown) if name == REGISTER else ())))
        return LinearLayout._of(ins, tuple(zip(names, shape)))

    def to_linear_layout_generic(self, shape: Sequence[int]) -> LinearLayout:
        L = self.stored_layout()
        names = standard_out_dims(self.rank)
        permuted = [names[d] for d in self.rep_order()]
        named_shape = {names[d]: shape[d] for d in range(self.rank)}
        L = L.transpose_outs(permuted)
        L = ensure_layout_not_smaller_than(L, named_shape)
        L = ensure_layout_not_larger_than(L, named_shape, broadcast_registers=False)
        return L.transpose_outs(names)
