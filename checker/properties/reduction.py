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
allocation's); for a reduction on NVIDIA also ``shuffles_per_thread`` and ``redux_per_thread`` (`shuffles`:
the instructions in Triton's PTX; left out where Triton's choice of redux for part of a warp is not
modelled). F2 reads the levels off the bases (the witness of a level: its basis, replayed by `apply`); Z3
proves nothing else moves along the axis: no index that is zero on those in-dims has an image with an axis
component (unsat). A scan on a layout other than ``blocked`` fails: Triton 3.9's ScanOpToLLVM refuses it
(``ScanLoweringHelper::isSupported``). Otherwise the claim holds, a note of what the operation costs.
``tt.gather`` (kind ``gather``): the levels of the source and index layouts along the gather axis, and
Triton's lowering (`gather_warp_local`: warp shuffles, else the whole source through shared memory).
"""

from __future__ import annotations

from collections.abc import Sequence
from math import prod

from .. import memo, smt
from ..encodings import lower
from ..errors import CheckerError
from ..layout import LinearLayout
from ..verdict import DEFAULT_ENGINES, Engines
from ..versions import follows
from . import frame
from .conversion_cost import LdSt, reduction_target, scratch_elements
from .result import Counterexample, EngineVerdict, Result, run_engines

NAME = "reduction"
REG, LANE, WARP, BLOCK = "register", "lane", "warp", "block"
KINDS = ("reduce", "scan", "gather")


def _bases(L: LinearLayout) -> dict[str, list[list[int]]]:
    return {d: [list(b) for b in L.in_bases(d)] for d in L.in_dims}


def _same_outs(bases: dict[str, list[list[int]]], L: LinearLayout) -> LinearLayout:
    """The layout of `bases` (some of L's, reordered or moved between in-dims, so within L's out sizes) over L's
    in-dims and out-dims, built without checking again what L's construction checked."""
    return LinearLayout._of([(d, [tuple(x) for x in bases.get(d, [])]) for d in L.in_dims], L.out_dim_sizes)


def _rebuild(bases: dict[str, list[list[int]]], L: LinearLayout) -> LinearLayout:
    """The layout of the given bases over L's out dims, each out size inferred (the smallest power of two
    above its components), as Triton's LinearLayout(bases, outDimNames) does."""
    return LinearLayout.from_bases([(d, bases[d]) for d in L.in_dims], list(L.out_dims))


def drop_zero_registers(L: LinearLayout) -> LinearLayout:
    """L without the register bases that only repeat data (Triton's actionRemoveBroadcastedRegs)."""
    b = _bases(L)
    b[REG] = _nonzero(b.get(REG, []))
    return _same_outs(b, L)


def _nonzero(bases: list[list[int]]) -> list[list[int]]:
    return [x for x in bases if any(x)]


def _axis_first(bases: list[list[int]], axis: int) -> list[list[int]]:
    return [x for x in bases if x[axis]] + [x for x in bases if not x[axis]]


def zero_axis(L: LinearLayout, axis: int, dim: str) -> LinearLayout:
    """``dim``'s bases zeroed along ``axis``; the axis bases left (all in-dims, in order) renumbered
    1, 2, 4, ... so the axis out size shrinks to what is still unreduced (zeroBasesAlongDimAndReorder)."""
    return _zeroed(_bases(L), L, axis, dim)


def _zeroed(b: dict[str, list[list[int]]], L: LinearLayout, axis: int, dim: str) -> LinearLayout:
    """`zero_axis` of the layout of bases `b` over L's in-dims and out-dims (changing `b`)."""
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
    b[REG] = _axis_first(b.get(REG, []), axis)
    return _same_outs(b, L)


def reduced_registers(L: LinearLayout, axis: int) -> LinearLayout:
    """L once each thread has combined its registers along ``axis`` (the values left are the accumulators)."""
    return drop_zero_registers(_registers_zeroed(L, axis))


def _registers_zeroed(L: LinearLayout, axis: int) -> LinearLayout:
    """``zero_axis(axis_registers_first(drop_zero_registers(L), axis), axis, REG)``, the steps before the last
    of `reduced_registers`, on L's bases: the layouts between the steps are never built (neither can fail,
    their bases being some of L's, reordered, at L's out sizes)."""
    b = _bases(L)
    b[REG] = _axis_first(_nonzero(b.get(REG, [])), axis)
    return _zeroed(b, L, axis, REG)


