"""bank_conflict_free: Triton's model on every recorded case, the hardware model on every H100 side,
witnesses by value, and a brute-force enumeration (tests only) on small random layouts."""

import ast
import random

import pytest

from checker import prove
from checker.errors import CheckerError
from checker.hardware import PRESETS, resolve
from checker.layout import LinearLayout
from checker.properties.bank_conflicts import bank_conflict_free
from checker.properties.smem.plan import normalize, plan
from checker.syntax.gluon import from_gluon
from checker.verdict import Engines

from ..conftest import load_jsonl

TRITON_CASES = load_jsonl("bank_conflicts.jsonl")
H100 = load_jsonl("h100_bank_conflicts.jsonl")
TARGETS = {"cuda:90": "sm90", "hip:gfx942": "gfx942", "hip:gfx950": "gfx950"}
DTYPE_BITS = {"fp32": 32, "fp16": 16, "int8": 8}
# The one documented counter artifact (README-h100.md): a deterministic +3 on one int8 load.
ARTIFACT = {("i8_64x64_col1_swz16.1.4", "load"): 1024}


def gluon_ll(text: str, shape) -> LinearLayout:
    """Triton39's printed Gluon object, e.g. "SharedLinearLayout(offset_bases=[[0, 1]], block_bases=[], ...)"."""
    call = ast.parse(text, mode="eval").body
    kw = {k.arg: ast.literal_eval(k.value) for k in call.keywords}
    outs = [(f"dim{i}", s) for i, s in enumerate(shape)]
    if call.func.id == "SharedLinearLayout":
        return LinearLayout([("offset", kw["offset_bases"]), ("block", kw["block_bases"])], outs)
    return LinearLayout([("register", kw["reg_bases"]), ("lane", kw["lane_bases"]), ("warp", kw["warp_bases"]),
                         ("block", kw["block_bases"])], outs)


def h100_side(case, side):
    ll = case["triton39_ll"]
    R = gluon_ll(ll["R" if side == "store" else "R2"], case["shape"])
    return R, gluon_ll(ll["S"], case["shape"]), DTYPE_BITS[case["dtype"]]


# ------------------------------------------------------------------ Triton's model


@pytest.mark.parametrize("case", TRITON_CASES, ids=[c["id"] for c in TRITON_CASES])
def test_triton_model_conformance(case):
    hw = TARGETS[case["target"]]
    R = LinearLayout.from_triton_json(case["reg_linear_layout"])
    if case["error"] is not None and case.get("shared_linear_layout") is None:
        # Triton rejected the shared type itself: lowering the encoding at the shape rejects it too.
        with pytest.raises(CheckerError, match=case["error"]["message"].split(",")[0]):
            prove.bank_conflict_free(R, from_gluon(case["shared_layout"]), case["shape"], case["element_bitwidth"],
                                     model="triton", hardware=hw)
        return
    if case["error"] is not None:
        with pytest.raises(CheckerError, match="bank_conflicts aborts"):
            bank_conflict_free(R, LinearLayout.from_triton_json(case["shared_linear_layout"]),
                               case["element_bitwidth"], model="triton", hardware=hw)
        return
    S = LinearLayout.from_triton_json(case["shared_linear_layout"])
    r = bank_conflict_free(R, S, case["element_bitwidth"], model="triton", hardware=hw)
    assert r.details["conflicts"] == case["bank_conflicts"]
    assert r.holds == (case["bank_conflicts"] == 0)
    assert r.details["wavefronts"] == r.details["min_wavefronts"] * (case["bank_conflicts"] + 1)


def test_triton_model_error_messages():
    by_id = {c["id"]: c for c in TRITON_CASES}
    hip = by_id["bank-blocked-swizzled_shared-2a83a76fc4df"]
    with pytest.raises(CheckerError, match="aborts on AMD targets"):
        bank_conflict_free(LinearLayout.from_triton_json(hip["reg_linear_layout"]),
                           LinearLayout.from_triton_json(hip["shared_linear_layout"]), 16,
                           model="triton", hardware="gfx942")
    tiny = by_id["bank-blocked-swizzled_shared-72d3b2874a11"]  # 4x4 16-bit: 16 offsets < vector 4 x bank 16
    with pytest.raises(CheckerError, match="segment split of the 16 shared offsets is 0, not a power of two"):
        bank_conflict_free(LinearLayout.from_triton_json(tiny["reg_linear_layout"]),
                           LinearLayout.from_triton_json(tiny["shared_linear_layout"]), 16, model="triton")


