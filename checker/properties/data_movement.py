"""data_movement(operand, result, kind): a shape operation keeps every element in the thread that holds it.

Setting. ``tt.trans``, ``tt.reshape``, ``tt.join``, ``tt.split``, ``ttg.fp4_to_fp`` and AMD's
``amdg.in_thread_transpose`` give a tensor a new shape (or a new register order) without a shuffle, a
shared-memory round trip or a barrier: Triton lowers each by re-indexing the registers of every thread
(TransOp / ReshapeOp / JoinOp / SplitOp conversions, Fp4ToFpOpToLLVM, InThreadTransposeOpToLLVM). That is
correct only when each result element is held, by the thread that needs it, as some operand element moved by
the op's coordinate map T:

    trans, order p:   t_i = s_{p[i]}
    reshape:          the row-major linear index of s re-split by the result's shape
    join:             t = (s, k): the two operands side by side along a new minor dim of 2 (k = which operand;
                      each operand is held as the layout S, both by the same threads)
    split:            s = (t, k): each result takes the half k of the operand's minor dim of 2
    in_thread_transpose: t = s (only the registers of each thread are reordered)
    fp4_to_fp, axis a: t = s with t_a = 2 s_a + k: each byte's two fp4 values (k = which nibble) side by
                      side along a, in two consecutive registers (Fp4ToFpOpToLLVM: register 2i + k of the
                      result is nibble k of the operand's register i, so E has a new first register basis
                      e_a and every other basis doubled along a)

so E = T∘S is the layout the operand's threads hold the result in, and the property is that converting E
into the result's layout R stays in registers: for every result index x there is an E index y with the same
lane, warp and block and E(y) = R(x) (`conversion`'s register level). Trans and reshape pass each thread's
registers through in order (their verifiers infer exactly E), join interleaves the two operands' registers in
chunks of 2^p, p the position of the result's first register basis along the new dim (JoinOpConversion: its
verifier lets that basis sit anywhere), and split hands over the two halves' in order (SplitOpConversion: the
register bit that picks the half dropped), so for them R must also be E itself, with the join's basis at register
position p (`_joined`), less that bit for split (`equivalent`, both engines): a result whose registers are in
another order is one Triton refuses, and one the lowering would fill wrongly (the witness is a result index whose
element E puts elsewhere). For split, the operand's minor dim must be spread over registers only (else the halves sit in
different threads).

A ``tt.reshape`` with ``allow_reorder`` may put the elements in any order: Triton hands each thread's registers
over as they are (ReshapeOpConversion packs the operand's values as the result's; it refuses an "expensive
view", whose two layouts hold different numbers of registers per thread or repeat data on other in-bits: other
free-variable masks). The result then holds the operand's elements, each once, exactly when the two layouts
repeat data alike: S(x) = S(y) iff R(x) = R(y) for hardware indices x, y, i.e. ker S = ker R (same register,
lane, warp and block sizes), so that S(x) -> R(x) is a bijection of the elements. One kernel gives the same free
masks (an in-bit is free when some kernel vector ends at it), so such a reshape is one Triton lowers; equal masks
with another kernel are lowered and wrong. A k in one kernel and not the other is the witness: indices 0 and k
hold one operand element that the result places twice (k in ker S), or two operand elements the result places at
one (k in ker R: one is lost). F2: the kernels' bases against the other layout's columns; Z3: one index k in
exactly one kernel.

Engines: those of `conversion`'s register-level claim (F2: a result in-bit whose element falls outside the
span of E's register bases shifted by its thread; Z3: the same search over indices), replayed. When it
fails, ``details.level`` is the first level the move does stay within (``warp``: shuffles; ``cta``: shared
memory; ``cross_cta``: distributed shared memory), and the witness is a result index whose element its
thread does not hold. Triton's verifier infers the result encodings of these ops, so IR Triton produced holds;
a failure is IR that pairs an op with a layout Triton would not give it.
"""

from __future__ import annotations

from collections.abc import Sequence

from .. import f2, smt
from ..encodings import lower
from ..errors import CheckerError
from ..layout import LinearLayout
from ..verdict import DEFAULT_ENGINES, Engines
from . import frame
from .conversion import conversion, register_local
from .equivalence import equivalent
from .result import Counterexample, EngineVerdict, Result, run_engines
from .views import reshaped, transposed

