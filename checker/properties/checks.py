"""Deciding one check of a built-in property: a `checker.spec.Check` turned into a call of the proof API.

Each function here is the ``decide`` of a `checker.properties.PROPERTIES`
entry: ``function(check, engine, timeout_ms) -> Result``. A check carries
its operands as encodings, its shape (the shape it is judged over), an
optional ``layout_shape`` (a spec's "lowered at one shape, judged over
another"), its element width, hardware and parameters. Operands go to
`checker.prove` as encodings, so the API's own normalisation (declared
padding, partitioned layouts, the shared encoding's element width) applies
to specs and TTGIR alike; with a ``layout_shape`` they are lowered there
first. The ``*_obligation`` functions build the SMT obligation
``layoutcheck smt`` writes, from lowered layouts.

A property added later may keep its ``decide`` in its own module instead.
"""

from __future__ import annotations

from typing import Any, Sequence

from ..encodings import lower
from ..layout import LinearLayout
from ..padded import linear_part
from .result import Result


def _operand(check: Any, role: str) -> Any:
    """The role's encoding, lowered at the check's layout_shape when it has one."""
    enc = check.operand(role)
    if enc is not None and check.layout_shape:
        return lower(enc, check.layout_shape)
    return enc


def _kw(engine: str, timeout_ms: int | None) -> dict[str, Any]:
    return {"engine": engine, "timeout_ms": timeout_ms}


def surjective(check, engine, timeout_ms) -> Result:
    from .. import prove
    return prove.surjective(check.operand("layout"), check.shape, layout_shape=check.layout_shape,
                            **_kw(engine, timeout_ms))


def injective(check, engine, timeout_ms) -> Result:
    from .. import prove
    return prove.injective(_operand(check, "layout"), check.shape, **_kw(engine, timeout_ms))


def injective_up_to_broadcast(check, engine, timeout_ms) -> Result:
    from .. import prove
    return prove.injective_up_to_broadcast(_operand(check, "layout"), check.shape, **_kw(engine, timeout_ms))


def invertible(check, engine, timeout_ms) -> Result:
    from .. import prove
    return prove.invertible(_operand(check, "layout"), check.shape, **_kw(engine, timeout_ms))


def equivalent(check, engine, timeout_ms) -> Result:
    from .. import prove
    return prove.equivalent(_operand(check, "src"), _operand(check, "dst"), check.shape, **_kw(engine, timeout_ms))


def conversion(check, engine, timeout_ms) -> Result:
    from .. import prove
    return prove.conversion(_operand(check, "src"), _operand(check, "dst"), check.shape, via=_operand(check, "via"),
                            triton=bool(check.param("triton")), **_kw(engine, timeout_ms))


def fits(check, engine, timeout_ms) -> Result:
    from .. import prove
    p = check.param
    if p("kernel_bytes") is not None:       # the whole kernel's budget (checker.ttgir.allocation), a direct check
        return kernel_fits(p("kernel_bytes"), p("capacity_bytes"), p("breakdown") or (), check.hardware,
                           uncertain=p("uncertain") or ())
    return prove.fits(_operand(check, "layout"), check.dtype_bits, p("capacity_bytes"), p("alignment_bytes"),
                      shape=check.shape, base_bytes=p("base_bytes"), **_kw(engine, timeout_ms))


def kernel_fits(total: int, capacity: int, breakdown, hardware=None, uncertain=()) -> Result:
    """The shared memory a whole kernel needs (Triton's allocation: buffers with their live ranges,
    placed) fits the target's capacity. Static: no engines; details hold the breakdown, one entry per
    buffer: line, op, kind (explicit / scratch / virtual), bytes, alignment, offset, what. `uncertain`: why the
    figure may not be Triton's (then it is an estimate, and the message says so)."""
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
                                                 f"({len(rows)} buffer{'' if len(rows) == 1 else 's'}), within the {capacity}-byte "
                                                 f"capacity{where}"
                                                 f"{caveat}", details)
    return Result("fits", "fails", {}, None, f"the kernel {needs} {total} bytes of shared memory, past the "
                                             f"{capacity}-byte capacity{where}; largest: {parts}{caveat}", details)


