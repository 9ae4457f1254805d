"""AMD paired LDS accesses (ds_read2*, ds_write2*, ds_*_2addr*) of padded shared layouts: the padded plan goes
through `smem.pairs` with padded immediates (Triton's lowerLdSt pads each additive constant apart:
phys(a | b) = phys(a) + phys(b) for disjoint a, b), so the padding decides the offset fields, the form and
whether LLVM can pair at all; the pair's bank model is the target's (gfx1250 serves both addresses in one
phase, gfx942 / gfx950 each in its own pass). Worked examples by value, both engines, witnesses replayed."""

import random
from dataclasses import replace

import pytest

from checker.hardware import PRESETS
from checker.layout import LinearLayout
from checker.padded import PaddedLayout
from checker.properties.bank_conflicts import bank_conflict_free
from checker.properties.padded_access import enumerate_costs, normalize_padded, padded_plan
from checker.properties.smem import pairs as lds_pairs
from checker.verdict import Engines


def one_d(lanes: int, registers: list[int], n: int, vector: tuple[int, ...] = ()):
    """R: the vector registers `vector`, then the lanes on the next offset bits, then `registers`, over a 1-D
    tensor of 2^n; S row-major."""
    R = LinearLayout({"register": [(c,) for c in list(vector) + registers],
                      "lane": [(1 << i,) for i in range(len(vector), len(vector) + lanes)], "warp": []},
                     [("dim0", 1 << n)])
    S = LinearLayout({"offset": [(1 << i,) for i in range(n)]}, [("dim0", 1 << n)])
    return R, S


def test_padded_immediates_are_padded_offsets():
    """A register at offset 64 over lanes at 0..63, one pad of 2 per 64: Triton's immediate is phys(64) = 66,
    not 64."""
    pad = PaddedLayout(one_d(6, [64], 7)[1], (64,), (2,)).phys
    assert lds_pairs.address_registers([64], [1 << i for i in range(6)], 0, pad) == {0: [(0, 0), (1, 66)]}
    assert lds_pairs.address_registers([64], [1 << i for i in range(6)], 0) == {0: [(0, 0), (1, 64)]}
    p = lds_pairs.pairing([64], [1 << i for i in range(6)], 0, 4, 4, pad)
    assert p.paired and p.fields == ((0, 66, False),)


def test_read2_b32_padded_offset_on_gfx942():
    """gfx942, fp32, lanes 0-63 at elements 0-63, the register at 64, padding [64: 2]: the second address is
    slot 66 (264 bytes), so LLVM fuses ds_read2_b32 offset1:66 (unpadded it would be ds_read2st64_b32
    offset1:1). Each address its own pass: 4 wavefronts for 4 phases, as the two single reads."""
    R, S = one_d(6, [64], 7)
    r = bank_conflict_free(R, PaddedLayout(S, (64,), (2,)), 32, direction="load", hardware="gfx942",
                           engines=Engines("both"))
    d = r.details
    assert r.holds and (d["mnemonic"], d["asm"], d["vector_bytes"]) == ("ds_read2_b32", "ds_read2_b32", 4)
    assert d["pair"] == {"register": 1, "address_bytes": 264, "stride64": False, "addresses_served": "apart",
                         "offsets": [[0, 66]], "element_bytes": 4}
    assert (d["instructions_per_warp"], d["phases_per_instruction"], d["wavefronts"], d["min_wavefronts"]) == \
        (1, 4, 4, 4)
    assert bank_conflict_free(R, S, 32, direction="load", hardware="gfx942").details["mnemonic"] == \
        "ds_read2st64_b32"


def test_load_2addr_padding_makes_a_cross_address_conflict_on_gfx1250():
    """gfx1250 (wave32, 64 banks), fp32, lanes 0-31 at elements 0-31, the register at 32, padding [32: 1]:
    ds_load_2addr_b32 offset1:33; both addresses of a lane in one phase, so lane 31's second address (slot
    64, word 64) shares bank 0 with lane 0's first (word 0): 1 conflict, 2 wavefronts for 1 phase. Unpadded
    the pair is conflict-free (words 0..63). Both engines find it; the witnesses replay."""
    R, S = one_d(5, [32], 6)
    M = PaddedLayout(S, (32,), (1,))
    for engine in ("f2", "z3", "both"):
        r = bank_conflict_free(R, M, 32, direction="load", hardware="gfx1250", engines=Engines(engine))
        d = r.details
        assert not r.holds and (d["mnemonic"], d["conflicts"], d["wavefronts"], d["min_wavefronts"]) == \
            ("ds_load_2addr_b32", 1, 2, 1)
        assert d["pair"] == {"register": 1, "address_bytes": 132, "stride64": False, "addresses_served": "together",
                             "offsets": [[0, 33]], "element_bytes": 4}
        cx = r.counterexample
        assert cx.replay()
        got = cx.to_dict()
        assert got["mnemonic"] == "ds_load_2addr_b32" and got["bank"] == 0 and got["instruction_registers"] == [0, 1]
        assert sorted((a["lane"], a["register"], a["physical_offset"], a["byte_address"], a["word"])
                      for a in got["accesses"]) == [(0, 0, 0, 0, 0), (31, 1, 64, 256, 64)]
    assert bank_conflict_free(R, M, 32, direction="store", hardware="gfx1250").details["mnemonic"] == \
        "ds_store_2addr_b32"
    assert bank_conflict_free(R, S, 32, direction="load", hardware="gfx1250").holds