NAME = "data_movement"
KINDS = ("trans", "reshape", "join", "split", "in_thread_transpose", "fp4_to_fp")
IN_ORDER = ("trans", "reshape", "join", "split", "fp4_to_fp")     # each thread's registers handed over in order


def expected_layout(S: LinearLayout, kind: str, *, order: Sequence[int] | None = None,
                    shape: Sequence[int] | None = None, axis: int | None = None) -> LinearLayout:
    """E = T∘S: where the operand's threads hold the result's elements (module docstring)."""
    if kind == "fp4_to_fp":
        if axis is None or not 0 <= axis < len(S.out_dims):
            raise CheckerError(f"fp4_to_fp needs an axis below the rank {len(S.out_dims)}, got {axis}",
                               field="axis")
        unit = tuple(int(k == axis) for k in range(len(S.out_dims)))

        def unpacked(b) -> tuple[int, ...]:
            return tuple(c * 2 if k == axis else c for k, c in enumerate(b))

        return LinearLayout([(d, ([unit] if d == "register" else []) + [unpacked(b) for b in S.in_bases(d)])
                             for d in S.in_dims],
                            [(n, s * 2 if k == axis else s) for k, (n, s) in enumerate(S.out_dim_sizes)])
    if kind == "trans":
        return transposed(S, order)
    if kind == "reshape":
        if shape is None:
            raise CheckerError("reshape needs the result's shape", field="shape")
        return reshaped(S, shape)
    if kind == "join":
        return _joined_at(S, 0)
    if kind == "split":
        names, sizes = list(S.out_dims), dict(S.out_dim_sizes)
        if not names or sizes[names[-1]] != 2:
            minor = sizes.get(names[-1]) if names else None
            raise CheckerError(f"split needs a minor dim of 2, the operand's is {minor}", field="shape")
        return LinearLayout([(d, [tuple(b[:-1]) for b in S.in_bases(d)]) for d in S.in_dims],
                            [(n, sizes[n]) for n in names[:-1]])
    if kind == "in_thread_transpose":
        return S
    raise CheckerError(f"must be one of {list(KINDS)}, got {kind!r}", field="kind")


def _split_across_threads(S: LinearLayout) -> list[str]:
    """The thread in-dims (lane, warp, block) that move along the operand's minor dim."""
    return [d for d in S.in_dims if d != "register" and any(b[-1] for b in S.in_bases(d))]


def data_movement(operand: LinearLayout, result: LinearLayout, kind: str, *, order: Sequence[int] | None = None,
                  allow_reorder: bool = False, axis: int | None = None, engines: Engines = DEFAULT_ENGINES) -> Result:
    """Does the shape op keep every element in its thread (module docstring)? ``allow_reorder``: a reshape whose
    element order is free (each thread's registers handed over as they are)."""
    shape = [s for _, s in result.out_dim_sizes]
    details: dict = {"kind": kind, **({"order": list(order)} if kind == "trans" else {}),
                     **({"axis": axis} if kind == "fp4_to_fp" else {}),
                     "operand_shape": [s for _, s in operand.out_dim_sizes], "result_shape": shape}
    if allow_reorder:
        if kind != "reshape":
            raise CheckerError(f"allow_reorder is a reshape's, not a {kind}'s", field="allow_reorder")
        return _reordered(operand, result, details, engines)
    if kind == "split":
        spread = _split_across_threads(operand)
        if spread:
            details["level"] = None
            return Result(NAME, "fails", {}, None,
                          f"the split dim (the operand's minor dim of 2) moves with {', '.join(spread)}: the two "
                          f"halves sit in different threads, which a split never moves between", details)
    E = expected_layout(operand, kind, order=order, shape=shape, axis=axis)
    claim = register_local(E, result, engines=engines, roles=("operand", "result"))
    if claim.holds and kind in IN_ORDER:
        moved = _halves(operand, E) if kind == "split" else _joined(operand, result) if kind == "join" else E
        same = equivalent(moved, result, engines=engines)
        if not same.holds:
            details["level"] = "register" if same.status == "fails" else None
            return Result(NAME, same.status, same.verdicts, same.counterexample,
                          f"the result's layout is the operand's {_what(kind, order, axis)} with its registers in "
                          f"another order: Triton's lowering passes each thread's registers through in order (its "
                          f"verifier infers exactly that layout); " + same.explanation, details)
    if claim.holds:
        details["level"] = "register"
        return Result(NAME, "holds", claim.verdicts, None,
                      f"no data moves: every result element is in a register of the thread that holds it in the "
                      f"operand ({_what(kind, order, axis)})", details)
    if claim.status == "unknown":
        details["level"] = None
        return Result(NAME, "unknown", claim.verdicts, None, claim.explanation, details)
    full = conversion(E, result, engines=engines)
    level = full.details.get("level")
    details["level"] = level
    where = {"warp": "between the lanes of a warp (shuffles)", "cta": "between warps (through shared memory)",
             "cross_cta": "between CTAs"}.get(level, "elsewhere: the result needs elements the operand does not "
                                                     "hold")
    return Result(NAME, "fails", claim.verdicts, claim.counterexample,
                  f"data moves {where}: the result's layout is not the operand's {_what(kind, order, axis)}; "
                  + claim.explanation, details)


