"""``#ttg.padded_shared``: a linear layout of shared memory with padding slots inserted every `interval` elements.

Two parts:

- the linear component  C : (offset, block) -> (dim0, ..), given by its
  bases (the offset bases and the block bases exactly as Triton stores and
  prints them; the out sizes are inferred). Offset i, counted *before*
  padding, holds element C(i);
- the padding map  phys(i) = i + sum_k (i >> log2 interval_k) << log2 padding_k:
  after every interval_k elements, padding_k unused slots (pairs add up).

phys is not linear over GF(2) (it adds), so the lowering is a
`checker.padded.PaddedLayout` value holding C and the pairs (the one padded
type; phys is written once there), never a LinearLayout. The buffer of one
CTA spans phys(n - 1) + 1 slots for n offsets (Triton's getPaddedSize).

Triton prints ``{order = [..], shape = [..]}`` when the offset bases are
identityStandardND(shape, order) and there are no block bases (see
`identity_order_shape`), else ``{offset = [..], block = [..]}``.

Verifier: as many intervals as paddings, at least one pair, all powers of
two, no interval twice; C has an offset basis or a block basis, its offset
part is injective, every basis moves along at most one dim by 0 or a power
of two. The tensor shape must equal C's out sizes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from ..errors import EncodingError, LayoutError
from ..layout import LinearLayout, identity_standard_nd, is_power_of_two, log2, standard_out_dims
from ..padded import PaddedLayout
from .base import BLOCK, OFFSET, Bases, SharedEncoding


@dataclass(frozen=True)
class PaddedSharedEncoding(SharedEncoding):
    kind = "padded_shared"

    intervals: tuple[int, ...]
    paddings: tuple[int, ...]
    offset_bases: Bases
    block_bases: Bases = ()

    @property
    def rank(self) -> int:
        for bs in (self.offset_bases, self.block_bases):
            if bs:
                return len(bs[0])
        return 0

    @property
    def cga_layout(self) -> Bases:
        """The block bases relative to one CTA's extent (Triton's CGA layout of the linear component)."""
        sizes = self._offset_sizes()
        return tuple(tuple(c >> log2(s) for c, s in zip(b, sizes)) for b in self.block_bases)

    def _offset_sizes(self) -> list[int]:
        sizes = [1] * self.rank
        for b in self.offset_bases:
            for d, c in enumerate(b):
                sizes[d] = max(sizes[d], 1 << c.bit_length())
        return sizes

    def validate(self) -> None:
        if len(self.intervals) != len(self.paddings):
            raise self.fail("intervals", f"intervals size ({len(self.intervals)}) must match paddings size "
                                         f"({len(self.paddings)})")
        if not self.intervals:
            raise self.fail("intervals", "must have at least one interval-padding pair")
        for field, values in (("intervals", self.intervals), ("paddings", self.paddings)):
            if not all(is_power_of_two(v) for v in values):
                raise self.fail(field, f"{field[:-1]} values must all be powers of two, got {list(values)}")
        if len(set(self.intervals)) != len(self.intervals):
            raise self.fail("intervals", f"interval values cannot have duplicates, got {list(self.intervals)}")
        if not self.rank:
            raise self.fail("offset", "the linear component cannot be empty (no offset or block bases)")
        for field, bases in (("offset", self.offset_bases), ("block", self.block_bases)):
            for b in bases:
                if len(b) != self.rank:
                    raise self.fail(field, f"basis {list(b)} does not have the rank {self.rank}")
                if sum(1 for c in b if c) > 1:
                    raise self.fail(field, f"each basis must move in at most one dimension, got {list(b)}")
                if any(c and not is_power_of_two(c) for c in b):
                    raise self.fail(field, f"each basis must be 0 or a power of two, got {list(b)}")
        C = self.linear_component()
        if not C.sublayout([OFFSET], C.out_dims).is_injective():
            raise self.fail("offset", "broadcasting in the offset dimension is not supported (the offset bases "
                                      "must be distinct and non-zero)")

    def linear_component(self) -> LinearLayout:
        try:
            return LinearLayout.from_bases([(OFFSET, self.offset_bases), (BLOCK, self.block_bases)],
                                           standard_out_dims(self.rank))
        except LayoutError as e:
            raise self.fail("offset", e.message) from None

    def identity_order_shape(self) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
        """(order, shape) when the offsets are identityStandardND(shape, order) and there are no block
        bases (Triton then prints that short form), else None. The order is Triton's getOrder: dims by
        first appearance in the offset bases, then the rest from rank-1 down."""
        if self.block_bases:
            return None
        C = self.linear_component()
        shape = tuple(s for _, s in C.out_dim_sizes)
        order: list[int] = []
        for b in self.offset_bases:
            d = next((d for d, c in enumerate(b) if c), None)
            if d is not None and d not in order:
                order.append(d)
        order += [d for d in range(self.rank - 1, -1, -1) if d not in order]
        identity = identity_standard_nd(OFFSET, shape, order).transpose_outs(C.out_dims)
        return (tuple(order), shape) if identity.in_bases(OFFSET) == tuple(self.offset_bases) else None

    def check_shape(self, shape: Sequence[int]) -> None:
        super().check_shape(shape)
        sizes = [s for _, s in self.linear_component().out_dim_sizes]
        for d, (want, got) in enumerate(zip(sizes, shape)):
            if want != got:
                raise EncodingError(f"padded_shared: mismatch in expected shape for dimension {d}: the linear "
                                    f"component covers {want}, the shape asks for {got}", field="shape")

    def to_linear_layout(self, shape: Sequence[int]) -> PaddedLayout:  # type: ignore[override]
        return PaddedLayout(self.linear_component(), tuple(self.intervals), tuple(self.paddings))
