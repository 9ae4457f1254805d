"""The witness of a bank conflict: two accesses of one phase, same bank, different words, and its replay.

Hardware model (`hardware_witness`). Two accesses x, y of one phase of a `Plan` (same warp, same
instruction and select register bits, registers differing only in phase bits, lanes in one group):
for each, R's register index, lane, warp, element offset o = cvt(x), byte address o * bytes + sub *
bank_bytes, word = byte // bank_bytes; bank = word mod banks is the same, the words differ. The replay
recomputes on integers R(index) = S(offset), the byte and word arithmetic, the bank, and that both lie
in the phase's lanes and registers. `same_phase_bank_pair` poses the same question to Z3 (its model is a
witness).

Triton's model (`triton_witness`). Lane 0 and lane l of one wavefront (register 0, warp 0) hold the
elements at offsets 0 and o, o a nonzero segment combination: same Triton bank, different segment.
`first_common` finds l and o: a nonzero vector in span(segment bases) ∩ span(wavefront lanes).
"""

from __future__ import annotations

from typing import Any

from ... import f2, smt
from ...hardware import Hardware
from ...layout import LinearLayout, log2
from ..result import Counterexample
from .plan import BLOCK, LANE, OFFSET, REG, SUB, WARP, Plan, WordMap
from .triton_count import TritonCount


