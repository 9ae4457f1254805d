"""surjective(L, shape): every coordinate inside the shape is held by some hardware index.

Definition. For the box B = {c : c_d < shape_d for every out-dim d}
(default shape: L's out sizes), for every c in B there is an index x with
L(x) = c. A layout lowered at another shape than the one it is judged over
(a spec's ``layout_shape``; `checker.prove.surjective`'s ``layout_shape=``)
is judged over B alone: coordinates of L outside B do not count, they are
neither required nor a failure, and an index holding one is not folded onto
B (for the layout Triton builds at the tensor's shape, lower it there).
``details["layout_shape"]`` records L's own out sizes when they are not B.
Shapes are powers of two, so B is the span of the unit vectors e_k of its
coordinate bits, and the image U = span(columns of L) is a
subspace: the property is B ⊆ U.

F2 engine. B ⊆ U iff every e_k of B lies in U; the witness is the first
e_k outside U. A ``holds`` carries a certificate (`checker.certificate`,
``spanning``): for each e_k of B, the in-bits whose columns XOR to it.
A failure's certificate is a functional w in U^⊥ (w·L(e_j) = 0 for
every in-bit j) with w·c = 1; one exists because c ∉ U = (U^⊥)^⊥.

Z3 engine. Find c in B outside U (`smt.outside_span`, quantifier-free):
where every column of L has at most one set bit, c with a set bit that no
column sets (w: the lowest such bit); otherwise c and w with w·L(e_j) = 0
for every in-bit j and w·c = 1.

Replay. c is inside the shape; for every single-bit index e_j,
parity(w & L(e_j)) = 0 by `LinearLayout.apply`; parity(w & c) = 1. Then
w·L(x) = 0 ≠ w·c for every x: nobody holds c.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .. import f2, smt
from ..errors import CheckerError, InternalError
from ..layout import LinearLayout, log2
from ..verdict import DEFAULT_ENGINES, Engines
from . import certify, frame
from .operands import linear, shape_text
from .result import Counterexample, EngineVerdict, Result, run_engines

NAME = "surjective"


def surjective(L: LinearLayout, shape: Sequence[int] | Mapping[str, int] | None = None, *,
               engines: Engines = DEFAULT_ENGINES) -> Result:
    box = frame.shape_map(L, shape)
    (A,) = frame.align([L], box)
    details = {"rank": L.rank(), "in_bits": L.total_in_size_log2, "out_bits": L.total_out_size_log2,
               "shape": box}
    if box != dict(L.out_dim_sizes):
        details["layout_shape"] = dict(L.out_dim_sizes)
    return run_engines(NAME, engines, {"f2": lambda: f2_verdict(A, box), "z3": lambda: z3_verdict(A, box)},
                       details=details, certified=True)


def judge(layout, shape=None, *, layout_shape=None, engines: Engines = DEFAULT_ENGINES) -> Result:
    """The property of a layout or an encoding, as `checker.prove.surjective` takes it: an encoding is lowered
    at `layout_shape` (default: `shape`) and judged over `shape`; coordinates outside `shape` do not count. A
    LinearLayout's own out sizes are its layout shape: judging it over another `shape` needs `layout_shape`
    equal to them, so that it is never done by accident."""
    L = linear(layout, layout_shape if layout_shape is not None else shape)
    own = dict(L.out_dim_sizes)
    if layout_shape is not None and frame.shape_map(L, layout_shape) != own:
        raise CheckerError(f"layout_shape {shape_text(layout_shape)} is not the layout's own shape "
                           f"{shape_text(own)}", field="layout_shape")
    if shape is not None and layout_shape is None and frame.shape_map(L, shape) != own:
        raise CheckerError(f"the layout is lowered at {shape_text(own)} but the shape is {shape_text(shape)}: "
                           f"judging a layout over another shape than its own needs layout_shape="
                           f"{shape_text(own)}", field="shape")
    return surjective(L, shape, engines=engines)


def decide(check, engines: Engines) -> Result:
    """A check (`checker.registry`): its ``layout`` operand, lowered at its ``layout_shape``, over its shape."""
    return judge(check.operand("layout"), check.shape, layout_shape=check.layout_shape, engines=engines)


def smt_obligation(layouts, shape) -> smt.Obligation:
    """What ``layoutcheck smt surjective`` writes: the obligation of the first layout over `shape`."""
    box = frame.shape_map(layouts[0], shape)
    (L,) = frame.align(list(layouts[:1]), box)
    return obligation(L, box)


def missing_coordinate(L: LinearLayout, packed: int, w: int, box: Mapping[str, int],
                       what: str = "the layout") -> Counterexample:
    """Coordinate `packed` of L's frame, nobody holds it; w certifies that."""
    data = {"coordinate": frame.coordinate(L, packed), "certificate": w}

    def recompute(d) -> bool:
        c = d["coordinate"]
        if any(not 0 <= c[n] < box.get(n, s) for n, s in L.out_dim_sizes):
            return False
        return certifies_outside(L, L.pack_out([c[n] for n in L.out_dims]), d["certificate"])

    return Counterexample("missing_coordinate", data, recompute)


