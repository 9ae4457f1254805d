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
from .operands import lowered, operand
from .result import Counterexample, EngineVerdict, Result, run_engines

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
    return run_engines(NAME, engines, {"f2": lambda: _f2(mem, *geometry), "z3": lambda: _z3(mem, *geometry)},
                       details=details)


def judge(layout, dtype_bits: int, capacity_bytes: int, alignment_bytes: int | None = None, *, shape=None,
          base_bytes: int = 0, engines: Engines = DEFAULT_ENGINES) -> Result:
    """A shared layout, or an encoding lowered at `shape`; `alignment_bytes` defaults to the encoding's own
    (Triton's getAlignment)."""
    if alignment_bytes is None and callable(getattr(layout, "alignment", None)):
        alignment_bytes = layout.alignment()
    return fits(lowered(layout, shape), dtype_bits, capacity_bytes, alignment_bytes, base_bytes=base_bytes,
                engines=engines)


def decide(check, engines: Engines) -> Result:
    """A check (`checker.registry`): a spec's buffer (its ``layout`` operand, params ``capacity_bytes``,
    ``alignment_bytes``, ``base_bytes``), or a TTGIR module's whole budget (params ``kernel_bytes``,
    ``breakdown``, ``uncertain``: `kernel_fits`, static) or its whole tensor memory (params ``tmem_columns``,
    ``tmem_size``, ``capacity_columns``, ``tmem_breakdown``: `kernel_tensor_memory_fits`, static)."""
    p = check.param
    if p("tmem_columns") is not None:
        return kernel_tensor_memory_fits(p("tmem_columns"), p("tmem_size"), p("capacity_columns"),
                                         p("tmem_breakdown") or (), check.hardware, uncertain=p("uncertain") or ())
    if p("kernel_bytes") is not None:
        return kernel_fits(p("kernel_bytes"), p("capacity_bytes"), p("breakdown") or (), check.hardware,
                           uncertain=p("uncertain") or ())
    return judge(operand(check, "layout"), check.dtype_bits, p("capacity_bytes"), p("alignment_bytes"),
                 shape=check.shape, base_bytes=p("base_bytes"), engines=engines)


def kernel_fits(total: int, capacity: int, breakdown, hardware=None, uncertain=()) -> Result:
    """The shared memory a whole kernel needs (Triton's allocation: buffers with their live ranges, placed)
    fits the target's capacity. Static: no engines; details hold the breakdown, one entry per buffer: line, op,
    kind (explicit / scratch / virtual), bytes, alignment, offset, what. `uncertain`: why the figure may not be
    Triton's (then it is an estimate, and the message says so)."""
    rows = [{"line": e[0], "op": e[1], "kind": e[2], "bytes": e[3], "alignment": e[4], "offset": e[5],
             "what": e[6]} for e in breakdown]
    details = {"kernel_bytes": total, "capacity_bytes": capacity, "buffers": rows, "exact": not uncertain,
               "explicit_bytes": sum(r["bytes"] for r in rows if r["kind"] == "explicit"),
               "scratch_bytes": max((r["bytes"] for r in rows if r["kind"] == "scratch"), default=0)}
    if uncertain:
        details["uncertain"] = list(uncertain)
    where = f" of {hardware.name}" if hardware is not None else ""
    largest = sorted(rows, key=lambda r: -r["bytes"])[:3]
    parts = ", ".join(f"{r['bytes']} B {r['kind']} at line {r['line']} ({r['op']}"
                      + (f" {r['what']}" if r["what"] else "") + ")" for r in largest)
    needs = "needs" if not uncertain else "needs about"
    caveat = "" if not uncertain else f" (an estimate: {'; '.join(uncertain[:2])}" + \
        (f"; {len(uncertain) - 2} more" if len(uncertain) > 2 else "") + ")"
    if total <= capacity:
        return Result("fits", "holds", {}, None, f"the kernel {needs} {total} bytes of shared memory "
                                                 f"({len(rows)} buffer{'' if len(rows) == 1 else 's'}), "
                                                 f"within the {capacity}-byte capacity{where}"
                                                 f"{caveat}", details)
    return Result("fits", "fails", {}, None, f"the kernel {needs} {total} bytes of shared memory, past the "
                                             f"{capacity}-byte capacity{where}; largest: {parts}{caveat}", details)


def kernel_tensor_memory_fits(columns: int, size: int, capacity: int, breakdown, hardware=None,
                              uncertain=()) -> Result:
    """The tensor memory a whole kernel needs (Triton's TensorMemoryAllocation: each ``ttng.tmem_alloc`` placed
    in the two 64-row halves by 32-bit columns, reusing what ended before it; `checker.ttgir.tmem_allocation`)
    fits the SM's `capacity` columns. Static: no engines. `columns`: the largest column end; `size`: Triton's
    ``metadata.tmem_size`` (the columns rounded up to what tcgen05.alloc asks for); details hold one entry per
    allocation: line, rows, columns, first row, first column, what."""
    rows = [{"line": e[0], "rows": e[1], "columns": e[2], "row": e[3], "column": e[4], "what": e[5]}
            for e in breakdown]
    details = {"tmem_columns": columns, "tmem_size": size, "capacity_columns": capacity, "allocations": rows,
               "exact": not uncertain}
    if uncertain:
        details["uncertain"] = list(uncertain)
    where = f" of {hardware.name}" if hardware is not None else ""
    needs = "needs" if not uncertain else "needs about"
    caveat = "" if not uncertain else f" (an estimate: {'; '.join(uncertain[:2])}" + \
        (f"; {len(uncertain) - 2} more" if len(uncertain) > 2 else "") + ")"
    many = f"{len(rows)} allocation{'' if len(rows) == 1 else 's'}"
    if columns <= capacity:
        return Result("fits", "holds", {}, None, f"the kernel {needs} {columns} columns of tensor memory ({many}; "
                                                 f"Triton allocates {size}), within the {capacity} columns{where}"
                                                 f"{caveat}", details)
    largest = sorted(rows, key=lambda r: -r["columns"])[:3]
    parts = ", ".join(f"{r['rows']}x{r['columns']} at line {r['line']} ({r['what']})" for r in largest)
    return Result("fits", "fails", {}, None, f"the kernel {needs} {columns} columns of tensor memory ({many}), past "
                                             f"the {capacity} columns{where}: Triton refuses to load it "
                                             f"(OutOfResources); largest: {parts}{caveat}", details)


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

    def recompute(d) -> bool:
        j = d["offset"]
        return (0 <= j < mem.offsets and mem.phys(j) == d["slot"]
                and d["bit_range"] == [8 * start + mem.phys(j) * bits, _end_bits(mem, j, start, bits)]
                and _end_bits(mem, j, start, bits) > 8 * capacity)

    return Counterexample("out_of_bounds", data, recompute)


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