def test_triton_model_outside_image_solves_to_zero():
    """partitioned_shared leaves the partition bit out of S; Triton's lstsq maps that warp to offset 0."""
    case = next(c for c in TRITON_CASES if c["shared_family"] == "partitioned_shared")
    R = LinearLayout.from_triton_json(case["reg_linear_layout"])
    S = LinearLayout.from_triton_json(case["shared_linear_layout"])
    r = bank_conflict_free(R, S, 16, model="triton")
    assert (r.details["conflicts"], r.details["vec"], r.details["bank"], r.details["segment"]) == (1, 4, 16, 32)
    assert r.counterexample.to_dict() == {
        "kind": "bank_conflict", "model": "triton", "lanes": [0, 8], "register": 0, "warp": 0,
        "offsets": [{"offset": 0, "block": 0}, {"offset": 256, "block": 0}],
        "coordinates": [{"dim0": 0, "dim1": 0}, {"dim0": 8, "dim1": 0}], "bank": 0, "segments": [0, 4],
        "vector": 4, "wavefront_lanes": 16}
    with pytest.raises(CheckerError, match="not all in S"):  # the hardware model refuses such a pair
        bank_conflict_free(R, S, 16, hardware="gfx950")


# ------------------------------------------------------------------ the hardware model


@pytest.mark.parametrize("side", ["store", "load"])
@pytest.mark.parametrize("case", H100, ids=[c["id"] for c in H100])
def test_hardware_model_h100(case, side):
    R, S, bits = h100_side(case, side)
    r = bank_conflict_free(R, S, bits, direction=side, triton=True)
    d = r.details
    ops = {k: v for k, v in case["sass_shared_ops"].items() if k.startswith("ST" if side == "store" else "LD")}
    assert ops == {d["mnemonic"]: d["instructions_per_warp"]}
    measured = case["measured"][side]
    assert d["min_wavefronts"] == measured["ideal_wavefronts_phases"]
    assert d["wavefronts"] == ARTIFACT.get((case["id"], side), measured["wavefronts"])
    assert d["conflicts"] * d["min_wavefronts"] == d["wavefronts"] - d["min_wavefronts"]
    assert d["triton_conflicts"] == case["triton39_predicted"][side]
    assert r.holds == (measured["conflicts"] == 0)
    assert set(r.verdicts) == {"f2", "z3"} and r.verdicts["z3"].status == r.status
    if r.fails:
        assert r.verdicts["z3"].counterexample.replay()


def test_artifact_is_the_only_miss():
    case = next(c for c in H100 if c["id"] == "i8_64x64_col1_swz16.1.4")
    assert case["measured"]["load"]["wavefronts"] == 1027 and case["measured"]["store"]["wavefronts"] == 1024


def _h100(case_id, side, **kw):
    return bank_conflict_free(*h100_side(next(c for c in H100 if c["id"] == case_id), side), direction=side, **kw)


def test_models_differ_is_explained():
    r = _h100("f16_64x64_rowvec_to_c32x1_swz1.4.16", "load", triton=True)
    assert (r.details["conflicts"], r.details["triton_conflicts"]) == (7, 3)
    assert "the models differ: Triton's bank_conflicts says 3, the hardware 7 (it counts one bank per " \
           "16-bit element" in r.explanation
    d = r.counterexample.to_dict()
    assert [(a["lane"], a["byte_address"], a["word"]) for a in d["accesses"]] == [(0, 0, 0), (1, 128, 32)]
    t = _h100("f16_64x64_rowvec_to_c32x1_swz1.4.16", "load", model="triton")
    assert t.details["conflicts"] == 3 and t.details["instruction"] == "ld.shared"



