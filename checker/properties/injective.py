"""injective(L): no two hardware indices hold the same coordinate.
injective_up_to_broadcast(L): two indices hold the same coordinate only through broadcast bits.

Definitions. injective: L(x) = L(y) implies x = y, i.e. ker L = {0}.
A *broadcast bit* is an in-bit whose basis is zero (a thread, warp or
register that repeats data). injective_up_to_broadcast: ker L is spanned by
the broadcast bits, i.e. L(x) = L(y) implies x XOR y uses broadcast bits
only. (If d is in ker L, so is d without its broadcast bits; so the
condition is that L restricted to the non-broadcast bits is injective.)

F2 engine. Scan the columns (in-dims in order, bit 0 first); the first
column j that depends on the earlier ones gives the collision
a = e_j, b = the earlier columns that sum to it: L(a) = L(b), a != b.
For the broadcast variant zero columns are skipped, so a XOR b always has a
non-broadcast bit. A ``holds`` carries a certificate (`checker.certificate`,
``left_inverse``): a matrix M with M·A = I for the (non-broadcast) columns A.

Z3 engine. Find x != y with L(x) = L(y) (broadcast variant: and some bit of
x XOR y outside the broadcast mask).

Replay. a != b, both are indices of L, L(a) = L(b) by `apply`; for the
broadcast variant also some differing bit e_j has L(e_j) != 0 by `apply`.
"""

from __future__ import annotations

from .. import f2, smt
from ..layout import LinearLayout
from ..verdict import DEFAULT_ENGINES, Engines
from . import certify, frame
from .operands import linear, operand
from .result import Counterexample, EngineVerdict, Result, run_engines


def injective(L: LinearLayout, *, engines: Engines = DEFAULT_ENGINES) -> Result:
    return _decide("injective", L, False, engines)


def injective_up_to_broadcast(L: LinearLayout, *, engines: Engines = DEFAULT_ENGINES) -> Result:
    return _decide("injective_up_to_broadcast", L, True, engines)


def judge(layout, shape=None, *, modulo_broadcast: bool = False, engines: Engines = DEFAULT_ENGINES) -> Result:
    """The property of a layout or of an encoding lowered at `shape` (its linear part: a padded shared layout's
    padding moves no two indices onto one element)."""
    L = linear(layout, shape)
    return injective_up_to_broadcast(L, engines=engines) if modulo_broadcast else injective(L, engines=engines)


def decide(check, engines: Engines) -> Result:
    """A check of ``injective`` or ``injective_up_to_broadcast`` (`checker.registry`): its ``layout`` operand,
    lowered at its ``layout_shape`` or its shape."""
    return judge(operand(check, "layout"), check.shape,
                 modulo_broadcast=check.property == "injective_up_to_broadcast", engines=engines)


def smt_obligation(layouts, shape) -> smt.Obligation:
    """What ``layoutcheck smt injective`` writes."""
    return obligation("injective", layouts[0], False)


def smt_obligation_up_to_broadcast(layouts, shape) -> smt.Obligation:
    """What ``layoutcheck smt injective_up_to_broadcast`` writes."""
    return obligation("injective_up_to_broadcast", layouts[0], True)


def _decide(name: str, L: LinearLayout, modulo_broadcast: bool, engines: Engines) -> Result:
    details = {"rank": L.rank(), "in_bits": L.total_in_size_log2,
               "broadcast_bits": [n for n, c in zip(frame.bit_names(L), L.columns) if c == 0]}
    return run_engines(name, engines, {"f2": lambda: f2_verdict(L, modulo_broadcast),
                                       "z3": lambda: z3_verdict(name, L, modulo_broadcast)}, details=details,
                       certified=True)


def broadcast_masks(L: LinearLayout) -> dict[str, int]:
    """Per in-dim, the bits whose basis is zero."""
    return {d: sum(1 << i for i, b in enumerate(L.in_bases(d)) if not any(b)) for d in L.in_dims}


