"""Shared-memory accesses into a padded layout: the instruction Triton emits and its bank conflicts.

Setting. R is a register layout, M a `checker.padded.PaddedLayout` (linear
component S: offset[, block] -> tensor, plus (interval, padding) pairs), e
the element size in bytes. Element x = (register, lane, warp) lives at
offset o = cvt(x), cvt = R.invert_and_compose(S) (R's zero register bases
dropped first: they only repeat data), and at byte address

    addr(x) = e * phys(o),   phys(o) = o + sum_k (o >> log2 I_k) << log2 P_k

(`checker.padded.phys`; Triton applies the padding to byte offsets with
scaled pairs, which gives the same value). addr is integer addition, not
F2-linear, so the rank formula of `bank_conflicts` does not apply.

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
alignment is emitted misaligned (see `aligned`).

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

Engines. Enumeration (in the "f2" slot: it is exact, not algebraic): walk
every phase, count words per bank. Z3: two accesses x, y of one phase
(same warp and instruction bits, registers differing only in vector bits,
lanes in one group) with different words in one bank, the word computed in
64-bit arithmetic from `smt.physical_offset`; unsat proves the property.
Both must agree; witnesses are replayed on integers (R(x) = S(offset), phys,
byte, word, bank, and that both lie in one phase).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from ..errors import CheckerError, LayoutError
from ..hardware import Hardware
from ..layout import LinearLayout, divide_left, log2
from ..padded import PaddedLayout
from .bank_conflicts import BLOCK, LANE, OFFSET, REG, WARP, Plan, drop_broadcast_registers, normalize
from .result import Counterexample, EngineVerdict, Result, decide

SUB = "sub"


def normalize_padded(R: LinearLayout, mem: PaddedLayout) -> tuple[LinearLayout, PaddedLayout]:
    """R and M's linear component brought to one frame (`bank_conflicts.normalize`)."""
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


