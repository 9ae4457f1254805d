"""bank_conflict_free(R, S, dtype_bits): moving a register tile through shared memory wastes no wavefront.

Setting. R is a register layout (register, lane, warp[, block]) -> tensor,
S a shared layout (offset[, block]) -> tensor, elements of ``dtype_bits``.
A store writes R's registers into S (``local_store``), a load reads S into
R (``local_load``). Register bases that are zero only repeat data and are
never re-accessed, so they are dropped first; then

    cvt = R.invert_and_compose(S): (register, lane, warp) -> offset

says where each register element lives (per CTA). Everything below is a
function of cvt, which is F2-linear.

Instruction (``access="auto"`` picks what Triton emits). Triton tries
``stmatrix``/``ldmatrix`` first, then the transposed forms, and otherwise
``st.shared``/``ld.shared``:

* matrix, not transposed (elements <= 32 bits): after a register
  permutation, the first log2(32/bits) register bits and lanes 0, 1 must map
  to consecutive offsets (one 16-byte row of an 8x8 b16 matrix) and every
  other basis must keep clear of those offset bits (Triton's ``divideLeft``);
* matrix, transposed (16-bit; 8-bit where the target has ``b8``): lanes 2,
  3, 4 must map to offsets 1, 2, 4 (8-bit: plus a register to 8) and every
  other basis must keep clear of them; the register(s) that pick the rows
  of one matrix are the ones with the fewest conflicts in Triton's own
  16-byte-row model (`smem.plan`'s row choice), not simply R's first;
* ``.xN``: N = min(128/bits, registers) / registers per matrix;
* otherwise ``st/ld.shared`` with the largest v (elements, at most 16 bytes)
  such that v registers, after a permutation, map to offsets 0..v-1 and
  the rest keeps clear (Triton's ``largestVectorisation``).

Hardware model (default). Registers split into *phase* bits (vary inside one
phase: the vector, or the rows of one matrix), *select* bits (pick the
matrix inside one ``.xN`` instruction) and *instruction* bits; lanes split
into the hardware's lane groups for the access width (`Hardware.groups`,
cosets of a subspace V; all 32 lanes for matrix instructions). A phase is
then a coset of P = span(phase register bits, V) in the hardware index
space. Word addresses are ``(offset * bytes + sub) // bank_bytes``: linear
in the index bits (a shift, plus ``sub`` bits when an element spans several
words). With W the word map restricted to P and b the bank projection
(the low log2(banks) word bits), a phase touches an affine set of words
c + W(P), and each bank receives exactly 2^dim(W(P) ∩ ker b) of them, so

    cost of every phase = 2^(rank W - rank b∘W),
    wavefronts = cost * phases,  min_wavefronts = phases,
    conflicts (Triton's unit) = cost - 1.

The property holds iff cost = 1.

Triton's model (``model="triton"``, Triton's ``bank_conflicts``): vec from
``largestVectorisation`` on cvt (with the block dim); S's in-bits reshaped
into vector (vec), bank (min(1024/(vec*bits), total)) and segment; the
lanes of one wavefront are R's lane bases minus the top
max(0, log2(max(1, vec*bits/32)) + lane bits - 5); conflicts =
2^dim(span(segment) ∩ span(wavefront lanes)) - 1, where Triton takes the
dimension as a plain set intersection when every basis is a power of two
(a repeated segment basis then counts twice) and through null spaces
otherwise. Triton aborts on AMD targets and when a split size is not a
power of two; those raise CheckerError.

Engines. F2: the ranks above (and Triton's intersection). Z3: an exists-
query over bit-vectors, x and y in one phase (same warp, same instruction
and select bits, register bits differing only in phase bits, lanes in one
group), W(x) != W(y) with equal bank bits; unsat proves the property.
Triton's model: some nonzero tensor vector is both a segment combination
and a wavefront-lane combination.

Certificates of F2 ``holds`` (`checker.certificate`): the rank computation,
a row-echelon form E = T·b(W) of the phase's masked words with T unit lower
triangular, re-multiplied by the checker, each zero row of E a combination
that is zero on the full words too (``rank_preserved``: rank W = rank b∘W);
Triton's model: the same over segment + lane vectors, each zero row's
segment part zero (``trivial_intersection``). They certify the linear
algebra from the plan's word vectors on; the plan itself (instruction,
phase bits, word map) is the model both engines share.

Witness. Two accesses of one phase: register index (R's numbering), lane,
warp, element offset, byte address, 4-byte word; same bank, different words.
Replay recomputes R(index) = S(offset), the byte and word arithmetic, the
bank, and that both lie in the phase's lanes and registers, on integers.
"""

