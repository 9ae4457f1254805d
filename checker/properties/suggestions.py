"""What to write instead: a fix added to a failing check's result (a registry entry's ``suggest``).

`shared_layout`: a conflicting access of a TTGIR local_store / local_load pair (param ``partner``: the other
side's register layout) gets the shared layout `checker.synthesis` synthesizes for both sides, verified on
both, as ``details["suggestion"]``. Only the hardware model's failures get one: Triton's own count is a
figure to compare, not a cost to fix.
"""

from __future__ import annotations

from typing import Any

from ..encodings import lower
from ..errors import CheckerError
from ..padded import linear_part
from ..syntax.mlir_attr import parse_attribute
from .result import Result


def shared_layout(check: Any, result: Result) -> None:
    """Adds ``details["suggestion"]`` to a failing bank_conflict_free result of a store/load pair; a pair the
    synthesis cannot lower or score gets none."""
    p = check.param
    if not p("partner") or p("model") not in (None, "hardware") or result.details.get("kept_single"):
        return          # (a read LLVM keeps single for a loop's MFMA/WMMA: the synthesis scores fused pairs)
    from ..synthesis import suggestion  # lazy: synthesis loads only when a store/load pair conflicts
    try:
        R = linear_part(lower(check.operand("reg"), check.shape))          # register layouts: linear
        partner = linear_part(lower(parse_attribute(p("partner")), check.shape))
        got = suggestion(R, partner, lower(check.operand("shared"), check.shape), check.dtype_bits,
                         check.hardware, p("direction") or "store", p("access") or "auto",
                         p("partner_access") or "auto", current=check.operand("shared"))
    except CheckerError:
        return
    if got is not None:
        result.details["suggestion"] = got