def test_padding_decides_the_form_or_no_pair():
    """fp16, 4-element vectors (8 bytes), lanes over elements 4..255, the register at 256 (gfx942): unpadded
    the immediate is 512 bytes -> ds_read2st64_b64 offset1:1; padding [256: 4] makes it 520 bytes -> the
    plain ds_read2_b64 offset1:65; padding [256: 2] makes it 516 bytes, not a multiple of 8: LLVM cannot fuse
    and the single ds_read_b64 is scored. Each address its own pass: 8 wavefronts every time."""
    R, S = one_d(6, [256], 9, vector=(1, 2))
    got = {}
    for pads in ((), (4,), (2,)):
        M = PaddedLayout(S, (256,) * len(pads), pads) if pads else S
        r = bank_conflict_free(R, M, 16, direction="load", hardware="gfx942", engines=Engines("both"))
        pair = r.details.get("pair") or {}
        got[pads] = (r.status, r.details["mnemonic"], pair.get("offsets"), pair.get("address_bytes"),
                     r.details["wavefronts"])
    assert got == {(): ("holds", "ds_read2st64_b64", [[0, 1]], 512, 8),
                   (4,): ("holds", "ds_read2_b64", [[0, 65]], 520, 8),
                   (2,): ("holds", "ds_read_b64", None, None, 8)}
    M = PaddedLayout(S, (256,), (2,))
    p = padded_plan(*normalize_padded(R, M), 16, "load", PRESETS["gfx942"])
    assert p.pair.unpaired == "an offset is not a multiple of the access width"


@pytest.mark.parametrize("preset", ["gfx942", "gfx950", "gfx1250"])
def test_random_padded_pairs_engines_agree(preset):
    """Random 1-D padded layouts with registers above, between or among the lanes: both engines agree,
    witnesses replay; where each address is its own pass (gfx942, gfx950) the pair costs what the single
    accesses cost."""
    rng = random.Random(26)
    hw = PRESETS[preset]
    lanes = hw.warp_size.bit_length() - 1
    seen = set()
    for _ in range(16):
        bits = rng.choice([16, 32, 64])
        n = lanes + 3
        order = list(range(n))
        rng.shuffle(order)
        regs = [1 << order[i] for i in range(3)]
        R = LinearLayout({"register": [(c,) for c in regs], "lane": [(1 << o,) for o in order[3:]], "warp": []},
                         [("dim0", 1 << n)])
        S = LinearLayout({"offset": [(1 << i,) for i in range(n)]}, [("dim0", 1 << n)])
        k = rng.choice([1, 2])
        intervals = tuple(rng.sample([4, 8, 16, 32, 64, 128], k))
        M = PaddedLayout(S, intervals, tuple(rng.choice([1, 2, 4, 8]) for _ in range(k)))
        for direction in ("load", "store"):
            f2 = bank_conflict_free(R, M, bits, direction=direction, hardware=hw, engines=Engines("f2"))
            z3 = bank_conflict_free(R, M, bits, direction=direction, hardware=hw, engines=Engines("z3"))
            assert f2.status == z3.status != "unknown" and f2.details == z3.details
            for r in (f2, z3):
                if r.fails:
                    assert r.counterexample.replay()
            seen.add(f2.details["mnemonic"])
            if "pair" in f2.details and f2.details["pair"]["addresses_served"] == "apart":
                p = padded_plan(*normalize_padded(R, M), bits, direction, hw)
                if p.source is None:  # the pair register back among the instruction bits: the single reads
                    single = replace(p, pair=None, select_regs=())
                    assert enumerate_costs(single, M, hw)[0] == f2.details["wavefronts"]
    assert any("2" in m for m in seen)
