"""AMD paired LDS accesses (ds_read2*, ds_write2*, ds_*_2addr*): LLVM's fusion rule, the instruction scored,
its offsets, the paired bank model (both addresses of a lane in one phase) and its witnesses, both engines."""

import pytest

from checker.hardware import PRESETS
from checker.layout import LinearLayout
from checker.properties.bank_conflicts import bank_conflict_free
from checker.properties.smem import pairs as lds_pairs
from checker.properties.smem.plan import normalize, plan
from checker.verdict import Engines

from ..test_bank_conflicts import brute_wavefronts


def lanes_then_register(n_lanes: int, register: int, size: int, lane_skip: int = 0):
    """R: one register at element `register`, the lanes on the other bits of a 1-D tensor of `size`
    (`lane_skip`: a lane bit left out, so the register can sit between lane bits); S row-major."""
    lane_bits = [1 << i for i in range(size.bit_length() - 1) if 1 << i != register][:n_lanes.bit_length() - 1]
    R = LinearLayout({"register": [(register,)], "lane": [(b,) for b in lane_bits], "warp": []}, [("dim0", size)])
    S = LinearLayout({"offset": [(1 << i,) for i in range(size.bit_length() - 1)]}, [("dim0", size)])
    return R, S


# ------------------------------------------------------------------ LLVM's rule (SILoadStoreOptimizer)


def test_offset_fields_follow_llvm():
    c = lds_pairs.combine_offsets
    assert c(0, 8) == (0, 8, False)            # both fit in 8 bits: the plain form
    assert c(0, 64) == (0, 1, True)            # both multiples of 64: the stride-64 form first
    assert c(64, 128) == (1, 2, True) and c(32, 96) == (32, 96, False)
    assert c(0, 255) == (0, 255, False) and c(0, 256 * 64) is None
    assert c(256, 264) == (0, 8, False)        # a shifted base register: 256 -> 0
    assert c(300, 364) == (4, 5, True)         # 64 apart beyond 8 bits: stride 64 on base 300 % 64 = 44
    assert c(0, 300) is None and c(5, 5) is None


def test_fusion_walks_the_sorted_offsets():
    # four accesses 0, 8, 512, 520 (ids 0..3): (0, 8) and (512, 520) fuse; the walk goes on after a pair
    pairs, single = lds_pairs.fuse([(0, 0), (1, 8), (2, 512), (3, 520)])
    assert pairs == [(0, 1, (0, 8, False)), (2, 3, (0, 8, False))] and single == []
    # 0, 300, 301: (0, 300) does not fuse, so the walk moves by one and fuses (300, 301)
    pairs, single = lds_pairs.fuse([(0, 0), (1, 300), (2, 301)])
    assert pairs == [(1, 2, (44, 45, False))] and single == [0]  # base 256: the most aligned in [46, 300]


def test_mnemonics_per_target():
    m = lds_pairs.pair_mnemonic
    assert m("load", 4, False, PRESETS["gfx942"]) == "ds_read2_b32"
    assert m("load", 8, True, PRESETS["gfx950"]) == "ds_read2st64_b64"
    assert m("store", 8, False, PRESETS["gfx942"]) == "ds_write2_b64"
    assert m("load", 8, False, PRESETS["gfx1250"]) == "ds_load_2addr_b64"
    assert m("store", 4, True, PRESETS["gfx1250"]) == "ds_store_2addr_stride64_b32"


def test_address_registers_split_the_xor():
    """Triton XORs registers that overlap the lanes' bits into the base; the part of such a register's
    offset outside those bits is an immediate (tl_dot_f16 gfx942 B operand: 8, 16, 2064 over lanes and
    warps spanning bits 2..10: the accesses apart in registers 16 and 2064 share an address register,
    2048 elements apart)."""
    regs = [1, 2, 8, 16, 2064]
    lanes = [32, 68, 136, 272, 516, 4, 1032, 0]
    assert lds_pairs.additive_registers(regs, lanes, 2) == []
    by = lds_pairs.address_registers(regs, lanes, 2)
    assert sorted(by) == [0, 8, 16, 24]
    assert by[0] == [(0, 0), (0b11000, 2048)]
    p = lds_pairs.pairing(regs, lanes, 2, 8, 2)
    assert p.paired and p.delta == 0b11000 and p.fields == ((0, 8, True),) * 4


# ------------------------------------------------------------------ the instruction and its bank model