from __future__ import annotations

from typing import Any

from .. import smt
from ..errors import CheckerError
from ..hardware import Hardware, resolve
from ..layout import LinearLayout
from ..padded import PaddedLayout
from ..verdict import DEFAULT_ENGINES, Engines
from . import certify, frame
from .operands import element_width, linear, lowered
from .padded_views import access_operands, padded_view
from .result import EngineVerdict, Result, run_engines
from .smem.plan import (
    ACCESSES,
    DIRECTIONS,
    LANE,
    WARP,
    Frame,
    Kind,
    Plan,
    element_bits,
    frame_columns,
    issued,
    normalize,
    pair_details,
    pairing_clause,
    plan,
    scored_as_issued,
)
from .smem.triton_count import triton_count, triton_count_columns
from .smem.witness import describe, first_common, hardware_witness, same_phase_bank_pair, triton_witness

MODELS = ("hardware", "triton")


def bank_conflict_free(R: LinearLayout, S: LinearLayout, dtype_bits: int, *, direction: str = "store",
                       access: str = "auto", model: str = "hardware", hardware: Any = "sm90",
                       engines: Engines = DEFAULT_ENGINES, triton: bool = False,
                       max_vector: int | None = None, mma_feed: int | None = None,
                       offset_phi: bool = False, offset_phi_alternative: bool = False,
                       base_bytes: int = 0) -> Result:
    """Does storing R into S (direction="store") or loading S into R ("load") cost
    only the conflict-free number of wavefronts? See the module docstring. triton: with the hardware
    model, also Triton's own count (``details["triton_conflicts"]``) and, where it differs, why (in the
    explanation); computed only on request (it is a second model run on the same access). max_vector: an
    asynchronous copy's (cp.async, direct_to_lds) vector as its global pointer allows it, in elements (the
    pointer's AxisInfo: `checker.properties.coalesced.pointer_vector`); None: as wide as the layouts allow.
    mma_feed: an AMD load whose registers feed every MFMA/WMMA of a loop of one basic block, each instruction
    reading the registers that agree above their lowest `mma_feed` bits (the TTGIR reader's finding,
    `checker.ttgir.mma_feed`): the ds_read pairs whose two reads reach every instruction are issued
    single, as Triton 3.9's LLVM does (`smem.pairs.kept_single_for_mma`); None: paired as LLVM fuses them.
    offset_phi: an AMD load after a loop whose lanes' offset LLVM merges with the loop's own read of that buffer
    into a phi (the TTGIR reader's finding, `checker.ttgir.mma_feed.offset_phi`): its XOR constants with lane bits
    keep their address registers (`smem.pairs.address_registers`). offset_phi_alternative: whether the phi forms is
    LLVM's code placement, not the TTGIR: the load is also planned with the other choice of `offset_phi`; the
    costlier of the two is scored (the first where they cost the same) and the other is ``details["alternative"]``
    (its instruction and figures, named in the explanation). base_bytes: the constant part of an AMD access's
    address (its buffer's offset in the kernel's shared memory, as the TTGIR reader places it), which LLVM folds
    into the immediates: the paired forms are those its fields allow (`smem.pairs.pairing`)."""
    if max_vector is not None and (isinstance(max_vector, bool) or not isinstance(max_vector, int)
                                   or max_vector < 1):
        raise CheckerError(f"must be a positive number of elements, got {max_vector!r}", field="vector")
    if max_vector is not None and (access not in ("cp.async", "direct_to_lds", "fill_store") or model != "hardware"):
        raise CheckerError(f"caps the vector of an asynchronous copy (cp.async, direct_to_lds, its fill_store) in "
                           f"the hardware model, not {access} in the {model} model", field="vector")
    if mma_feed is not None and (isinstance(mma_feed, bool) or not isinstance(mma_feed, int) or mma_feed < 0):
        raise CheckerError(f"must be a number of register bits (0 or more), got {mma_feed!r}", field="mma_feed")
    if isinstance(base_bytes, bool) or not isinstance(base_bytes, int) or base_bytes < 0:
        raise CheckerError(f"must be a number of bytes (0 or more), got {base_bytes!r}", field="base_bytes")
    if base_bytes and (access != "auto" or model != "hardware"):
        raise CheckerError(f"places an ld/st access (access auto) in the hardware model, not {access} in the {model} "
                           "model", field="base_bytes")
    for name, given in (("mma_feed", mma_feed is not None), ("offset_phi", offset_phi),
                        ("offset_phi_alternative", offset_phi_alternative)):
        if given and (direction != "load" or access != "auto" or model != "hardware"):
            raise CheckerError(f"describes how LLVM pairs a load (access auto) in the hardware model, not a "
                               f"{direction} ({access}, {model} model)", field=name)
    if direction not in DIRECTIONS:
        raise CheckerError(f"must be one of {list(DIRECTIONS)}, got {direction!r}", field="direction")
    if access not in ACCESSES:
        raise CheckerError(f"must be one of {list(ACCESSES)}, got {access!r}", field="access")
    if model not in MODELS:
        raise CheckerError(f"must be one of {list(MODELS)}, got {model!r}", field="model")
    hw = resolve(hardware)
    if isinstance(S, PaddedLayout):  # padded shared memory: integer addresses, see padded_access
        if not S.padded:  # no padding: the linear layout, scored without Triton's figure
            return bank_conflict_free(R, S.linear, dtype_bits, direction=direction, access=access, model=model,
                                      hardware=hw, engines=engines, max_vector=max_vector, mma_feed=mma_feed,
                                      offset_phi=offset_phi, offset_phi_alternative=offset_phi_alternative,
                                      base_bytes=base_bytes)
        from .padded_access import bank_conflict_free_padded  # lazy: only padded layouts need it
        return bank_conflict_free_padded(R, S, dtype_bits, direction, access, model, hw, engines,
                                         max_vector=max_vector, mma_feed=mma_feed)
    if model == "triton":  # from the columns: normalize's checks, no intermediate layouts (`frame_columns`)
        fr = frame_columns(R, S)
    else:
        R, S = normalize(R, S)
    bits = element_bits(dtype_bits)
    if access != "auto" and (direction == "load") != (access.startswith("ld") or access == "ds_read_tr"):
        raise CheckerError(f"{access} cannot {direction}", field="access")
    if model == "triton":
        if access not in ("auto", "st.shared", "ld.shared", "cp.async"):
            raise CheckerError(f"Triton's bank_conflicts scores ld/st.shared only, not {access}", field="access")
        return _decide_triton(_Normalized(R, S), fr, bits, direction, hw, engines)
    return _decide_hardware(R, S, bits, direction, access, hw, engines, triton, max_vector, mma_feed, offset_phi,
                            offset_phi_alternative, base_bytes)


