"""How Triton lowers ``tt.reduce`` and ``tt.scan`` along one axis, read off the operand's LinearLayout, and the
property ``reduction``: the levels a reduction (or scan) crosses and what each costs.

Triton 3.9's ``ReduceOpHelper`` (lib/Analysis/Utility.cpp) and ``ReduceOpToLLVM`` reduce a tensor of layout
L along ``axis`` in levels:

1. in registers: the register bases that move along the axis are combined inside each thread
   (``reduced_reg_lane_layout`` zeroes them and renumbers the axis bases left: ``zero_axis``);
2. in the warp: the lane bases along the axis are combined with butterfly shuffles (one ``shfl.sync`` round
   per such lane basis), then zeroed the same way;
3. across warps (and CTAs): while warp or block bases still move along the axis, one *round* converts the
   partial results into ``inter_layout`` (axis bases of the warps swapped into lanes: into lanes that hold
   no data when there are enough of them, else into the first lanes), reduces there as in 2, and zeroes
   those lanes. Each round goes through a scratch buffer in shared memory of
   ``sum over inputs of scratch_elements(reg, inter, bits) x bytes`` (the allocation analysis keeps the
   largest round: ``scratch_bytes``).

The layouts are (register, lane, warp, block) -> tensor coordinates; ``axis`` indexes the out dims.

**The property** ``reduction(L, axis, bits, kind)`` states the levels the operation crosses: the in-dims of L
with a basis that moves along the axis (``details.levels``: ``register`` = in-thread combining, ``lane`` =
shuffles, ``warp`` / ``block`` = rounds through shared memory), with ``shuffle_rounds`` (lane bits along the
axis, each one butterfly ``shfl.xor`` round), ``accumulators`` (values per thread left after the in-thread
step: each round shuffles each of them, per input), ``cross_warp_rounds`` and ``scratch_bytes`` (the
allocation's); for a reduction also ``shuffles_per_thread`` (`shuffles`). F2 reads the levels off the bases (the witness of a level: its basis, replayed by `apply`); Z3
proves nothing else moves along the axis: no index that is zero on those in-dims has an image with an axis
component (unsat). A scan on a layout other than ``blocked`` fails: Triton 3.9's ScanOpToLLVM refuses it
(``ScanLoweringHelper::isSupported``). Otherwise the claim holds, a note of what the operation costs.
"""

from __future__ import annotations

from .. import smt
from ..errors import CheckerError
from ..layout import LinearLayout
from . import frame
from .result import Counterexample, EngineVerdict, Result, decide

NAME = "reduction"
REG, LANE, WARP, BLOCK = "register", "lane", "warp", "block"
KINDS = ("reduce", "scan")


def _bases(L: LinearLayout) -> dict[str, list[list[int]]]:
    return {d: [list(b) for b in L.in_bases(d)] for d in L.in_dims}


def _rebuild(bases: dict[str, list[list[int]]], L: LinearLayout) -> LinearLayout:
    """The layout of the given bases over L's out dims, each out size inferred (the smallest power of two
    above its components), as Triton's LinearLayout(bases, outDimNames) does."""
    return LinearLayout.from_bases([(d, bases[d]) for d in L.in_dims], list(L.out_dims))


def drop_zero_registers(L: LinearLayout) -> LinearLayout:
    """L without the register bases that only repeat data (Triton's actionRemoveBroadcastedRegs)."""
    b = _bases(L)
    b[REG] = [x for x in b.get(REG, []) if any(x)]
    return LinearLayout([(d, b[d]) for d in L.in_dims], L.out_dim_sizes)


def zero_axis(L: LinearLayout, axis: int, dim: str) -> LinearLayout:
    """``dim``'s bases zeroed along ``axis``; the axis bases left (all in-dims, in order) renumbered
    1, 2, 4, ... so the axis out size shrinks to what is still unreduced (zeroBasesAlongDimAndReorder)."""
    b = _bases(L)
    for x in b.get(dim, []):
        x[axis] = 0
    step = 1
    for d in L.in_dims:
        for x in b[d]:
            if x[axis]:
                x[axis] = step
                step *= 2
    return _rebuild(b, L)


def axis_registers_first(L: LinearLayout, axis: int) -> LinearLayout:
    """The register bases that move along ``axis`` first, the others after, each group in order
    (moveAxisBasesToFront, not vectorized)."""
    b = _bases(L)
    regs = b.get(REG, [])
    b[REG] = [x for x in regs if x[axis]] + [x for x in regs if not x[axis]]
    return LinearLayout([(d, b[d]) for d in L.in_dims], L.out_dim_sizes)


