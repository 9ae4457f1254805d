"""Shared memory with padding: `PaddedLayout`, the one type, and `phys`, the one formula.

A shared layout maps a hardware index ``(offset, block)`` to a tensor
coordinate: its LinearLayout S (the *linear component*). Each CTA
(``block``) has its own buffer; offset i of it lives in *slot* phys(i):

* a linear shared layout: no pairs, phys(i) = i;
* a padded shared layout (Triton's ``padded_shared``: pairs (interval I_k,
  padding P_k), powers of two): after every I_k elements P_k empty slots are
  inserted, so

      phys(i) = i + sum_k (i >> log2 I_k) << log2 P_k

  (Triton's ``applyPadding``; the pairs add up). phys is not linear over
  GF(2): it adds. It is strictly increasing (every term is non-decreasing in
  i and the first is i), hence injective. One CTA's buffer spans
  phys(n - 1) + 1 slots for n offsets (Triton's ``getPaddedSize``); the
  slots below that no offset uses are the *padding holes*.

`phys` is written once, over anything with ``>>``, ``<<`` and ``+``: Python
integers here, Z3 bit-vectors in `checker.smt` (which passes a logical
shift), so the lowering, the properties, the SMT encoding and the figures
all use this definition.

Byte addresses: Triton applies the padding to byte offsets with interval
and padding scaled by the element size e, and phys_bytes(e * i) = e * phys(i)
for powers of two, so the byte address of offset i is e * phys(i).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

from .errors import LayoutError
from .layout import LayoutDict, LinearLayout, is_power_of_two, log2

OFFSET = "offset"

_Offset = TypeVar("_Offset", bound="_Shiftable")
_T = TypeVar("_T")


class _Shiftable(Protocol):
    """What `phys` computes with: an int, or a Z3 bit-vector."""

    def __add__(self: _Offset, other: _Offset, /) -> _Offset: ...
    def __lshift__(self: _Offset, other: int, /) -> _Offset: ...


class PaddedLayoutDict(LayoutDict):
    """`PaddedLayout.to_dict`: the linear component's `LayoutDict` and the (interval, padding) pairs."""

    intervals: list[int]
    paddings: list[int]


def phys(i: _Offset, shifts: Sequence[tuple[int, int]],
         shr: Callable[[_Offset, int], _Offset] = operator.rshift) -> _Offset:
    """The physical offset of offset i: i + sum_k (i >> s_k) << t_k with (s_k, t_k) = (log2 I_k, log2 P_k).
    `shr` is the logical right shift of i's type (Python's >> for integers)."""
    total = i
    for s, t in shifts:
        total = total + (shr(i, s) << t)
    return total


@dataclass(frozen=True)
class PaddedLayout:
    """A shared layout with its padding: the linear component and the (interval, padding) pairs.

    No pairs is a plain linear shared layout (phys(i) = i); `of` accepts either form.
    """

    linear: LinearLayout
    intervals: tuple[int, ...] = ()
    paddings: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "intervals", tuple(int(v) for v in self.intervals))
        object.__setattr__(self, "paddings", tuple(int(v) for v in self.paddings))
        if not isinstance(self.linear, LinearLayout):
            raise LayoutError(f"a padded layout's linear component must be a LinearLayout, "
                              f"got {type(self.linear).__name__}")
        if not self.linear.has_in_dim(OFFSET):
            raise LayoutError(f"a shared layout needs an 'offset' in-dim (in-dims {list(self.linear.in_dims)})")
        if len(self.intervals) != len(self.paddings):
            raise LayoutError(f"padded layout: {len(self.intervals)} intervals but {len(self.paddings)} paddings")
        for v in self.intervals + self.paddings:
            if not is_power_of_two(v):
                raise LayoutError(f"padded layout: intervals and paddings must be powers of two, got {v}")

    @classmethod
    def of(cls, layout: object) -> PaddedLayout:
        """A PaddedLayout as is; a shared LinearLayout as one without padding."""
        if isinstance(layout, PaddedLayout):
            return layout
        if isinstance(layout, LinearLayout):
            return cls(layout)
        raise LayoutError(f"expected a shared LinearLayout or padded layout, got {type(layout).__name__}")

    @property
    def padded(self) -> bool:
        return bool(self.intervals)

    @property
    def shifts(self) -> tuple[tuple[int, int], ...]:
        """(log2 interval, log2 padding) per pair."""
        return tuple((log2(i), log2(p)) for i, p in zip(self.intervals, self.paddings))

    @property
    def min_interval(self) -> int | None:
        return min(self.intervals) if self.intervals else None

    @property
    def offsets(self) -> int:
        """Offsets (elements, before padding) of one CTA's buffer."""
        return self.linear.in_dim_size(OFFSET)

    def phys(self, i: int) -> int:
        """phys(i) (module docstring), unchecked."""
        return phys(i, self.shifts)

    def physical_offset(self, i: int) -> int:
        """phys(i) for an offset i of the buffer."""
        if not 0 <= i < self.offsets:
            raise LayoutError(f"offset {i} is out of range [0, {self.offsets})")
        return self.phys(i)

    def footprint(self) -> int:
        """Slots (elements, padding included) one CTA's buffer spans: phys(n - 1) + 1."""
        return self.phys(self.offsets - 1) + 1

    def unpadded(self, p: int) -> int | None:
        """The offset stored at slot p (None: a padding hole or past the buffer); phys is increasing."""
        lo, hi = 0, self.offsets - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            lo, hi = (mid, hi) if self.phys(mid) <= p else (lo, mid - 1)
        return lo if self.phys(lo) == p else None

    def hole_ranges(self) -> list[tuple[int, int]]:
        """The padding holes as [start, stop) slot ranges, ascending: after offset i (i + 1 a multiple
        of the smallest interval) the slots phys(i) + 1 .. phys(i + 1) - 1."""
        step = self.min_interval
        if step is None:
            return []
        out = []
        for i in range(step - 1, self.offsets - 1, step):
            a, b = self.phys(i) + 1, self.phys(i + 1)
            if b > a:
                out.append((a, b))
        return out

    def padding_holes(self) -> tuple[int, ...]:
        """The physical slots below the footprint that no offset uses, ascending."""
        return tuple(p for a, b in self.hole_ranges() for p in range(a, b))

    def to_dict(self) -> PaddedLayoutDict:
        return {**self.linear.to_dict(), "intervals": list(self.intervals), "paddings": list(self.paddings)}


def linear_part(layout: PaddedLayout | _T) -> LinearLayout | _T:
    """A padded layout's linear component; anything else as is."""
    return layout.linear if isinstance(layout, PaddedLayout) else layout
