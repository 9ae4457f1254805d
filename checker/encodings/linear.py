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
and a register basis that became zero that way is dropped. Out sizes are the shape. When the
shape is the bases' own sizes nothing changes; when it is nowhere smaller nothing is clamped.

validate reads the permutation test on the bases themselves (`permutation_sizes`), building the
stored layout only to word the error as Triton does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain
from operator import le, lt

from ..layout import LinearLayout, ensure_layout_not_larger_than, ensure_layout_not_smaller_than, standard_out_dims
from .base import (
    BASES,
    BLOCK,
    LANE,
    REGISTER,
    REQUIRED,
    WARP,
    Bases,
    DistributedEncoding,
    Encoding,
    bases_extent,
    bases_rank,
    derived,
    is_permutation_columns,
    order_by_first_appearance,
    param,
    stored_layout,
)
from .closed import growth, names


def permutation_sizes(bases: Bases, rank: int) -> list[int] | None:
    """Per dim, the out size the bases span (`base.bases_extent`) when they form a permutation matrix once
    their zero bases are removed (`base.is_permutation_matrix`), else None. Every basis has `rank`
    components.

    Read on the set of distinct bases, each step one builtin over all of them: with no negative component,
    let n be the count of distinct non-zero bases and top[d] the largest component along d (the bases span
    2^bitlen(top[d]) along d, bitlen(top[d]) out bits). No non-zero basis repeats when n is the count of
    non-zero bases; each is one power of two along one dim exactly when their components hold n one-bits in
    all (each holds at least one); and they cover the out bits when n is the sum of the bitlen(top[d])
    (distinct one-bit columns, each at most its dim's top, as many as the bits)."""
    if not bases:
        return [1] * rank
    distinct = set(bases)
    columns = list(zip(*distinct))
    if min(map(min, columns)) < 0:
        return None
    tops = list(map(max, columns))
    zero = (0,) * rank
    n = len(distinct) - (zero in distinct)
    if n != len(bases) - bases.count(zero) or n != sum(map(int.bit_length, tops)) \
            or sum(map(int.bit_count, chain.from_iterable(distinct))) != n:
        return None
    return [1 << t.bit_length() for t in tops]


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

    @derived
    def rank(self) -> int:
        return bases_rank(self.register, self.lane, self.warp, self.block) or 1

    @derived
    def _permutation_sizes(self) -> list[int] | None:
        """`permutation_sizes` of every basis, read by validate and the lowering (meaningful once every
        basis has `rank` components, which validate checks first)."""
        return permutation_sizes(self.register + self.lane + self.warp + self.block, self.rank)

    def stored_layout(self) -> LinearLayout:
        """The layout exactly as written, out sizes inferred from the bases."""
        return stored_layout(self, [(REGISTER, self.register), (LANE, self.lane), (WARP, self.warp),
                                    (BLOCK, self.block)], "bases")

    def validate(self) -> None:
        rank = self.rank
        every = self.register + self.lane + self.warp + self.block
        if every and (set(map(len, every)) != {rank} or min(map(min, every)) < 0):
            self._check_each_group(rank)        # some basis is off: the error of the first group it is in
        if self._permutation_sizes is not None:
            return          # a permutation matrix spans its out sizes: the stored layout exists
        check_permutation_matrix(self, self.stored_layout(), "a linear layout")     # the error, as Triton words it

    def _check_each_group(self, rank: int) -> None:
        """Group by group (register, lane, warp, block): every basis has `rank` components, then none is
        negative."""
        for name, bs in (("register", self.register), ("lane", self.lane), ("warp", self.warp),
                         ("block", self.block)):
            if any(len(b) != rank for b in bs):
                raise self.fail(name, f"every basis must have {rank} components (the rank)")
            if any(c < 0 for b in bs for c in b):
                raise self.fail(name, "basis components must be non-negative")

    @property
    def cga_layout(self) -> Bases:
        return self.block

    def rep_order(self) -> list[int]:
        return order_by_first_appearance(self.register, self.rank)

    def to_linear_layout(self, shape: Sequence[int]) -> LinearLayout:
        """Closed form of to_linear_layout_generic (module docstring)."""
        rank = self.rank
        shape = tuple(shape)
        groups = ((REGISTER, self.register), (LANE, self.lane), (WARP, self.warp), (BLOCK, self.block))
        outs = tuple(zip(names(rank), shape))
        sizes = tuple(self._permutation_sizes or bases_extent(self.register + self.lane + self.warp + self.block,
                                                              rank))
        if sizes == shape:                                      # nothing to grow or clamp
            return LinearLayout._of(groups, outs)
        grown = tuple(growth(sizes, shape, self.rep_order())) if any(map(lt, sizes, shape)) else ()
        if all(map(le, sizes, shape)):                  # nothing to clamp
            return LinearLayout._of(((REGISTER, self.register + grown),) + groups[1:], outs)
        ins = []
        for name, bs in groups:
            kept = []
            for b in bs:
                for c, n in zip(b, shape):
                    if c >= n:
                        break
                else:
                    kept.append(b)                              # within the shape: as is
                    continue
                clamped = tuple(0 if c >= n else c for c, n in zip(b, shape))
                if name == REGISTER and any(b) and not any(clamped):
                    continue
                kept.append(clamped)
            ins.append((name, tuple(kept) + (grown if name == REGISTER else ())))
        return LinearLayout._of(ins, outs)

    def to_linear_layout_generic(self, shape: Sequence[int]) -> LinearLayout:
        L = self.stored_layout()
        names = standard_out_dims(self.rank)
        permuted = [names[d] for d in self.rep_order()]
        named_shape = {names[d]: shape[d] for d in range(self.rank)}
        L = L.transpose_outs(permuted)
        L = ensure_layout_not_smaller_than(L, named_shape)
        L = ensure_layout_not_larger_than(L, named_shape, broadcast_registers=False)
        return L.transpose_outs(names)
