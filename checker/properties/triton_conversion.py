"""How Triton itself classifies a convert_layout (reproduced, to report beside our proof).

Minimal conversion. comp = dst.invert_and_compose(src) maps a dst hardware
index to the src index Triton reads it from (least squares, free variables
0). For the in-dims the two layouts share at their end (``block``, ``warp``,
``lane``, ``register``, slowest first), comp is quotiented by that dim while
comp is the identity on it with no cross terms.

* trivial (``is_convert_layout_trivial``): identical encodings, or the
  remaining in-dims are none or exactly ``[register]``.
* class: ``register`` when the remaining out-dims are none or
  ``[register]``; ``warp_shuffle`` when they are exactly ``[register, lane]``
  and the register/lane permutation factors with fewer than two mixed
  transpositions; ``shared_memory`` otherwise.

Mixed transpositions. Drop the zero register bases of both layouts, keep
the register and lane bases, pad the shorter dims with zero bases, and take
P = src.invert_and_compose(dst): src (register, lane) bits -> dst bits.
A bit whose basis is zero on both sides is a fixed point of P; the bits
zero only in src are paired in order with those zero only in dst. Walking
the cycles of P from their lowest register bit, each run of lane bits
entered from a register and left to a register is sliced out with one
transposition (register i, lane j): the count is the number of
lane -> register steps.
"""

from __future__ import annotations

from ..errors import LayoutError
from ..layout import LinearLayout, log2

def minimal_conversion(src: LinearLayout, dst: LinearLayout) -> LinearLayout:
    """Triton's minimalCvtLayout (raises LayoutError when dst needs elements src lacks)."""
    common = []
    for s, d in zip(reversed(src.in_dims), reversed(dst.in_dims)):
        if s != d:
            break
        common.append(s)
    comp = dst.invert_and_compose(src)
    for dim in common:
        q = comp.quotient([dim])
        if q is None:
            break
        comp = q
    return comp


LOWERINGS = ("none", "register_permutation", "warp_shuffle", "shared_memory", "distributed_shared_memory")


def lowering(comp: LinearLayout, cls: str) -> str:
    """What Triton's convert_layout lowering emits for the minimal conversion `comp` of class `cls`
    (ConvertLayoutOpToLLVM): nothing when comp has no in-dims left; a register permutation when only
    ``register`` is left; warp shuffles for the shuffle class; otherwise a round trip through shared
    memory, *distributed* shared memory (with a cluster barrier) when ``block`` is left."""
    if not comp.in_dims:
        return "none"
    if cls == "register":
        return "register_permutation"
    if cls == "warp_shuffle":
        return "warp_shuffle"
    return "distributed_shared_memory" if "block" in comp.in_dims else "shared_memory"


def is_trivial(comp: LinearLayout) -> bool:
    return comp.in_dims in ((), ("register",))


def classify(src: LinearLayout, dst: LinearLayout, comp: LinearLayout) -> tuple[str, int | None]:
    """(class, mixed transpositions or None when not computed)."""
    if comp.out_dims in ((), ("register",)):
        return "register", None
    if comp.out_dims == ("register", "lane"):
        mixed = mixed_transpositions(src, dst)
        if mixed is not None and mixed < 2:
            return "warp_shuffle", mixed
        return "shared_memory", mixed
    return "shared_memory", None


def mixed_transpositions(src: LinearLayout, dst: LinearLayout) -> int | None:
    """Triton's count of mixed register/lane transpositions (None if P is no permutation)."""
    S = src.remove_zero_bases_along_dim("register")
    T = dst.remove_zero_bases_along_dim("register")
    dims = ("register", "lane")
    n = {d: max(S.in_dim_size_log2(d), T.in_dim_size_log2(d)) for d in dims}
    S, T = (_pad(X.sublayout(dims, X.out_dims), n) for X in (S, T))
    try:
        P = S.invert_and_compose(T)
    except LayoutError:
        return None
    nxt = {}
    s_only, t_only = [], []
    for di, d in enumerate(dims):
        pb = P.in_bases(d)
        for i in range(n[d]):
            sv, tv = any(S.in_bases(d)[i]), any(T.in_bases(d)[i])
            vec = list(pb[i])
            if not sv and not tv:
                vec[di] = 1 << i
            elif not sv:
                s_only.append((d, i))
            elif not tv:
                t_only.append((dims.index(d), i))
            nxt[(d, i)] = vec
    for (d, i), (tdi, ti) in zip(s_only, t_only):
        nxt[(d, i)][tdi] = 1 << ti
    step = {}
    for key, vec in nxt.items():
        target = None
        for di, v in enumerate(vec):
            if v:
                if v & (v - 1):
                    return None
                target = (dims[di], log2(v))
        if target is None:
            return None
        step[key] = target
    if sorted(step.values()) != sorted(step):
        return None
    seen, mixed = set(), 0
    for key in sorted(step, key=lambda k: (dims.index(k[0]), k[1])):
        cur = key
        while cur not in seen:
            seen.add(cur)
            nxt_key = step[cur]
            if cur[0] == "lane" and nxt_key[0] == "register":
                mixed += 1
            cur = nxt_key
    return mixed


def _pad(L: LinearLayout, n: dict[str, int]) -> LinearLayout:
    zero = (0,) * L.num_out_dims
    ins = [(d, list(L.in_bases(d)) + [zero] * (n[d] - L.in_dim_size_log2(d))) for d in n]
    return LinearLayout(ins, L.out_dim_sizes)
