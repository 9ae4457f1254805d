"""Triton's is_convert_layout_trivial reproduced on every recorded case, beside our proven level."""

import pytest

from checker.layout import LinearLayout
from checker.properties.conversion import conversion
from checker.verdict import Engines

from ..conftest import load_jsonl

CASES = [c for c in load_jsonl("convert_trivial.jsonl") if c["error"] is None]
DIFFERENTIAL = [c for c in load_jsonl("differential_convert_trivial.jsonl") if c["error"] is None]


def _check(case, engine):
    src = LinearLayout.from_triton_json(case["src_linear_layout"])
    dst = LinearLayout.from_triton_json(case["dst_linear_layout"])
    r = conversion(src, dst, same_encoding=case["same_encoding"], engines=Engines(engine), triton=True)
    assert r.details["triton_trivial"] is case["trivial"]
    # Every recorded conversion is between layouts of one tensor: nothing is missing.
    assert r.holds and r.details["level"] in ("register", "warp", "cta", "cross_cta")
    if case["trivial"]:
        # Triton's trivial (a register permutation) implies our proven register level.
        assert r.details["level"] == "register" and r.details["triton_class"] == "register"
    return r


def test_from_triton_json():
    L = LinearLayout.from_triton_json({"in_dims": ["register", "lane"], "in": {"register": [[0, 1]], "lane": [[2, 0]]},
                                       "shape": [4, 2]})
    assert L.out_dim_sizes == (("dim0", 4), ("dim1", 2)) and L.in_bases("lane") == ((2, 0),)
    assert L.apply({"register": 1, "lane": 1}) == {"dim0": 2, "dim1": 1}


def test_counts():
    assert len(CASES) == 211 and sum(c["trivial"] for c in CASES) == 76
    assert len(DIFFERENTIAL) == 1500


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_convert_trivial_both_engines(case):
    _check(case, "both")


def test_differential_convert_trivial_f2():
    wrong = [c["id"] for c in DIFFERENTIAL if _check(c, "f2").details["triton_trivial"] is not c["trivial"]]
    assert wrong == []


def _case(case_id):
    return next(c for c in CASES if c["id"] == case_id)


def test_register_local_where_triton_shuffles():
    """src (a slice of an MFMA layout) holds element 32 in register 1 of every thread and broadcasts over
    lane 32; dst wants element 32 in lane 32. src lane 32 already has it, so the conversion is
    register-local, but Triton's pseudo-inverse picks a lane move and classifies a warp shuffle."""
    r = _check(_case("cvt-slice-linear-45903f2bc6ca"), "both")
    assert r.details["level"] == "register"
    assert r.details["triton_trivial"] is False and r.details["triton_class"] == "warp_shuffle"
    assert r.details["triton_mixed_transpositions"] == 1


def test_reverse_direction_needs_the_warp():
    """The same pair reversed: dst register 1 of lane 0 needs element 32, which src (a lane-major linear
    layout) holds only in lane 32."""
    r = _check(_case("cvt-linear-slice-1657d34835e2"), "both")
    assert r.details["level"] == "warp"
    w = r.details["witnesses"]["register"]
    assert w["dst_index"] == {"register": 1, "lane": 0, "warp": 0, "block": 0}
    assert w["element"] == {"dim0": 32}
    assert w["src_index"] == {"register": 0, "lane": 32, "warp": 0, "block": 0}
    assert w["kept"] == ["lane", "warp", "block"]
