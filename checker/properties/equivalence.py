"""equivalent(A, B): A and B are the same layout: the same indices, the same out range, the same map.

Definition. A layout is a map from its indices (each in-dim value below
that in-dim's size) into its out range (each out-dim value below that
out-dim's size). Dims are matched by name, in any order; a dim that only
one layout names counts as a dim of size 1 in the other (its only value
is 0), so layouts whose dims differ only by size-1 dims are compared as
they are (a distributed layout with or without ``block: []``). A and B
are equivalent when

* every in-dim has the same size in both: an index of one is an index of
  the other (otherwise the witness is an index of one layout only);
* every out-dim has the same size in both: a coordinate is in A's out range
  iff it is in B's (``dim0`` of 4 and ``dim0`` of 64 are different layouts
  even with the same bases; the witness is a coordinate inside one out
  range only, kind ``out_of_range``);
* A(x) = B(x) for every index x.

A named dim that matters (of size > 1) in one layout only is therefore a
difference, with a witness like any other: an index with that in-dim set,
or a coordinate with that out-dim set.

F2 engine. In order: an in-bit that only one layout has (that index exists
in one layout only); an out-dim with different sizes (the coordinate with
that dim at the smaller size, every other dim 0, is inside one range only);
otherwise A(x) XOR B(x) is linear in x, so A = B iff their columns agree;
the first differing column e_j is the witness. A ``holds`` carries a
certificate (`checker.certificate`, ``equal_columns``: the same in-dims
and out sizes, size-1 dims aside, and the column equality, re-checked from
both layouts).

Z3 engine. x ranges over the wider of the two domains per in-dim and c over
the wider out range; find x that is an index of exactly one layout, or of
both with A(x) != B(x), or c inside exactly one out range.

Replay. By `apply`: x is an index of exactly one of A, B, or of both with
different images; or c is inside exactly one of the two out ranges (each
field below that layout's size, plain comparison).
"""

from __future__ import annotations

from .. import smt
from ..layout import LinearLayout
from ..verdict import DEFAULT_ENGINES, Engines
from . import certify, frame
from .operands import linear, operand
from .result import Counterexample, EngineVerdict, Result, run_engines

NAME = "equivalent"


def equivalent(A: LinearLayout, B: LinearLayout, *, engines: Engines = DEFAULT_ENGINES) -> Result:
    A, B = common_dims(A, B)
    ranges = (dict(A.out_dim_sizes), dict(B.out_dim_sizes))
    A, B = frame.align([A, B])
    return run_engines(NAME, engines, {"f2": lambda: f2_verdict(A, B, ranges),
                                       "z3": lambda: z3_verdict(A, B, ranges)},
                       certified=True)


def judge(a, b, shape=None, *, engines: Engines = DEFAULT_ENGINES) -> Result:
    """Two layouts, or encodings lowered at `shape` (their linear parts)."""
    return equivalent(linear(a, shape, "a"), linear(b, shape, "b"), engines=engines)


def decide(check, engines: Engines) -> Result:
    """A check (`checker.registry`): operands ``src`` and ``dst``, lowered at its ``layout_shape`` or its shape."""
    return judge(operand(check, "src"), operand(check, "dst"), check.shape, engines=engines)


def smt_obligation(layouts, shape) -> smt.Obligation:
    """What ``layoutcheck smt equivalent`` writes."""
    A, B = common_dims(layouts[0], layouts[1])
    return obligation(*frame.align([A, B]), (dict(A.out_dim_sizes), dict(B.out_dim_sizes)))


def common_dims(A: LinearLayout, B: LinearLayout) -> tuple[LinearLayout, LinearLayout]:
    """A and B over the union of their in-dims and of their out-dims: a dim one of them lacks is added to it
    with size 1 (no in-bits; out size 1), which changes neither its indices nor its out range."""
    ins = list(A.in_dims) + [d for d in B.in_dims if not A.has_in_dim(d)]
    outs = list(A.out_dims) + [n for n in B.out_dims if n not in A.out_dims]

    def widen(L: LinearLayout) -> LinearLayout:
        if all(L.has_in_dim(d) for d in ins) and all(n in L.out_dims for n in outs):
            return L
        sizes = dict(L.out_dim_sizes)
        pad = [0] * (len(outs) - L.num_out_dims)
        return LinearLayout([(d, [tuple(b) + tuple(pad) for b in L.in_bases(d)] if L.has_in_dim(d) else [])
                             for d in ins], list(L.out_dim_sizes) + [(n, 1) for n in outs if n not in sizes])

    return widen(A), widen(B)