def collision(L: LinearLayout, a: dict[str, int], b: dict[str, int], modulo_broadcast: bool,
              what: str = "coordinate") -> Counterexample:
    """Indices a != b of L that hold the same coordinate."""
    ca = frame.image(L, a)
    data = {"indices": [a, b], what: ca}

    def recompute(d) -> bool:
        x, y = d["indices"]
        ix, iy = frame.image(L, x), frame.image(L, y)
        if ix is None or iy is None or ix != iy or ix != d[what]:
            return False
        if {k: x.get(k, 0) for k in L.in_dims} == {k: y.get(k, 0) for k in L.in_dims}:
            return False
        if not modulo_broadcast:
            return True
        return any(frame.image(L, {k: 1 << i}) != frame.image(L, {})
                   for k in L.in_dims for i in range(L.in_dim_size_log2(k))
                   if (x.get(k, 0) ^ y.get(k, 0)) >> i & 1)

    return Counterexample("collision", data, recompute)


def f2_verdict(L: LinearLayout, modulo_broadcast: bool) -> EngineVerdict:
    cols = list(L.columns)
    keep = [j for j, c in enumerate(cols) if c or not modulo_broadcast]
    kernel = f2.nullspace([cols[j] for j in keep])
    if not kernel:
        what = "non-broadcast bases" if modulo_broadcast else "bases"
        return EngineVerdict("f2", "holds", explanation=f"the {len(keep)} {what} are linearly independent",
                             certificate=certify.injective(L, modulo_broadcast))
    k = kernel[0]
    flat = sum(1 << keep[i] for i in range(len(keep)) if k >> i & 1)
    j = flat.bit_length() - 1
    a, b = 1 << j, flat ^ (1 << j)
    cx = collision(L, frame.index(L, a), frame.index(L, b), modulo_broadcast)
    c = frame.show(cx.data["coordinate"])
    if b == 0:
        why = f"{frame.describe(L, a)} has a zero basis (a broadcast): indices {frame.describe(L, a)} and 0 hold {c}"
    else:
        why = (f"basis {frame.describe(L, a)} equals {frame.describe(L, b)}: indices "
               f"{frame.show(cx.data['indices'][0])} and {frame.show(cx.data['indices'][1])} both hold {c}")
    return EngineVerdict("f2", "fails", counterexample=cx, explanation=why)


def obligation(name: str, L: LinearLayout, modulo_broadcast: bool) -> smt.Obligation:
    """A collision x != y, L(x) = L(y) exists iff some k = x ^ y != 0 has L(k) = 0 (L is linear), so
    the query asks for one index k in L's kernel: nonzero (outside the broadcast bits, modulo
    broadcast). One vector instead of two keeps the formula small (a dense 16-bit layout: 11 s -> 10 ms)."""
    ob = smt.Obligation(name)
    k = ob.index(L, "k")
    nonzero = {d: L.in_dim_size(d) - 1 for d in k}
    if modulo_broadcast:
        z = broadcast_masks(L)
        nonzero = {d: m & ~z[d] for d, m in nonzero.items()}
    ob.require(smt.masked_nonzero(k, nonzero), ob.maps_to_zero(L, k))
    return ob


def z3_verdict(name: str, L: LinearLayout, modulo_broadcast: bool) -> EngineVerdict:
    def on_sat(values):
        a = {d: 0 for d in L.in_dims}                     # the collision (0, k)
        b = {d: values.get(f"k.{d}", 0) for d in L.in_dims}
        cx = collision(L, a, b, modulo_broadcast)
        held = frame.show(cx.data["coordinate"])
        return cx, f"{smt.solver_name()} model: {frame.show(a)} and {frame.show(b)} both hold {held}"

    return smt.verdict(obligation(name, L, modulo_broadcast).solve(),
                       holds="no two indices collide (unsat)", on_sat=on_sat)
