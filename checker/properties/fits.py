"""fits(S, dtype_bits, capacity_bytes, alignment_bytes): the shared allocation fits.

Definition. One CTA's buffer for S holds n = |offset| elements of
dtype_bits bits; offset i sits in slot phys(i) (`checker.padded`; phys(i) = i unless
padded). The buffer starts at the first multiple of the alignment at or
after base_bytes (alignment 1 when none is required; NVMMA layouts need
128/256/512/1024 bytes for no/32B/64B/128B swizzle, which the caller
passes), so start = ceil(base / a) * a, and slot p covers the bits
[8 start + p b, 8 start + (p + 1) b). The allocation fits when every offset's
bits end by 8 * capacity_bytes:

    for all i < n:  8 start + (phys(i) + 1) b <= 8 capacity.

F2 engine (closed form). phys is strictly increasing, so the last offset
is the extreme one; when it overflows, the witness is the first offset that
does (binary search on the monotone phys). A ``holds`` has no certificate
(`checker.certificate`): it is one comparison of integers on the last offset.

Z3 engine. Find i < n with 8 start + (phys(i) + 1) b > 8 capacity in 64-bit
arithmetic (phys as `smt.physical_offset`).

Replay. Recompute phys(i), the byte range and the comparison on integers.
"""

from __future__ import annotations

from .. import smt
from ..errors import CheckerError
from ..layout import is_power_of_two
from ..limits import MAX_BYTES, MAX_DTYPE_BITS, clip
from ..padded import OFFSET, PaddedLayout
from ..verdict import DEFAULT_ENGINES, Engines
from . import frame
from .result import Counterexample, EngineVerdict, Result, decide

NAME = "fits"


def fits(S, dtype_bits: int, capacity_bytes: int, alignment_bytes: int | None = None, *,
         base_bytes: int = 0, engines: Engines = DEFAULT_ENGINES) -> Result:
    mem = PaddedLayout.of(S)
    _check_int("dtype_bits", dtype_bits, 1)
    _check_int("capacity_bytes", capacity_bytes, 0)
    _check_int("base_bytes", base_bytes, 0)
    align = 1 if alignment_bytes is None else alignment_bytes
    _check_int("alignment_bytes", align, 1)
    if not is_power_of_two(align):
        raise CheckerError(f"alignment must be a power of two, got {align}", field="alignment_bytes")
    start = -(-base_bytes // align) * align
    end_bits = 8 * start + mem.footprint() * dtype_bits
    details = {"elements": mem.offsets, "slots": mem.footprint(), "dtype_bits": dtype_bits,
               "size_bytes": -(-mem.footprint() * dtype_bits // 8), "start_bytes": start,
               "end_bytes": -(-end_bits // 8), "alignment_bytes": align, "capacity_bytes": capacity_bytes}
    geometry = (start, dtype_bits, capacity_bytes)
    return decide(NAME, engines, {"f2": lambda: _f2(mem, *geometry), "z3": lambda: _z3(mem, *geometry)},
                  details=details)


def _check_int(field: str, value, minimum: int) -> None:
    """An integer >= minimum and at most its limit (`checker.limits`: 2^32 bytes, MAX_DTYPE_BITS bits), so
    that both engines' 64-bit arithmetic is exact."""
    maximum = MAX_DTYPE_BITS if field == "dtype_bits" else MAX_BYTES
    if not isinstance(value, int) or isinstance(value, bool) or not minimum <= value <= maximum:
        raise CheckerError(f"must be an integer from {minimum} to {maximum} (the limit), got {clip(value)}",
                           field=field)


def _end_bits(mem: PaddedLayout, i: int, start: int, bits: int) -> int:
    return 8 * start + (mem.phys(i) + 1) * bits


def overflow(mem: PaddedLayout, i: int, start: int, bits: int, capacity: int) -> Counterexample:
    lo = 8 * start + mem.phys(i) * bits
    data = {"offset": i, "slot": mem.phys(i), "element": frame.image(mem.linear, {OFFSET: i}),
            "bit_range": [lo, lo + bits], "capacity_bits": 8 * capacity}

    def check(d) -> bool:
        j = d["offset"]
        return (0 <= j < mem.offsets and mem.phys(j) == d["slot"]
                and d["bit_range"] == [8 * start + mem.phys(j) * bits, _end_bits(mem, j, start, bits)]
                and _end_bits(mem, j, start, bits) > 8 * capacity)

    return Counterexample("out_of_bounds", data, check)


def _f2(mem: PaddedLayout, start: int, bits: int, capacity: int) -> EngineVerdict:
    n = mem.offsets
    if _end_bits(mem, n - 1, start, bits) <= 8 * capacity:
        return EngineVerdict("f2", "holds", explanation=f"{mem.footprint()} slots of {bits} bits from byte {start} "
                                                        f"end by byte {capacity}")
    lo, hi = 0, n - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if _end_bits(mem, mid, start, bits) > 8 * capacity:
            hi = mid
        else:
            lo = mid + 1
    cx = overflow(mem, lo, start, bits, capacity)
    need = -(-_end_bits(mem, n - 1, start, bits) // 8)
    return EngineVerdict("f2", "fails", counterexample=cx,
                         explanation=f"the buffer needs {need} bytes ({mem.footprint()} slots of {bits} bits from "
                                     f"byte {start}), past the {capacity}-byte capacity; the first element past it "
                                     f"is offset {lo} (slot {mem.phys(lo)}, element {frame.show(cx.data['element'])})")


def obligation(mem: PaddedLayout, start: int, bits: int, capacity: int) -> smt.Obligation:
    ob = smt.Obligation(NAME)
    i = ob.var("offset", mem.linear.in_dim_size_log2(OFFSET))
    end = smt.wide(8 * start) + (smt.physical_offset(i, mem) + smt.wide(1)) * smt.wide(bits)
    ob.require(smt.ult(smt.widen(i), smt.wide(mem.offsets)), smt.ugt(end, smt.wide(8 * capacity)))
    return ob


def _z3(mem: PaddedLayout, start: int, bits: int, capacity: int) -> EngineVerdict:
    return smt.verdict(obligation(mem, start, bits, capacity).solve(),
                       holds="no offset ends past the capacity (unsat)",
                       on_sat=lambda v: (overflow(mem, v["offset"], start, bits, capacity),
                                         f"{smt.solver_name()} model: offset {v['offset']} ends past the capacity"))
