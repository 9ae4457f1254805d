"""Deciding one check of a built-in property: a `checker.spec.Check` turned into a call of the proof API.

Each function here is the ``decide`` of a `checker.registry.PROPERTIES`
entry: ``function(check, engines) -> Result`` (`checker.verdict.Engines`). A check carries
its operands as encodings, its shape (the shape it is judged over), an
optional ``layout_shape`` (a spec's "lowered at one shape, judged over
another"), its element width, hardware and parameters. Operands go to
`checker.prove` as encodings, so the API's own normalisation (declared
padding, partitioned layouts, the shared encoding's element width) applies
to specs and TTGIR alike; with a ``layout_shape`` they are lowered there
first. The ``*_obligation`` functions build the SMT obligation
``layoutcheck smt`` writes, from lowered layouts.

A property whose module decides a check itself (without the proof API) names that module in the registry instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from . import prove
from .encodings import lower
from .errors import CheckerError
from .layout import LinearLayout
from .padded import linear_part
from .properties import frame
from .properties import injective as injective_property
from .properties import surjective as surjective_property
from .properties.equivalence import common_dims
from .properties.equivalence import obligation as equivalence_obligation
from .properties.result import Result
from .syntax.mlir_attr import parse_attribute
from .verdict import Engines


def _operand(check: Any, role: str) -> Any:
    """The role's encoding, lowered at the check's layout_shape when it has one."""
    enc = check.operand(role)
    if enc is not None and check.layout_shape:
        return lower(enc, check.layout_shape)
    return enc


def _kw(engines: Engines) -> dict[str, Any]:
    """The public API's keywords for `engines`."""
    return {"engine": engines.choice, "timeout_ms": engines.timeout_ms}


def surjective(check, engines: Engines) -> Result:
    return prove.surjective(check.operand("layout"), check.shape, layout_shape=check.layout_shape,
                            **_kw(engines))


def injective(check, engines: Engines) -> Result:
    return prove.injective(_operand(check, "layout"), check.shape, **_kw(engines))


def injective_up_to_broadcast(check, engines: Engines) -> Result:
    return prove.injective_up_to_broadcast(_operand(check, "layout"), check.shape, **_kw(engines))


def invertible(check, engines: Engines) -> Result:
    return prove.invertible(_operand(check, "layout"), check.shape, **_kw(engines))


def equivalent(check, engines: Engines) -> Result:
    return prove.equivalent(_operand(check, "src"), _operand(check, "dst"), check.shape, **_kw(engines))


def conversion(check, engines: Engines) -> Result:
    return prove.conversion(_operand(check, "src"), _operand(check, "dst"), check.shape, via=_operand(check, "via"),
                            triton=bool(check.param("triton")), **_kw(engines))


def fits(check, engines: Engines) -> Result:
    p = check.param
    if p("kernel_bytes") is not None:       # the whole kernel's budget (checker.ttgir.allocation), a direct check
        return kernel_fits(p("kernel_bytes"), p("capacity_bytes"), p("breakdown") or (), check.hardware,
                           uncertain=p("uncertain") or ())
    return prove.fits(_operand(check, "layout"), check.dtype_bits, p("capacity_bytes"), p("alignment_bytes"),
                      shape=check.shape, base_bytes=p("base_bytes"), **_kw(engines))


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
                                                 f"({len(rows)} buffer{'' if len(rows) == 1 else 's'}), "
                                                 f"within the {capacity}-byte capacity{where}"
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


def bank_conflict_free(check, engines: Engines) -> Result:
    p = check.param
    if p("padded_view"):                     # a view of a padded allocation: its real addresses
        from .properties.padded_views import evaluate_view  # lazy: only views of padded allocations need it
        return evaluate_view(check, engines)
    R, S, shape = _operand(check, "reg"), _operand(check, "shared"), check.shape
    if p("view_of"):
        (R, S), shape = _in_allocation(check), None
    result = prove.bank_conflict_free(R, S, shape, check.dtype_bits, direction=p("direction"), access=p("access"),
                                      model=p("model"), hardware=check.hardware, triton=bool(p("triton")),
                                      **_kw(engines))
    if p("partner") and result.status == "fails" and p("model") in (None, "hardware"):
        _suggest(check, result)
    return result


def _suggest(check, result: Result) -> None:
    """A conflicting access of a local_store / local_load pair: the synthesized shared layout
    (`checker.synthesis.suggestion`), verified on both sides, as ``details["suggestion"]``."""
    from .synthesis import suggestion  # lazy: synthesis loads only when a store/load pair conflicts
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


def aligned_access(check, engines: Engines) -> Result:
    p = check.param
    if p("padded_view"):
        from .properties.padded_views import evaluate_view  # lazy: only views of padded allocations need it
        return evaluate_view(check, engines)
    R, S, shape = _operand(check, "reg"), _operand(check, "shared"), check.shape
    if p("view_of"):
        (R, S), shape = _in_allocation(check), None
    return prove.aligned_access(R, S, shape, check.dtype_bits, direction=p("direction"), hardware=check.hardware,
                                **_kw(engines))


def view_consistent(check, engines: Engines) -> Result:
    p = check.param
    return prove.view_consistent(check.operand("source"), check.operand("view"), p("source_shape"), check.shape,
                                 kind=p("kind"), order=p("order"), **_kw(engines))


def conversion_cost(check, engines: Engines) -> Result:
    """The registry's decide: a spec's or a TTGIR op's check (operands src, dst; dtype; hardware)."""
    return prove.conversion_cost(check.operand("src"), check.operand("dst"), check.shape, check.dtype_bits,
                                 hardware=check.hardware, **_kw(engines))


# ------------------------------------------------------------ SMT obligations (`layoutcheck smt`)


def surjective_obligation(layouts: Sequence[LinearLayout], shape):
    box = frame.shape_map(layouts[0], shape)
    (L,) = frame.align(list(layouts[:1]), box)
    return surjective_property.obligation(L, box)


def injective_obligation(layouts: Sequence[LinearLayout], shape):
    return injective_property.obligation("injective", layouts[0], False)


def injective_up_to_broadcast_obligation(layouts: Sequence[LinearLayout], shape):
    return injective_property.obligation("injective_up_to_broadcast", layouts[0], True)


def equivalent_obligation(layouts: Sequence[LinearLayout], shape):
    A, B = common_dims(layouts[0], layouts[1])
    ranges = (dict(A.out_dim_sizes), dict(B.out_dim_sizes))
    return equivalence_obligation(*frame.align([A, B]), ranges)