_HW = ("register", "lane", "warp", "block")


def _joined(S: LinearLayout, R: LinearLayout) -> LinearLayout:
    """E of a join with its registers in the order Triton's JoinOpConversion gives them: with p the position of
    R's first register basis that is 1 along the new minor dim (`numContiguousValues` = 2^p), result registers
    come in chunks of 2^p from each operand in turn, so the join's basis sits at register position p, the
    operand's first p register bases below it and the others above (p = 0 when R has none: E as written)."""
    rank = len(S.out_dims)
    regs = R.in_bases("register") if R.has_in_dim("register") else ()
    return _joined_at(S, next((k for k, b in enumerate(regs) if len(b) > rank and b[rank] == 1), 0))


def _joined_at(S: LinearLayout, p: int) -> LinearLayout:
    """S with a new minor dim of 2 (the operand), its basis at register position p."""
    rank = len(S.out_dims)
    which = tuple([0] * rank + [1])

    def moved(d: str) -> list[tuple[int, ...]]:
        bases = [tuple(b) + (0,) for b in S.in_bases(d)]
        return bases[:p] + [which] + bases[p:] if d == "register" else bases

    return LinearLayout([(d, moved(d)) for d in S.in_dims], list(S.out_dim_sizes) + [(f"dim{rank}", 2)])


def _reordered(S: LinearLayout, R: LinearLayout, details: dict, engines: Engines) -> Result:
    """A reshape with allow_reorder (module docstring): the registers pass through; ker S = ker R."""
    details["allow_reorder"] = True
    sizes = [{d: L.in_dim_size(d) if L.has_in_dim(d) else 1 for d in _HW} for L in (S, R)]
    details["registers"] = [s["register"] for s in sizes]
    differ = [d for d in _HW if sizes[0][d] != sizes[1][d]]
    if differ:
        details["level"] = None
        what = ", ".join(f"{d} {sizes[0][d]} -> {sizes[1][d]}" for d in differ)
        why = ("Triton refuses to lower it (an expensive view: the threads hold other numbers of registers)"
               if differ == ["register"] else "the two layouts span other hardware")
        return Result(NAME, "fails", {}, None, f"the operand and result layouts differ in size ({what}): {why}",
                      details)
    S, R = (LinearLayout([(d, L.in_bases(d) if L.has_in_dim(d) else ()) for d in _HW], L.out_dim_sizes)
            for L in (S, R))
    masks = [L.get_free_variable_masks() for L in (S, R)]
    if masks[0] != masks[1]:
        details["level"] = None
        what = ", ".join(f"{d} {masks[0][d]:#x} -> {masks[1][d]:#x}" for d in _HW if masks[0][d] != masks[1][d])
        return Result(NAME, "fails", {}, None, "Triton refuses to lower it (an expensive view: the layouts repeat "
                      f"data on other in-bits, free-variable masks {what})", details)
    r = run_engines(NAME, engines, {"f2": lambda: _reorder_f2(S, R), "z3": lambda: _reorder_z3(S, R)},
                    details=details)
    r.details["level"] = "register" if r.status == "holds" else None
    return r


