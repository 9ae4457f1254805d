"""aligned_access(R, S, bits, direction): every shared-memory access Triton emits is aligned to its width.

Setting. R is a register layout, S a shared layout (a LinearLayout, or a
`checker.padded.PaddedLayout`), elements of e = bits / 8 bytes. Storing R
into S (``direction="store"``) or loading S into R (``"load"``) is issued as
the instruction Triton 3.9 emits (`smem.plan.plan` for linear layouts,
`padded_access.padded_plan` for padded ones). Each lane's access covers a
*unit* of u elements = U bytes: the vector of an ``ld/st.shared`` (U = its
width, at most 16 bytes: wider vectors are split into 16-byte accesses) or
the 16-byte row of an ldmatrix/stmatrix matrix. The hardware requires every
access to start at a multiple of its width (else ``cudaErrorMisalignedAddress``).

Definition. With cvt = R.invert_and_compose(S) (zero register bases
dropped) an access starts at a *unit start*: an index x whose in-bits that
move inside the unit (bases below u, the vector registers; zero bases) are
0. Its byte address is addr(x) = e * phys(cvt(x)) (the buffer itself is at
least 16-byte aligned). The property holds iff addr(x) % U == 0 for every
unit start x.

Linear layouts (F2). phys is the identity and cvt is linear: addr(x) is e
times the XOR of the bases of x's set bits. Triton's vectorisation
(``divideLeft`` by the unit's tile) makes every other basis keep clear of the
tile's low log2(u) offset bits, i.e. every basis outside the unit is a
multiple of u. A XOR of multiples of the power of two u is a multiple of u,
so every unit start is aligned: the property always holds when the
vectorisation is contiguous. The F2 engine checks exactly that premise (every
basis >= u is a multiple of u) and, were it broken, the basis itself is the
witness (addr(e_j) = e * b_j).

Padded layouts. phys adds padding: the vector is chosen from the linear
component alone (`padded_access`), so a unit start o (a multiple of u) lands
at phys(o) = o + sum_k (o >> log2 I_k) << log2 P_k, aligned for every o iff
every padding P_k carried into a unit start keeps e * phys(o) a multiple of
U; e.g. 4 fp32 (16 bytes) per lane with one element of padding every 32
start row 1 at byte 132. Enumeration (in the "f2" slot) walks every unit
start; Z3 asks for one with (e * phys(cvt(x))) mod U != 0 in 64-bit
arithmetic (`smt.physical_offset`). Both must agree.

No certificate (`checker.certificate`) on a ``holds``: the linear check is
a divisibility test of each basis (re-run in a line), the padded one an
enumeration of every unit start.

Views. An access through a view of a padded allocation (`padded_access.Placement`:
a buffer of a multi-buffered allocation, a subslice) starts at
e * (base + phys(o ^ xor)); every placement is checked (enumeration: each in
turn; Z3: one more variable choosing it). A buffer k > 0 starts at slot
phys(k * n) (Triton's memdesc_index applies the padding to k * n): when n is
not a multiple of the smallest interval, or the padding of k * n is not a
multiple of the unit, buffer k's accesses are misaligned although buffer 0's
are not.

Direct-to-LDS mode (``access="cp.async"`` / ``"direct_to_lds"``, padded
layouts; the asynchronous copy's LDS write, `padded_access._async_plan`).
Every lane's vector must start at a multiple of its width; and on targets
without LDS scattering (gfx942, gfx950) the hardware writes lane i of an
instruction at the wave's base + i x width (Triton passes lane 0's address:
``lowerDirectLDSAsyncCopy`` sets laneId = 0), so the property also requires
addr(x) = addr(x with lane 0) + lane x width for every lane: the layout must
put consecutive lanes' vectors at consecutive addresses with no padding
inside one instruction's row. That is what Triton's canLoadDirectToLDS
demands (vector <= smallest interval / warp size, the lanes of the linear
component coalesced); a layout that breaks it is refused by Triton's
lowering, or, were it lowered, written to the wrong slots. Witness kind
``direct_to_lds_address``: the lane, its element's offset and slot, the
byte the layout gives it and the byte the hardware writes (lane 0's + lane
x width). gfx1250 (scattering) takes a per-lane address: only alignment.

Witness. lane, register (R's numbering, the unit's first), warp, offset,
physical offset, byte address, vector bytes; replay checks on integers that
R holds S(offset + k) at the unit's k-th register (the access starts at this
offset), that the byte address is e * phys(offset) and that it is not a
multiple of the vector bytes.
"""

