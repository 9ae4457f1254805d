"""data_movement(operand, result, kind): a shape operation keeps every element in the thread that holds it.

Setting. ``tt.trans``, ``tt.reshape``, ``tt.join``, ``tt.split`` and AMD's ``amdg.in_thread_transpose`` give a
tensor a new shape (or a new register order) without a shuffle, a shared-memory round trip or a barrier:
Triton lowers each by re-indexing the registers of every thread (TransOp / ReshapeOp / JoinOp / SplitOp
conversions, InThreadTransposeOpToLLVM). That is correct only when each result element is held, by the
thread that needs it, as some operand element moved by the op's coordinate map T:

    trans, order p:   t_i = s_{p[i]}
    reshape:          the row-major linear index of s re-split by the result's shape
    join:             t = (s, k): the two operands side by side along a new minor dim of 2 (k = which operand;
                      each operand is held as the layout S, both by the same threads)
    split:            s = (t, k): each result takes the half k of the operand's minor dim of 2
    in_thread_transpose: t = s (only the registers of each thread are reordered)

so E = T∘S is the layout the operand's threads hold the result in, and the property is that converting E
into the result's layout R stays in registers: for every result index x there is an E index y with the same
lane, warp and block and E(y) = R(x) (`conversion`'s register level). For split, the operand's minor dim must
be spread over registers only (else the halves sit in different threads).

Engines: those of `conversion`'s register-level claim (F2: a result in-bit whose element falls outside the
span of E's register bases shifted by its thread; Z3: the same search over indices), replayed. When it
fails, ``details.level`` is the first level the move does stay within (``warp``: shuffles; ``cta``: shared
memory; ``cross_cta``: distributed shared memory), and the witness is a result index whose element its
thread does not hold. Triton's verifier infers the result encodings of these ops, so IR Triton produced holds;
a failure is IR that pairs an op with a layout Triton would not give it.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..encodings import lower
from ..errors import CheckerError
from ..layout import LinearLayout
from ..verdict import DEFAULT_ENGINES, Engines
from .conversion import conversion, register_local
from .result import Result
from .views import reshaped, transposed

NAME = "data_movement"
KINDS = ("trans", "reshape", "join", "split", "in_thread_transpose")


def expected_layout(S: LinearLayout, kind: str, *, order: Sequence[int] | None = None,
                    shape: Sequence[int] | None = None) -> LinearLayout:
    """E = T∘S: where the operand's threads hold the result's elements (module docstring)."""
    if kind == "trans":
        return transposed(S, order)
    if kind == "reshape":
        if shape is None:
            raise CheckerError("reshape needs the result's shape", field="shape")
        return reshaped(S, shape)
    if kind == "join":
        rank = len(S.out_dims)
        outs = list(S.out_dim_sizes) + [(f"dim{rank}", 2)]
        which = tuple([0] * rank + [1])
        return LinearLayout([(d, ([which] if d == "register" else []) + [tuple(b) + (0,) for b in S.in_bases(d)])
                             for d in S.in_dims], outs)
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
                  engines: Engines = DEFAULT_ENGINES) -> Result:
    """Does the shape op keep every element in its thread (module docstring)?"""
    shape = [s for _, s in result.out_dim_sizes]
    details: dict = {"kind": kind, **({"order": list(order)} if kind == "trans" else {}),
                     "operand_shape": [s for _, s in operand.out_dim_sizes], "result_shape": shape}
    if kind == "split":
        spread = _split_across_threads(operand)
        if spread:
            details["level"] = None
            return Result(NAME, "fails", {}, None,
                          f"the split dim (the operand's minor dim of 2) moves with {', '.join(spread)}: the two "
                          f"halves sit in different threads, which a split never moves between", details)
    E = expected_layout(operand, kind, order=order, shape=shape)
    claim = register_local(E, result, engines=engines, roles=("operand", "result"))
    if claim.holds:
        details["level"] = "register"
        return Result(NAME, "holds", claim.verdicts, None,
                      f"no data moves: every result element is in a register of the thread that holds it in the "
                      f"operand ({_what(kind, order)})", details)
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
                  f"data moves {where}: the result's layout is not the operand's {_what(kind, order)}; "
                  + claim.explanation, details)


def _what(kind: str, order) -> str:
    return {"trans": f"transposed by order {list(order or [])}", "reshape": "reshaped in row-major order",
            "join": "joined along a new minor dim", "split": "split along its minor dim",
            "in_thread_transpose": "with its registers reordered"}[kind]


def decide(check, engines) -> Result:
    """A TTGIR check: operand and result encodings lowered at their own shapes (params ``operand_shape``)."""
    p = check.param
    operand = lower(check.operand("operand"), p("operand_shape"))
    result = lower(check.operand("result"), check.shape)
    return data_movement(operand, result, p("kind"), order=p("order"), engines=engines)