def _twice_or_lost(S: LinearLayout, R: LinearLayout, k: int) -> tuple[Counterexample, str]:
    """Indices 0 and k (flat) where exactly one of S, R repeats: the witness and what it means."""
    x, y = frame.index(S, 0), frame.index(S, k)
    data = {"indices": [x, y], "operand": [frame.image(S, x), frame.image(S, y)],
            "result": [frame.image(R, x), frame.image(R, y)]}

    def recompute(d) -> bool:
        a, b = d["indices"]
        same_s = frame.image(S, a) == frame.image(S, b)
        same_r = frame.image(R, a) == frame.image(R, b)
        return a != b and same_s != same_r and d["operand"] == [frame.image(S, a), frame.image(S, b)] \
            and d["result"] == [frame.image(R, a), frame.image(R, b)]

    cx = Counterexample("reorder", data, recompute)
    at = f"indices {frame.show(x)} and {frame.show(y)}"
    if data["operand"][0] == data["operand"][1]:
        why = (f"{at} hold one operand element {frame.show(data['operand'][0])}, which the result places twice, at "
               f"{frame.show(data['result'][0])} and {frame.show(data['result'][1])} (another result element is "
               f"never written)")
    else:
        why = (f"{at} hold the operand elements {frame.show(data['operand'][0])} and "
               f"{frame.show(data['operand'][1])}, which the result places at one element "
               f"{frame.show(data['result'][0])} (one of them is lost)")
    return cx, why


def _reorder_f2(S: LinearLayout, R: LinearLayout) -> EngineVerdict:
    cs, cr = list(S.columns), list(R.columns)
    for kernel, other in ((f2.nullspace(cs), cr), (f2.nullspace(cr), cs)):
        for k in kernel:
            if f2.combine(other, k):
                cx, why = _twice_or_lost(S, R, k)
                return EngineVerdict("f2", "fails", counterexample=cx, explanation=why)
    return EngineVerdict("f2", "holds", explanation="no data moves: each thread's registers pass through, and the "
                         "operand and result layouts repeat data alike (the same kernel, so every operand element is "
                         "one result element)")


def _reorder_z3(S: LinearLayout, R: LinearLayout) -> EngineVerdict:
    ob = smt.Obligation(f"{NAME}.reorder")
    k = ob.index(S, "k")
    zs, zr = ob.maps_to_zero(S, k), ob.maps_to_zero(R, k)
    ob.require(smt.any_of(smt.all_of(zs, smt.negate(zr)), smt.all_of(zr, smt.negate(zs))))

    def on_sat(values):
        flat = S.join_in({d: values.get(f"k.{d}", 0) for d in S.in_dims})
        cx, why = _twice_or_lost(S, R, flat)
        return cx, f"{smt.solver_name()} model: {why}"

    return smt.verdict(ob.solve(), holds="the operand and result layouts have one kernel (unsat)", on_sat=on_sat)


def _halves(S: LinearLayout, E: LinearLayout) -> LinearLayout:
    """A split's result as Triton's SplitOpConversion leaves it: E without the register bit that picks the half
    (the first register basis of S along the minor dim; the other registers keep their order)."""
    regs = S.in_bases("register")
    j = next((i for i, b in enumerate(regs) if b[-1]), None)
    if j is None:
        return E
    return LinearLayout([(d, [b for i, b in enumerate(E.in_bases(d)) if d != "register" or i != j])
                         for d in E.in_dims], E.out_dim_sizes)


def _what(kind: str, order, axis: int | None = None) -> str:
    return {"trans": f"transposed by order {list(order or [])}", "reshape": "reshaped in row-major order",
            "join": "joined along a new minor dim", "split": "split along its minor dim",
            "in_thread_transpose": "with its registers reordered",
            "fp4_to_fp": f"unpacked along dim{axis} (two fp4 values per byte)"}[kind]


def decide(check, engines) -> Result:
    """A TTGIR check: operand and result encodings lowered at their own shapes (params ``operand_shape``)."""
    p = check.param
    operand = lower(check.operand("operand"), p("operand_shape"))
    result = lower(check.operand("result"), check.shape)
    return data_movement(operand, result, p("kind"), order=p("order"), allow_reorder=bool(p("allow_reorder")),
                         axis=p("axis"), engines=engines)
