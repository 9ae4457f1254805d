"""How Triton itself classifies a convert_layout (reproduced, to report beside our proof).

Minimal conversion. comp = dst.invert_and_compose(src) maps a dst hardware
index to the src index Triton reads it from (least squares, free variables
0). For the in-dims the two layouts share at their end (``block``, ``warp``,
``lane``, ``register``, slowest first), comp is quotiented by that dim while
comp is the identity on it with no cross terms.

* trivial (``is_convert_layout_trivial``): identical encodings, or the
  remaining in-dims are none or exactly ``[register]``.
* class: ``register`` when the remaining out-dims are none or
  ``[register]``; ``warp_shuffle`` when the data stays in each warp (below)
  and the register/lane permutation factors with fewer than two mixed
  transpositions; ``shared_memory`` otherwise.

The data stays in each warp when the remaining out-dims are exactly
``[register, lane]``, or (Triton 3.9: cvtNeedsWarpShuffle over
getWarpLayoutConvertDecomposition's warp/CTA-dependent lane selection) when
``warp`` (and ``block``) remain only because the source is broadcast over
them. Per bit b of those dims, comp(b) must be b itself, or, where
src(b) = 0, one lane bit or nothing: src(b) = 0 means every warp holds what
the warp one bit further holds, so dst's warp b reads, in its own warp, the
source lane comp(b). Registers and lanes must not lead into another warp;
a warp bit leading to a register (a shuffle reads fixed registers), to
another warp or to a sum of lanes leaves the conversion to shared memory.
The shuffle's source lane is then P's lane XOR the lanes the warp (CTA)
bits select (`warp_lane_selection`); the selected source lanes stand out of
P, counted as broadcast in src (`decompose`).

Mixed transpositions. Drop the zero register bases of both layouts, keep
the register and lane bases, pad the shorter dims with zero bases, and take
P = src.invert_and_compose(dst): src (register, lane) bits -> dst bits.
A bit whose basis is zero on both sides is a fixed point of P; the bits
zero only in src are paired in order with those zero only in dst. Walking
the cycles of P from their lowest register bit, each run of lane bits
entered from a register and left to a register is sliced out with one
transposition (register i, lane j): the count is the number of
lane -> register steps. What is left on the lanes (P_lane: each run closed
on itself, lane -> lane steps elsewhere) tells the shuffle count
(`WarpConversion.shuffles`).
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import memo
from ..errors import LayoutError
from ..layout import LinearLayout, log2
from ..versions import follows


def minimal_conversion(src: LinearLayout, dst: LinearLayout) -> LinearLayout:
    """Triton's minimalCvtLayout (raises LayoutError when dst needs elements src lacks), once per run
    (`checker.memo`: the kernel's shared-memory budget, the conversion and its cost all ask)."""
    return memo.shared("triton_conversion.minimal_conversion", (src, dst), lambda: _minimal_conversion(src, dst))


def _minimal_conversion(src: LinearLayout, dst: LinearLayout) -> LinearLayout:
    common = []
    for s, d in zip(reversed(src.in_dims), reversed(dst.in_dims)):
        if s != d:
            break
        common.append(s)
    comp = dst.invert_and_compose(src)
    for dim in common:
        q = _quotient(comp, dim)
        if q is None:
            break
        comp = q
    return comp


def _quotient(comp: LinearLayout, dim: str) -> LinearLayout | None:
    """``comp.quotient([dim])`` read off the bases, when `dim` is both an in-dim and an out-dim of comp
    (always so in `minimal_conversion`: comp maps dst's in-dims to src's, and dim is in both; otherwise
    `LinearLayout.quotient` answers). With k the position of out-dim `dim`, comp is trivial over it when
    in-dim `dim` has as many bits as out-dim `dim` and its bit i maps to 2^i there and to 0 elsewhere, and
    no other in-dim's basis touches out-dim `dim`; the quotient is then the other in-dims' bases without
    component k."""
    outs = comp.out_dim_sizes
    names = [n for n, _ in outs]
    if dim not in names or not comp.has_in_dim(dim):
        return comp.quotient([dim])
    k = names.index(dim)
    ins = comp.bases
    own = ins[dim]
    if 1 << len(own) != outs[k][1]:
        return None
    if any(c != (1 << i if j == k else 0) for i, b in enumerate(own) for j, c in enumerate(b)):
        return None
    if any(b[k] for n, bs in ins.items() if n != dim for b in bs):
        return None
    return LinearLayout._of([(n, [b[:k] + b[k + 1:] for b in bs]) for n, bs in ins.items() if n != dim],
                            outs[:k] + outs[k + 1:])


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
    cls, wc = classify_in_warp(src, dst, comp)
    return cls, None if wc is None else wc.mixed


def classify_in_warp(src: LinearLayout, dst: LinearLayout,
                     comp: LinearLayout) -> tuple[str, WarpConversion | None]:
    """(class, the in-warp factorization when one was computed: `warp_conversion`)."""
    if comp.out_dims in ((), ("register",)):
        return "register", None
    wc = warp_conversion(src, dst, comp)
    if wc is None:
        return "shared_memory", None
    return ("warp_shuffle" if wc.mixed < 2 else "shared_memory"), wc


@dataclass(frozen=True)
class WarpConversion:
    """A conversion done inside each warp, as Triton 3.9's getWarpLayoutConvertDecomposition factors it.

    ``mixed``: the mixed register/lane transpositions of P; ``lanes_permuted``: P_lane is not the
    identity; ``register_bits``: the register bits P permutes (both layouts' non-zero registers, the
    shorter padded); ``selection``: (dim, lanes) for ``warp`` / ``block``, the source lane bit each bit
    of the dim selects (-1: none), the warp- (CTA-) dependent part of the shuffle's source lane."""

    mixed: int
    lanes_permuted: bool
    register_bits: int
    selection: tuple[tuple[str, tuple[int, ...]], ...] = ()

    @property
    def warp_dependent(self) -> bool:
        return any(j >= 0 for _, lanes in self.selection for j in lanes)

    def shuffles(self, bits: int) -> int:
        """shfl.sync per warp: one per packed 32-bit register when the lanes move on their own (P_lane
        not the identity, or a source lane that depends on the warp), else half of them (the single
        mixed transposition swaps half the registers; Triton's ship and swap lowerings cost the same
        there). Elements narrower than 32 bits are packed up to 32 bits, keeping at least
        ``mixed`` register bits unpacked; a 64-bit element is two 32-bit shuffles."""
        if bits > 32:
            regs = (1 << self.register_bits) * (bits // 32)
        else:
            pack = min(log2(min(32 // bits, 4)), self.register_bits - self.mixed)
            regs = 1 << (self.register_bits - pack)
        if self.lanes_permuted or self.warp_dependent:
            return regs
        return regs - (regs >> self.mixed)


def warp_lane_selection(src: LinearLayout, comp: LinearLayout) -> dict[str, tuple[int, ...]] | None:
    """When comp still has the ``warp`` (or ``block``) in-dim but each warp finds the data it needs in
    its own lanes: per such dim, the source lane bit each of its bits selects (-1: none); else None.

    Triton 3.9 keeps such a conversion inside the warps (getWarpLayoutConvertDecomposition's
    warp/CTA-dependent lane selection) when the source is broadcast over the warp (CTA) bits the
    destination spreads: comp maps each such bit b to b itself (the same warp, no cross term) or,
    where src(b) = 0, to a single lane bit or to nothing (every warp holds those elements, one lane
    further on: the shuffle's source lane depends on the warp). No register or lane
    may lead into another warp, and no warp bit may pick a register (the registers a shuffle reads
    are fixed), another warp, or a combination of lanes: those go through shared memory."""
    kept = [d for d in ("warp", "block") if d in comp.in_dims]
    if not kept or "lane" not in comp.out_dims:
        return None
    outs = comp.out_dims
    for o in kept:
        if o in outs:
            k = outs.index(o)
            if any(b[k] for d in comp.in_dims if d != o for b in comp.in_bases(d)):
                return None
    sel = {}
    for d in kept:
        held = src.in_bases(d) if src.has_in_dim(d) else ()
        lanes = []
        for i, b in enumerate(comp.in_bases(d)):
            here = dict(zip(outs, b))
            if here.get(d) == 1 << i and not any(v for k, v in here.items() if k != d):
                lanes.append(-1)                # the same warp (CTA), nothing else
                continue
            if i < len(held) and any(held[i]):
                return None
            lane = here.pop("lane")
            if any(here.values()) or lane & (lane - 1):
                return None
            lanes.append(log2(lane) if lane else -1)
        sel[d] = tuple(lanes)
    return sel


def warp_conversion(src: LinearLayout, dst: LinearLayout, comp: LinearLayout) -> WarpConversion | None:
    """The in-warp factorization of a conversion whose minimal conversion moves data between lanes
    (out-dims register, lane) or also selects lanes by warp or CTA (`warp_lane_selection`), or None
    when there is none (then Triton goes through shared memory; so too when two warp bits select one
    lane, and before Triton 3.9 whenever a warp or CTA bit selects lanes: change
    ``cvt_shuffle_lanes_picked_by_warp``). The source lanes a warp bit selects stand out of P: they count
    as broadcast in src, as the destination lanes Triton reads them through are."""
    if comp.out_dims == ("register", "lane"):
        return decompose(src, dst)
    sel = warp_lane_selection(src, comp) if follows("cvt_shuffle_lanes_picked_by_warp") else None
    if sel is None:
        return None
    picked = [j for lanes in sel.values() for j in lanes if j >= 0]
    if len(set(picked)) != len(picked):
        return None
    wc = decompose(src, dst, picked)
    return None if wc is None else WarpConversion(wc.mixed, wc.lanes_permuted, wc.register_bits,
                                                  tuple(sorted(sel.items())))


def mixed_transpositions(src: LinearLayout, dst: LinearLayout) -> int | None:
    """Triton's count of mixed register/lane transpositions (None if P is no permutation)."""
    wc = decompose(src, dst)
    return None if wc is None else wc.mixed


def decompose(src: LinearLayout, dst: LinearLayout,
              selected: list[int] | tuple[int, ...] = ()) -> WarpConversion | None:
    """P and its factorization P = P_mixed o P_lane o P_reg (module docstring); `selected` source
    lanes are read through the warp and count as broadcast in src. None if P is no permutation."""
    if selected:
        lanes = list(src.in_bases("lane"))
        zero = (0,) * src.num_out_dims
        for j in selected:
            lanes[j] = zero
        src = LinearLayout([(d, lanes if d == "lane" else src.in_bases(d)) for d in src.in_dims],
                           src.out_dim_sizes)
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
    # walk the cycles from their lowest register bit: every run of lanes entered from a register and
    # left to one is a mixed transposition (register i, first lane of the run), and P_lane closes the
    # run on itself (last lane -> first lane); a lane -> lane step elsewhere is P_lane's too
    seen, mixed, lane_moves = set(), 0, False
    for key in sorted(step, key=lambda k: (dims.index(k[0]), k[1])):
        cur, run = key, None
        while cur not in seen:
            seen.add(cur)
            nxt_key = step[cur]
            if cur[0] == "register" and nxt_key[0] == "lane":
                run = nxt_key
            elif cur[0] == "lane" and nxt_key[0] == "register":
                mixed += 1
                lane_moves |= run != cur
            elif cur[0] == "lane":
                lane_moves |= nxt_key != cur
            cur = nxt_key
    return WarpConversion(mixed, lane_moves, n["register"])


def _pad(L: LinearLayout, n: dict[str, int]) -> LinearLayout:
    zero = (0,) * L.num_out_dims
    ins = [(d, list(L.in_bases(d)) + [zero] * (n[d] - L.in_dim_size_log2(d))) for d in n]
    return LinearLayout(ins, L.out_dim_sizes)
