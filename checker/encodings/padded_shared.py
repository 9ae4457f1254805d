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

A short form of one element per CTA (``{order = [0, 1, 2], shape = [1, 1,
1]}``, or Gluon's ``shape=[1, 1, 1]`` with no offset bases) is a C of no
bases over ``rank`` dims of size 1, which Triton accepts (its verifier
refuses only the layout of no dims at all); the long form with no bases
(``{offset = [], block = []}``) has no dims and is refused ("Empty Layout
not supported" from Triton 3.9's parser). Its rank is kept by
`PaddedSharedPointEncoding`; `padded_shared` builds the right class.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..layout import LinearLayout, axis_bases, is_power_of_two, log2
from ..padded import PaddedLayout
from .base import (
    BASES,
    BLOCK,
    INT,
    INTS,
    OFFSET,
    Bases,
    SharedEncoding,
    bases_extent,
    bases_rank,
    order_by_first_appearance,
    param,
    require_stored_shape,
    stored_layout,
)


def identity_offsets(shape: Sequence[int], order: Sequence[int]) -> Bases:
    """The offset bases of identityStandardND(offset, shape, order) in tensor coordinates: `shape` enumerated
    along order[0] first (the short form ``{order = [..], shape = [..]}``)."""
    return tuple(b for d in order for b in axis_bases(len(shape), d, shape[d]))


@dataclass(frozen=True)
class PaddedSharedEncoding(SharedEncoding):
    kind = "padded_shared"

    intervals: tuple[int, ...] = param("intervals", INTS, gluon=None)     # Gluon: interval_padding_pairs
    paddings: tuple[int, ...] = param("paddings", INTS, gluon=None)
    offset_bases: Bases = param("offset", BASES)
    block_bases: Bases = param("block", BASES, default=(), gluon=None)   # Gluon: cga_layout, per CTA

    @property
    def rank(self) -> int:
        return bases_rank(self.offset_bases, self.block_bases)

    @classmethod
    def with_cga(cls, intervals: Sequence[int], paddings: Sequence[int], offset_bases: Bases,
                 cga_layout: Bases, rank: int = 0) -> PaddedSharedEncoding:
        """The encoding of a CGA layout given relative to one CTA's offsets (Gluon's form): the block bases
        are its bases scaled by the offsets' extent, as the product LL(offset) * LL(block) does. `rank`
        (Gluon's ``len(shape)``) serves when there are no bases at all."""
        sizes = bases_extent(offset_bases, bases_rank(offset_bases, cga_layout))
        blocks = tuple(tuple(c * s for c, s in zip(b, sizes)) for b in cga_layout)
        return padded_shared(intervals, paddings, offset_bases, blocks, rank)

    @property
    def cga_layout(self) -> Bases:
        """The block bases relative to one CTA's extent (Triton's CGA layout of the linear component)."""
        sizes = bases_extent(self.offset_bases, self.rank)
        return tuple(tuple(c >> log2(s) for c, s in zip(b, sizes)) for b in self.block_bases)

    def validate(self) -> None:
        self.validate_pairs()
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

    def validate_pairs(self) -> None:
        """As many intervals as paddings, at least one pair, powers of two, no interval twice."""
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

    def linear_component(self) -> LinearLayout:
        return stored_layout(self, [(OFFSET, self.offset_bases), (BLOCK, self.block_bases)], "offset")

    def identity_order_shape(self) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
        """(order, shape) when the offsets are identityStandardND(shape, order) and there are no block
        bases (Triton then prints that short form), else None. The order is Triton's getOrder: dims by
        first appearance in the offset bases, then the rest from rank-1 down. Read off the bases alone,
        so an encoding not validated yet has an answer too."""
        if self.block_bases:
            return None
        shape = tuple(bases_extent(self.offset_bases, self.rank))
        order = tuple(order_by_first_appearance(self.offset_bases, self.rank))
        return (order, shape) if identity_offsets(shape, order) == tuple(map(tuple, self.offset_bases)) else None

    def check_shape(self, shape: Sequence[int]) -> None:
        super().check_shape(shape)
        require_stored_shape(self, [s for _, s in self.linear_component().out_dim_sizes], shape,
                             "the linear component covers")

    def to_linear_layout(self, shape: Sequence[int]) -> PaddedLayout:  # type: ignore[override]
        return PaddedLayout(self.linear_component(), tuple(self.intervals), tuple(self.paddings))


@dataclass(frozen=True)
class PaddedSharedPointEncoding(PaddedSharedEncoding):
    """A linear component of no bases over `dims` dims of size 1: one element per CTA (the short form
    ``{order = [..], shape = [1, .., 1]}``). Triton's LinearLayout keeps those out dims; a value with no
    bases has no other way to say its rank."""

    dims: int = param("rank", INT, default=1, gluon=None)

    @property
    def rank(self) -> int:
        return self.dims

    def validate(self) -> None:
        self.validate_pairs()
        if self.offset_bases or self.block_bases or self.dims < 1:
            raise self.fail("offset", "a point layout has no bases and at least one dim")


def padded_shared(intervals: Sequence[int], paddings: Sequence[int], offset_bases: Bases, block_bases: Bases = (),
                  rank: int = 0) -> PaddedSharedEncoding:
    """The padded encoding of these bases; with none and a `rank` (a short form's, Gluon's shape), the point
    layout of that rank (`PaddedSharedPointEncoding`)."""
    intervals, paddings = tuple(intervals), tuple(paddings)
    offset_bases, block_bases = tuple(map(tuple, offset_bases)), tuple(map(tuple, block_bases))
    if rank and not offset_bases and not block_bases:
        return PaddedSharedPointEncoding(intervals, paddings, (), (), rank)
    return PaddedSharedEncoding(intervals, paddings, offset_bases, block_bases)


@dataclass(frozen=True)
class PaddedSharedOrderEncoding(PaddedSharedEncoding):
    """Triton 3.5's ``#ttg.padded_shared<[I:+P, ...] {order = [..]}>`` (PR #7929 added ``shape`` and the
    linear form in 3.6): no bases of its own; at a shape its linear component is identityStandardND(shape,
    order), the short form's offsets, so each use lowers as `at` that shape."""

    order: tuple[int, ...] = param("order", INTS, default=(), gluon=None)

    @property
    def rank(self) -> int:
        return len(self.order)

    def validate(self) -> None:
        self.validate_pairs()
        if sorted(self.order) != list(range(len(self.order))) or not self.order:
            raise self.fail("order", f"must be a permutation of 0..{len(self.order) - 1}, got {list(self.order)}")

    def at(self, shape: Sequence[int]) -> PaddedSharedEncoding:
        """The encoding Triton 3.6 and later write for this one at `shape`."""
        return PaddedSharedEncoding(self.intervals, self.paddings, identity_offsets(shape, self.order), ())

    def identity_order_shape(self) -> None:
        return None

    def check_shape(self, shape: Sequence[int]) -> None:
        SharedEncoding.check_shape(self, shape)

    def to_linear_layout(self, shape: Sequence[int]) -> PaddedLayout:  # type: ignore[override]
        return self.at(shape).to_linear_layout(shape)