def padded_plan(R: LinearLayout, mem: PaddedLayout, bits: int, direction: str, hw: Hardware) -> Plan:
    """The ld/st.shared Triton emits for R <-> M (R, M normalized): see the module docstring."""
    if bits < 8 or bits // 8 > hw.max_vector_bytes:
        raise CheckerError(f"the hardware model covers elements of 8 to {hw.max_vector_bytes * 8} bits, "
                           f"got {bits}", field="dtype_bits")
    if R.in_dim_size(LANE) != hw.warp_size:
        raise CheckerError(f"R has {R.in_dim_size(LANE)} lanes; {hw.name} has warps of {hw.warp_size}", field="R")
    Rn, origin = drop_broadcast_registers(R)
    try:
        cvt = Rn.invert_and_compose(mem.linear)
    except LayoutError as e:
        raise CheckerError(f"R's elements are not all in S: {e.message}", field="S") from None
    local = cvt.quotient([BLOCK])
    if local is None:
        raise CheckerError("R and S spread over CTAs differently: distributed shared memory is not modeled",
                           field="S")
    eb = bits // 8
    v = padded_vectorisation(local, min(mem.min_interval or 1 << 30, hw.max_vector_bytes // eb))
    name = "st.shared" if direction == "store" else "ld.shared"
    return Plan(name, direction, bits, v * eb, 0, local, tuple(origin), tuple(range(log2(v))), (),
                hw.groups(direction, v * eb))


# ------------------------------------------------------------------ addresses


def byte_address(mem: PaddedLayout, offset: int, bits: int, sub: int, hw: Hardware) -> int:
    """The byte of word `sub` of the element at `offset` (sub = 0 for elements of one word or less)."""
    return mem.phys(offset) * (bits // 8) + sub * hw.bank_bytes


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
    """Every phase of the access: (warp, register base, group, [(cvt register, lane, offset), ...])."""
    regs = _xor_table(_columns(p, REG))
    lanes = _xor_table(_columns(p, LANE))
    warps = _xor_table(_columns(p, WARP))
    inside = _mask_values(p.phase_regs)
    for w, wo in enumerate(warps):
        for base in _mask_values(p.instr_regs):
            for g in p.groups:
                yield w, base, g, [(base | m, lane, regs[base | m] ^ lanes[lane] ^ wo) for lane in g for m in inside]


def enumerate_costs(p: Plan, mem: PaddedLayout, hw: Hardware):
    """Sum and histogram of the phase costs, and the first worst phase's conflicting pair (or None)."""
    subs = _subs(p.bits, hw)
    total, hist, worst, pair = 0, Counter(), 1, None
    for w, _, _, accesses in phases(p):
        banks: dict[int, dict[int, tuple]] = {}
        for r, lane, off in accesses:
            for s in range(subs):
                word = byte_address(mem, off, p.bits, s, hw) // hw.bank_bytes
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


def access(p: Plan, mem: PaddedLayout, hw: Hardware, x: dict[str, int]) -> dict[str, int]:
    r, lane, warp, sub = x.get(REG, 0), x.get(LANE, 0), x.get(WARP, 0), x.get(SUB, 0)
    off = p.cvt.apply({d: {REG: r, LANE: lane, WARP: warp}[d] for d in p.cvt.in_dims})[OFFSET]
    byte = byte_address(mem, off, p.bits, sub, hw)
    return {"register": p.register(r), "lane": lane, "warp": warp, "offset": off,
            "physical_offset": mem.phys(off), "byte_address": byte, "word": byte // hw.bank_bytes}


def witness(R: LinearLayout, mem: PaddedLayout, p: Plan, hw: Hardware, x: dict, y: dict) -> Counterexample:
    a, b = access(p, mem, hw, x), access(p, mem, hw, y)
    r = x.get(REG, 0)
    group = next(g for g in p.groups if a["lane"] in g)
    data = {"model": "hardware", "hardware": hw.name, "instruction": p.instruction, "mnemonic": p.mnemonic(hw),
            "padding": [[i, q] for i, q in zip(mem.intervals, mem.paddings)], "warp": a["warp"],
            "instruction_registers": p.registers(r, p.phase_regs),
            "phase": {"lanes": list(group), "registers": p.registers(r, p.phase_regs)},
            "accesses": [a, b], "bank": a["word"] % hw.banks}
    eb, W = p.bits // 8, hw.bank_bytes
    S = mem.linear

    def check(d) -> bool:
        for acc in d["accesses"]:
            idx = {REG: acc["register"], LANE: acc["lane"], WARP: acc["warp"], BLOCK: 0}
            if not 0 <= acc["offset"] < mem.offsets:
                return False
            if R.apply({k: idx[k] for k in R.in_dims}) != S.apply({k: acc["offset"] if k == OFFSET else 0
                                                                   for k in S.in_dims}):
                return False
            start = mem.phys(acc["offset"]) * eb
            if acc["physical_offset"] != mem.phys(acc["offset"]):
                return False
            if not start <= acc["byte_address"] < start + eb or acc["byte_address"] // W != acc["word"]:
                return False
            if acc["word"] % hw.banks != d["bank"] or acc["warp"] != d["warp"]:
                return False
            if acc["lane"] not in d["phase"]["lanes"] or acc["register"] not in d["phase"]["registers"]:
                return False
        return d["accesses"][0]["word"] != d["accesses"][1]["word"]

    return Counterexample("bank_conflict", data, check)


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


PADDED_ACCESSES = ("auto", "st.shared", "ld.shared", "cp.async")


def bank_conflict_free_padded(R: LinearLayout, mem: PaddedLayout, dtype_bits: int, direction: str, access: str,
                              model: str, hw: Hardware, engine: str, timeout_ms: int | None) -> Result:
    """bank_conflict_free's entry for a `PaddedLayout` (module docstring)."""
    from .bank_conflicts import DIRECTIONS, _dtype_bits, bank_conflict_free
    if not mem.padded:
        return bank_conflict_free(R, mem.linear, dtype_bits, direction=direction, access=access, model=model,
                                  hardware=hw, engine=engine, timeout_ms=timeout_ms)
    if direction not in DIRECTIONS:
        raise CheckerError(f"must be one of {list(DIRECTIONS)}, got {direction!r}", field="direction")
    if model != "hardware":
        raise CheckerError("Triton's bank_conflicts takes linear shared layouts only; a padded layout is scored "
                           "with the hardware model", field="model")
    if access not in PADDED_ACCESSES or (access.startswith("ld") and direction == "store") \
            or (access.startswith("st") and direction == "load"):
        raise CheckerError(f"a padded layout is moved with ld/st.shared (Triton declines ldmatrix/stmatrix for "
                           f"it); {access} cannot {direction} it", field="access")
    R, mem = normalize_padded(R, mem)
    bits = _dtype_bits(dtype_bits)
    p = padded_plan(R, mem, bits, direction, hw)
    total, hist, worst, pair = enumerate_costs(p, mem, hw)
    n = sum(hist.values())
    details = {"model": "hardware", "hardware": hw.name, "direction": direction, "instruction": p.instruction,
               "mnemonic": p.mnemonic(hw), "vector_bytes": p.vector_bytes, "matrices": 0,
               "instructions_per_warp": p.instructions_per_warp, "phases_per_instruction": p.phases_per_instruction,
               "cost_per_phase": worst, "conflicts": worst - 1, "wavefronts": total, "min_wavefronts": n,
               "phase_costs": {str(c): k for c, k in sorted(hist.items())},
               "padding": [[i, q] for i, q in zip(mem.intervals, mem.paddings)], "triton_conflicts": None}
    summary = (f"{p.mnemonic(hw)} ({p.instruction}, {p.vector_bytes} B per lane, vector from the linear component "
               f"capped at the smallest interval {mem.min_interval}), {p.instructions_per_warp} per warp, "
               f"{p.phases_per_instruction} phase(s) each, padded addresses: {total} wavefronts for {n} phases")

    def enum_engine() -> EngineVerdict:
        if pair is None:
            return EngineVerdict("f2", "holds", explanation=(
                f"{summary}; enumerating every phase, none touches two words of one bank"))
        cx = witness(R, mem, p, hw, *pair)
        return EngineVerdict("f2", "fails", counterexample=cx, explanation=(
            f"{summary}; enumerating every phase, the worst touches {worst} distinct words in one bank "
            f"(phase costs {dict(hist)}); e.g. {describe(cx)}"))

    def z3_engine() -> EngineVerdict:
        ans = obligation(p, mem, hw).solve(timeout_ms)
        if ans.status == "unknown":
            return EngineVerdict("z3", "unknown", explanation=f"z3 gave up: {ans.reason}")
        if ans.status == "unsat":
            return EngineVerdict("z3", "holds", explanation="no two accesses of one phase share a bank (unsat)")
        x = {d: ans.values.get(f"a.{d}", 0) for d in (REG, LANE, WARP, SUB)}
        y = {d: ans.values.get(f"b.{d}", 0) for d in (REG, LANE, WARP, SUB)}
        y[WARP] = x[WARP]
        cx = witness(R, mem, p, hw, x, y)
        return EngineVerdict("z3", "fails", counterexample=cx, explanation=f"z3 model: {describe(cx)}")

    return decide("bank_conflict_free", engine, {"f2": enum_engine, "z3": z3_engine}, details=details)


def word_expr(p: Plan, mem: PaddedLayout, hw: Hardware, ob, idx: dict) -> Any:
    """The 4-byte word of an access, a WIDE bit-vector: (e * phys(cvt(idx)) + sub * 4) >> log2 4."""
    from .. import smt
    off = ob.image(p.cvt, idx)
    byte = smt.physical_offset(off, mem) * smt.wide(p.bits // 8)
    if SUB in idx:
        byte = byte + smt.widen(idx[SUB]) * smt.wide(hw.bank_bytes)
    import z3
    return z3.LShR(byte, log2(hw.bank_bytes))


def obligation(p: Plan, mem: PaddedLayout, hw: Hardware):
    from .. import smt
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
    wa, wb = word_expr(p, mem, hw, ob, x), word_expr(p, mem, hw, ob, y)
    ob.require(wa != wb, (wa ^ wb) & smt.wide(hw.banks - 1) == 0)
    return ob