def _access(p: Plan, hw: Hardware, wm: WordMap, r: int, lane: int, warp: int, sub: int) -> dict[str, Any]:
    """One access of p: R's register (or cvt's, with a `source`), lane, warp, offset = cvt(r, lane, warp),
    byte = offset * element bytes + sub * bank bytes, word = byte // bank bytes, bank = word mod banks."""
    off = p.cvt.apply({REG: r, LANE: lane, WARP: warp})[OFFSET]
    byte = off * (p.bits // 8) + sub * hw.bank_bytes
    word = byte // hw.bank_bytes
    acc: dict[str, Any] = {"register": p.register(r) if p.source is None else r, "lane": lane, "warp": warp,
                           "offset": off, "byte_address": byte, "word": word, "bank": word % hw.banks}
    if p.source is not None:  # the instruction's lane and register, and the element of R it delivers
        reg, ln = p.thread(r, lane)
        acc["thread"] = {"register": reg, "lane": ln}
    return acc


def access_index(p: Plan, acc: dict) -> dict[str, int] | None:
    """R's index (register, lane, warp, block 0) behind a witness's access: its recorded thread, or its own
    register and lane where none is recorded; None where the recorded thread is not the plan's."""
    th = acc.get("thread", {"register": acc["register"], "lane": acc["lane"]})
    if "thread" in acc and p.thread(acc["register"], acc["lane"]) != (th["register"], th["lane"]):
        return None
    return {REG: th["register"], LANE: th["lane"], WARP: acc["warp"], BLOCK: 0}


def hardware_witness(R: LinearLayout, S: LinearLayout, p: Plan, hw: Hardware, wm: WordMap, x: dict[str, int],
                     y: dict[str, int]) -> Counterexample:
    """The conflict of accesses x and y (indices of the word map: register, lane, warp, sub) of one phase of
    p: each access's byte = cvt(x) * element bytes + sub * bank bytes, word = byte // bank bytes, and the
    common bank = word mod banks; the phase's lanes (x's group) and registers (x's, varying the phase
    bits). Replay (module docstring) re-derives all of it from R and S on integers and requires the two
    words to differ."""
    a = _access(p, hw, wm, x.get(REG, 0), x.get(LANE, 0), x.get(WARP, 0), x.get(SUB, 0))
    b = _access(p, hw, wm, y.get(REG, 0), y.get(LANE, 0), y.get(WARP, 0), y.get(SUB, 0))
    r = x.get(REG, 0)
    group = next(g for g in p.groups if a["lane"] in g)
    data = {"model": "hardware", "hardware": hw.name, "instruction": p.instruction, "mnemonic": p.mnemonic(hw),
            "warp": a["warp"],
            "instruction_registers": p.registers(r, p.phase_regs + p.select_regs),
            "phase": {"lanes": list(group), "registers": p.registers(r, p.phase_regs)},
            "accesses": [{k: v for k, v in acc.items() if k != "bank"} for acc in (a, b)], "bank": a["bank"]}
    eb, W = p.bits // 8, hw.bank_bytes

    def recompute(d) -> bool:
        ph = d["phase"]
        if not set(ph["registers"]) <= set(d["instruction_registers"]):
            return False
        for acc in d["accesses"]:
            idx = access_index(p, acc)
            if idx is None:
                return False
            if R.apply({k: idx[k] for k in R.in_dims}) != S.apply({OFFSET: acc["offset"], BLOCK: 0}):
                return False
            start = acc["offset"] * eb
            if not start <= acc["byte_address"] < start + max(eb, 1) or acc["byte_address"] // W != acc["word"]:
                return False
            if acc["word"] % hw.banks != d["bank"] or acc["warp"] != d["warp"]:
                return False
            if acc["lane"] not in ph["lanes"] or acc["register"] not in ph["registers"]:
                return False
        return d["accesses"][0]["word"] != d["accesses"][1]["word"]

    return Counterexample("bank_conflict", data, recompute)


def describe(cx: Counterexample) -> str:
    """A `hardware_witness` in one sentence: instruction, warp, phase lanes, the two accesses' bytes and
    words, the bank."""
    d = cx.data
    a, b = d["accesses"]
    verb = "reads" if d["instruction"].startswith("ld") or d["instruction"] == "ds_read_tr" else "writes"
    return (f"{d['mnemonic']} of warp {d['warp']} (registers {d['instruction_registers']}), phase of lanes "
            f"{_ranges(d['phase']['lanes'])}: lane {a['lane']} register {a['register']} {verb} byte "
            f"{a['byte_address']} (word {a['word']}) and lane {b['lane']} register {b['register']} {verb} byte "
            f"{b['byte_address']} (word {b['word']}), both in bank {d['bank']}")


def _ranges(xs) -> str:
    """Sorted integers as runs: [0, 1, 2, 5] -> "0-2,5"."""
    xs = sorted(xs)
    out, start = [], xs[0]
    for prev, cur in zip(xs, xs[1:] + [None]):
        if cur != prev + 1:
            out.append(f"{start}-{prev}" if prev > start else f"{start}")
            start = cur
    return ",".join(out)


def same_phase_bank_pair(ob, L: LinearLayout, p: Plan, mask: int) -> tuple[dict, dict]:
    """Two indices x, y of the word map L posed to `ob`: accesses of one phase of plan p (same fixed
    registers, lanes of one group, same warp) at distinct words whose bank bits (`mask`) agree.

    Every condition is one on the difference k = x ^ y (L is linear: L(x) ^ L(y) = L(k), and the phase
    conditions constrain x ^ y alone), so the query has k's bits only: y = k ("b.<dim>") and x = 0 (no
    "a.<dim>" variable: a model reads it as 0). A pair (x, y) answers the question exactly when (0, x ^ y)
    does, so the answer is the same as over both indices, with half the variables and one image."""
    k = ob.index(L, "b")
    fixed = (1 << L.in_dim_size_log2(REG)) - 1 - sum(1 << j for j in p.phase_regs)
    if REG in k and fixed:
        ob.require(k[REG] & fixed == 0)
    if LANE in k:
        group = _group_of_zero(p)
        m = 0
        for v in group:
            m |= v
        if len(set(group)) == 1 << bin(m).count("1"):  # every lane below m's bits: k leaves the others clear
            other = (L.in_dim_size(LANE) - 1) & ~m
            if other:
                ob.require(k[LANE] & other == 0)
        else:
            ob.require(smt.any_of(*[k[LANE] == v for v in group]))
    if WARP in k:
        ob.require(k[WARP] == 0)
    w = ob.image(L, k)
    ob.require(w != 0, w & mask == 0)
    return {}, k


def _group_of_zero(p: Plan) -> tuple[int, ...]:
    """The lane group of lane 0 (the subspace V whose cosets are the groups)."""
    return next(g for g in p.groups if 0 in g)


def first_common(first, second) -> tuple[int, int, int] | None:
    """(v, x, y): v the first vector of ``f2.span_intersection(first, second)``, x and y its pivot-only
    combinations of `first` and of `second` (``f2.solve``'s); None where the spans meet only in 0.

    One echelon pass over first + second, each vector tagged with its position: the first vector of
    `second` that reduces to 0 with a part in `first` is the first column of span_intersection's kernel
    (vectors of `second` in the span of earlier ones of `second` reduce with no such part), and that part
    combines to v. Every inserted vector is a pivot of its own list, so both parts are pivot-only."""
    by_lead: dict[int, tuple[int, int]] = {}
    n = len(first)
    mask = (1 << n) - 1
    for i, c in enumerate((*first, *second)):
        combo = 1 << i
        while c:
            entry = by_lead.get(c.bit_length() - 1)
            if entry is None:
                break
            c ^= entry[0]
            combo ^= entry[1]
        if c:
            by_lead[c.bit_length() - 1] = (c, combo)
        elif i >= n and combo & mask:
            return f2.combine(first, combo & mask), combo & mask, combo >> n
    return None


def triton_witness(R: LinearLayout, S: LinearLayout, t: TritonCount, seg_mask: int, lane: int) -> Counterexample:
    """Lane 0 and lane `lane` (register 0, warp 0) hit offsets 0 and o: same Triton bank, different segment.
    o = S's in-index of the segment combination `seg_mask` shifted past the vector and bank bits
    (log2 vec + log2 bank); the replay checks R(lane) = S(o), that o's vector and bank bits are 0 and its
    segment bits nonzero, and that lane lies inside one wavefront."""
    k = log2(t.vec) + log2(t.bank)
    flat = (seg_mask & ((1 << len(t.segment_bases)) - 1)) << k
    o = S.split_in(flat)
    zero = {d: 0 for d in R.in_dims}
    data = {"model": "triton", "lanes": [0, lane], "register": 0, "warp": 0,
            "offsets": [{d: 0 for d in S.in_dims}, o],
            "coordinates": [{n: 0 for n in R.out_dims}, R.apply({**zero, LANE: lane})],
            "bank": 0, "segments": [0, flat >> k], "vector": t.vec, "wavefront_lanes": 1 << len(t.lane_bases)}

    def recompute(d) -> bool:
        a, b = d["lanes"]
        if a != 0 or not 0 < b < d["wavefront_lanes"] or d["wavefront_lanes"] > R.in_dim_size(LANE):
            return False
        off = d["offsets"][1]
        j = S.join_in(off)
        if j == 0 or j & ((1 << k) - 1) or j >> k != d["segments"][1]:
            return False
        return (R.apply({**zero, LANE: b}) == S.apply(off) == d["coordinates"][1]
                and R.apply(zero) == S.apply(d["offsets"][0]) == d["coordinates"][0])

    return Counterexample("bank_conflict", data, recompute)