from __future__ import annotations

from typing import Any

from .. import f2, smt
from ..errors import CheckerError, InternalError
from ..hardware import resolve
from ..layout import LinearLayout, log2
from ..padded import PaddedLayout
from ..verdict import DEFAULT_ENGINES, Engines
from .operands import element_width, linear, lowered
from .padded_access import ORIGIN, Placement, normalize_padded, padded_plan, replay_placement, slot_expr
from .padded_views import access_operands, padded_view
from .result import Counterexample, EngineVerdict, Result, run_engines
from .smem.plan import BLOCK, DIRECTIONS, LANE, OFFSET, REG, WARP, Plan, element_bits, normalize, plan

NAME = "aligned_access"
DIMS = (REG, LANE, WARP)


ASYNC = ("cp.async", "direct_to_lds")


def aligned_access(R: LinearLayout, S: Any, dtype_bits: int, *, direction: str = "store", access: str = "auto",
                   places: Any = None, hardware: Any = "sm90", engines: Engines = DEFAULT_ENGINES,
                   max_vector: int | None = None) -> Result:
    """Is every access of the instruction Triton emits for R <-> S aligned to its width (and, in direct-to-LDS
    mode without LDS scattering, where the hardware writes it)? (module docstring) `places`: the view's
    `padded_access.Placement`s (padded layouts); `max_vector`: an asynchronous copy's vector as its global
    pointer allows it (`checker.properties.bank_conflicts.bank_conflict_free`)."""
    if direction not in DIRECTIONS:
        raise CheckerError(f"must be one of {list(DIRECTIONS)}, got {direction!r}", field="direction")
    if access not in ("auto",) + ASYNC:
        raise CheckerError(f"must be 'auto' or one of {list(ASYNC)}, got {access!r}", field="access")
    if access in ASYNC and direction != "store":
        raise CheckerError(f"{access} stores into shared memory", field="direction")
    hw = resolve(hardware)
    mem = PaddedLayout.of(S)
    bits = element_bits(dtype_bits)
    places = tuple(places or ORIGIN)
    if access in ASYNC and not mem.padded:
        raise CheckerError("the direct-to-LDS mode is modelled for padded layouts (Triton swizzles the global "
                           "pointers of swizzled ones instead)", field="access")
    if mem.padded:
        R, mem = normalize_padded(R, mem)
        p = padded_plan(R, mem, bits, direction, hw, access, max_vector)
    else:
        R, S2 = normalize(R, mem.linear)
        mem = PaddedLayout(S2)
        p = plan(R, S2, bits, direction, "auto", hw)
        places = ORIGIN
    eb = bits // 8
    unit_bytes = 16 if p.matrices else min(p.vector_bytes, hw.max_vector_bytes)
    u = max(1, unit_bytes // eb)
    lane_rows = access in ASYNC and hw.vendor == "amd" and not hw.has("lds_scatter")
    cols = {d: [b[0] for b in p.cvt.in_bases(d)] if p.cvt.has_in_dim(d) else [] for d in DIMS}
    inside = {d: sum(1 << j for j, b in enumerate(cols[d]) if b < u) for d in DIMS}
    if access in ASYNC:
        inside[LANE] = 0        # every lane writes its own vector
    starts = 1
    for d in DIMS:
        starts <<= len(cols[d]) - bin(inside[d]).count("1")
    details = {"hardware": hw.name, "direction": direction, "instruction": p.instruction,
               "mnemonic": p.mnemonic(hw), "vector_bytes": unit_bytes, "vector_elements": u,
               "padded": mem.padded, "accesses_per_cta": starts}
    if access in ASYNC:
        details["lane_contiguous"] = lane_rows
    if len(places) > 1 or not places[0].trivial:
        details["placements"] = len(places)
    what = (f"{p.mnemonic(hw)} ({p.instruction}, {unit_bytes}-byte "
            f"{'rows' if p.matrices else 'vectors'} of {u} element(s))")
    if lane_rows:
        what += f", lane i at the wave's base + i x {unit_bytes} bytes ({hw.name} has no LDS scattering)"

    def unit(x: dict[str, int], pl: Placement = ORIGIN[0]) -> Counterexample:
        if lane_rows and not _misaligned(p, mem, x, pl, eb, unit_bytes):
            return _lane_witness(R, mem, p, hw, x, pl, unit_bytes)
        return _witness(R, mem, p, hw, x, u, unit_bytes, pl)

    if p.merged:
        details["merged_from_bytes"] = p.merged
        return run_engines(NAME, engines, {"f2": lambda: _merged_f2(p, what, u, unit_bytes),
                                           "z3": lambda: _merged_z3(p, u, unit_bytes)}, details=details)

    def f2_engine() -> EngineVerdict:
        if not mem.padded:
            for d in DIMS:
                for j, b in enumerate(cols[d]):
                    if b >= u and b % u:
                        cx = unit({d: 1 << j})
                        return EngineVerdict("f2", "fails", counterexample=cx, explanation=(
                            f"{what}: {d} bit {j} moves the access start by {b} element(s), not a multiple of "
                            f"{u}: {_describe(cx)}"))
            return EngineVerdict("f2", "holds", explanation=(
                f"{what}: every basis outside the {u}-element unit is a multiple of {u} (Triton's contiguous "
                f"vectorisation), so every access starts at a multiple of {unit_bytes} bytes"))
        bad = None
        for pl in places:
            bad = _first_misaligned(p, mem, cols, inside, eb, unit_bytes, pl, lane_rows)
            if bad is not None:
                break
        views = f" in each of {len(places)} placements" if len(places) > 1 else ""
        if bad is None:
            return EngineVerdict("f2", "holds", explanation=(
                f"{what}: enumerating all {starts} access starts of the padded layout{views}, each is a multiple "
                f"of {unit_bytes} bytes" + (" and lies at its lane's place in the wave's row" if lane_rows else "")))
        cx = unit(bad, pl)
        why = ("the hardware's lane-contiguous write misses the layout's address" if cx.kind != "misaligned_access"
               else "the vector width comes from the linear component, the padding shifts it")
        return EngineVerdict("f2", "fails", counterexample=cx, explanation=f"{what}: {why}: {_describe(cx)}")

    def z3_engine() -> EngineVerdict:
        def on_sat(values):
            cx = unit({d: values.get(f"x.{d}", 0) for d in DIMS}, places[values.get("place", 0)])
            return cx, f"{smt.solver_name()} model: {_describe(cx)}"

        holds = (f"no access starts off a {unit_bytes}-byte boundary"
                 + (" or off its lane's place in the wave's row" if lane_rows else "") + " (unsat)")
        return smt.verdict(obligation(p, mem, inside, eb, unit_bytes, places, lane_rows).solve(),
                           holds=holds, on_sat=on_sat)

    return run_engines(NAME, engines, {"f2": f2_engine, "z3": z3_engine}, details=details)


def judge(R, S, shape=None, dtype=None, *, direction: str = "store", hardware: Any = "sm90",
          engines: Engines = DEFAULT_ENGINES) -> Result:
    """R and S as layouts, or encodings lowered at `shape`; `dtype` (a name or a number of bits) defaults to
    the width the shared encoding declares (nvmma_shared)."""
    return aligned_access(linear(R, shape, "R"), lowered(S, shape, "S"), element_width(dtype, S),
                          direction=direction, hardware=hardware, engines=engines)


def decide(check, engines: Engines) -> Result:
    """A check (`checker.registry`): operands ``reg`` and ``shared``, param ``direction``; a TTGIR access
    through a view is judged in its allocation (`padded_views`), with its ``access`` (cp.async, direct to LDS) and
    ``vector`` (what the copy's global pointer allows, where less than the layouts do)."""
    p = check.param
    if p("padded_view"):
        R, mem, places, hw = padded_view(check)
        return aligned_access(R, mem, check.dtype_bits, direction=p("direction"), access=p("access") or "auto",
                              places=places, hardware=hw, engines=engines, max_vector=p("vector"))
    R, S, shape = access_operands(check)
    return judge(R, S, shape, check.dtype_bits, direction=p("direction"), hardware=check.hardware, engines=engines)


def _merged_f2(p: Plan, what: str, u: int, unit_bytes: int) -> EngineVerdict:
    """An access LLVM's vectorizer merged (`smem.plan._merged`: it merges only accesses it proves aligned): its
    vector registers (the first log2(u) phase registers; a pair's register comes after them) have offsets below u
    that are linearly independent, so they XOR to every offset below u and every unit is one aligned block of u
    elements (its parts perhaps reordered), whatever the other registers, lanes and warps add."""
    vector = [p.cvt.in_bases(REG)[j][0] for j in p.phase_regs[:log2(u)]]
    if any(o >= u for o in vector) or f2.rank(vector) != log2(u):
        raise InternalError(f"{NAME}: a merged plan's vector offsets {vector} do not span 0 .. {u - 1}")
    return EngineVerdict("f2", "holds", explanation=(
        f"{what}: LLVM merged {p.merged}-byte accesses into it, and its vector registers hold offsets "
        f"{', '.join(map(str, vector))}, which XOR to every offset below {u}: every access is the aligned "
        f"{unit_bytes}-byte block they span"))


def _merged_z3(p: Plan, u: int, unit_bytes: int) -> EngineVerdict:
    """Z3 on the same claim: no nonzero choice y of the vector registers has cvt(y) = 0 or cvt(y) >= u (then
    the u choices give u distinct offsets below u: each unit, cvt(x) XOR them, is one aligned block)."""
    ob = smt.Obligation(f"{NAME}.merged")
    y = ob.index(p.cvt, "y")
    vector = sum(1 << j for j in p.phase_regs[:log2(u)])
    for d, var in y.items():
        ob.require(var & ((1 << var.size()) - 1 - (vector if d == REG else 0)) == 0)
    image = ob.image(p.cvt, y)
    ob.require(smt.any_of(smt.high_bits_set(image, log2(u)),
                          smt.all_of(smt.masked_nonzero(y, {REG: vector}), image == 0)))

    def on_sat(values):
        raise InternalError(f"{NAME}: a merged plan's vector registers do not span one aligned block ({values})")

    return smt.verdict(ob.solve(), holds=f"every merged {unit_bytes}-byte access is one aligned block (unsat)",
                       on_sat=on_sat)


def _misaligned(p: Plan, mem: PaddedLayout, x: dict, pl: Placement, eb: int, unit_bytes: int) -> bool:
    off = p.cvt.apply({d: x.get(d, 0) for d in p.cvt.in_dims})[OFFSET]
    return pl.slot(mem, off) * eb % unit_bytes != 0


def _first_misaligned(p: Plan, mem: PaddedLayout, cols, inside, eb: int, unit_bytes: int,
                      pl: Placement = ORIGIN[0], lane_rows: bool = False) -> dict | None:
    """The first unit start (warp, then registers, then lanes) whose byte address is misaligned (or, with
    `lane_rows`, not lane 0's + lane x unit)."""
    free = {d: [j for j in range(len(cols[d])) if not inside[d] >> j & 1] for d in DIMS}

    def values(d):
        out = [(0, 0)]
        for j in free[d]:
            out += [(v | 1 << j, o ^ cols[d][j]) for v, o in out]
        return out

    lanes = values(LANE)
    for w, wo in values(WARP):
        for r, ro in values(REG):
            row = pl.slot(mem, wo ^ ro) * eb
            for lane, lo in lanes:
                byte = pl.slot(mem, wo ^ ro ^ lo) * eb
                if byte % unit_bytes or (lane_rows and byte != row + lane * unit_bytes):
                    return {REG: r, LANE: lane, WARP: w}
    return None


def obligation(p: Plan, mem: PaddedLayout, inside, eb: int, unit_bytes: int, places=ORIGIN,
               lane_rows: bool = False):
    ob = smt.Obligation(NAME)
    x = ob.index(p.cvt, "x")
    for d, v in x.items():
        if inside.get(d):
            ob.require(v & inside[d] == 0)
    slot = slot_expr(ob, mem, places)
    byte = slot(ob.image(p.cvt, x)) * smt.wide(eb)
    bad = byte & smt.wide(unit_bytes - 1) != 0
    if lane_rows and LANE in x:
        row = slot(ob.image(p.cvt, {d: v for d, v in x.items() if d != LANE})) * smt.wide(eb)
        bad = smt.any_of(bad, byte != row + smt.widen(x[LANE]) * smt.wide(unit_bytes))
    ob.require(bad)
    return ob


def _thread(p: Plan, r: int, lane: int) -> tuple[int, int]:
    """R's (register, lane) behind cvt's register r and lane (plans whose lanes are R's own, or not)."""
    return p.thread(r, lane) if hasattr(p, "thread") else (p.register(r), lane)


def _add_memory(data: dict, mem: PaddedLayout, pl: Placement) -> None:
    """A witness's last facts: the padding of the memory layout and, away from the origin, the placement."""
    data["padding"] = [[i, q] for i, q in zip(mem.intervals, mem.paddings)]
    if not pl.trivial:
        data["placement"] = pl.to_dict()


def _witness(R: LinearLayout, mem: PaddedLayout, p: Plan, hw, x: dict, u: int, unit_bytes: int,
             pl: Placement = ORIGIN[0]) -> Counterexample:
    r, lane, warp = x.get(REG, 0), x.get(LANE, 0), x.get(WARP, 0)
    view = p.cvt.apply({d: {REG: r, LANE: lane, WARP: warp}[d] for d in p.cvt.in_dims})[OFFSET]
    off = pl.offset(view)
    eb = p.bits // 8
    regs = p.cvt.in_bases(REG)
    # the unit's registers in order: cvt register bits that move the offset by 1, 2, 4, ... < u
    steps = [next((j for j, b in enumerate(regs) if b[0] == 1 << k), None) for k in range(log2(u))]
    elements = []
    if all(j is not None for j in steps):
        for k in range(u):
            rk = r | sum(1 << steps[i] for i in range(len(steps)) if k >> i & 1)
            elements.append(list(_thread(p, rk, lane)))
    reg0, lane0 = _thread(p, r, lane)
    data = {"instruction": p.instruction, "mnemonic": p.mnemonic(hw), "lane": lane0, "register": reg0,
            "warp": warp, "offset": off, "physical_offset": pl.base + mem.phys(off),
            "byte_address": (pl.base + mem.phys(off)) * eb, "vector_bytes": unit_bytes, "vector": elements}
    _add_memory(data, mem, pl)
    S = mem.linear

    def recompute(d) -> bool:
        place = replay_placement(mem, d)
        if place is None or not 0 <= d["offset"] < mem.offsets:
            return False
        slot = place.base + mem.phys(d["offset"])
        o = place.offset(d["offset"])       # the view's offset of the element (the view at the origin)
        sidx = {k: (o if k == OFFSET else 0) for k in S.in_dims}
        idx = {REG: d["register"], LANE: d["lane"], WARP: d["warp"], BLOCK: 0}
        if R.apply({k: idx[k] for k in R.in_dims}) != S.apply(sidx):
            return False
        for k, (rk, lk) in enumerate(d["vector"]):  # the access starts here: its k-th element is offset o + k
            ik = {**idx, REG: rk, LANE: lk}
            if o + k >= mem.offsets or R.apply({q: ik[q] for q in R.in_dims}) != S.apply({**sidx, OFFSET: o + k}):
                return False
        if d["vector"] and d["vector"][0] != [d["register"], d["lane"]]:
            return False
        return (d["physical_offset"] == slot and d["byte_address"] == slot * eb
                and d["byte_address"] % d["vector_bytes"] != 0)

    return Counterexample("misaligned_access", data, recompute)


def _lane_witness(R: LinearLayout, mem: PaddedLayout, p: Plan, hw, x: dict, pl: Placement,
                  unit_bytes: int) -> Counterexample:
    """A lane whose vector the direct-to-LDS write (lane 0's address + lane x width) puts elsewhere than
    the layout does."""
    r, lane, warp = x.get(REG, 0), x.get(LANE, 0), x.get(WARP, 0)
    eb = p.bits // 8

    def at(ln: int) -> dict:
        view = p.cvt.apply({d: {REG: r, LANE: ln, WARP: warp}[d] for d in p.cvt.in_dims})[OFFSET]
        slot = pl.slot(mem, view)
        return {"offset": pl.offset(view), "physical_offset": slot, "byte_address": slot * eb}

    reg0, lane0 = _thread(p, r, lane)
    mine, first = at(lane), at(0)
    data = {"instruction": p.instruction, "mnemonic": p.mnemonic(hw), "lane": lane0, "register": reg0,
            "warp": warp, **mine, "hardware_byte_address": first["byte_address"] + lane * unit_bytes,
            "lane0": first, "vector_bytes": unit_bytes}
    _add_memory(data, mem, pl)
    S = mem.linear

    def recompute(d) -> bool:
        place = replay_placement(mem, d)
        if place is None:
            return False
        for acc, ln in ((d, d["lane"]), (d["lane0"], 0)):
            if not 0 <= acc["offset"] < mem.offsets:
                return False
            slot = place.base + mem.phys(acc["offset"])
            if acc["physical_offset"] != slot or acc["byte_address"] != slot * eb:
                return False
            idx = {REG: d["register"], LANE: ln, WARP: d["warp"], BLOCK: 0}
            sidx = {k: (place.offset(acc["offset"]) if k == OFFSET else 0) for k in S.in_dims}
            if R.apply({k: idx[k] for k in R.in_dims}) != S.apply(sidx):
                return False
        want = d["lane0"]["byte_address"] + d["lane"] * d["vector_bytes"]
        return d["hardware_byte_address"] == want != d["byte_address"]

    return Counterexample("direct_to_lds_address", data, recompute)


def _describe(cx: Counterexample) -> str:
    d = cx.data
    if cx.kind == "direct_to_lds_address":
        return (f"lane {d['lane']} register {d['register']} of warp {d['warp']} holds the element of offset "
                f"{d['offset']} -> slot {d['physical_offset']}, byte {d['byte_address']}, but the wave writes lane "
                f"{d['lane']} at lane 0's byte {d['lane0']['byte_address']} + {d['lane']} x {d['vector_bytes']} = "
                f"{d['hardware_byte_address']}")
    return (f"lane {d['lane']} register {d['register']} of warp {d['warp']} accesses {d['vector_bytes']} bytes at "
            f"offset {d['offset']} -> slot {d['physical_offset']}, byte {d['byte_address']} "
            f"({d['byte_address']} mod {d['vector_bytes']} = {d['byte_address'] % d['vector_bytes']})")