def reduced_reg_lane_layout(L: LinearLayout, axis: int) -> LinearLayout:
    """L once the registers and the lanes have reduced along ``axis`` (ReduceOpHelper::reducedRegLaneLayout):
    ``zero_axis(reduced_registers(L, axis), axis, LANE)``, the registers' last step (dropping the zero
    bases) on the bases alone."""
    R = _registers_zeroed(L, axis)
    b = _bases(R)
    b[REG] = _nonzero(b.get(REG, []))
    return _zeroed(b, R, axis, LANE)


def shuffles(L: LinearLayout, axis: int, inputs: int, redux: bool = False) -> tuple[int, int] | None:
    """(``shfl.xor``, ``redux.sync``) per thread of a reduction (ReduceOpToLLVM's reduceWithinWarps): each lane
    bit along the axis is one butterfly round over every accumulator of every input, in the warp step and
    again in each cross-warp round (whose lanes then hold the warps' partials). With `redux` (the combiner and
    the target allow NVIDIA's redux.sync: TargetInfo::warpReduce), a step over all 32 lanes is one redux per
    accumulator; a step over part of the warp whose other lanes hold distinct data shuffles. Where the other
    lanes are broadcast copies, Triton 3.9 sometimes uses redux by rules not modelled here: such a reduction
    gives None (only its rounds are stated)."""
    return _shuffle_counts(reduced_registers(L, axis), cross_warp_rounds(L, axis), axis, inputs, redux)


def _shuffle_counts(reduced: LinearLayout, rounds: Sequence[tuple[LinearLayout, LinearLayout]], axis: int, inputs: int,
                    redux: bool) -> tuple[int, int] | None:
    """`shuffles` from the reduction's `reduced_registers` and `cross_warp_rounds`, which the caller has."""
    shfl = red = 0
    for layout in [reduced] + [inter for _, inter in rounds]:
        lanes = [b for b in layout.in_bases(LANE) if b[axis]]
        full = len(lanes) == len(layout.in_bases(LANE))
        if redux and lanes and not full and any(not any(b) for b in layout.in_bases(LANE)):
            return None                 # part of the warp, the rest broadcast: Triton's choice is not modelled
        if redux and full:
            red += accumulators(layout)
        else:
            shfl += accumulators(layout) * len(lanes)
    return shfl * inputs, red * inputs


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
    return _same_outs(b, L)


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


def rounds_and_scratch(L: LinearLayout, axis: int, bits: Sequence[int], target: LdSt | None = None) \
        -> tuple[tuple, int]:
    """(`cross_warp_rounds`, as a tuple, and the scratch the allocation gives the reduction of inputs of `bits`:
    `rounds_scratch_bytes` of them swizzled for the target's banks and phases (`reduction_target`; None: 32 banks),
    before Triton 3.8 `warp_tile_scratch_bytes`), once per run (`checker.memo`): the kernel's shared-memory
    budget and the reduction's check both need them."""
    target = target or LdSt()

    def compute() -> tuple[tuple, int]:
        rounds = tuple(cross_warp_rounds(L, axis))
        size = rounds_scratch_bytes(rounds, bits, target) if follows("reduce_scratch_by_rounds") else \
            warp_tile_scratch_bytes(L, axis, bits)
        return rounds, size
    return memo.shared("reduction.rounds_and_scratch", (L, axis, tuple(bits), target), compute)


def scratch_bytes(L: LinearLayout, axis: int, bits: list[int], target: LdSt | None = None) -> int:
    """The scratch the allocation analysis gives a reduction of inputs of these bit widths (each at least 8,
    pointers 64) in layout L (ReduceOpHelper::getScratchSizeInBytes): from Triton 3.8 its largest round, every
    input's tile side by side (swizzled for `target`: `reduction_target`); before, `warp_tile_scratch_bytes`."""
    return rounds_and_scratch(L, axis, bits, target)[1]