def changes_pairs(check: Any, mma_feed: int | None = None, offset_phi: bool = False, base_bytes: int = 0) -> bool:
    """Whether `mma_feed` / `offset_phi` change how a check's load is issued (a ds_read plan whose pairs LLVM then
    fuses otherwise), or `base_bytes` the forms of a load's or store's pairs (`bank_conflict_free`'s parameters),
    the check's operands read as `decide` reads them. The TTGIR reader gives a check such a parameter only then,
    so that the accesses it does not change keep sharing their proofs with their copies
    (`checker.run.runner.proof_key`)."""
    hw, bits = resolve(check.hardware), element_bits(check.dtype_bits)
    direction = check.param("direction")
    if hw.vendor != "amd" or direction != "load" and not base_bytes or check.param("access") not in (None, "auto"):
        return False
    if check.param("padded_view"):
        R, S, _, _ = padded_view(check)
    else:
        R, S, shape = access_operands(check)
        R, S = linear(R, shape, "R"), lowered(S, shape, "S")
    if isinstance(S, PaddedLayout) and S.padded:
        if base_bytes:
            return False                # the padded plan's immediates are slots: no constant base modelled there
        from .padded_access import normalize_padded, padded_plan  # lazy: only padded layouts need it
        Rp, mem = normalize_padded(R, S)
        return padded_plan(Rp, mem, bits, "load", hw, mma_feed=mma_feed).pair != \
            padded_plan(Rp, mem, bits, "load", hw).pair
    Rn, Sn = normalize(R, S.linear if isinstance(S, PaddedLayout) else S)
    plain = plan(Rn, Sn, bits, direction, "auto", hw).pair
    if base_bytes and (plain is None or not plain.fields):
        return False                    # nothing fused: the base moves no access into or out of a pair
    given = plan(Rn, Sn, bits, direction, "auto", hw, None, mma_feed, offset_phi, base_bytes).pair
    return _forms(given) != _forms(plain) if base_bytes else given != plain