def test_read2_b32_plain_offsets_conflict_free():
    """gfx942, fp32: lanes 0-31 hold elements 0-31, lanes 32-63 elements 64-95, the register element 32:
    Triton emits two ds_read_b32 per lane on one address register, immediates 0 and 128 bytes; LLVM fuses
    them into ds_read2_b32 offset1:32. Each address is its own pass of two 32-lane phases (gfx942 has no
    pair rule): 32 consecutive words per phase, conflict-free."""
    R = LinearLayout({"register": [(32,)], "lane": [(1,), (2,), (4,), (8,), (16,), (64,)], "warp": []},
                     [("dim0", 128)])
    S = LinearLayout({"offset": [(1 << i,) for i in range(7)]}, [("dim0", 128)])
    r = bank_conflict_free(R, S, 32, direction="load", hardware="gfx942", engines=Engines("both"))
    d = r.details
    assert r.holds and (d["mnemonic"], d["asm"], d["vector_bytes"]) == ("ds_read2_b32", "ds_read2_b32", 4)
    assert d["pair"] == {"register": 1, "address_bytes": 128, "stride64": False, "addresses_served": "apart",
                         "offsets": [[0, 32]], "element_bytes": 4}
    assert (d["instructions_per_warp"], d["phases_per_instruction"], d["wavefronts"], d["min_wavefronts"]) == \
        (1, 4, 4, 4)
    assert d["wavefronts"] == brute_wavefronts(R, S, 32, "load", "auto", PRESETS["gfx942"])
    w = bank_conflict_free(R, S, 32, direction="store", hardware="gfx942")
    assert w.holds and w.details["mnemonic"] == "ds_write2_b32"


def test_read2st64_b32_each_address_its_own_pass_on_gfx942():
    """gfx942, fp32, a [2, 64] tile row-major: lane l reads elements l and 64 + l (the register is the
    row): one address register, immediates 0 and 256 bytes = 64 words -> ds_read2st64_b32 offset1:1.
    gfx942 has no pair rule: each address is its own pass of 32-lane phases (the register selects the
    pass), so the 256-byte distance costs nothing: 4 wavefronts, as the two ds_read_b32 would."""
    R = LinearLayout({"register": [(64,)], "lane": [(1 << i,) for i in range(6)], "warp": []}, [("dim0", 128)])
    S = LinearLayout({"offset": [(1 << i,) for i in range(7)]}, [("dim0", 128)])
    r = bank_conflict_free(R, S, 32, direction="load", hardware="gfx942", engines=Engines("both"))
    d = r.details
    assert r.holds and d["mnemonic"] == "ds_read2st64_b32" and d["pair"]["offsets"] == [[0, 1]]
    assert d["pair"]["stride64"] and d["pair"]["addresses_served"] == "apart"
    assert (d["instructions_per_warp"], d["phases_per_instruction"], d["wavefronts"]) == (1, 4, 4)
    assert brute_wavefronts(R, S, 32, "load", "auto", PRESETS["gfx942"]) == 4


def test_load_2addr_stride64_two_words_of_one_bank_conflict_on_gfx1250():
    """gfx1250 serves both addresses of a lane in one phase (its pair rule): lane l reads elements l and
    64 + l, 256 bytes apart = 64 words, one bank of 64: ds_load_2addr_stride64_b32 touches two words in
    every bank it uses (conflicts 1). Witness: lane 0's two words, replayed; both engines agree."""
    R = LinearLayout({"register": [(64,)], "lane": [(1 << i,) for i in range(5)], "warp": []}, [("dim0", 128)])
    S = LinearLayout({"offset": [(1 << i,) for i in range(7)]}, [("dim0", 128)])
    for engine in ("f2", "z3", "both"):
        r = bank_conflict_free(R, S, 32, direction="load", hardware="gfx1250", engines=Engines(engine))
        assert not r.holds and r.details["mnemonic"] == "ds_load_2addr_stride64_b32"
        assert (r.details["conflicts"], r.details["wavefronts"], r.details["min_wavefronts"]) == (1, 2, 1)
        assert r.details["pair"]["addresses_served"] == "together"
        cx = r.counterexample.to_dict()
        assert cx["mnemonic"] == "ds_load_2addr_stride64_b32" and cx["instruction_registers"] == [0, 1]
        a, b = cx["accesses"]
        assert a["word"] % 64 == b["word"] % 64 == cx["bank"] and a["word"] != b["word"]
    f2 = bank_conflict_free(R, S, 32, direction="load", hardware="gfx1250",
                            engines=Engines("f2")).counterexample.to_dict()
    assert [(x["lane"], x["register"], x["byte_address"]) for x in f2["accesses"]] == [(0, 0, 0), (0, 1, 256)]
    assert brute_wavefronts(R, S, 32, "load", "auto", PRESETS["gfx1250"]) == 2


