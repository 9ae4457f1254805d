"""A TTGIR access through a view of a padded allocation, judged on its real addresses.

A view (`padded_access.Placement`: a buffer of a multi-buffered allocation, a subslice) of a padded
shared layout M places the view element at offset o (the view at the allocation's origin) at slot
base + phys(o ^ xor). `evaluate_view` lowers the access's register layout R at the access's shape in
the allocation's frame and M at the allocation's shape, builds every placement the view may take
(params ``buffers``, ``slice_starts``) and decides ``aligned_access`` (`aligned`) or
``bank_conflict_free`` (`padded_access`; `bank_conflicts` when M carries no padding) on them.
"""

from __future__ import annotations

from ..encodings import lower
from ..hardware import resolve
from ..layout import LinearLayout
from ..padded import PaddedLayout
from ..verdict import DEFAULT_ENGINES, Engines
from .aligned import aligned_access
from .bank_conflicts import bank_conflict_free
from .padded_access import bank_conflict_free_padded, placements
from .result import Result


def evaluate_view(ob, engines: Engines = DEFAULT_ENGINES) -> Result:
    """A TTGIR access of a padded layout (`checker.ttgir.ops_memory.padded_view`): R lowered at the access's
    shape in the allocation's frame, M at the allocation shape, every placement of the view (params
    ``buffers``, ``slice_starts``); bank_conflict_free or aligned_access on those addresses."""
    p = ob.param
    alloc = list(p("view_of") or ob.shape)
    R = lower(ob.operand("reg"), list(ob.shape))
    mem = PaddedLayout.of(lower(ob.operand("shared"), alloc))
    R = LinearLayout([(d, R.in_bases(d)) for d in R.in_dims], list(zip(mem.linear.out_dims, alloc)))
    starts = p("slice_starts")
    dims = list(mem.linear.out_dims)
    places = placements(mem, int(p("buffers") or 1),
                        [dict(zip(dims, s)) for s in starts] if starts else None)
    hw = resolve(ob.hardware)
    if ob.property == "aligned_access":
        return aligned_access(R, mem, ob.dtype_bits, direction=p("direction"), access=p("access") or "auto",
                              places=places, hardware=hw, engines=engines)
    if not mem.padded:  # no padding after all: the linear layout's own model
        return bank_conflict_free(R, mem.linear, ob.dtype_bits, direction=p("direction"),
                                  access=p("access") or "auto", model=p("model") or "hardware", hardware=hw,
                                  engines=engines)
    return bank_conflict_free_padded(R, mem, ob.dtype_bits, p("direction"), p("access") or "auto",
                                     p("model") or "hardware", hw, engines, places)
