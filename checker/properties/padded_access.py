"""Shared-memory accesses into a padded layout: the instruction Triton emits and its bank conflicts.

Setting. R is a register layout, M a `checker.padded.PaddedLayout` (linear
component S: offset[, block] -> tensor, plus (interval, padding) pairs), e
the element size in bytes. Element x = (register, lane, warp) lives at
offset o = cvt(x), cvt = R.invert_and_compose(S) (R's zero register bases
dropped first: they only repeat data), and at byte address

    addr(x) = e * phys(o),   phys(o) = o + sum_k (o >> log2 I_k) << log2 P_k

(`checker.padded.phys`; Triton applies the padding to byte offsets with
scaled pairs, which gives the same value). addr is integer addition, not
F2-linear, so the rank formula of `bank_conflicts` (`smem.plan.free_bits`) does not apply.

Instruction (Triton 3.9, `lowerLocalLdSt` -> `lowerLdSt`, NVIDIA and the
generic path on AMD). A padded layout never takes ldmatrix/stmatrix (the
NVIDIA matrix lowering declines padded encodings); it is moved with
``ld.shared``/``st.shared`` whose width comes from the register layout and
the *linear component alone*: ``largestVectorisation`` with its maximum set
to the smallest interval, which also forbids register permutations. So v
is the largest power of two <= min interval such that cvt's first log2(v)
register bases are offsets 1, 2, .., v/2 and every other basis keeps clear
of those offset bits (``divideLeft`` by the identity tile, no permutation).
A vector wider than the hardware's (16 bytes) is split into 16-byte
accesses at consecutive addresses (``storeDShared``/``loadDShared``), so the
per-lane access is min(v * e, 16) bytes: that many elements form the
*vector*, the remaining register bits pick the instruction. The vector's
offsets o .. o + v - 1 stay inside one interval (o is a multiple of v <= I),
so its bytes are consecutive: e * phys(o) .. e * phys(o) + v e - 1. The
padding is ignored in this choice: a vector wider than the padding's
alignment is emitted misaligned (see `aligned`). On AMD, LLVM may fuse two
4- or 8-byte accesses of a lane into ds_read2* / ds_write2* / ds_*_2addr*:
the plan goes through `smem.plan.paired_plan` with the padded immediates
(`smem.pairs`, module docstring: Triton pads each additive constant apart,
so the immediate of register offset c is phys(c)); the pair's second
address either joins the phase (gfx1250) or is its own pass inside the
instruction (gfx942 / gfx950: a select register that `phases` walks).

Hardware model (the standard one of `bank_conflicts`, on these addresses).
A phase is (warp, instruction register bits, one lane group of the
hardware's table for the access width); it touches the 4-byte words
addr(x) // 4 (and the following words of an element wider than a word) of
its lanes and vector registers. Its cost is the largest number of distinct
words in one bank (bank = word % banks); wavefronts = the sum of the costs
over all phases, min_wavefronts = the number of phases. Unlike a linear
layout, phases of one access can cost differently (the padding shifts later
rows); ``conflicts`` is the worst cost minus one. The property holds iff
every phase costs 1.

Transposed reads (AMD gfx950 / gfx1250 loads of 8/16-bit elements). Triton's
TransLocalLoadOpConversion takes padded layouts too: when the smallest
interval holds at least one instruction tile (T = inst_bits / bits
elements) and the linear component passes the tile test of
`smem.plan.trans_load_plan`, the load is ds_read_b64_tr_b16/_b8
(gfx950) or ds_load_tr16_b128/tr8_b64 (gfx1250) with the lane addresses of
that plan, padded. Otherwise ds_read/ds_write as above.

Asynchronous copies (``access="cp.async"`` / ``"direct_to_lds"``: Triton's
AsyncCopyGlobalToLocal / BufferLoadToLocal lowering, `lowerDirectLDSAsyncCopy`
-> `lowerLdSt` on the linear component with the padding applied per vector).
``canLoadDirectToLDS`` caps the vector at the smallest interval, and without
LDS scattering (gfx942, gfx950: one LDS address per wave, lane i writes at
M0 base + i x width) at the smallest interval / warp size: padding may only
fall between two instructions' rows. The width is the widest the layouts
allow within those caps and the target's direct-to-LDS widths (Triton also
caps it by the global pointers' contiguity, which the IR does not carry).
The phases are scored on the layout's own addresses; that the hardware's
lane-contiguous write puts every lane's vector there is `aligned_access`'s
direct-to-LDS mode. ``access="fill_store"``: AMD's store of an async copy's
``other`` values (`smem.plan`'s fill store): the copy's vector, at the
same addresses, as ds_write.

Views (`Placement`). An access through a view of a padded allocation
addresses, for the view element whose offset at the allocation's origin is
o, the slot base + phys(o ^ xor): ``xor`` = S^-1(the subslice's start) (a
subslice starts at a multiple of its own shape, so its coordinates are the
view's XOR the start, and Triton XORs that offset in before padding:
`lowerLdSt` / `getShmemOffset`), ``base`` = phys(k * n) for buffer k of a
multi-buffered allocation of n offsets per buffer (Triton's
MemDescIndexOpConversion: base + applyPadding(k * n); the padding runs on
across buffers, so when n is not a multiple of an interval the buffers start
at slots that are not multiples of the buffer size). Every placement the
access may take is scored; the worst is reported.

Engines. Enumeration (in the "f2" slot: it is exact, not algebraic): walk
every phase, count words per bank. Z3: two accesses x, y of one phase
(same warp and instruction bits, registers differing only in vector bits,
lanes in one group) with different words in one bank, the word computed in
64-bit arithmetic from `smt.physical_offset`; unsat proves the property.
Both must agree; witnesses are replayed on integers (R(x) = S(offset), phys,
byte, word, bank, and that both lie in one phase).

No certificate (`checker.certificate`): a ``holds`` of the enumeration is
every phase walked, which a certificate could only record by listing it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from .. import smt
from ..errors import CheckerError, InternalError, LayoutError
from ..hardware import Hardware
from ..layout import LinearLayout, divide_left, log2
from ..padded import PaddedLayout, phys
from ..verdict import Engines
from ..versions import require_modelled
from .result import Counterexample, EngineVerdict, Result, run_engines
from .smem.plan import (
    DIRECTIONS,
    LANE,
    OFFSET,
    REG,
    WARP,
    Plan,
    element_bits,
    largest_vectorisation,
    local_conversion,
    normalize,
    pair_details,
    paired_plan,
    pairing_clause,
    permute_registers,
    trans_load_params,
    trans_load_plan,
)
from .smem.witness import access_index

SUB = "sub"


@dataclass(frozen=True)
class Placement:
    """Where the elements of a view live (module docstring, Views): the element at offset o (the view at
    the allocation's origin) is at slot base + phys(o ^ xor); `buffer` is k of base = phys(k * n)."""

    xor: int = 0
    base: int = 0
    buffer: int = 0

    def offset(self, o: int) -> int:
        """The allocation offset of the element at view offset o."""
        return o ^ self.xor

    def slot(self, mem: PaddedLayout, o: int) -> int:
        return self.base + mem.phys(o ^ self.xor)

    @property
    def trivial(self) -> bool:
        return self.xor == 0 and self.base == 0

    def to_dict(self) -> dict[str, int]:
        return {"buffer": self.buffer, "base_slot": self.base, "offset_xor": self.xor}


ORIGIN = (Placement(),)


def placements(mem: PaddedLayout, buffers: int = 1, starts: Sequence[dict] | None = None) -> tuple[Placement, ...]:
    """Every placement of a view: buffers 0..buffers-1 of n = mem.offsets offsets each (base phys(k * n),
    Triton's memdesc_index), times the subslice starts (coordinates in the allocation, by out-dim name;
    None: at the origin)."""
    if buffers < 1:
        raise CheckerError(f"must be at least 1, got {buffers}", field="buffers")
    xors = [0]
    if starts:
        S = mem.linear
        try:
            inv = S.invert()
        except LayoutError as e:
            raise CheckerError(f"the subslice start cannot be located: {e.message}", field="S") from None
        xors = []
        for c in starts:
            coords = {d: int(c.get(d, 0)) for d in S.out_dims}
            for d, v in coords.items():
                if not 0 <= v < S.out_dim_size(d):
                    raise CheckerError(f"subslice start {c} lies outside the allocation", field="slice")
            xors.append(inv.apply(coords)[OFFSET])
    n = mem.offsets
    return tuple(Placement(x, mem.phys(k * n), k) for k in range(buffers) for x in dict.fromkeys(xors))


def normalize_padded(R: LinearLayout, mem: PaddedLayout) -> tuple[LinearLayout, PaddedLayout]:
    """R and M's linear component brought to one frame (`smem.plan.normalize`)."""
    R, S = normalize(R, mem.linear)
    return R, PaddedLayout(S, mem.intervals, mem.paddings)


def padded_vectorisation(cvt: LinearLayout, max_elems: int) -> int:
    """Triton's largestVectorisation with a maximum (no register permutation): the largest v <= max_elems
    whose identity tile divides cvt on the left as it stands."""
    v = max(1, max_elems)
    while v > 1:
        if divide_left(cvt, LinearLayout.identity_1d(v, REG, OFFSET)) is not None:
            return v
        v //= 2
    return 1


def padded_plan(R: LinearLayout, mem: PaddedLayout, bits: int, direction: str, hw: Hardware,
                access: str = "auto", max_vector: int | None = None, mma_feed: int | None = None) -> Plan:
    """The instruction Triton emits for R <-> M (R, M normalized): ld/st.shared, AMD's transposed reads,
    or an asynchronous copy's LDS write (module docstring; ``max_vector``: the copy's vector as its global
    pointer allows it, `smem.plan.async_plan`; ``mma_feed``: a read that feeds every MFMA/WMMA of a loop of one
    block, `smem.plan.paired_plan`)."""
    local, origin = local_conversion(R, mem.linear, bits, hw)
    eb = bits // 8
    if access in ("cp.async", "direct_to_lds"):
        return _async_plan(local, origin, mem, bits, access, hw, max_vector)
    if access == "fill_store":  # the copy's `other` values, stored with its vector at its addresses
        if hw.vendor != "amd":
            raise CheckerError(f"only AMD's asynchronous copies store their `other` values; {hw.name}'s cp.async "
                               f"zero-fills", field="access")
        return replace(_async_plan(local, origin, mem, bits, "cp.async", hw, max_vector), instruction="st.shared")
    if direction == "load" and access in ("auto", "ds_read_tr") and hw.vendor == "amd":
        params = trans_load_params(bits, hw)
        why = f"{hw.name} has no transposed LDS read of {bits}-bit elements"
        if params is not None:
            T = params[0] // bits
            why = f"the smallest interval {mem.min_interval} is below the instruction's {T} elements"
            if mem.min_interval >= T:
                p = trans_load_plan(local, origin, bits, R.in_dim_size(REG), hw)
                if not isinstance(p, str):
                    return p
                why = p
        if access == "ds_read_tr":
            raise CheckerError(f"ds_read_tr cannot move this layout pair: {why}", field="access")
    v = padded_vectorisation(local, min(mem.min_interval or 1 << 30, hw.max_vector_bytes // eb))
    name = "st.shared" if direction == "store" else "ld.shared"
    p = Plan(name, direction, bits, v * eb, 0, local, tuple(origin), tuple(range(log2(v))), (),
             hw.groups(direction, v * eb))
    return paired_plan(p, hw, mem.phys, mma_feed) if hw.vendor == "amd" else p


def padded_pair_details(p: Plan) -> dict[str, Any]:
    """`smem.plan.pair_details` of a paired padded plan, the two addresses' byte distance taken from
    the instructions' offset fields (the slots apart, padding included: the immediates are padded offsets);
    a list where the pairs of the plan lie at different distances."""
    d = pair_details(p)
    eb = p.pair.element_bytes
    apart = sorted({(o1 - o0) * eb * (64 if st64 else 1) for o0, o1, st64 in p.pair.fields})
    d["address_bytes"] = apart[0] if len(apart) == 1 else apart
    return d


def direct_to_lds_cap(mem: PaddedLayout, hw: Hardware) -> int:
    """canLoadDirectToLDS's cap on the vector (elements) for a padded destination: the smallest interval,
    divided by the warp size where the target has no LDS scattering."""
    interval = mem.min_interval or 1 << 30
    return max(1, interval if hw.has("lds_scatter") else interval // hw.warp_size)


def _async_plan(cvt: LinearLayout, origin, mem: PaddedLayout, bits: int, access: str, hw: Hardware,
                max_vector: int | None = None) -> Plan:
    """An asynchronous copy's LDS write into a padded layout (module docstring): the widest vector the
    layouts allow (register permutation allowed, as lowerLdSt's largestVectorisation), capped by what the
    global pointer allows (`max_vector` elements, `smem.plan.async_plan`) and by canLoadDirectToLDS, and fitted
    to the target's direct-to-LDS widths (NVIDIA: cp.async of at most 16 bytes, capped at the smallest
    interval)."""
    eb = bits // 8
    pointer = max(1, max_vector) if max_vector is not None else 1 << 30
    if hw.vendor != "amd":
        if access != "cp.async":
            raise CheckerError(f"{access} is an AMD instruction; {hw.name} has cp.async", field="access")
        widths, cap = [w for w in (4, 8, 16) if w >= eb], mem.min_interval or 1 << 30
    else:
        widths, cap = [w for w in hw.direct_to_lds if w >= eb], direct_to_lds_cap(mem, hw)
    if not widths:
        raise CheckerError(f"{hw.name} has no direct-to-LDS load of {bits}-bit elements", field="access")
    v, perm = _fitted(cvt, widths, eb, min(cap, pointer))
    binds = v != _fitted(cvt, widths, eb, min(max(widths) // eb, pointer))[0]
    if binds:
        require_modelled("padded_direct_to_lds")        # the padding's cap binds: a Triton without it differs
    if v * eb not in widths:
        raise CheckerError(f"Triton cannot lower this copy (canLoadDirectToLDS): {hw.name}'s direct-to-LDS loads "
                           f"move {sorted(widths)} bytes per lane; the layouts"
                           + (f", the global pointer (at most {pointer} element(s) per lane)" if max_vector else "")
                           + f" and the padding (smallest interval {mem.min_interval}, at most {cap} element(s) "
                           f"per lane) allow {v * eb}"
                           + (" (the padding's cap is Triton 3.9's; Triton 3.6 lowers such copies, gap "
                              "padded_direct_to_lds: a module with one comes from an older Triton, give "
                              "--triton-version)" if binds else ""),
                           field="access")
    return Plan(access, "store", bits, v * eb, 0, permute_registers(cvt, perm), tuple(origin[p] for p in perm),
                tuple(range(log2(v))), (), hw.groups("store", v * eb))


def _vector_origin(p: Plan, mem: PaddedLayout, hw: Hardware, access: str, max_vector: int | None) -> str:
    """What a padded plan's vector comes from, for its explanation: the layouts and the padding's cap (the
    smallest interval; AMD's direct-to-LDS copies: canLoadDirectToLDS's), or the transposed read's lanes; an
    asynchronous copy's also the global pointer's (`max_vector`)."""
    if p.instruction == "ds_read_tr":
        return "lane addresses of Triton's transposed read"
    if access == "fill_store":
        text = ("the copy's vector for its `other` fill, capped by canLoadDirectToLDS at "
                f"{direct_to_lds_cap(mem, hw)} element(s)")
    elif p.instruction.endswith("shared"):
        return f"vector from the linear component capped at the smallest interval {mem.min_interval}"
    elif hw.vendor == "amd":
        text = f"vector capped by canLoadDirectToLDS at {direct_to_lds_cap(mem, hw)} element(s)"
    else:
        text = f"vector capped at the smallest interval {mem.min_interval}"
    return text + (f" and by the global pointer at {max_vector}" if max_vector is not None else "")


def _fitted(cvt: LinearLayout, widths: Sequence[int], eb: int, cap: int) -> tuple[int, list[int]]:
    """The widest vector (elements) of at most `cap` the layouts allow, halved to one of the target's `widths`
    (bytes) where it can be, with its register permutation (`largest_vectorisation`)."""
    v, perm = largest_vectorisation(cvt, max(1, min(max(widths) // eb, cap)))
    while v * eb not in widths and v > 1:
        v //= 2
    return v, perm


# ------------------------------------------------------------------ addresses


def byte_address(mem: PaddedLayout, offset: int, bits: int, sub: int, hw: Hardware,
                 pl: Placement = ORIGIN[0]) -> int:
    """The byte of word `sub` of the element at view offset `offset` (sub = 0 for elements of one word or
    less), placed by `pl`."""
    return pl.slot(mem, offset) * (bits // 8) + sub * hw.bank_bytes


def _subs(bits: int, hw: Hardware) -> int:
    """Words an element spans (1 when it fits in one)."""
    return max(1, bits // 8 // hw.bank_bytes)


def _columns(p: Plan, d: str) -> list[int]:
    return [b[0] for b in p.cvt.in_bases(d)] if p.cvt.has_in_dim(d) else []


def _xor_table(cols: list[int]) -> list[int]:
    out = [0]
    for c in cols:
        out += [x ^ c for x in out]
    return out


def _mask_values(bits: tuple[int, ...]) -> list[int]:
    """Every integer whose set bits lie within `bits`."""
    out = [0]
    for j in bits:
        out += [x | 1 << j for x in out]
    return out


def phases(p: Plan):
    """Every phase of the access: (warp, register base, group, [(cvt register, lane, offset), ...]); the
    register base runs over the instruction bits and the bits that select a pass inside one instruction
    (a paired access's second address where both are not served together: `smem.plan.paired_plan`)."""
    regs = _xor_table(_columns(p, REG))
    lanes = _xor_table(_columns(p, LANE))
    warps = _xor_table(_columns(p, WARP))
    inside = _mask_values(p.phase_regs)
    for w, wo in enumerate(warps):
        for base in _mask_values(p.instr_regs + p.select_regs):
            for g in p.groups:
                yield w, base, g, [(base | m, lane, regs[base | m] ^ lanes[lane] ^ wo) for lane in g for m in inside]


def enumerate_costs(p: Plan, mem: PaddedLayout, hw: Hardware, places: Sequence[Placement] = ORIGIN):
    """Sum and histogram of the phase costs, the first worst phase's conflicting pair (or None) and the
    placement they are for: the worst placement (highest phase cost, then most wavefronts)."""
    best = None
    for pl in places:
        got = _costs(p, mem, hw, pl) + (pl,)
        if best is None or (got[2], got[0]) > (best[2], best[0]):
            best = got
    return best


def _costs(p: Plan, mem: PaddedLayout, hw: Hardware, pl: Placement):
    subs = _subs(p.bits, hw)
    total, hist, worst, pair = 0, Counter(), 1, None
    for w, _, _, accesses in phases(p):
        banks: dict[int, dict[int, tuple]] = {}
        for r, lane, off in accesses:
            for s in range(subs):
                word = byte_address(mem, off, p.bits, s, hw, pl) // hw.bank_bytes
                banks.setdefault(word % hw.banks, {}).setdefault(word, (r, lane, w, s))
        cost = max(len(ws) for ws in banks.values())
        total += cost
        hist[cost] += 1
        if cost > worst:
            worst = cost
            ws = next(ws for ws in banks.values() if len(ws) == cost)
            a, b = list(ws.values())[:2]
            pair = (dict(zip((REG, LANE, WARP, SUB), a)), dict(zip((REG, LANE, WARP, SUB), b)))
    return total, hist, worst, pair


# ------------------------------------------------------------------ witness


def access(p: Plan, mem: PaddedLayout, hw: Hardware, x: dict[str, int], pl: Placement = ORIGIN[0]) -> dict:
    r, lane, warp, sub = x.get(REG, 0), x.get(LANE, 0), x.get(WARP, 0), x.get(SUB, 0)
    off = p.cvt.apply({d: {REG: r, LANE: lane, WARP: warp}[d] for d in p.cvt.in_dims})[OFFSET]
    byte = byte_address(mem, off, p.bits, sub, hw, pl)
    acc = {"register": p.register(r) if p.source is None else r, "lane": lane, "warp": warp,
           "offset": pl.offset(off), "physical_offset": pl.slot(mem, off), "byte_address": byte,
           "word": byte // hw.bank_bytes}
    if p.source is not None:  # a transposed read: the instruction's lane and register, and R's element
        reg, ln = p.thread(r, lane)
        acc["thread"] = {"register": reg, "lane": ln}
    return acc


def witness(R: LinearLayout, mem: PaddedLayout, p: Plan, hw: Hardware, x: dict, y: dict,
            pl: Placement = ORIGIN[0]) -> Counterexample:
    a, b = access(p, mem, hw, x, pl), access(p, mem, hw, y, pl)
    r = x.get(REG, 0)
    group = next(g for g in p.groups if a["lane"] in g)
    data = {"model": "hardware", "hardware": hw.name, "instruction": p.instruction, "mnemonic": p.mnemonic(hw),
            "padding": [[i, q] for i, q in zip(mem.intervals, mem.paddings)], "warp": a["warp"],
            "instruction_registers": p.registers(r, p.phase_regs + p.select_regs),
            "phase": {"lanes": list(group), "registers": p.registers(r, p.phase_regs)},
            "accesses": [a, b], "bank": a["word"] % hw.banks}
    if not pl.trivial:
        data["placement"] = pl.to_dict()
    eb, W = p.bits // 8, hw.bank_bytes
    S = mem.linear

    def recompute(d) -> bool:
        place = replay_placement(mem, d)
        if place is None:
            return False
        for acc in d["accesses"]:
            idx = access_index(p, acc)
            if idx is None:
                return False
            if not 0 <= acc["offset"] < mem.offsets:
                return False
            view = place.offset(acc["offset"])     # the element's offset with the view at the origin
            if R.apply({k: idx[k] for k in R.in_dims}) != S.apply({k: view if k == OFFSET else 0
                                                                   for k in S.in_dims}):
                return False
            slot = place.base + mem.phys(acc["offset"])
            start = slot * eb
            if acc["physical_offset"] != slot:
                return False
            if not start <= acc["byte_address"] < start + eb or acc["byte_address"] // W != acc["word"]:
                return False
            if acc["word"] % hw.banks != d["bank"] or acc["warp"] != d["warp"]:
                return False
            if acc["lane"] not in d["phase"]["lanes"] or acc["register"] not in d["phase"]["registers"]:
                return False
        return d["accesses"][0]["word"] != d["accesses"][1]["word"]

    return Counterexample("bank_conflict", data, recompute)


def replay_placement(mem: PaddedLayout, d: dict) -> Placement | None:
    """The witness's placement, its base recomputed (None: it does not replay)."""
    q = d.get("placement")
    if q is None:
        return ORIGIN[0]
    if q["base_slot"] != mem.phys(q["buffer"] * mem.offsets):
        return None
    return Placement(q["offset_xor"], q["base_slot"], q["buffer"])


def describe(cx: Counterexample) -> str:
    d = cx.data
    a, b = d["accesses"]
    verb = "writes" if d["instruction"].startswith("st") else "reads"
    return (f"{d['mnemonic']} of warp {d['warp']} (registers {d['instruction_registers']}): lane {a['lane']} "
            f"register {a['register']} {verb} byte {a['byte_address']} (offset {a['offset']} -> slot "
            f"{a['physical_offset']}, word {a['word']}) and lane {b['lane']} register {b['register']} {verb} byte "
            f"{b['byte_address']} (offset {b['offset']} -> slot {b['physical_offset']}, word {b['word']}), both "
            f"in bank {d['bank']}")


# ------------------------------------------------------------------ the property


PADDED_ACCESSES = ("auto", "st.shared", "ld.shared", "ds_read_tr", "cp.async", "direct_to_lds", "fill_store")


def bank_conflict_free_padded(R: LinearLayout, mem: PaddedLayout, dtype_bits: int, direction: str, access: str,
                              model: str, hw: Hardware, engines: Engines,
                              places: Sequence[Placement] = ORIGIN, max_vector: int | None = None,
                              mma_feed: int | None = None) -> Result:
    """bank_conflict_free's entry for a padded `PaddedLayout` (module docstring); `places`: the view's
    placements; `max_vector`: an asynchronous copy's vector as its global pointer allows it; `mma_feed`: a read
    that feeds every MFMA/WMMA of a loop of one block (`bank_conflict_free`'s). An unpadded one is
    `bank_conflict_free`'s (`checker.properties.bank_conflicts`, `checker.properties.padded_views` dispatch it
    there)."""
    if not mem.padded:
        raise InternalError("bank_conflict_free_padded takes a padded layout; bank_conflict_free scores the "
                            "linear ones")
    if direction not in DIRECTIONS:
        raise CheckerError(f"must be one of {list(DIRECTIONS)}, got {direction!r}", field="direction")
    if model != "hardware":
        raise CheckerError("Triton's bank_conflicts takes linear shared layouts only; a padded layout is scored "
                           "with the hardware model", field="model")
    loads = access.startswith("ld") or access == "ds_read_tr"
    stores = access.startswith("st") or access in ("cp.async", "direct_to_lds", "fill_store")
    if access not in PADDED_ACCESSES or (loads and direction == "store") or (stores and direction == "load"):
        raise CheckerError(f"a padded layout is moved with ld/st.shared, AMD's transposed reads or an async copy "
                           f"(Triton declines ldmatrix/stmatrix for it); {access} cannot {direction} it",
                           field="access")
    places = tuple(places) or ORIGIN
    R, mem = normalize_padded(R, mem)
    bits = element_bits(dtype_bits)
    p = padded_plan(R, mem, bits, direction, hw, access, max_vector, mma_feed)
    total, hist, worst, pair, pl = enumerate_costs(p, mem, hw, places)
    n = sum(hist.values())
    details = {"model": "hardware", "hardware": hw.name, "direction": direction, "instruction": p.instruction,
               "mnemonic": p.mnemonic(hw), "asm": p.asm(hw), "vector_bytes": p.vector_bytes, "matrices": 0,
               "instructions_per_warp": p.instructions_per_warp, "phases_per_instruction": p.phases_per_instruction,
               "cost_per_phase": worst, "conflicts": worst - 1, "wavefronts": total, "min_wavefronts": n,
               "phase_costs": {str(c): k for c, k in sorted(hist.items())},
               "padding": [[i, q] for i, q in zip(mem.intervals, mem.paddings)], "triton_conflicts": None}
    paired = p.pair is not None and p.pair.paired
    if paired:
        details["pair"] = padded_pair_details(p)
    where = ""
    if len(places) > 1 or not places[0].trivial:
        details["placements"] = len(places)
        details["worst_placement"] = pl.to_dict()
        where = (f"; {len(places)} placement(s) of the view (buffers x subslice starts), the worst: buffer "
                 f"{pl.buffer} at slot {pl.base}, offsets XOR {pl.xor}")
    where += pairing_clause(p, details)
    summary = (f"{p.mnemonic(hw)} ({p.instruction}, {p.vector_bytes} B per lane"
               f"{' at each of two addresses' if paired else ''}, {_vector_origin(p, mem, hw, access, max_vector)}), "
               f"{p.instructions_per_warp} per warp, {p.phases_per_instruction} phase(s) each, padded addresses: "
               f"{total} wavefronts for {n} phases{where}")

    def enum_engine() -> EngineVerdict:
        if pair is None:
            return EngineVerdict("f2", "holds", explanation=(
                f"{summary}; enumerating every phase, none touches two words of one bank"))
        cx = witness(R, mem, p, hw, *pair, pl=pl)
        return EngineVerdict("f2", "fails", counterexample=cx, explanation=(
            f"{summary}; enumerating every phase, the worst touches {worst} distinct words in one bank "
            f"(phase costs {dict(hist)}); e.g. {describe(cx)}"))

    def z3_engine() -> EngineVerdict:
        def on_sat(values):
            x = {d: values.get(f"a.{d}", 0) for d in (REG, LANE, WARP, SUB)}
            y = {d: values.get(f"b.{d}", 0) for d in (REG, LANE, WARP, SUB)}
            y[WARP] = x[WARP]
            cx = witness(R, mem, p, hw, x, y, pl=places[values.get("place", 0)])
            return cx, f"{smt.solver_name()} model: {describe(cx)}"

        return smt.verdict(obligation(p, mem, hw, places).solve(),
                           holds="no two accesses of one phase share a bank (unsat)", on_sat=on_sat)

    return run_engines("bank_conflict_free", engines, {"f2": enum_engine, "z3": z3_engine}, details=details)


def slot_expr(ob, mem: PaddedLayout, places: Sequence[Placement] = ORIGIN):
    """slot(off) = base + phys(off ^ xor) as a WIDE bit-vector function, for the placement chosen by one
    variable ``place`` of the obligation (none when there is one placement)."""
    xor, base = smt.wide(places[-1].xor), smt.wide(places[-1].base)
    if len(places) > 1:
        width = max(1, (len(places) - 1).bit_length())
        sel = ob.var("place", width)
        if len(places) < 1 << width:
            ob.require(smt.ult(sel, smt.const(len(places), width)))
        for k in range(len(places) - 2, -1, -1):
            xor = smt.ite(sel == k, smt.wide(places[k].xor), xor)
            base = smt.ite(sel == k, smt.wide(places[k].base), base)
    return lambda off: base + phys(smt.widen(off) ^ xor, mem.shifts, smt.lshr)


def word_expr(p: Plan, hw: Hardware, ob, idx: dict, slot) -> Any:
    """The 4-byte word of an access, a WIDE bit-vector: (e * slot(cvt(idx)) + sub * 4) >> log2 4."""
    byte = slot(ob.image(p.cvt, idx)) * smt.wide(p.bits // 8)
    if SUB in idx:
        byte = byte + smt.widen(idx[SUB]) * smt.wide(hw.bank_bytes)
    return smt.lshr(byte, log2(hw.bank_bytes))


def obligation(p: Plan, mem: PaddedLayout, hw: Hardware, places: Sequence[Placement] = ORIGIN):
    ob = smt.Obligation("bank_conflicts.padded")
    nreg = p.cvt.in_dim_size_log2(REG)
    widths = {REG: nreg, LANE: p.cvt.in_dim_size_log2(LANE), WARP: p.cvt.in_dim_size_log2(WARP),
              SUB: log2(_subs(p.bits, hw))}
    x = {d: ob.var(f"a.{d}", w) for d, w in widths.items() if w}
    y = {d: ob.var(f"b.{d}", w) for d, w in widths.items() if w and d != WARP}
    if WARP in x:
        y[WARP] = x[WARP]
    fixed = (1 << nreg) - 1 - sum(1 << j for j in p.phase_regs)
    if REG in x and fixed:
        ob.require((x[REG] ^ y[REG]) & fixed == 0)
    if LANE in x:
        zero = next(g for g in p.groups if 0 in g)
        ob.require(smt.any_of(*[(x[LANE] ^ y[LANE]) == v for v in zero]))
    slot = slot_expr(ob, mem, places)      # both accesses belong to one execution: one placement
    wa, wb = word_expr(p, hw, ob, x, slot), word_expr(p, hw, ob, y, slot)
    ob.require(wa != wb, (wa ^ wb) & smt.wide(hw.banks - 1) == 0)
    return ob