def _forms(pair: Any) -> Any:
    """What of a pairing names its instructions: which accesses fuse and in which forms (not their fields)."""
    return None if pair is None else (pair.delta, pair.singles, pair.unpaired, sorted(f[2] for f in pair.fields))


def judge(R, S, shape=None, dtype=None, *, direction: str = "store", access: str = "auto", model: str = "hardware",
          hardware: Any = "sm90", engines: Engines = DEFAULT_ENGINES, triton: bool = False,
          max_vector: int | None = None, mma_feed: int | None = None, offset_phi: bool = False,
          offset_phi_alternative: bool = False, base_bytes: int = 0) -> Result:
    """R and S as layouts, or encodings lowered at `shape`; `dtype` (a name or a number of bits) defaults to
    the width the shared encoding declares (nvmma_shared)."""
    return bank_conflict_free(linear(R, shape, "R"), lowered(S, shape, "S"), element_width(dtype, S),
                              direction=direction, access=access, model=model, hardware=hardware, engines=engines,
                              triton=triton, max_vector=max_vector, mma_feed=mma_feed, offset_phi=offset_phi,
                              offset_phi_alternative=offset_phi_alternative, base_bytes=base_bytes)


def decide(check, engines: Engines) -> Result:
    """A check (`checker.registry`): operands ``reg`` and ``shared``, params ``direction``, ``access``,
    ``model``, ``triton``, ``vector`` (an asynchronous copy's vector as its global pointer allows it, where that
    is less than the layouts allow: `bank_conflict_free`'s max_vector), ``mma_feed`` (a read that feeds every
    MFMA/WMMA of a loop of one block: `bank_conflict_free`'s mma_feed), ``offset_phi`` and
    ``offset_phi_alternative`` (a read after a loop: its lanes' offset through a phi), ``base_bytes`` (the
    constant part of the buffer's address); a TTGIR access through a view is judged in its allocation
    (`padded_views`)."""
    p = check.param
    if p("padded_view"):
        R, mem, places, hw = padded_view(check)
        access, model = p("access") or "auto", p("model") or "hardware"
        if not mem.padded:              # no padding after all: the linear layout's own model
            return bank_conflict_free(R, mem.linear, check.dtype_bits, direction=p("direction"), access=access,
                                      model=model, hardware=hw, engines=engines, max_vector=p("vector"),
                                      mma_feed=p("mma_feed"), offset_phi=bool(p("offset_phi")),
                                      offset_phi_alternative=bool(p("offset_phi_alternative")),
                                      base_bytes=p("base_bytes") or 0)
        from .padded_access import bank_conflict_free_padded  # lazy: only padded layouts need it
        return bank_conflict_free_padded(R, mem, check.dtype_bits, p("direction"), access, model, hw, engines,
                                         places, max_vector=p("vector"), mma_feed=p("mma_feed"))
    R, S, shape = access_operands(check)
    return judge(R, S, shape, check.dtype_bits, direction=p("direction"), access=p("access"), model=p("model"),
                 hardware=check.hardware, triton=bool(p("triton")), engines=engines, max_vector=p("vector"),
                 mma_feed=p("mma_feed"), offset_phi=bool(p("offset_phi")),
                 offset_phi_alternative=bool(p("offset_phi_alternative")), base_bytes=p("base_bytes") or 0)