def mismatch(A: LinearLayout, B: LinearLayout, x: dict[str, int]) -> Counterexample:
    data = {"index": x, "images": [frame.image(A, x), frame.image(B, x)]}

    def recompute(d) -> bool:
        ia, ib = frame.image(A, d["index"]), frame.image(B, d["index"])
        return [ia, ib] == d["images"] and ia != ib

    return Counterexample("mismatch", data, recompute)


def _inside(c: dict[str, int], sizes: dict[str, int]) -> bool:
    return all(0 <= c.get(n, 0) < s for n, s in sizes.items()) and set(c) <= set(sizes)


def out_of_range(ranges, c: dict[str, int]) -> Counterexample:
    """Coordinate c lies in exactly one of the two out ranges (`ranges`: each layout's out sizes)."""
    data = {"coordinate": c, "in_range": [_inside(c, r) for r in ranges]}

    def recompute(d) -> bool:
        inside = [_inside(d["coordinate"], r) for r in ranges]
        return inside == d["in_range"] and inside[0] != inside[1]

    return Counterexample("out_of_range", data, recompute)


def f2_verdict(A: LinearLayout, B: LinearLayout, ranges=None) -> EngineVerdict:
    for d in A.in_dims:
        na, nb = A.in_dim_size_log2(d), B.in_dim_size_log2(d)
        if na != nb:
            x = {k: 0 for k in A.in_dims}
            x[d] = 1 << min(na, nb)
            cx = mismatch(A, B, x)
            return EngineVerdict("f2", "fails", counterexample=cx,
                                 explanation=f"in-dim '{d}' has size {1 << na} in the first layout and "
                                             f"{1 << nb} in the second: index {frame.show(x)} exists in one only")
    ra, rb = ranges if ranges is not None else (dict(A.out_dim_sizes), dict(B.out_dim_sizes))
    for n in A.out_dims:
        if ra[n] != rb[n]:
            c = {k: 0 for k in A.out_dims}
            c[n] = min(ra[n], rb[n])
            return EngineVerdict("f2", "fails", counterexample=out_of_range((ra, rb), c),
                                 explanation=f"out-dim '{n}' has size {ra[n]} in the first layout and {rb[n]} in "
                                             f"the second: coordinate {frame.show(c)} is in one out range only")
    bases_b = B.bases
    for d in A.in_dims:
        for i, (ba, bb) in enumerate(zip(A.in_bases(d), bases_b[d])):
            if ba != bb:
                x = {k: 0 for k in A.in_dims}
                x[d] = 1 << i
                cx = mismatch(A, B, x)
                return EngineVerdict("f2", "fails", counterexample=cx,
                                     explanation=f"basis {d}={1 << i} differs: {frame.show(cx.data['images'][0])} "
                                                 f"vs {frame.show(cx.data['images'][1])}")
    return EngineVerdict("f2", "holds", explanation="every basis agrees", certificate=certify.equivalent(A, B, ranges))


def obligation(A: LinearLayout, B: LinearLayout, ranges=None) -> smt.Obligation:
    ob = smt.Obligation(NAME)
    widths = {d: max(A.in_dim_size_log2(d), B.in_dim_size_log2(d)) for d in A.in_dims}
    x = ob.index(A, "x", widths)
    valid_a = smt.all_of(*[smt.negate(smt.high_bits_set(x[d], A.in_dim_size_log2(d))) for d in x])
    valid_b = smt.all_of(*[smt.negate(smt.high_bits_set(x[d], B.in_dim_size_log2(d))) for d in x])
    ways = [valid_a != valid_b, smt.all_of(valid_a, valid_b, ob.image(A, x) != ob.image(B, x))]
    if ranges is not None and A.total_out_size_log2:
        c = ob.packed(A, "coordinate")
        ways.append(smt.fields_below(A, c, ranges[0]) != smt.fields_below(A, c, ranges[1]))
    ob.require(smt.any_of(*ways))
    return ob


def z3_verdict(A: LinearLayout, B: LinearLayout, ranges=None) -> EngineVerdict:
    def on_sat(values):
        x = {d: values.get(f"x.{d}", 0) for d in A.in_dims}
        cx = mismatch(A, B, x)
        if cx.replay() or ranges is None:
            images = cx.data["images"]
            return cx, f"{smt.solver_name()} model: index {frame.show(x)} maps to {images[0]} and {images[1]}"
        c = frame.coordinate(A, values.get("coordinate", 0))
        cx = out_of_range(ranges, c)
        return cx, f"{smt.solver_name()} model: coordinate {frame.show(c)} is in one out range only"

    return smt.verdict(obligation(A, B, ranges).solve(),
                       holds="no index or coordinate tells them apart (unsat)", on_sat=on_sat)