def reduced_registers(L: LinearLayout, axis: int) -> LinearLayout:
    """L once each thread has combined its registers along ``axis`` (the values left are the accumulators)."""
    R = drop_zero_registers(L)
    R = axis_registers_first(R, axis)
    R = zero_axis(R, axis, REG)
    return drop_zero_registers(R)


def reduced_reg_lane_layout(L: LinearLayout, axis: int) -> LinearLayout:
    """L once the registers and the lanes have reduced along ``axis`` (ReduceOpHelper::reducedRegLaneLayout)."""
    return zero_axis(reduced_registers(L, axis), axis, LANE)


def shuffles(L: LinearLayout, axis: int, inputs: int) -> int:
    """``shfl.xor`` per thread of a reduction (ReduceOpToLLVM's reduceWithinWarps, before a target's redux
    instruction replaces some): each lane bit along the axis is one butterfly round over every accumulator of
    every input, in the warp step and again in each cross-warp round (whose lanes then hold the warps' partials)."""
    def rounds(layout: LinearLayout) -> int:
        return accumulators(layout) * sum(1 for b in layout.in_bases(LANE) if b[axis])
    total = rounds(reduced_registers(L, axis))
    for _, inter in cross_warp_rounds(L, axis):
        total += rounds(inter)
    return total * inputs


def inter_layout(L: LinearLayout, axis: int) -> LinearLayout:
    """The layout one cross-warp round converts into (ReduceOpHelper::getInterLayout): the warp (then block)
    bases along ``axis`` swapped with lane bases: with lanes that are all zero when there are as many of
    them, else with the first lanes; when even all lanes are too few, as many warp bases as lanes."""
    b = _bases(L)
    lanes, warps, blocks = b.setdefault(LANE, []), b.setdefault(WARP, []), b.setdefault(BLOCK, [])
    warp_axis = [i for i, x in enumerate(warps) if x[axis]]
    block_axis = [i for i, x in enumerate(blocks) if x[axis]]
    zero_lanes = [i for i, x in enumerate(lanes) if not any(x)]
    moves = [(warps, i) for i in warp_axis] + [(blocks, i) for i in block_axis]
    if len(zero_lanes) >= len(moves):
        targets = zero_lanes
    elif len(moves) <= len(lanes):
        targets = list(range(len(lanes)))
    else:
        moves = [(warps, i) for i in warp_axis][:len(lanes)]
        targets = list(range(len(lanes)))
    for (src, i), t in zip(moves, targets):
        lanes[t], src[i] = src[i], lanes[t]
    return LinearLayout([(d, b.get(d, [])) for d in L.in_dims], L.out_dim_sizes)


def cross_warp_rounds(L: LinearLayout, axis: int) -> list[tuple[LinearLayout, LinearLayout]]:
    """The (from, to) layouts of each round through shared memory, in order; empty when the warps and
    CTAs hold no two elements along ``axis``."""
    rounds = []
    reg = reduced_reg_lane_layout(L, axis)
    while reg.out_dims and dict(reg.out_dim_sizes)[reg.out_dims[axis]] != 1:
        tmp = inter_layout(reg, axis)
        rounds.append((reg, tmp))
        reg = zero_axis(tmp, axis, LANE)
    return rounds