def _in_allocation(check) -> tuple[LinearLayout, Any]:
    """R and S of an access through a sub-tile view (``view_of``: the allocation's shape): R's coordinates
    are read in the allocation's frame (the view starts at a multiple of its shape, so its offsets are the
    allocation's XOR one constant, which keeps which accesses share a word and a bank)."""
    R, S = lower(check.operand("reg"), check.shape), lower(check.operand("shared"), check.param("view_of"))
    R = LinearLayout([(d, R.in_bases(d)) for d in R.in_dims],
                     list(zip(linear_part(S).out_dims, check.param("view_of"))))
    return R, S


def bank_conflict_free(check, engine, timeout_ms) -> Result:
    from .. import prove
    p = check.param
    if p("padded_view"):                     # a view of a padded allocation: its real addresses
        from .padded_access import evaluate_view
        return evaluate_view(check, **_kw(engine, timeout_ms))
    R, S, shape = _operand(check, "reg"), _operand(check, "shared"), check.shape
    if p("view_of"):
        (R, S), shape = _in_allocation(check), None
    result = prove.bank_conflict_free(R, S, shape, check.dtype_bits, direction=p("direction"), access=p("access"),
                                      model=p("model"), hardware=check.hardware, triton=bool(p("triton")),
                                      **_kw(engine, timeout_ms))
    if p("partner") and result.status == "fails" and p("model") in (None, "hardware"):
        _suggest(check, result)
    return result


def _suggest(check, result: Result) -> None:
    """A conflicting access of a local_store / local_load pair: the synthesized shared layout
    (`checker.synthesis.suggestion`), verified on both sides, as ``details["suggestion"]``."""
    from ..errors import CheckerError
    from ..syntax.mlir_attr import parse_attribute
    from ..synthesis import suggestion
    p = check.param
    try:
        R = lower(check.operand("reg"), check.shape)
        partner = lower(parse_attribute(p("partner")), check.shape)
        got = suggestion(R, partner, lower(check.operand("shared"), check.shape), check.dtype_bits,
                         check.hardware, p("direction") or "store", p("access") or "auto",
                         p("partner_access") or "auto", current=check.operand("shared"))
    except CheckerError:
        return
    if got is not None:
        result.details["suggestion"] = got


def aligned_access(check, engine, timeout_ms) -> Result:
    from .. import prove
    p = check.param
    if p("padded_view"):
        from .padded_access import evaluate_view
        return evaluate_view(check, **_kw(engine, timeout_ms))
    R, S, shape = _operand(check, "reg"), _operand(check, "shared"), check.shape
    if p("view_of"):
        (R, S), shape = _in_allocation(check), None
    return prove.aligned_access(R, S, shape, check.dtype_bits, direction=p("direction"), hardware=check.hardware,
                                **_kw(engine, timeout_ms))


def well_formed(check, engine, timeout_ms) -> Result:
    from .well_formed import well_formed as decide
    p = check.param
    return decide(check.operand("layout"), check.shape, lanes=p("threads_per_warp"), warps=p("warps") or (),
                  ctas=p("num_ctas"))


def dot_operands(check, engine, timeout_ms) -> Result:
    from .well_formed import dot_operands as decide
    p = check.param
    return decide(check.operand("a"), check.operand("b"), check.operand("acc"), p("a_shape"), p("b_shape"),
                  check.shape)


def view_consistent(check, engine, timeout_ms) -> Result:
    from .. import prove
    p = check.param
    return prove.view_consistent(check.operand("source"), check.operand("view"), p("source_shape"), check.shape,
                                 kind=p("kind"), order=p("order"), **_kw(engine, timeout_ms))


# ------------------------------------------------------------ SMT obligations (`layoutcheck smt`)


def surjective_obligation(layouts: Sequence[LinearLayout], shape):
    from . import frame
    from .surjective import obligation
    box = frame.shape_map(layouts[0], shape)
    (L,) = frame.align(list(layouts[:1]), box)
    return obligation(L, box)


def injective_obligation(layouts: Sequence[LinearLayout], shape):
    from .injective import obligation
    return obligation("injective", layouts[0], False)


def injective_up_to_broadcast_obligation(layouts: Sequence[LinearLayout], shape):
    from .injective import obligation
    return obligation("injective_up_to_broadcast", layouts[0], True)


def equivalent_obligation(layouts: Sequence[LinearLayout], shape):
    from . import frame
    from .equivalence import common_dims, obligation
    A, B = common_dims(layouts[0], layouts[1])
    ranges = (dict(A.out_dim_sizes), dict(B.out_dim_sizes))
    return obligation(*frame.align([A, B]), ranges)