class _Normalized:
    """`normalize(R, S)`, computed on first use (a witness or the Z3 engine needs the layouts)."""

    def __init__(self, R: LinearLayout, S: LinearLayout):
        self._given, self._pair = (R, S), None

    def get(self) -> tuple[LinearLayout, LinearLayout]:
        if self._pair is None:
            self._pair = normalize(*self._given)
        return self._pair


def _decide_triton(norm: _Normalized, fr: Frame, bits, direction, hw, engines) -> Result:
    t = triton_count_columns(fr, bits, hw, norm.get)
    vb = t.vec * bits // 8
    details = {"model": "triton", "hardware": hw.name, "direction": direction,
               "instruction": "st.shared" if direction == "store" else "ld.shared", "vector_bytes": vb,
               "conflicts": t.conflicts, "wavefronts": t.min_wavefronts * (t.conflicts + 1),
               "min_wavefronts": t.min_wavefronts, "vec": t.vec, "bank": t.bank, "segment": t.segment,
               "wavefront_lanes": 1 << len(t.lane_bases)}

    def f2_engine() -> EngineVerdict:
        # Triton's count is 0 exactly when the spans meet only in 0 (with every basis a power of two its
        # plain set intersection is empty only then); the certificate proves it independently
        common = first_common(t.segment_bases, t.lane_bases) if t.conflicts else None
        if common is None:
            return EngineVerdict("f2", "holds", explanation=(
                f"Triton's model: no tensor vector is both a segment basis combination of S and a lane "
                f"combination of one {1 << len(t.lane_bases)}-lane wavefront (vector {t.vec} x {bits} bits)"),
                certificate=certify.trivial_intersection(t.segment_bases, t.lane_bases))
        _, seg, lane = common
        cx = triton_witness(*norm.get(), t, seg, lane)
        return EngineVerdict("f2", "fails", counterexample=cx, explanation=(
            f"Triton's model: {t.conflicts} conflicts per wavefront; lane {lane} holds "
            f"{frame.show(cx.data['coordinates'][1])} at offset {frame.show(cx.data['offsets'][1])}, "
            f"the same bank as lane 0's offset 0 in another segment"))

    def z3_engine() -> EngineVerdict:
        ob = smt.Obligation("bank_conflicts.triton")
        R, S = norm.get()
        outs = S.out_dim_sizes
        seg = LinearLayout([("segment", [S.unpack_out(c) for c in t.segment_bases])], outs)
        lanes = LinearLayout([(LANE, [S.unpack_out(c) for c in t.lane_bases])], outs)
        a, b = ob.index(seg, "a"), ob.index(lanes, "b")
        va, vb_ = ob.image(seg, a), ob.image(lanes, b)
        ob.require(va == vb_, va != 0)
        def on_sat(values):
            cx = triton_witness(R, S, t, values.get("a.segment", 0), values.get("b.lane", 0))
            return cx, f"{smt.solver_name()} model: lane {cx.data['lanes'][1]} shares lane 0's bank"

        return smt.verdict(ob.solve(), holds="no segment/lane vector in common (unsat)", on_sat=on_sat)

    return run_engines("bank_conflict_free", engines, {"f2": f2_engine, "z3": z3_engine}, details=details,
                       certified=True)