def scratch_bytes(L: LinearLayout, axis: int, bits: list[int]) -> int:
    """The scratch the allocation analysis gives a reduction of inputs of these bit widths (each at least 8,
    pointers 64) in layout L: its largest round, every input's tile side by side
    (ReduceOpHelper::getScratchSizeInBytes)."""
    from .conversion_cost import scratch_elements
    largest = 0
    for src, dst in cross_warp_rounds(L, axis):
        largest = max(largest, sum(scratch_elements(src, dst, b) * (b // 8) for b in bits))
    return largest


# ----------------------------------------------------------------- the property


def moving_dims(L: LinearLayout, axis: int) -> list[str]:
    """The in-dims with a basis that moves along `axis`, in (register, lane, warp, block) order."""
    return [d for d in L.in_dims if any(b[axis] for b in L.in_bases(d))]


def _axis_mask(L: LinearLayout, axis: int) -> int:
    sizes = [s for _, s in L.out_dim_sizes]
    return L.pack_out([sizes[k] - 1 if k == axis else 0 for k in range(len(sizes))])


def _f2(L: LinearLayout, axis: int, levels: list[str]) -> EngineVerdict:
    return EngineVerdict("f2", "holds", explanation=f"only {', '.join(levels) or 'no in-dim'} move along dim{axis}")


def _z3(L: LinearLayout, axis: int, levels: list[str], timeout_ms) -> EngineVerdict:
    ob = smt.Obligation(NAME)
    k = ob.index(L, "k")
    ob.require(*(k[d] == 0 for d in levels if d in k), (ob.image(L, k) & _axis_mask(L, axis)) != 0)

    def on_sat(values):
        index = {d: values.get(f"k.{d}", 0) for d in L.in_dims}

        def replay(data) -> bool:
            image = frame.image(L, data["index"])
            return image is not None and all(data["index"].get(d, 0) == 0 for d in levels) and \
                image[L.out_dims[axis]] != 0
        cx = Counterexample("moves_along_axis", {"index": index, "element": frame.image(L, index)}, replay)
        return cx, f"z3 model: {frame.show(index)} moves along dim{axis} outside {levels}"

    return smt.verdict(ob.solve(timeout_ms), holds=f"no other index moves along dim{axis} (unsat)", on_sat=on_sat)


def accumulators(L: LinearLayout) -> int:
    """Values per thread: 2^(register bases that are not zero)."""
    return 1 << sum(1 for b in L.in_bases(REG) if any(b)) if L.has_in_dim(REG) else 1


def reduction(L: LinearLayout, axis: int, bits: list[int], *, kind: str = "reduce", layout_kind: str | None = None,
              engine: str = "both", timeout_ms: int | None = None) -> Result:
    """The levels a reduction or scan of inputs of `bits` along `axis` crosses, and its cost (module docstring).
    `layout_kind`: the encoding's family (a scan needs ``blocked``)."""
    if kind not in KINDS:
        raise CheckerError(f"must be one of {list(KINDS)}, got {kind!r}", field="kind")
    if not 0 <= axis < len(L.out_dims):
        raise CheckerError(f"must be an out dim of the layout (0..{len(L.out_dims) - 1}), got {axis}", field="axis")
    levels = moving_dims(L, axis)
    lanes = [b for b in L.in_bases(LANE) if b[axis]] if L.has_in_dim(LANE) else []
    details: dict = {"kind": kind, "axis": axis, "levels": levels,
                     "in_thread": 1 << sum(1 for b in L.in_bases(REG) if b[axis]) if L.has_in_dim(REG) else 1,
                     "shuffle_rounds": len(lanes), "inputs": len(bits)}
    if kind == "scan" and layout_kind not in (None, "blocked"):
        return Result(NAME, "fails", {}, None, f"Triton 3.9 lowers a scan only on a blocked layout, not "
                                               f"{layout_kind} (ScanLoweringHelper::isSupported)", details)
    if kind == "reduce":
        details["accumulators"] = accumulators(reduced_registers(L, axis))
        details["shuffles_per_thread"] = shuffles(L, axis, len(bits))
        details["cross_warp_rounds"] = len(cross_warp_rounds(L, axis))
        details["scratch_bytes"] = scratch_bytes(L, axis, bits)
    else:
        details["cross_warp_rounds"] = 1 if any(d in levels for d in (WARP, BLOCK)) else 0
    r = decide(NAME, engine, {"f2": lambda: _f2(L, axis, levels), "z3": lambda: _z3(L, axis, levels, timeout_ms)},
               details=details)
    if r.holds:
        r.explanation = _summary(details)
    return r


def _summary(d: dict) -> str:
    what = "reduces" if d["kind"] == "reduce" else "scans"
    parts = [f"{d['in_thread']} elements per thread combined in registers"] if d["in_thread"] > 1 else []
    if d["shuffle_rounds"]:
        parts.append(f"{d['shuffle_rounds']} shuffle round(s) in the warp"
                     + (f" ({d['shuffles_per_thread']} shfl per thread)" if "shuffles_per_thread" in d else ""))
    if d["cross_warp_rounds"]:
        parts.append(f"{d['cross_warp_rounds']} round(s) across warps through shared memory"
                     + (f" ({d['scratch_bytes']} B of scratch)" if d.get("scratch_bytes") else ""))
    return f"{what} dim{d['axis']}: " + ("; ".join(parts) if parts else "nothing to combine (one element per row)")


def check(check, engine, timeout_ms) -> Result:
    """A TTGIR check: the operand's encoding at the check's shape, params ``axis``, ``bits``, ``kind``."""
    from ..encodings import lower
    p = check.param
    enc = check.operand("layout")
    return reduction(lower(enc, check.shape), p("axis"), list(p("bits")), kind=p("kind"),
                     layout_kind=getattr(enc, "kind", None), engine=engine, timeout_ms=timeout_ms)
