"""An access through a view of a shared allocation, in the allocation's frame.

A TTGIR access often reads or writes a view of its allocation (one buffer of a multi-buffered allocation, a
subslice), whose shape (``check.shape``) is not the allocation's (param ``view_of``). The view starts at a
multiple of its shape, so its offsets are the allocation's XOR one constant:

- a linear allocation (`access_operands`): R's coordinates are read in the allocation's frame, which keeps which
  accesses share a word and a bank;
- a padded allocation M (`padded_view`, param ``padded_view``): the view element at offset o (the view at the
  allocation's origin) sits at slot base + phys(o ^ xor); every placement the view may take (params
  ``buffers``, ``slice_starts``) is built, and the access is judged on those real addresses.

`bank_conflicts.decide` and `aligned.decide` read their operands through these.
"""

from __future__ import annotations

from typing import Any

from ..encodings import lower
from ..hardware import Hardware, resolve
from ..layout import LinearLayout
from ..padded import PaddedLayout, linear_part
from .operands import operand


def _in_frame(R: LinearLayout, dims, alloc) -> LinearLayout:
    """R with its out-dims renamed to the allocation's and sized as the allocation."""
    return LinearLayout([(d, R.in_bases(d)) for d in R.in_dims], list(zip(dims, alloc)))


def access_operands(check: Any) -> tuple[Any, Any, Any]:
    """R, S and the shape to lower them at, for an access of a linear allocation: the check's operands (lowered
    at its ``layout_shape`` when it has one) and shape, or, through a sub-tile view (``view_of``: the
    allocation's shape), R in the allocation's frame and S at the allocation's shape, both lowered."""
    if not check.param("view_of"):
        return operand(check, "reg"), operand(check, "shared"), check.shape
    R, S = lower(check.operand("reg"), check.shape), lower(check.operand("shared"), check.param("view_of"))
    return _in_frame(R, linear_part(S).out_dims, check.param("view_of")), S, None


def padded_view(check: Any) -> tuple[LinearLayout, PaddedLayout, tuple, Hardware]:
    """R lowered at the access's shape in the allocation's frame, M at the allocation's shape, every placement
    of the view (`padded_access.Placement`s), and the target."""
    from .padded_access import placements  # lazy: only views of padded allocations load the padded model
    p = check.param
    alloc = list(p("view_of") or check.shape)
    mem = PaddedLayout.of(lower(check.operand("shared"), alloc))
    R = _in_frame(lower(check.operand("reg"), list(check.shape)), mem.linear.out_dims, alloc)
    starts = p("slice_starts")
    dims = list(mem.linear.out_dims)
    places = placements(mem, int(p("buffers") or 1), [dict(zip(dims, s)) for s in starts] if starts else None)
    return R, mem, places, resolve(check.hardware)