def warp_tile_scratch_bytes(L: LinearLayout, axis: int, bits: Sequence[int]) -> int:
    """The scratch of a reduction before Triton 3.8 (change ``reduce_scratch_by_rounds``): none when one warp
    holds the axis (warpsPerCTA[axis] = 1: the warp bases, by the out-dim each first moves, zero bases left
    out), else the tensor's shape with the axis cut to those warps, every input side by side:
    prod(shape with shape[axis] = warps[axis]) x sum over the inputs of ceil(bits / 8)."""
    warps = [1] * L.num_out_dims
    for b in L.in_bases(WARP) if L.has_in_dim(WARP) else ():
        first = next((k for k, c in enumerate(b) if c), None)
        if first is not None:
            warps[first] *= 2
    if warps[axis] == 1:
        return 0
    sizes = [s for _, s in L.out_dim_sizes]
    sizes[axis] = warps[axis]
    return prod(sizes) * sum(-(-b // 8) for b in bits)


def rounds_scratch_bytes(rounds: Sequence[tuple[LinearLayout, LinearLayout]], bits: Sequence[int],
                         target: LdSt | None = None) -> int:
    """`scratch_bytes` of a reduction whose `cross_warp_rounds` the caller has already (it names them too)."""
    largest = 0
    for src, dst in rounds:
        largest = max(largest, sum(scratch_elements(src, dst, b, target=target) * (b // 8) for b in bits))
    return largest


def _project(L: LinearLayout, dims: tuple, keep: list[int]) -> list:
    return [tuple(b[k] for k in keep) for d in dims if L.has_in_dim(d) for b in L.in_bases(d)]


def gather_warp_local(src: LinearLayout, index: LinearLayout, axis: int) -> bool:
    """Whether Triton's tt.gather lowering stays in each warp (GatherLoweringHelper::isWarpLocal): no warp or
    block basis of either layout moves along the gather axis, and both layouts map warps, blocks and lanes onto
    the other dims alike (so the warp and lane that own an index also own every source element it can pick)."""
    if any(b[axis] for L in (src, index) for d in (WARP, BLOCK) if L.has_in_dim(d) for b in L.in_bases(d)):
        return False
    others = [k for k in range(len(src.out_dims)) if k != axis]
    return _project(src, (BLOCK, WARP), others) == _project(index, (BLOCK, WARP), others) and \
        _project(src, (LANE,), others) == _project(index, (LANE,), others)


# ----------------------------------------------------------------- the property


def moving_dims(L: LinearLayout, axis: int) -> list[str]:
    """The in-dims with a basis that moves along `axis`, in (register, lane, warp, block) order."""
    return [d for d in L.in_dims if any(b[axis] for b in L.in_bases(d))]


def _axis_mask(L: LinearLayout, axis: int) -> int:
    sizes = [s for _, s in L.out_dim_sizes]
    return L.pack_out([sizes[k] - 1 if k == axis else 0 for k in range(len(sizes))])


def _f2(L: LinearLayout, axis: int, levels: list[str]) -> EngineVerdict:
    return EngineVerdict("f2", "holds", explanation=f"only {', '.join(levels) or 'no in-dim'} move along dim{axis}")


def _z3(L: LinearLayout, axis: int, levels: list[str]) -> EngineVerdict:
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
        return cx, f"{smt.solver_name()} model: {frame.show(index)} moves along dim{axis} outside {levels}"

    return smt.verdict(ob.solve(), holds=f"no other index moves along dim{axis} (unsat)", on_sat=on_sat)


def _all_z3(layouts: list[LinearLayout], axis: int, levels: list[str]) -> EngineVerdict:
    """The Z3 verdict over each layout; the first that is not ``holds`` answers."""
    verdicts = [_z3(L, axis, levels) for L in layouts]
    return next((v for v in verdicts if v.status != "holds"), verdicts[0])


def accumulators(L: LinearLayout) -> int:
    """Values per thread: 2^(register bases that are not zero)."""
    return 1 << sum(1 for b in L.in_bases(REG) if any(b)) if L.has_in_dim(REG) else 1


def reduction(L: LinearLayout, axis: int, bits: list[int], *, kind: str = "reduce", layout_kind: str | None = None,
              instructions: str | None = None, index_layout: LinearLayout | None = None,
              engines: Engines = DEFAULT_ENGINES, target: LdSt | None = None) -> Result:
    """The levels a reduction or scan of inputs of `bits` along `axis` crosses, and its cost (module docstring).
    `layout_kind`: the encoding's family (a scan needs ``blocked``); `instructions`: ``shfl`` or ``redux``
    (NVIDIA: the warp step's instructions are counted, redux.sync where the target and combiner allow it)
    or None (only the rounds are given); `index_layout`: a gather's indices (the source is L).
    A gather's levels are both layouts' (a Z3 query per layout)."""
    if kind not in KINDS:
        raise CheckerError(f"must be one of {list(KINDS)}, got {kind!r}", field="kind")
    if not 0 <= axis < len(L.out_dims):
        raise CheckerError(f"must be an out dim of the layout (0..{len(L.out_dims) - 1}), got {axis}", field="axis")
    levels = moving_dims(L, axis)
    lanes = [b for b in L.in_bases(LANE) if b[axis]] if L.has_in_dim(LANE) else []
    details: dict = {"kind": kind, "axis": axis, "levels": levels,
                     "in_thread": 1 << sum(1 for b in L.in_bases(REG) if b[axis]) if L.has_in_dim(REG) else 1,
                     "shuffle_rounds": len(lanes), "inputs": len(bits)}
    if kind == "gather":
        local = index_layout is not None and gather_warp_local(L, index_layout, axis)
        details.update({"warp_local": local, "lowering": "warp shuffles" if local else "shared memory",
                        "scratch_bytes": 0 if local else L.total_out_size * max(1, -(-bits[0] // 8))})
        levels = sorted(set(levels) | set(moving_dims(index_layout, axis) if index_layout is not None else ()),
                        key=("register", "lane", "warp", "block").index)
        details["levels"] = levels
    if kind == "scan" and layout_kind not in (None, "blocked"):
        return Result(NAME, "fails", {}, None, f"Triton 3.9 lowers a scan only on a blocked layout, not "
                                               f"{layout_kind} (ScanLoweringHelper::isSupported)", details)
    if kind == "reduce":
        reduced, (rounds, scratch) = reduced_registers(L, axis), rounds_and_scratch(L, axis, bits, target)
        details["accumulators"] = accumulators(reduced)
        counts = _shuffle_counts(reduced, rounds, axis, len(bits), instructions == "redux") \
            if instructions is not None else None
        if counts is not None:
            details["shuffles_per_thread"], details["redux_per_thread"] = counts
        details["cross_warp_rounds"] = len(rounds)
        details["scratch_bytes"] = scratch
    else:
        details["cross_warp_rounds"] = 1 if any(d in levels for d in (WARP, BLOCK)) else 0
    layouts = [L] + ([index_layout] if kind == "gather" and index_layout is not None else [])
    r = run_engines(NAME, engines, {"f2": lambda: _f2(L, axis, levels),
                                   "z3": lambda: _all_z3(layouts, axis, levels)}, details=details)
    if r.holds:
        r.explanation = _summary(details)
    return r


def _summary(d: dict) -> str:
    if d["kind"] == "gather":
        where = "within each warp (warp shuffles, no shared memory)" if d["warp_local"] else \
            f"through shared memory ({d['scratch_bytes']} B of scratch: the source)"
        return f"gathers along dim{d['axis']} {where}"
    what = "reduces" if d["kind"] == "reduce" else "scans"
    parts = [f"{d['in_thread']} elements per thread combined in registers"] if d["in_thread"] > 1 else []
    if d["shuffle_rounds"]:
        counts = [f"{d[k]} {name} per thread" for k, name in (("shuffles_per_thread", "shfl"),
                                                              ("redux_per_thread", "redux")) if d.get(k)]
        parts.append(f"{d['shuffle_rounds']} shuffle round(s) in the warp"
                     + (f" ({', '.join(counts)})" if counts else ""))
    if d["cross_warp_rounds"]:
        parts.append(f"{d['cross_warp_rounds']} round(s) across warps through shared memory"
                     + (f" ({d['scratch_bytes']} B of scratch)" if d.get("scratch_bytes") else ""))
    return f"{what} dim{d['axis']}: " + ("; ".join(parts) if parts else "nothing to combine (one element per row)")


def decide(check, engines: Engines) -> Result:
    """A TTGIR check: the operand's encoding at the check's shape, params ``axis``, ``bits``, ``kind``,
    ``instructions``; a gather's indices as operand ``index`` at ``index_shape``."""
    p = check.param
    enc = check.operand("layout")
    index = check.operand("index") if p("kind") == "gather" else None
    return reduction(lower(enc, check.shape), p("axis"), list(p("bits")), kind=p("kind"),
                     index_layout=lower(index, p("index_shape")) if index is not None else None,
                     layout_kind=getattr(enc, "kind", None), instructions=p("instructions"), engines=engines,
                     target=reduction_target(check.hardware))
