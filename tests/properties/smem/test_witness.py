"""The witness of a conflict (`checker.properties.smem.witness`): its data by value, its replay, a forged
witness refused, and the witnesses built directly from a plan."""

from checker.hardware import resolve
from checker.properties.bank_conflicts import bank_conflict_free
from checker.properties.smem.plan import normalize, plan, word_map
from checker.properties.smem.witness import access_index, describe, hardware_witness
from checker.verdict import Engines

from ..test_bank_conflicts import H100, _h100, h100_side


def test_witness_sts128_quarter_warp():
    r = _h100("f32_32x32_row8_unswz", "store")
    assert r.counterexample.to_dict() == {
        "kind": "bank_conflict", "model": "hardware", "hardware": "sm90", "instruction": "st.shared",
        "mnemonic": "STS.128", "warp": 0, "instruction_registers": [0, 1, 2, 3],
        "phase": {"lanes": list(range(8)), "registers": [0, 1, 2, 3]},
        "accesses": [{"register": 0, "lane": 0, "warp": 0, "offset": 0, "byte_address": 0, "word": 0},
                     {"register": 0, "lane": 4, "warp": 0, "offset": 32, "byte_address": 128, "word": 32}],
        "bank": 0}
    assert r.explanation.startswith("STS.128 (st.shared, 16 B per lane), 2 per warp, 4 phase(s) each: "
                                    "64 wavefronts for 32 phases")
    assert ("lane 0 register 0 writes byte 0 (word 0) and lane 4 register 0 writes byte 128 (word 32), "
            "both in bank 0") in r.explanation


def test_witness_ldmatrix_and_64bit():
    r = _h100("f16_64x64_mma3_unswz", "load")
    d = r.counterexample.to_dict()
    assert (d["mnemonic"], d["instruction_registers"], d["phase"]["registers"], d["bank"]) == \
        ("LDSM.16.M88.4", list(range(8)), [0, 1], 0)
    assert [(a["lane"], a["byte_address"]) for a in d["accesses"]] == [(0, 0), (4, 128)]
    assert r.details["cost_per_phase"] == 8
    r = _h100("f32_64x64_mma2_unswz", "store")
    d = r.counterexample.to_dict()
    assert (d["mnemonic"], d["phase"]["lanes"], d["bank"]) == ("STS.64", list(range(16)), 0)
    assert [(a["lane"], a["register"], a["byte_address"], a["word"]) for a in d["accesses"]] == \
        [(0, 0, 0, 0), (4, 0, 256, 64)]


def test_single_engines_and_serialization():
    R, S, bits = h100_side(next(c for c in H100 if c["id"] == "f32_32x32_t8x4_unswz"), "store")
    for engine in ("f2", "z3"):
        r = bank_conflict_free(R, S, bits, engines=Engines(engine))
        assert list(r.verdicts) == [engine] and r.fails and r.counterexample.replay()
        assert r.to_dict()["details"]["wavefronts"] == 256
    cx = bank_conflict_free(R, S, bits).counterexample
    forged = dict(cx.data, bank=cx.data["bank"] + 1)
    assert not cx.recompute(forged)


def test_hardware_witness_from_a_plan():
    """Lanes 0 and 4 of STS.128's first phase write words 0 and 32: bank 0 twice. The witness replays; a
    pair in different banks, or a forged word, does not."""
    R, S, bits = h100_side(next(c for c in H100 if c["id"] == "f32_32x32_row8_unswz"), "store")
    Rn, Sn = normalize(R, S)
    hw = resolve("sm90")
    p = plan(Rn, Sn, bits, "store", "auto", hw)
    wm = word_map(p, hw)
    cx = hardware_witness(Rn, Sn, p, hw, wm, {}, {"lane": 4})
    assert cx.replay() and cx.to_dict() == _h100("f32_32x32_row8_unswz", "store").counterexample.to_dict()
    assert describe(cx).endswith("lane 4 register 0 writes byte 128 (word 32), both in bank 0")
    assert access_index(p, cx.data["accesses"][1]) == {"register": 0, "lane": 4, "warp": 0, "block": 0}
    assert not hardware_witness(Rn, Sn, p, hw, wm, {}, {"lane": 1}).replay()       # word 4: bank 4
    forged = dict(cx.data, accesses=[cx.data["accesses"][0], dict(cx.data["accesses"][1], word=64)])
    assert not cx.recompute(forged)


def test_triton_witness_replays():
    from checker.properties.smem.triton_count import triton_count
    from checker.properties.smem.witness import first_common, triton_witness
    R, S, bits = h100_side(next(c for c in H100 if c["id"] == "f16_64x64_rowvec_to_c32x1_swz1.4.16"), "load")
    Rn, Sn = normalize(R, S)
    t = triton_count(Rn, Sn, bits, resolve("sm90"))
    assert t.conflicts == 3
    v, seg, lane = first_common(t.segment_bases, t.lane_bases)
    assert v and seg and lane
    cx = triton_witness(Rn, Sn, t, seg, lane)
    assert cx.replay() and cx.data["lanes"] == [0, lane]
    assert not cx.recompute(dict(cx.data, segments=[0, 0]))
    assert first_common([1, 2], [4, 8]) is None