def certifies_outside(L: LinearLayout, packed: int, w: int, dims: Sequence[str] | None = None) -> bool:
    """w proves `packed` is not L(x) for any x supported on `dims` (all in-dims by default):
    w·L(e_j) = 0 for each single-bit index e_j there, and w·packed = 1 (plain arithmetic)."""
    return (all(frame.parity(w & v) == 0 for v in frame.unit_images(L, dims))
            and frame.parity(w & packed) == 1)


def separating_functional(columns: Sequence[int], target: int, nbits: int) -> int:
    """A w with w·col = 0 for every column and w·target = 1 (target outside their span)."""
    rows = [sum(1 << j for j, c in enumerate(columns) if c >> i & 1) for i in range(nbits)]
    for w in f2.nullspace(rows):
        if frame.parity(w & target):
            return w
    raise InternalError(f"separating_functional: {target:#x} lies in the span of the columns")


def _box_units(L: LinearLayout, box: Mapping[str, int]) -> list[int]:
    units, shift = [], 0
    for n, size in L.out_dim_sizes:
        units.extend(1 << (shift + k) for k in range(log2(min(size, box[n]))))
        shift += log2(size)
    return units


def f2_verdict(L: LinearLayout, box: Mapping[str, int]) -> EngineVerdict:
    cols = L.columns
    e = f2.first_outside_span(_box_units(L, box), cols)
    if e is not None:
        w = separating_functional(cols, e, L.total_out_size_log2)
        c = frame.coordinate(L, e)
        why = (f"coordinate {frame.show(c)} is held by no hardware index: the bases span only "
               f"{L.rank()} of the {len(_box_units(L, box))} coordinate bits of the shape "
               f"{frame.show(box)}")
        return EngineVerdict("f2", "fails", counterexample=missing_coordinate(L, e, w, box), explanation=why)
    return EngineVerdict("f2", "holds", explanation=f"the bases span all {len(_box_units(L, box))} coordinate "
                                                    f"bits of the shape {frame.show(box)}",
                         certificate=certify.surjective(L, box))


def obligation(L: LinearLayout, box: Mapping[str, int]) -> smt.Obligation:
    ob = smt.Obligation(NAME)
    c = ob.packed(L, "coordinate")
    ob.require(smt.fields_below(L, c, box), smt.outside_span(ob, c, L.columns))
    return ob


def z3_verdict(L: LinearLayout, box: Mapping[str, int]) -> EngineVerdict:
    def on_sat(values):
        c = values["coordinate"]
        return (missing_coordinate(L, c, smt.certificate_of(values, c, L.columns), box),
                f"{smt.solver_name()} model: coordinate {frame.show(frame.coordinate(L, c))} has no preimage")

    return smt.verdict(obligation(L, box).solve(),
                       holds="no coordinate of the shape is outside the image (unsat)", on_sat=on_sat)
