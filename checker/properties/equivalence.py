"""equivalent(A, B): A and B are the same function on every hardware index.

Definition. A and B have the same in-dim names; a hardware index x is an
index of A or of B (each in-dim value below that layout's size); A and B are
equivalent when every such x is an index of both and A(x) = B(x). Out-dims
are matched by name; out sizes do not matter (only the values do).

F2 engine. An in-bit that only one layout has is a witness (that index
exists in one layout only). Otherwise A(x) XOR B(x) is linear in x, so A = B
iff their columns agree; the first differing column e_j is the witness. A
``holds`` carries a certificate (`checker.certificate`, ``equal_columns``:
the column equality, re-checked from both layouts' bases).

Z3 engine. x ranges over the wider of the two domains per in-dim; find x
that is an index of exactly one layout, or of both with A(x) != B(x).

Replay. By `apply`: x is an index of exactly one of A, B, or of both with
different images.
"""

from __future__ import annotations

from .. import smt
from ..errors import LayoutError
from ..layout import LinearLayout
from . import certify, frame
from .result import Counterexample, EngineVerdict, Result, decide

NAME = "equivalent"


def equivalent(A: LinearLayout, B: LinearLayout, *, engine: str = "both", timeout_ms: int | None = None) -> Result:
    if sorted(A.in_dims) != sorted(B.in_dims):
        raise LayoutError(f"equivalent: the layouts have different hardware dims {list(A.in_dims)} "
                          f"and {list(B.in_dims)}")
    A, B = frame.align([A, B])
    return decide(NAME, engine, {"f2": lambda: f2_verdict(A, B), "z3": lambda: z3_verdict(A, B, timeout_ms)},
                  certified=True)


def mismatch(A: LinearLayout, B: LinearLayout, x: dict[str, int]) -> Counterexample:
    data = {"index": x, "images": [frame.image(A, x), frame.image(B, x)]}

    def check(d) -> bool:
        ia, ib = frame.image(A, d["index"]), frame.image(B, d["index"])
        return [ia, ib] == d["images"] and ia != ib

    return Counterexample("mismatch", data, check)


def f2_verdict(A: LinearLayout, B: LinearLayout) -> EngineVerdict:
    for d in A.in_dims:
        na, nb = A.in_dim_size_log2(d), B.in_dim_size_log2(d)
        if na != nb:
            x = {k: 0 for k in A.in_dims}
            x[d] = 1 << min(na, nb)
            cx = mismatch(A, B, x)
            return EngineVerdict("f2", "fails", counterexample=cx,
                                 explanation=f"in-dim '{d}' has size {1 << na} in the first layout and "
                                             f"{1 << nb} in the second: index {frame.show(x)} exists in one only")
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
    return EngineVerdict("f2", "holds", explanation="every basis agrees", certificate=certify.equivalent(A, B))


def obligation(A: LinearLayout, B: LinearLayout) -> smt.Obligation:
    ob = smt.Obligation(NAME)
    widths = {d: max(A.in_dim_size_log2(d), B.in_dim_size_log2(d)) for d in A.in_dims}
    x = ob.index(A, "x", widths)
    valid_a = smt.all_of(*[smt.negate(smt.high_bits_set(x[d], A.in_dim_size_log2(d))) for d in x])
    valid_b = smt.all_of(*[smt.negate(smt.high_bits_set(x[d], B.in_dim_size_log2(d))) for d in x])
    ob.require(smt.any_of(valid_a != valid_b,
                          smt.all_of(valid_a, valid_b, ob.image(A, x) != ob.image(B, x))))
    return ob


def z3_verdict(A: LinearLayout, B: LinearLayout, timeout_ms) -> EngineVerdict:
    def on_sat(values):
        x = {d: values.get(f"x.{d}", 0) for d in A.in_dims}
        cx = mismatch(A, B, x)
        return cx, f"z3 model: index {frame.show(x)} maps to {cx.data['images'][0]} and {cx.data['images'][1]}"

    return smt.verdict(obligation(A, B).solve(timeout_ms), holds="no index tells them apart (unsat)",
                       on_sat=on_sat)
