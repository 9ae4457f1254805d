"""Shared memory as the properties see it: offsets -> elements, and offsets -> slots.

A shared layout maps a hardware index ``(offset, block)`` to a tensor
coordinate: that is its LinearLayout S. Each CTA (``block``) has its own
buffer; offset i of it lives in *slot* phys(i) of that buffer:

* a linear shared layout: phys(i) = i;
* a padded shared layout (Triton's ``padded_shared``: a linear component
  plus pairs (interval I_k, padding P_k), powers of two): after every I_k
  elements P_k empty slots are inserted, so

      phys(i) = i + sum_k (i >> log2 I_k) << log2 P_k,

  which is not linear over GF(2). The buffer ends after the last element's
  slot: Triton's ``getPaddedSize`` = phys(n - 1) + 1 for n elements.

phys is strictly increasing (every term is non-decreasing in i and the
first one is i), hence injective: distinct offsets never share a slot.
A padded layout arrives as any object with ``linear`` (its LinearLayout),
``intervals`` and ``paddings``.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import LayoutError
from ..layout import LinearLayout, is_power_of_two, log2

OFFSET = "offset"


@dataclass(frozen=True)
class SharedMemory:
    linear: LinearLayout
    intervals: tuple[int, ...] = ()
    paddings: tuple[int, ...] = ()

    @classmethod
    def of(cls, layout) -> "SharedMemory":
        if isinstance(layout, SharedMemory):
            return layout
        if isinstance(layout, LinearLayout):
            mem = cls(layout)
        elif isinstance(getattr(layout, "linear", None), LinearLayout):
            mem = cls(layout.linear, tuple(int(v) for v in layout.intervals), tuple(int(v) for v in layout.paddings))
        else:
            raise LayoutError(f"expected a shared LinearLayout or padded layout, got {type(layout).__name__}")
        if not mem.linear.has_in_dim(OFFSET):
            raise LayoutError(f"a shared layout needs an 'offset' in-dim (in-dims {list(mem.linear.in_dims)})")
        if len(mem.intervals) != len(mem.paddings):
            raise LayoutError(f"padded layout: {len(mem.intervals)} intervals but {len(mem.paddings)} paddings")
        for v in mem.intervals + mem.paddings:
            if not is_power_of_two(v):
                raise LayoutError(f"padded layout: intervals and paddings must be powers of two, got {v}")
        return mem

    @property
    def padded(self) -> bool:
        return bool(self.intervals)

    @property
    def offsets(self) -> int:
        """Offsets (elements) per CTA buffer."""
        return self.linear.in_dim_size(OFFSET)

    def slot(self, i: int) -> int:
        return i + sum((i >> log2(iv)) << log2(pad) for iv, pad in zip(self.intervals, self.paddings))

    @property
    def slots(self) -> int:
        """Slots per CTA buffer: phys(n - 1) + 1."""
        return self.slot(self.offsets - 1) + 1