def test_gfx1250_load_2addr_in_one_wave32_phase():
    """gfx1250 (wave32, 64 banks): a [2, 32] fp32 tile, lane l reads l and 32 + l: ds_load_2addr_b32
    offset1:32; 8 bytes per lane is one 256-byte phase of all 32 lanes: 64 distinct banks."""
    R = LinearLayout({"register": [(32,)], "lane": [(1 << i,) for i in range(5)], "warp": []}, [("dim0", 64)])
    S = LinearLayout({"offset": [(1 << i,) for i in range(6)]}, [("dim0", 64)])
    r = bank_conflict_free(R, S, 32, direction="load", hardware="gfx1250")
    assert r.holds and r.details["mnemonic"] == "ds_load_2addr_b32"
    assert r.details["pair"]["offsets"] == [[0, 32]]
    assert (r.details["wavefronts"], r.details["min_wavefronts"]) == (1, 1)
    s = bank_conflict_free(R, S, 32, direction="store", hardware="gfx1250")
    assert s.details["mnemonic"] == "ds_store_2addr_b32"


def test_unpaired_cases_keep_the_single_instruction():
    hw = PRESETS["gfx942"]
    # the register's element overlaps a lane's: Triton XORs it into the base, each access its own register
    R = LinearLayout({"register": [(3,)], "lane": [(1 << i,) for i in range(6)], "warp": []}, [("dim0", 64)])
    S = LinearLayout({"offset": [(1 << i,) for i in range(6)]}, [("dim0", 64)])
    p = plan(*normalize(R, S), 32, "load", "auto", hw)
    assert p.mnemonic(hw) == "ds_read_b32" and not p.pair.paired
    assert p.pair.unpaired == "every access has its own address register"
    # 16-byte vectors are never paired; NVIDIA has no pairs
    R = LinearLayout({"register": [(1,), (2,)], "lane": [(4 << i,) for i in range(6)], "warp": []}, [("dim0", 256)])
    S = LinearLayout({"offset": [(1 << i,) for i in range(8)]}, [("dim0", 256)])
    assert plan(*normalize(R, S), 32, "load", "auto", hw).mnemonic(hw) == "ds_read_b128"


def test_pair_of_two_registers_replays():
    """The pairing register may be a combination (registers 16 and 2064 of the gfx942 B operand): the
    plan re-bases one register onto it; the witness names R's registers through ``thread``."""
    regs = [(1,), (2,), (8,), (16,), (2064,)]
    R = LinearLayout({"register": regs, "lane": [(32,), (68,), (136,), (272,), (516,), (4,)], "warp": [(1032,), (0,)]},
                     [("dim0", 4096)])
    S = LinearLayout({"offset": [(1 << i,) for i in range(12)]}, [("dim0", 4096)])
    hw = PRESETS["gfx942"]
    p = plan(*normalize(R, S), 16, "load", "auto", hw)
    assert p.mnemonic(hw) == "ds_read2st64_b64" and p.source is not None
    assert p.thread(1 << 3, 0) == (0b11000, 0)          # the re-based register stands for R's registers 3 and 4
    r = bank_conflict_free(R, S, 16, direction="load", hardware=hw, engines=Engines("both"))
    assert r.details["pair"]["register"] == 0b11000 and r.details["pair"]["address_bytes"] == 4096
    assert r.details["wavefronts"] == brute_wavefronts(R, S, 16, "load", "auto", hw)


@pytest.mark.parametrize("preset", ["gfx942", "gfx950", "gfx1250"])
def test_paired_model_matches_enumeration(preset):
    """Random 1-D layouts whose registers sit above the lanes (additive, so fused): the F2 count equals the
    enumeration of every phase, and both engines agree."""
    import random
    rng = random.Random(11)
    hw = PRESETS[preset]
    lanes = hw.warp_size.bit_length() - 1
    seen = 0
    for _ in range(12):
        bits = rng.choice([16, 32, 64])
        n = lanes + 3
        order = list(range(n))
        rng.shuffle(order)
        regs, lane_bits = [1 << order[i] for i in range(2)], [1 << order[i] for i in range(2, 2 + lanes)]
        R = LinearLayout({"register": [(c,) for c in regs], "lane": [(c,) for c in lane_bits], "warp": []},
                         [("dim0", 1 << n)])
        S = LinearLayout({"offset": [(1 << i,) for i in range(n)]}, [("dim0", 1 << n)])
        for direction in ("load", "store"):
            r = bank_conflict_free(R, S, bits, direction=direction, hardware=hw, engines=Engines("both"))
            seen += "pair" in r.details
            assert r.details["wavefronts"] == brute_wavefronts(R, S, bits, direction, "auto", hw)
    assert seen
