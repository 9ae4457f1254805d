"""The access plan (`checker.properties.smem.plan`): the instruction chosen for each target and access,
its lane groups, the rows of ldmatrix/stmatrix read off Triton 3.9's PTX, and the word map's arithmetic."""

import pytest

from checker import prove
from checker.errors import CheckerError
from checker.hardware import PRESETS, resolve
from checker.layout import LinearLayout
from checker.properties.bank_conflicts import bank_conflict_free
from checker.properties.smem import plan as sp
from checker.properties.smem.pairs import amd_generation
from checker.properties.smem.plan import normalize, plan
from checker.verdict import Engines

from ...conftest import load_jsonl
from ..test_bank_conflicts import H100, _h100, h100_side


def test_ldmatrix_trans_is_chosen_and_conflict_free():
    r = _h100("f16_64x64_row8_to_dot1_nvmma128", "load")
    assert r.holds and r.details["instruction"] == "ldmatrix.trans" and r.details["matrices"] == 4
    assert "every phase touches at most one word per bank" in r.explanation


def test_access_override_and_targets():
    case = next(c for c in H100 if c["id"] == "f32_32x32_row1_unswz")
    R, S, bits = h100_side(case, "store")
    forced = bank_conflict_free(R, S, bits, access="st.shared")
    assert (forced.details["mnemonic"], forced.details["wavefronts"], forced.holds) == ("STS", 32, True)
    sm80 = bank_conflict_free(R, S, bits, hardware="sm80")  # Ampere has ldmatrix but no stmatrix
    assert sm80.details["instruction"] == "st.shared"
    assert bank_conflict_free(R, S, bits, direction="load", hardware="sm80").details["instruction"] == "ldmatrix"
    with pytest.raises(CheckerError, match="ldmatrix cannot store"):
        bank_conflict_free(R, S, bits, access="ldmatrix")
    with pytest.raises(CheckerError, match="sm80 has no stmatrix"):
        bank_conflict_free(R, S, bits, access="stmatrix", hardware="sm80")
    col = next(c for c in H100 if c["id"] == "f32_32x32_col4_unswz")
    with pytest.raises(CheckerError, match="stmatrix cannot move this layout pair"):
        bank_conflict_free(*h100_side(col, "store")[:2], 32, access="stmatrix")
    with pytest.raises(CheckerError, match="scores ld/st.shared only"):
        bank_conflict_free(R, S, bits, access="stmatrix", model="triton")


def test_amd_noncontiguous_read_groups():
    """gfx942 ds_read_b128 serves lanes {0-3, 20-23} together; ds_write_b128 eight consecutive lanes."""
    R = LinearLayout({"register": [(1,), (2,)], "lane": [(4,), (8,), (16,), (64,), (48,), (128,)], "warp": []},
                     [("dim0", 256)])
    S = LinearLayout({"offset": [(1 << i,) for i in range(8)]}, [("dim0", 256)])
    store = bank_conflict_free(R, S, 32, direction="store", hardware="gfx942")
    assert store.holds and (store.details["mnemonic"], store.details["wavefronts"]) == ("ds_write_b128", 8)
    load = bank_conflict_free(R, S, 32, direction="load", hardware="gfx942", triton=True)
    d = load.counterexample.to_dict()
    assert (d["mnemonic"], d["phase"]["lanes"], d["bank"]) == ("ds_read_b128", [0, 1, 2, 3, 20, 21, 22, 23], 0)
    assert [(a["lane"], a["byte_address"]) for a in d["accesses"]] == [(0, 0), (20, 128)]
    assert load.details["wavefronts"] == 16 and load.details["triton_conflicts"] is None
    with pytest.raises(CheckerError, match="R has 64 lanes; sm90 has warps of 32"):
        bank_conflict_free(R, S, 32)


def _dot_b(parent: str, shape):
    import checker
    return checker.lower(checker.parse_encoding(f"#ttg.dot_op<{{opIdx = 1, parent = {parent}, kWidth = 8}}>"), shape)