def _decide_hardware(R, S, bits, direction, access, hw, engines, triton: bool = False,
                     max_vector: int | None = None, mma_feed: int | None = None, offset_phi: bool = False,
                     offset_phi_alternative: bool = False, base_bytes: int = 0) -> Result:
    p = plan(R, S, bits, direction, access, hw, max_vector, mma_feed, offset_phi, base_bytes)
    kinds = issued(p, hw)
    other = None
    if offset_phi_alternative:      # LLVM's placement decides the phi: score the costlier plan, name the other
        q = plan(R, S, bits, direction, access, hw, max_vector, mma_feed, not offset_phi, base_bytes)
        if q.pair != p.pair:
            other = (q, issued(q, hw), not offset_phi)
            if _wavefronts(other[1], q) > _wavefronts(kinds, p):
                (p, kinds, _), other = other, (p, kinds, offset_phi)
    mask = hw.banks - 1
    cost, phases, wavefronts = max(k.cost for k in kinds), _phases(kinds, p), _wavefronts(kinds, p)
    details = {"model": "hardware", "hardware": hw.name, "direction": direction, "instruction": p.instruction,
               "mnemonic": p.mnemonic(hw), "asm": p.asm(hw), "vector_bytes": p.vector_bytes,
               "matrices": p.matrices,
               "instructions_per_warp": sum(k.count for k in kinds),
               "phases_per_instruction": p.phases_per_instruction, "cost_per_phase": cost,
               "conflicts": cost - 1, "wavefronts": wavefronts, "min_wavefronts": phases}
    paired = p.pair is not None and p.pair.paired
    if paired:
        details["pair"] = pair_details(p)
    if p.merged:
        details["merged_from_bytes"] = p.merged         # LLVM's vectorizer merged accesses of that width
    as_issued = scored_as_issued(p, kinds)
    if as_issued:
        details["issued"] = [k.to_dict(hw) for k in kinds]
    single = pairing_clause(p, details, as_issued)
    summary = (f"{p.mnemonic(hw)} ({p.instruction}, {p.vector_bytes} B per lane"
               f"{' at each of two addresses' if paired else ''}), "
               f"{details['instructions_per_warp']} per warp, {_phases_each(kinds)}: "
               f"{wavefronts} wavefronts for {phases} phases{single}{_alternative(other, hw, details)}")
    note = _triton_note(R, S, bits, hw, p, cost - 1, details) if triton else ""

    def f2_engine() -> EngineVerdict:
        worst = next((k for k in kinds if k.cost > 1), None)
        if worst is None:
            return EngineVerdict("f2", "holds", explanation=(
                f"{summary}; every phase touches at most one word per bank{note}"),
                certificate=certify.all_of(*(certify.rank_preserved(k.words, mask) for k in kinds))
                if len(kinds) > 1 else certify.rank_preserved(kinds[0].words, mask))
        cx = hardware_witness(R, S, worst.plan, hw, worst.wm, {}, worst.conflict(mask))
        return EngineVerdict("f2", "fails", counterexample=cx, explanation=(
            f"{summary}: each phase{_of_kind(worst, kinds, hw)} touches up to {worst.cost} distinct words in one "
            f"bank (conflicts {worst.cost - 1}); e.g. {describe(cx)}{note}"))

    def z3_engine() -> EngineVerdict:
        for kind in kinds:
            L = kind.wm.layout
            ob = smt.Obligation("bank_conflicts.hardware")
            same_phase_bank_pair(ob, L, kind.plan, mask)
            answer = ob.solve()
            if answer.status == "unsat":
                continue

            def on_sat(values, kind=kind, L=L):
                cx = hardware_witness(R, S, kind.plan, hw, kind.wm, {d: values.get(f"a.{d}", 0) for d in L.in_dims},
                                      {d: values.get(f"b.{d}", 0) for d in L.in_dims})
                return cx, f"{smt.solver_name()} model: {describe(cx)}"

            return smt.verdict(answer, holds="", on_sat=on_sat)
        return EngineVerdict("z3", "holds", explanation="no two accesses of one phase share a bank (unsat)")

    return run_engines("bank_conflict_free", engines, {"f2": f2_engine, "z3": z3_engine}, details=details,
                       certified=True)