def test_bad_requests():
    R, S, _ = h100_side(H100[0], "store")
    for kw, field in (({"direction": "both"}, "direction"), ({"model": "ncu"}, "model"),
                      ({"access": "tma"}, "access"), ({"hardware": "sm70"}, "hardware")):
        with pytest.raises(CheckerError) as e:
            bank_conflict_free(R, S, 32, **kw)
        assert e.value.field == field
    with pytest.raises(CheckerError) as e:
        bank_conflict_free(R, S, 24)
    assert e.value.field == "dtype_bits"
    with pytest.raises(CheckerError) as e:
        bank_conflict_free(S, R, 32)
    assert e.value.field == "R"




# ------------------------------------------------------------------ brute force (tests only)


def brute_wavefronts(R, S, bits, direction, access, hw):
    """Enumerate every access of every phase: R gives the element, S (inverted by enumeration) its offset."""
    R, S = normalize(R, S)
    p = plan(R, S, bits, direction, access, hw)
    where = {}
    for o in range(S.in_dim_size("offset")):
        where.setdefault(tuple(S.apply({"offset": o, "block": 0}).values()), o)
    eb = bits // 8
    n = p.cvt.in_dim_size_log2("register")
    select = sum(1 << j for j in p.select_regs)
    instr = sum(1 << j for j in p.instr_regs)
    total = 0
    for w in range(R.in_dim_size("warp")):
        for key in {r & (instr | select) for r in range(1 << n)}:
            regs = [r for r in range(1 << n) if r & (instr | select) == key]
            for group in p.groups:
                words = set()
                for r in regs:
                    for lane in group:
                        reg, ln = p.thread(r, lane)  # R's register and lane (a paired plan may combine registers)
                        idx = {"register": reg, "lane": ln, "warp": w, "block": 0}
                        off = where[tuple(R.apply(idx).values())]
                        words |= {b // hw.bank_bytes for b in range(off * eb, off * eb + eb)}
                per_bank = {}
                for word in words:
                    per_bank[word % hw.banks] = per_bank.get(word % hw.banks, 0) + 1
                total += max(per_bank.values())
    return total


def random_pair(rng, bits, slots_reg, warps_log, zeros, friendly):
    """R deals the tensor's bits to register/lane/warp slots (`zeros` of them broadcast); S is a random
    invertible swizzle. `friendly` keeps one 16-byte row contiguous (registers, then lanes 0 and 1) so
    that ldmatrix/stmatrix apply."""
    slots = slots_reg + 5 + warps_log
    n = slots - zeros
    units = [1 << i for i in range(n)]
    t = max(0, (32 // bits).bit_length() - 1) if bits <= 32 else 0
    keep = t + 2 if friendly and bits <= 32 and slots_reg >= t else 0
    rest = units[keep:]
    rng.shuffle(rest)
    rest += [0] * zeros
    rng.shuffle(rest)
    if keep:
        regs = units[:t] + rest[:slots_reg - t]
        rest = rest[slots_reg - t:]
        lanes = units[t:t + 2] + rest[:3]
        rest = rest[3:]
    else:
        regs, lanes, rest = rest[:slots_reg], rest[slots_reg:slots_reg + 5], rest[slots_reg + 5:]
    warps = rest
    outs = [("dim0", 1 << n)]
    R = LinearLayout({"register": [(c,) for c in regs], "lane": [(c,) for c in lanes],
                      "warp": [(c,) for c in warps]}, outs)
    offs = [1 << i for i in range(n)]
    for i in range(keep, n):  # XOR random higher bits into each basis: still invertible
        for j in range(i + 1, n):
            if rng.random() < 0.25:
                offs[i] ^= 1 << j
    high = offs[keep:]
    rng.shuffle(high)
    return R, LinearLayout({"offset": [(c,) for c in offs[:keep] + high]}, outs)


@pytest.mark.parametrize("seed", range(48))
def test_brute_force_agrees(seed):
    rng = random.Random(seed)
    bits = rng.choice([8, 16, 32, 64])
    hw = resolve(rng.choice(["sm90", "sm80", "sm100", "gfx11"]))
    R, S = random_pair(rng, bits, rng.randint(1, 4), rng.randint(0, 2), rng.randint(0, 2), seed % 2 == 0)
    direction = rng.choice(["store", "load"])
    r = bank_conflict_free(R, S, bits, direction=direction, hardware=hw)  # engines=Engines("both":) F2 and Z3 agree
    assert r.details["wavefronts"] == brute_wavefronts(R, S, bits, direction, "auto", hw)
    assert r.holds == (r.details["wavefronts"] == r.details["min_wavefronts"])
    forced = "st.shared" if direction == "store" else "ld.shared"
    v = bank_conflict_free(R, S, bits, direction=direction, access=forced, hardware=hw)
    assert v.details["wavefronts"] == brute_wavefronts(R, S, bits, direction, forced, hw)


def test_brute_force_reaches_matrix_instructions():
    seen = set()
    for seed in range(0, 48, 2):
        rng = random.Random(seed)
        bits = rng.choice([8, 16, 32, 64])
        hw = resolve(rng.choice(["sm90", "sm80", "sm100", "gfx11"]))
        R, S = random_pair(rng, bits, rng.randint(1, 4), rng.randint(0, 2), rng.randint(0, 2), True)
        seen.add(bank_conflict_free(R, S, bits, direction=rng.choice(["store", "load"]), hardware=hw,
                                    engines=Engines("f2")).details["instruction"])
    assert {"stmatrix", "ldmatrix", "st.shared", "ld.shared"} <= seen


@pytest.mark.parametrize("seed", range(12))
def test_brute_force_transposed(seed):
    """Lanes 2, 3, 4 along a contiguous row (and, for 8-bit, one register next): only .trans applies."""
    rng = random.Random(100 + seed)
    bits, hw = (16, "sm90") if seed % 2 else (8, "sm100")
    n = 11
    keep = 3 if bits == 16 else 4
    rest = [1 << i for i in range(keep, n)]
    rng.shuffle(rest)
    regs = ([] if bits == 16 else [(8,)]) + [(c,) for c in rest[:3]]
    lanes = [(rest[-1],), (rest[-2],), (1,), (2,), (4,)]
    used = {c for (c,) in regs + lanes}
    warps = [(c,) for c in [1 << i for i in range(n)] if c not in used]
    R = LinearLayout({"register": regs, "lane": lanes, "warp": warps}, [("dim0", 1 << n)])
    offs = [1 << i for i in range(n)]
    for i in range(keep, n):
        for j in range(i + 1, n):
            if rng.random() < 0.3:
                offs[i] ^= 1 << j
    S = LinearLayout({"offset": [(c,) for c in offs]}, [("dim0", 1 << n)])
    for direction in ("store", "load"):
        r = bank_conflict_free(R, S, bits, direction=direction, hardware=hw)
        assert r.details["instruction"] == ("stmatrix" if direction == "store" else "ldmatrix") + ".trans"
        assert r.details["wavefronts"] == brute_wavefronts(R, S, bits, direction, "auto", PRESETS[hw])


@pytest.mark.parametrize("side", ["store", "load"])
def test_brute_force_h100(side):
    for case in H100:
        R, S, bits = h100_side(case, side)
        r = bank_conflict_free(R, S, bits, direction=side, engines=Engines("f2"))
        assert r.details["wavefronts"] == brute_wavefronts(R, S, bits, side, "auto", PRESETS["sm90"]), case["id"]


def test_brute_force_amd_wave64():
    rng = random.Random(7)
    for preset in ("gfx942", "gfx950"):
        hw = PRESETS[preset]
        for _ in range(6):
            bits = rng.choice([16, 32, 64])
            n = 8
            units = [1 << i for i in range(n)]
            rng.shuffle(units)
            R = LinearLayout({"register": [(c,) for c in units[:2]], "lane": [(c,) for c in units[2:]], "warp": []},
                             [("dim0", 1 << n)])
            offs = [1 << i for i in range(n)]
            rng.shuffle(offs)
            S = LinearLayout({"offset": [(c ^ (offs[(k + 3) % n] if k < 3 else 0),) for k, c in enumerate(offs)]},
                             [("dim0", 1 << n)])
            for direction in ("store", "load"):
                r = bank_conflict_free(R, S, bits, direction=direction, hardware=hw)
                assert r.details["wavefronts"] == brute_wavefronts(R, S, bits, direction, "auto", hw)