def test_gfx950_transposed_dot_operand_load_is_ds_read_b64_tr_b16():
    """Triton's TransLocalLoadOpConversion: a K-major B operand of 16-bit elements on gfx950 is read with
    ds_read_b64_tr_b16 (lanes 0, 1 on consecutive offsets), not ds_read_u16."""
    import checker
    mfma = ("#ttg.amd_mfma<{version = 4, warpsPerCTA = [2, 2], instrShape = [16, 16, 32], "
            "isTransposed = true}>")
    R = _dot_b(mfma, [64, 64])
    S = checker.lower(checker.parse_encoding(
        "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>"), [64, 64])
    r = prove.bank_conflict_free(R, S, [64, 64], 16, direction="load", hardware="gfx950")
    assert (r.details["mnemonic"], r.details["vector_bytes"]) == ("ds_read_b64_tr_b16", 8)
    r8 = prove.bank_conflict_free(R, S, [64, 64], 16, direction="load", hardware="gfx942")
    assert r8.details["mnemonic"] == "ds_read_u16"
    with pytest.raises(CheckerError):
        prove.bank_conflict_free(R, S, [64, 64], 16, direction="load", access="ds_read_tr", hardware="gfx942")


def _attr(text, shape):
    import checker
    return checker.lower(checker.parse_encoding(text), shape)


def test_async_copies_name_their_instruction():
    R = _attr("#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], "
              "order = [1, 0]}>", [64, 64])
    S = _attr("#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>", [64, 64])
    nv = prove.bank_conflict_free(R, S, [64, 64], 16, access="cp.async", hardware="sm80")
    assert (nv.details["mnemonic"], nv.details["asm"]) == ("LDGSTS.128", "cp.async.b128")
    Ra = _attr("#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], "
               "order = [1, 0]}>", [64, 64])
    amd = prove.bank_conflict_free(Ra, S, [64, 64], 16, access="cp.async", hardware="gfx950")
    assert amd.holds and amd.details["mnemonic"] == "global_load_lds_dwordx4"
    g = prove.bank_conflict_free(R, S, [64, 64], 16, access="cp.async", hardware="gfx1250")
    assert g.details["mnemonic"] == "global_load_async_to_lds_b128"


# ------------------------------------------------------------------ matrix rows, read off Triton 3.9's PTX

# tools/ldmatrix_rows.py: small Gluon kernels (R -> local_alloc(S) -> load(R2)) compiled by Triton 3.9 for
# cuda:80 / cuda:90 / cuda:100, every thread's shared-memory address evaluated from the PTX
# (tools/ptx_lanes.py): 2-D and 3-D (batched) mma v2 operands, wgmma register A operands and mma v3
# accumulators, fp16/bf16/fp8/int8, K- and MN-contiguous, swizzled, NVMMA and unswizzled shared layouts.
MATRIX_ROWS = load_jsonl("ldst_matrix_rows.jsonl")
NV_TARGETS = {"cuda:80": "sm80", "cuda:90": "sm90", "cuda:100": "sm100"}


def _asm_module():
    import pathlib
    import sys
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3] / "tools"))
    import asm_compare
    return asm_compare