def _phases(kinds: list[Kind], p: Plan) -> int:
    """Phases per CTA of every kind (the module docstring's count)."""
    return sum(k.phases(1 << p.cvt.in_dim_size_log2(WARP)) for k in kinds)


def _wavefronts(kinds: list[Kind], p: Plan) -> int:
    return sum(k.cost * k.phases(1 << p.cvt.in_dim_size_log2(WARP)) for k in kinds)


def _phases_each(kinds: list[Kind]) -> str:
    if len(kinds) == 1:
        return f"{kinds[0].plan.phases_per_instruction} phase(s) each"
    return ", ".join(f"{k.count} with {k.plan.phases_per_instruction} phase(s)" for k in kinds)


def _of_kind(worst: Kind, kinds: list[Kind], hw: Hardware) -> str:
    return f" of its {worst.plan.mnemonic(hw)}" if len(kinds) > 1 else ""


def _alternative(other: tuple | None, hw: Hardware, details: dict) -> str:
    """``details["alternative"]`` and the explanation's clause for the plan not scored (`offset_phi_alternative`)."""
    if other is None:
        return ""
    q, kinds, phi = other
    alt = {"mnemonic": q.mnemonic(hw), "asm": q.asm(hw), "instructions_per_warp": sum(k.count for k in kinds),
           "conflicts": max(k.cost for k in kinds) - 1, "wavefronts": _wavefronts(kinds, q), "offset_phi": phi}
    if q.pair is not None and q.pair.fields and not q.pair.paired:
        alt["pairs_fused"] = len(q.pair.fields)
    details["alternative"] = alt
    same = alt["wavefronts"] == details["wavefronts"]
    return (f"; LLVM may issue it as {alt['mnemonic']} instead (its code placement, not the TTGIR, decides whether "
            f"this read's lanes' offset comes through a phi after the loop), "
            + ("at the same wavefronts" if same else f"at {alt['wavefronts']} wavefronts"))


def _triton_note(R, S, bits, hw, p: Plan, conflicts: int, details: dict) -> str:
    """Triton's own number for this side, and why it differs from the hardware's."""
    try:
        t = triton_count(R, S, bits, hw)
    except CheckerError as e:
        details["triton_conflicts"] = None
        return f" (Triton's bank_conflicts cannot score this: {e.message})" if hw.vendor == "nvidia" else ""
    details["triton_conflicts"] = t.conflicts
    if t.conflicts == conflicts:
        return ""
    if p.instruction.endswith(".trans"):
        why = f"it scores {p.instruction} as a plain {'load' if p.direction == 'load' else 'store'}"
    elif p.matrices:
        why = f"it scores {p.instruction} as {'ld' if p.direction == 'load' else 'st'}.shared"
    elif bits < 32 and p.vector_bytes < hw.bank_bytes:
        why = (f"it counts one bank per {bits}-bit element, while the banks are {hw.bank_bytes} bytes wide "
               f"and two words in one bank conflict even when the elements differ")
    else:
        why = "its wavefront and bank split differ from the hardware's here"
    return (f"; the models differ: Triton's bank_conflicts says {t.conflicts}, the hardware {conflicts} "
            f"({why})")
