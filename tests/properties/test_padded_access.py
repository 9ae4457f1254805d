"""Padded shared memory: bank conflicts and alignment of the accesses Triton emits, calibrated on the 23
public H100 kernels of padded_h100.jsonl (README-h100.md), witnesses by value, and random padded layouts
on which the enumeration and Z3 engines must agree (hypothesis)."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from checker import parse_encoding, prove
from checker.errors import CheckerError
from checker.layout import LinearLayout
from checker.padded import PaddedLayout
from checker.properties.aligned import aligned_access
from checker.properties.bank_conflicts import bank_conflict_free
from checker.verdict import Engines

from ..conftest import load_jsonl

PADDED = load_jsonl("padded_h100.jsonl")
SIDES = [(c, side) for c in PADDED for side in ("store", "load")]


def side_of(case, side):
    R = parse_encoding(case["R" if side == "store" else "R2"]["triton_attr"])
    return R, parse_encoding(case["S"]["triton_attr"])


@pytest.mark.parametrize("case, side", SIDES, ids=[f"{c['id']}-{s}" for c, s in SIDES])
def test_h100_padded_side(case, side):
    """Instruction, count per warp and wavefronts equal the measured ones on every side."""
    R, S = side_of(case, side)
    r = prove.bank_conflict_free(R, S, case["shape"], {"fp32": 32, "fp16": 16, "int8": 8}[case["dtype"]],
                                 direction=side, hardware="sm90")
    d = r.details
    ops = {k: v for k, v in case["sass_shared_ops"].items() if k.startswith("ST" if side == "store" else "LD")}
    assert ops == {d["mnemonic"]: d["instructions_per_warp"]}
    measured = case["measured"][side]
    assert d["min_wavefronts"] == measured["ideal_wavefronts_phases"]
    if measured["wavefronts"] is None:   # the kernel faulted (misaligned): no counters
        assert case["runtime_error"] and not case["correct"]
    elif measured.get("executed_eq_static", True):
        assert d["wavefronts"] == measured["wavefronts"]
        assert r.holds == (measured["conflicts"] == 0)
    assert set(r.verdicts) == {"f2", "z3"} and r.verdicts["z3"].status == r.status
    if r.fails:
        assert r.counterexample.replay() and r.verdicts["z3"].counterexample.replay()


def test_h100_calibration_totals():
    """44 measured sides (the 45th and 46th are the faulting kernel's), all equal; 24 with conflicts."""
    measured = [(c, s) for c, s in SIDES if c["measured"][s]["wavefronts"] is not None]
    assert len(measured) == 44
    assert sum(c["measured"][s]["conflicts"] > 0 for c, s in measured) == 24


@pytest.mark.parametrize("case", PADDED, ids=[c["id"] for c in PADDED])
def test_aligned_access_flags_exactly_the_faulting_kernels(case):
    results = [prove.aligned_access(*side_of(case, side), case["shape"], case["dtype"], direction=side)
               for side in ("store", "load")]
    assert any(r.fails for r in results) == (case["runtime_error"] is not None)
    for r in results:
        assert r.verdicts["z3"].status == r.verdicts["f2"].status == r.status


def test_faulting_kernel_witness():
    """LDS.128 at a 132-byte row pitch: lane 8 (row 1) reads 16 bytes at byte 132."""
    case = next(c for c in PADDED if c["id"] == "f32_32x32_col4_to_row4_pad32.1")
    store = prove.aligned_access(*side_of(case, "store"), [32, 32], "fp32", direction="store")
    assert store.holds and store.details["mnemonic"] == "STS" and store.details["vector_bytes"] == 4
    r = prove.aligned_access(*side_of(case, "load"), [32, 32], "fp32", direction="load")
    assert r.fails and r.details["accesses_per_cta"] == 256
    assert r.counterexample.to_dict() == {
        "kind": "misaligned_access", "instruction": "ld.shared", "mnemonic": "LDS.128", "lane": 8, "register": 0,
        "warp": 0, "offset": 32, "physical_offset": 33, "byte_address": 132, "vector_bytes": 16,
        "vector": [[0, 8], [1, 8], [2, 8], [3, 8]], "padding": [[32, 1]]}
    assert r.verdicts["z3"].counterexample.replay()
    bad = dict(r.counterexample.data, byte_address=128)
    assert not r.counterexample.recompute(bad)


def test_padded_bank_conflict_witness():
    """The transpose load through [32:+4]: 4 rows of 36 words share each bank (lanes 0 and 8)."""
    case = next(c for c in PADDED if c["id"] == "f32_32x32_row1_to_col1_pad32.4")
    r = prove.bank_conflict_free(*side_of(case, "load"), [32, 32], 32, direction="load")
    assert (r.details["wavefronts"], r.details["min_wavefronts"], r.details["conflicts"]) == (128, 32, 3)
    assert r.details["phase_costs"] == {"4": 32}
    cx = r.counterexample.to_dict()
    assert cx["bank"] == 0 and [(a["lane"], a["offset"], a["physical_offset"], a["byte_address"], a["word"])
                                for a in cx["accesses"]] == [(0, 0, 0, 0, 0), (8, 256, 288, 1152, 288)]
    assert r.verdicts["z3"].counterexample.replay()


def test_padded_refuses_what_triton_does_not_emit():
    case = PADDED[0]
    R, S = side_of(case, "store")
    with pytest.raises(CheckerError, match="padded layout is moved with ld/st.shared"):
        prove.bank_conflict_free(R, S, [32, 32], 32, access="stmatrix")
    with pytest.raises(CheckerError, match="Triton's bank_conflicts takes linear shared layouts only"):
        prove.bank_conflict_free(R, S, [32, 32], 32, model="triton")


# ------------------------------------------------------------------ random padded layouts


@st.composite
def padded_cases(draw):
    """A 2-D tile of 2^a x 2^b, a register layout of 32 lanes and 1-4 warps, a padded shared layout whose
    linear component is a random permutation of the offset bits, and 1-2 (interval, padding) pairs."""
    a, b = draw(st.integers(2, 5)), draw(st.integers(2, 5))
    n = a + b
    coords = [(1 << i, 0) for i in range(a)] + [(0, 1 << j) for j in range(b)]
    reg_order = draw(st.permutations(range(n)))
    lanes, warps = 5, draw(st.integers(0, min(2, n - 5))) if n > 5 else 0
    regs = n - lanes - warps
    if regs < 0:
        regs, lanes, warps = 0, n, 0
    cols = [coords[i] for i in reg_order]
    zero = (0, 0)
    lane_bases = cols[regs:regs + lanes] + [zero] * (5 - lanes)
    R = LinearLayout({"register": cols[:regs], "lane": lane_bases, "warp": cols[regs + lanes:], "block": []},
                     [("dim0", 1 << a), ("dim1", 1 << b)])
    S = LinearLayout({"offset": [coords[i] for i in draw(st.permutations(range(n)))], "block": []},
                     [("dim0", 1 << a), ("dim1", 1 << b)])
    k = draw(st.integers(1, 2))
    intervals = draw(st.lists(st.sampled_from([2, 4, 8, 16, 32, 64]), min_size=k, max_size=k, unique=True))
    paddings = draw(st.lists(st.sampled_from([1, 2, 4, 8]), min_size=k, max_size=k))
    bits = draw(st.sampled_from([8, 16, 32, 64]))
    direction = draw(st.sampled_from(["store", "load"]))
    return R, PaddedLayout(S, tuple(intervals), tuple(paddings)), bits, direction


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(padded_cases())
def test_random_padded_engines_agree(case):
    R, M, bits, direction = case
    for prop in (bank_conflict_free, aligned_access):
        f2 = prop(R, M, bits, direction=direction, engines=Engines("f2"))
        z3 = prop(R, M, bits, direction=direction, engines=Engines("z3"))
        assert f2.status == z3.status != "unknown"
        for r in (f2, z3):
            if r.fails:
                assert r.counterexample.replay()