def _plan_lane_rows(p, warps):
    """Per warp, the sorted byte addresses (one tuple of lane addresses per instruction) that plan `p`
    gives the lanes of each ldmatrix/stmatrix: lane bits pick, in order, the row registers (transposed:
    the phase registers that are not inside the 16-byte row) and R's lanes 0, 1, or (not transposed)
    R's lanes 2, 3, 4; then the select registers. Instruction registers enumerate the instructions."""
    L = p.cvt
    trans = p.instruction.endswith(".trans")
    if trans:
        inside = (16 // p.bits).bit_length() - 1
        bits = [("register", 1 << j) for j in p.phase_regs[:len(p.phase_regs) - inside]]
        bits += [("lane", 1), ("lane", 2)]
    else:
        bits = [("lane", 4), ("lane", 8), ("lane", 16)]
    bits += [("register", 1 << j) for j in p.select_regs]
    instr = p.instr_regs
    out = []
    for w in range(warps):
        rows = []
        for m in range(1 << len(instr)):
            r0 = sum(1 << j for k, j in enumerate(instr) if m >> k & 1)
            lanes = []
            for a in range(1 << len(bits)):
                idx = {"register": r0, "lane": 0, "warp": w}
                for k, (d, v) in enumerate(bits):
                    if a >> k & 1:
                        idx[d] ^= v
                lanes.append(L.apply(idx)["offset"] * p.bits // 8)
            rows.append(tuple(lanes))
        out.append(sorted(rows))
    return out, 1 << len(bits)


def _ptx_wavefronts(addresses, vb, matrix, groups, banks=32, bank_bytes=4):
    """Wavefronts of the PTX's accesses: per phase, the most distinct words any bank serves. A matrix
    instruction's phases are its 8-lane row groups (16 bytes a row); a vector access's are `groups`."""
    total = 0
    for warp in addresses:
        for ins in warp:
            phases = [range(g, g + 8) for g in range(0, 32, 8)] if matrix else groups
            for ph in phases:
                if matrix and all(ins[x] is None for x in ph):
                    continue
                words = {(ins[x] + b) // bank_bytes for x in ph for b in range(0, max(vb, 1))}
                per_bank = {}
                for wd in words:
                    per_bank[wd % banks] = per_bank.get(wd % banks, 0) + 1
                total += max(per_bank.values())
    return total


@pytest.mark.parametrize("side", ["store", "load"])
@pytest.mark.parametrize("case", MATRIX_ROWS, ids=[c["id"] for c in MATRIX_ROWS])
def test_matrix_rows_are_the_emitted_ones(case, side):
    """The instruction, its count per warp, and (matrix instructions) every lane's row address in every
    warp are the PTX's; the wavefronts layoutcheck counts are those of the PTX's addresses."""
    asm_compare = _asm_module()
    ll = case["triton_ll"]
    R = LinearLayout.from_triton_json(ll["R" if side == "store" else "R2"])
    S = LinearLayout.from_triton_json(ll["S"])
    hw = PRESETS[NV_TARGETS[case["target"]]]
    r = bank_conflict_free(R, S, case["bits"], direction=side, hardware=hw, engines=Engines("f2"))
    d = r.details
    emitted = {}
    for ins, n in case[side]["instructions"].items():
        emitted[asm_compare.normalize(ins)] = emitted.get(asm_compare.normalize(ins), 0) + n
    assert emitted == {d["asm"]: d["instructions_per_warp"]}
    addresses = case[side]["addresses"]
    if d["matrices"]:
        p = plan(*normalize(R, S), case["bits"], side, "auto", hw)
        want, lanes = _plan_lane_rows(p, case["num_warps"])
        got = [sorted(tuple(ins[:lanes]) for ins in warp) for warp in addresses]
        assert got == want
    groups = hw.groups(side, d["vector_bytes"]) if not d["matrices"] else None
    assert _ptx_wavefronts(addresses, 16 if d["matrices"] else d["vector_bytes"], bool(d["matrices"]),
                           groups, hw.banks, hw.bank_bytes) == d["wavefronts"]


def test_matrix_rows_cover_the_variations():
    seen = {(c["target"], c["dtype"], len(c["shape"]), side, asm)
            for c in MATRIX_ROWS for side in ("store", "load")
            for asm in (_asm_module().normalize(i) for i in c[side]["instructions"])}
    assert {("cuda:80", "fp16", 3, "load", "ldmatrix.x4.trans"), ("cuda:90", "bf16", 3, "store", "stmatrix.x4.trans"),
            ("cuda:90", "fp8", 2, "load", "ldmatrix.x4"), ("cuda:80", "int8", 3, "load", "ldmatrix.x4"),
            ("cuda:90", "fp16", 2, "store", "stmatrix.x4")} <= seen


def test_3d_ldmatrix_trans_picks_the_row_register_with_fewest_conflicts():
    """Batched B operand, order [2, 0, 1]: K+1 as first row bit puts all 8 rows of a phase 128 bytes apart
    (7 conflicts); Triton takes the register holding N+16 (rows 32 bytes apart: 3 conflicts) and K+1 picks
    the matrix."""
    case = next(c for c in MATRIX_ROWS if c["id"] == "fp16_3d_b_2x32x32_o201_80")
    R, S = (LinearLayout.from_triton_json(case["triton_ll"][k]) for k in ("R2", "S"))
    p = plan(*normalize(R, S), 16, "load", "auto", PRESETS["sm80"])
    assert p.cvt.apply({"register": 1 << p.phase_regs[0], "lane": 0, "warp": 0})["offset"] == 16  # N+16
    assert [R.in_bases("register")[p.origin[j]] for j in p.select_regs] == [(0, 1, 0), (0, 8, 0)]  # K+1, K+8
    r = bank_conflict_free(R, S, 16, direction="load", hardware="sm80", triton=True)
    assert (r.details["conflicts"], r.details["triton_conflicts"]) == (3, 3)


# ------------------------------------------------------------------ the plan's arithmetic, directly


def test_element_bits_checks_the_width():
    for bits in (1, 8, 16, 32, 64, 128):
        assert sp.element_bits(bits) == bits
    for bad in (24, 256, 0, True, "16", 16.0):
        with pytest.raises(CheckerError) as e:
            sp.element_bits(bad)
        assert e.value.field == "dtype_bits"


def test_triton_intersection_dim_counts_as_triton_does():
    assert sp.triton_intersection_dim([1, 2], [2, 4]) == 1       # powers of two: the plain set intersection
    assert sp.triton_intersection_dim([2, 2], [2]) == 2          # a repeated basis counts twice
    assert sp.triton_intersection_dim([1, 2], [4, 8]) == 0
    assert sp.triton_intersection_dim([3], [1, 2]) == 1          # otherwise the spans' intersection
    assert sp.triton_intersection_dim([3, 5], [6]) == 1          # 3 ^ 5 = 6


def test_dim_columns_and_broadcast_registers():
    R = LinearLayout({"register": [(0, 1), (0, 0), (0, 2)], "lane": [(1, 0), (2, 0)], "warp": []},
                     [("dim0", 4), ("dim1", 4)])
    assert sp.dim_columns(R, "lane") == [1, 2] and sp.dim_columns(R, "warp") == []  # dim0 in the low bits
    assert sp.dim_columns(R, "register") == [1 << 2, 0, 2 << 2]
    Rn, keep = sp.drop_broadcast_registers(R)
    assert keep == [0, 2] and list(Rn.in_bases("register")) == [(0, 1), (0, 2)]
    assert list(sp.permute_registers(Rn, [1, 0]).in_bases("register")) == [(0, 2), (0, 1)]


def test_largest_vectorisation_halves_until_the_tile_divides():
    cvt = LinearLayout({"register": [(2,), (1,), (8,)], "lane": [(4,)], "warp": []}, [("offset", 16)])
    assert sp.largest_vectorisation(cvt, 8) == (4, [1, 0, 2])   # registers 1, 0 hold offsets 1, 2; 8 is past lane 4
    assert sp.largest_vectorisation(cvt, 2) == (2, [1, 0, 2])
    assert sp.largest_vectorisation(cvt, 1)[0] == 1


def test_amd_generation_reads_the_target():
    assert [amd_generation(PRESETS[n]) for n in ("gfx942", "gfx950", "gfx11", "gfx12", "gfx1250")] == \
        [9, 9, 11, 12, 12]


def test_word_map_is_byte_address_over_bank_bytes():
    """word(x) = (cvt(x) * element bytes + sub * bank bytes) // bank bytes on every index, for elements
    narrower than, as wide as and wider than a bank; bank = word mod banks."""
    case = next(c for c in H100 if c["id"] == "f32_32x32_row8_unswz")
    R, S, _ = h100_side(case, "store")
    hw = resolve("sm90")
    for bits in (8, 16, 32, 64):
        p = plan(*normalize(R, S), bits, "store", "st.shared", hw)
        wm = sp.word_map(p, hw)
        L, eb = wm.layout, bits // 8
        for r in range(p.cvt.in_dim_size("register")):
            for lane in range(32):
                for sub in range(1 << wm.up):
                    off = p.cvt.apply({"register": r, "lane": lane, "warp": 0})["offset"]
                    idx = {"register": r, "lane": lane, "warp": 0, "sub": sub}
                    assert L.apply(idx)["word"] == (off * eb + sub * hw.bank_bytes) // hw.bank_bytes


def test_free_bits_span_one_phase():
    """The free directions: the phase registers, a basis of lane 0's group, the sub bits; the F2 cost
    2^(rank W - rank b∘W) is the most distinct words one bank receives in the phase of index 0."""
    from checker import f2
    hw = resolve("sm90")
    for case_id, side in (("f32_32x32_row8_unswz", "store"), ("f16_64x64_mma3_unswz", "load"),
                          ("f32_64x64_mma2_unswz", "store")):
        R, S, bits = h100_side(next(c for c in H100 if c["id"] == case_id), side)
        p = plan(*normalize(R, S), bits, side, "auto", hw)
        wm = sp.word_map(p, hw)
        free = sp.free_bits(p, wm)
        assert [v for d, v, _ in free if d == "register"] == [1 << j for j in p.phase_regs]
        lanes = {0}
        for d, v, _ in free:
            if d == "lane":
                lanes |= {x ^ v for x in lanes}
        assert lanes == set(next(g for g in p.groups if 0 in g))
        words = [c for _, _, c in free]
        cost = 1 << (f2.rank(words) - f2.rank([w & (hw.banks - 1) for w in words]))
        per_bank: dict[int, set] = {}
        for m in range(1 << len(free)):
            w = f2.combine(words, m)
            per_bank.setdefault(w % hw.banks, set()).add(w)
        assert cost == max(len(ws) for ws in per_bank.values())
        assert cost == bank_conflict_free(R, S, bits, direction=side, engines=Engines("f2")).details["cost_per_phase"]
